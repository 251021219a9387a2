// Crafted machines for the library locator and libraries.resolution: each tree has its own
// etc/ld.so.cache, written in glibc's format, and the environment names only directories inside
// the tree, so the machine's own libraries never leak in.
#pragma once

#include "checks/checks.hpp"
#include "cuda/library_families.hpp"
#include "probes/library_locator.hpp"
#include "support/test_support.hpp"
#include "util/elf_dynamic.hpp"
#include "util/environment.hpp"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck::test {

// The bytes of a "glibc-ld.so.cache1.1" file (glibc elf/cache.h) listing `entries` (soname, path).
inline std::string ld_so_cache(const std::vector<std::pair<std::string, std::string>>& entries,
                               std::int32_t flags = native_ld_cache_flags()) {
    constexpr std::size_t header_size = 48;
    constexpr std::size_t entry_size = 24;
    const std::size_t strings_at = header_size + entries.size() * entry_size;
    std::string strings;
    std::string table(strings_at, '\0');
    const auto put = [&](std::size_t at, auto value) { std::memcpy(table.data() + at, &value, sizeof value); };
    std::memcpy(table.data(), "glibc-ld.so.cache1.1", 20);
    put(20, static_cast<std::uint32_t>(entries.size()));
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::size_t at = header_size + i * entry_size;
        put(at, flags);
        put(at + 4, static_cast<std::uint32_t>(strings_at + strings.size()));
        strings += entries[i].first + '\0';
        put(at + 8, static_cast<std::uint32_t>(strings_at + strings.size()));
        strings += entries[i].second + '\0';
    }
    put(24, static_cast<std::uint32_t>(strings.size()));
    table[28] = 2;  // little endian
    return table + strings;
}

inline const std::string system_directory = "usr/lib/x86_64-linux-gnu";

// The smallest file elf_damage() accepts as a shared library of this machine: a 64-bit
// little-endian ELF header (ET_DYN, this machine's e_machine) with no program or section headers.
inline std::string minimal_shared_object() {
    std::string header(64, '\0');
    header[0] = 0x7f, header[1] = 'E', header[2] = 'L', header[3] = 'F';
    header[4] = 2, header[5] = 1, header[6] = 1;  // ELFCLASS64, ELFDATA2LSB, EV_CURRENT
    header[0x10] = 3;                              // ET_DYN
    const std::uint16_t machine = native_elf_machine();
    header[0x12] = static_cast<char>(machine & 0xff), header[0x13] = static_cast<char>(machine >> 8);
    header[0x14] = 1;                                // e_version
    header[0x34] = 64, header[0x36] = 56, header[0x3a] = 64;  // e_ehsize, e_phentsize, e_shentsize
    return header;
}

// A crafted machine: libraries are files whose names carry their versions, with soname links, as
// packages install them; the tree's ld.so.cache lists what `cache()` was told.
class Machine {
public:
    Machine() { environment_.set("PATH", ""); }
    // <directory>/<file> plus links named `links` pointing at it; returns the directory's full path.
    std::string library(const std::string& directory, const std::string& file,
                        std::initializer_list<std::string> links = {}) {
        tree_.write(directory + "/" + file, minimal_shared_object());
        for (const std::string& link : links) tree_.symlink(file, directory + "/" + link);
        return tree_.path() + "/" + directory;
    }
    // A whole cuDNN 9 (main and the seven sub-libraries), versioned files with soname links.
    std::string cudnn(const std::string& directory, const std::string& version) {
        for (const LibraryFamily& family : library_families())
            if (family.name.starts_with("cuDNN"))
                library(directory, std::string(family.stem) + ".so." + version, {std::string(family.sonames.back())});
        return tree_.path() + "/" + directory;
    }
    // The same, unversioned, as wheels ship it, with the wheel's dist-info beside `site`.
    std::string cudnn_wheel(const std::string& site, const std::string& dist_info) {
        for (const LibraryFamily& family : library_families())
            if (family.name.starts_with("cuDNN"))
                library(site + "/nvidia/cudnn/lib", std::string(family.sonames.back()));
        tree_.make_dir(site + "/" + dist_info);
        return tree_.path() + "/" + site + "/nvidia/cudnn/lib";
    }
    // cuDNN from the distribution's package: in the multiarch directory, every soname in the cache.
    void system_cudnn(const std::string& version) {
        cudnn(system_directory, version);
        std::vector<std::string> sonames;
        for (const LibraryFamily& family : library_families())
            if (family.name.starts_with("cuDNN")) sonames.emplace_back(family.sonames.back());
        cache(system_directory, sonames);
    }
    // Lists the sonames of `directory` in the tree's ld.so.cache, as ldconfig does.
    void cache(const std::string& directory, const std::vector<std::string>& sonames) {
        for (const std::string& soname : sonames) cache_entries_.emplace_back(soname, "/" + directory + "/" + soname);
        tree_.write("etc/ld.so.cache", ld_so_cache(cache_entries_));
    }
    void set(const std::string& name, const std::string& value) { environment_.set(name, value); }
    [[nodiscard]] const std::string& root() const { return tree_.path(); }
    [[nodiscard]] const Environment& environment() const { return environment_; }
    [[nodiscard]] const test::TempDir& tree() const { return tree_; }
    [[nodiscard]] LibraryFacts locate() const { return locate_libraries(environment_, tree_.path()); }
    [[nodiscard]] CheckResult judge() const {
        ResultBuilder builder;
        judge_library_resolution(locate(), builder);
        CheckResult result = std::move(builder).finish("libraries.resolution", std::nullopt);
        test::expect_codes_declared(result);
        return result;
    }

private:
    test::TempDir tree_;
    Environment environment_;
    std::vector<std::pair<std::string, std::string>> cache_entries_;
};

}  // namespace cudacheck::test
