// One directory on LD_LIBRARY_PATH holding copies of the ELF stand-ins (tests/CMakeLists.txt: the
// sonames, DT_NEEDED and DT_RUNPATH of NVIDIA's files), whole or truncated as a full disk leaves a
// file, for what a process would load that is damaged (probes/library_damage.hpp).
#pragma once

#include "probes/library_locator.hpp"
#include "support/fixtures.hpp"

#include <filesystem>
#include <string>

namespace cudacheck::test {

class LibraryDirectory {
public:
    // A copy of the stand-in `fixture` (a file name in CUDACHECK_ELF_FIXTURES) named `name`.
    std::string place(const std::string& fixture, const std::string& name) const {
        std::filesystem::copy_file(std::string(CUDACHECK_ELF_FIXTURES) + "/" + fixture, path(name));
        return path(name);
    }
    // The first half of the file only: what an upgrade that ran out of disk leaves.
    std::string place_truncated(const std::string& fixture, const std::string& name) const {
        place(fixture, name);
        std::filesystem::resize_file(path(name), std::filesystem::file_size(path(name)) / 2);
        return path(name);
    }
    [[nodiscard]] std::string path(const std::string& name) const { return tree_.path() + "/" + name; }
    [[nodiscard]] const std::string& path() const { return tree_.path(); }
    // The directory alone on LD_LIBRARY_PATH, no ld.so.cache, no default directories.
    [[nodiscard]] LoaderSearch search() const {
        LoaderSearch search;
        search.ld_library_path = {tree_.path()};
        return search;
    }

private:
    ScratchTree tree_;
};

}  // namespace cudacheck::test
