#include "probes/library_locator.hpp"

#include "probes/python/python_environments.hpp"

#include "probes/driver_probe.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <set>

namespace cudacheck {

using sys::directory_of;
using sys::file_name_of;

namespace {

// The directory the loader's default search uses for this architecture (Debian's multiarch name).
#if defined(__aarch64__)
constexpr std::string_view multiarch = "aarch64-linux-gnu";
#else
constexpr std::string_view multiarch = "x86_64-linux-gnu";
#endif

bool is_under(std::string_view path, std::string_view directory) {
    return !directory.empty() &&
           (path == directory ||
            (sys::starts_with(path, directory) && path.size() > directory.size() && path[directory.size()] == '/'));
}

template <typename Integer>
bool read_integer(std::string_view bytes, std::size_t offset, Integer& value) {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(Integer)) return false;
    std::memcpy(&value, bytes.data() + offset, sizeof(Integer));  // the cache is in the host's byte order
    return true;
}

std::optional<std::string> read_string(std::string_view bytes, std::size_t offset) {
    if (offset >= bytes.size()) return std::nullopt;
    const std::size_t end = bytes.find('\0', offset);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(bytes.substr(offset, end - offset));
}

// The "glibc-ld.so.cache1.1" table (glibc elf/cache.h, struct cache_file_new): a 48-byte header
// with the entry count at offset 20, then 24-byte entries {int32 flags; uint32 key, value;
// uint32 osversion; uint64 hwcap}. String offsets count from the start of this header.
std::optional<std::vector<LdCacheEntry>> parse_new_cache(std::string_view bytes) {
    constexpr std::size_t header_size = 48;
    constexpr std::size_t entry_size = 24;
    std::uint32_t count = 0;
    if (bytes.size() < header_size || !read_integer(bytes, 20, count)) return std::nullopt;
    if (count > (bytes.size() - header_size) / entry_size) return std::nullopt;
    std::vector<LdCacheEntry> entries;
    entries.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t at = header_size + i * entry_size;
        LdCacheEntry entry;
        std::uint32_t key = 0;
        std::uint32_t value = 0;
        if (!read_integer(bytes, at, entry.flags) || !read_integer(bytes, at + 4, key) ||
            !read_integer(bytes, at + 8, value) || !read_integer(bytes, at + 16, entry.hwcap))
            return std::nullopt;
        auto soname = read_string(bytes, key);
        auto path = read_string(bytes, value);
        if (!soname || !path) return std::nullopt;
        entry.soname = std::move(*soname);
        entry.path = std::move(*path);
        entries.push_back(std::move(entry));
    }
    return entries;
}

// Lists every entry of `directory` whose name is `stem`.so[.*], with the soname it provides.
struct NamedFile {
    std::string name;
    std::string soname;
    std::string real_path;
};

std::string soname_of_file(std::string_view file_name, const LibraryFamily& family) {
    for (std::string_view soname : family.distinct_sonames())
        if (file_name == soname || (sys::starts_with(file_name, soname) && file_name[soname.size()] == '.'))
            return std::string(soname);
    return {};
}

}  // namespace

std::string_view to_string(LibraryOrigin origin) {
    switch (origin) {
        case LibraryOrigin::ld_library_path: return "ld_library_path";
        case LibraryOrigin::system: return "system";
        case LibraryOrigin::toolkit: return "toolkit";
        case LibraryOrigin::pip_wheel: return "pip_wheel";
        case LibraryOrigin::conda: return "conda";
        case LibraryOrigin::wsl: return "wsl";
        case LibraryOrigin::stub: return "stub";
        case LibraryOrigin::other: return "other";
    }
    return "other";
}

std::optional<std::vector<LdCacheEntry>> parse_ld_so_cache(std::string_view bytes) {
    constexpr std::string_view new_magic = "glibc-ld.so.cache1.1";
    constexpr std::string_view old_magic = "ld.so-1.7.0";
    if (sys::starts_with(bytes, new_magic)) return parse_new_cache(bytes);
    if (!sys::starts_with(bytes, old_magic)) return std::nullopt;
    // The old table (a 16-byte header {char magic[11]; uint32 nlibs} and 12-byte entries) carries
    // no architecture for 64-bit libraries; the new table follows it, aligned to 8 bytes.
    std::uint32_t old_count = 0;
    if (!read_integer(bytes, 12, old_count)) return std::nullopt;
    const std::size_t new_start = (16 + static_cast<std::size_t>(old_count) * 12 + 7) / 8 * 8;
    if (new_start >= bytes.size()) return std::nullopt;
    const std::string_view rest = bytes.substr(new_start);
    if (!sys::starts_with(rest, new_magic)) return std::nullopt;
    return parse_new_cache(rest);
}

std::int32_t native_ld_cache_flags() {
    // glibc elf/cache.h: FLAG_ELF_LIBC6 (0x0003) | FLAG_X8664_LIB64 (0x0300) or FLAG_AARCH64_LIB64 (0x0a00).
#if defined(__aarch64__)
    return 0x0a03;
#else
    return 0x0303;
#endif
}

std::string version_from_file_name(std::string_view file_name, const LibraryFamily& family) {
    for (std::string_view soname : family.sonames)
        if (file_name == soname) return {};  // "libnvrtc.so.11.2" is a soname, not a version
    return library_version_from_path(file_name, std::string(family.stem) + ".so.");
}

std::optional<WheelInfo> wheel_from_dist_info(std::span<const std::string> names, std::string_view wheel,
                                              int soname_major) {
    if (wheel.empty()) return std::nullopt;
    constexpr std::string_view suffix = ".dist-info";
    for (const std::string& name : names) {
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string_view base = std::string_view(name).substr(0, name.size() - suffix.size());
        const std::size_t dash = base.find('-');
        if (dash == std::string_view::npos) continue;
        const std::string_view distribution = base.substr(0, dash);
        const std::string_view version = base.substr(dash + 1);
        // nvidia_cublas (CUDA 13 wheels carry no suffix) or nvidia_cublas_cu12.
        const std::string_view cuda_suffix = distribution.substr(std::min(wheel.size(), distribution.size()));
        const bool same_wheel =
            sys::starts_with(distribution, wheel) &&
            (cuda_suffix.empty() || (sys::starts_with(cuda_suffix, "_cu") && cuda_suffix.size() > 3 &&
                                     cuda_suffix.substr(3).find_first_not_of("0123456789") == std::string_view::npos));
        if (!same_wheel || std::atoi(std::string(version).c_str()) != soname_major) continue;
        std::string package(distribution);
        std::replace(package.begin(), package.end(), '_', '-');
        return WheelInfo{std::move(package), std::string(version)};
    }
    return std::nullopt;
}

bool same_release(std::string_view a, std::string_view b) {
    if (a.empty() || b.empty()) return true;
    const std::vector<std::string> left = sys::split(a, '.');
    const std::vector<std::string> right = sys::split(b, '.');
    for (std::size_t i = 0; i < std::min(left.size(), right.size()); ++i)
        if (left[i] != right[i]) return false;
    return true;
}

const std::vector<std::string>& DirectoryListings::names(const std::string& directory) {
    auto it = listings_.find(directory);
    if (it == listings_.end()) it = listings_.emplace(directory, sys::list_directory(directory)).first;
    return it->second;
}

bool DirectoryListings::contains(const std::string& directory, std::string_view name) {
    const std::vector<std::string>& listing = names(directory);
    return std::binary_search(listing.begin(), listing.end(), name);
}

LoaderSearch loader_search(const Environment& environment, const std::string& root) {
    LoaderSearch search;
    // glibc separates LD_LIBRARY_PATH entries with ':' or ';'. An empty entry means the current
    // directory; like find_in_path, cudacheck does not follow it.
    if (auto value = environment.get("LD_LIBRARY_PATH"))
        for (const std::string& part : sys::split(*value, ':'))
            for (const std::string& entry : sys::split(part, ';'))
                if (!entry.empty()) search.ld_library_path.push_back(entry);
    const std::string cache_path = root + "/etc/ld.so.cache";
    const auto bytes = sys::read_file(cache_path, std::size_t{64} << 20);
    if (!bytes) {
        search.cache_status = cache_path + " unreadable or absent";
    } else if (auto entries = parse_ld_so_cache(*bytes)) {
        // Entries in glibc-hwcaps subdirectories are picked only on CPUs that qualify; the plain
        // entry is what every machine gets.
        for (LdCacheEntry& entry : *entries)
            if (entry.flags == native_ld_cache_flags() && entry.hwcap == 0) {
                entry.path = root + entry.path;
                search.cache.push_back(std::move(entry));
            }
        search.cache_status = std::to_string(entries->size()) + " entries in " + cache_path;
    } else {
        search.cache_status = cache_path + " is not in a format cudacheck reads";
    }
    // glibc's system directories: Debian's multiarch pair first, then lib64 (Fedora, SUSE), then lib.
    for (const std::string& directory :
         {"/lib/" + std::string(multiarch), "/usr/lib/" + std::string(multiarch), std::string("/lib64"),
          std::string("/usr/lib64"), std::string("/lib"), std::string("/usr/lib")})
        search.default_directories.push_back(root + directory);
    return search;
}

Resolution resolve(std::string_view soname, const LoaderSearch& search, DirectoryListings& listings,
                   const ObjectSearchPaths* object) {
    Resolution resolution;
    resolution.soname = std::string(soname);
    // The loader opens <directory>/<soname>; a name it cannot open (dangling link) is passed over.
    const auto try_path = [&](const std::string& directory, std::string_view name, std::string rule) {
        if (!listings.contains(directory, name)) return false;
        std::string path = directory + "/" + std::string(name);
        std::string real = sys::real_path(path);
        if (real.empty()) return false;
        resolution.rule = std::move(rule);
        resolution.path = std::move(path);
        resolution.real_path = std::move(real);
        return true;
    };
    if (object != nullptr && object->runpath.empty())
        for (const ObjectSearchPaths::Rpath& rpath : object->rpath_chain)
            for (const std::string& directory : rpath.directories)
                if (try_path(directory, soname, fmt::format("DT_RPATH of {} ({})", rpath.object, directory)))
                    return resolution;
    for (const std::string& directory : search.ld_library_path)
        if (try_path(directory, soname, "LD_LIBRARY_PATH entry " + directory)) return resolution;
    if (object != nullptr)
        for (const std::string& directory : object->runpath)
            if (try_path(directory, soname, fmt::format("DT_RUNPATH of {} ({})", object->object, directory)))
                return resolution;
    for (const LdCacheEntry& entry : search.cache)
        if (entry.soname == soname) {
            if (try_path(directory_of(entry.path), file_name_of(entry.path), "ld.so.cache")) return resolution;
            break;
        }
    for (const std::string& directory : search.default_directories)
        if (try_path(directory, soname, "default directory " + directory)) return resolution;
    return resolution;
}

namespace {

// Where a directory's files came from, judged by its path. `fallback` is what the directory was
// found as (an LD_LIBRARY_PATH entry, an ld.so.cache directory) when the path says nothing.
LibraryOrigin classify_directory(const std::string& directory, LibraryOrigin fallback, const Environment& environment,
                                 const std::string& root) {
    if (file_name_of(directory) == "stubs" || directory.find("/stubs/") != std::string::npos)
        return LibraryOrigin::stub;
    if (directory.find("/site-packages/") != std::string::npos ||
        directory.find("/dist-packages/") != std::string::npos)
        return LibraryOrigin::pip_wheel;
    if (auto conda = environment.get("CONDA_PREFIX"); conda && is_under(directory, *conda)) return LibraryOrigin::conda;
    if (is_under(directory, root + "/usr/lib/wsl")) return LibraryOrigin::wsl;
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (auto home = environment.get(variable); home && is_under(directory, *home)) return LibraryOrigin::toolkit;
    const std::string_view name_under_root =
        std::string_view(directory).substr(std::min(root.size(), directory.size()));
    if (sys::starts_with(name_under_root, "/usr/local/cuda") || sys::starts_with(name_under_root, "/opt/cuda"))
        return LibraryOrigin::toolkit;
    for (const char* system : {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"})
        if (is_under(directory, root + system)) return LibraryOrigin::system;
    return fallback;
}

}  // namespace

CopyDirectory copy_directory(std::string path, LibraryOrigin fallback, const Environment& environment,
                             const std::string& root, std::string metadata) {
    const LibraryOrigin origin = classify_directory(path, fallback, environment, root);
    // A wheel's directory (site-packages/nvidia/<package>/lib), however it was found, has its
    // *.dist-info in site-packages. torch/lib has not: torch's own version says nothing of them.
    if (const std::size_t nvidia = path.find("/nvidia/");
        metadata.empty() && origin == LibraryOrigin::pip_wheel && nvidia != std::string::npos)
        metadata = path.substr(0, nvidia);
    return {std::move(path), origin, std::move(metadata)};
}

std::optional<LibraryCopy> describe_copy(const std::string& path, const LibraryFamily& family,
                                         DirectoryListings& listings, const Environment& environment,
                                         const std::string& root) {
    const CopyDirectory directory = copy_directory(directory_of(path), LibraryOrigin::other, environment, root, {});
    const std::string real = sys::real_path(path);
    for (LibraryCopy& copy : find_copies(family, std::span(&directory, 1), listings))
        if (copy.real_path == real) return std::move(copy);
    return std::nullopt;
}

std::vector<CopyDirectory> copy_directories(const Environment& environment, const LoaderSearch& search,
                                            DirectoryListings& listings, const std::string& root) {
    std::vector<CopyDirectory> candidates;
    const auto add = [&](std::string path, LibraryOrigin fallback, std::string metadata = {}) {
        candidates.push_back(copy_directory(std::move(path), fallback, environment, root, std::move(metadata)));
    };
    for (const std::string& directory : search.ld_library_path) add(directory, LibraryOrigin::ld_library_path);
    std::set<std::string> cache_directories;
    for (const LdCacheEntry& entry : search.cache)
        for (const LibraryFamily& family : library_families())
            if (!soname_of_file(entry.soname, family).empty()) cache_directories.insert(directory_of(entry.path));
    for (const std::string& directory : cache_directories) add(directory, LibraryOrigin::system);

    // Toolkits; some (assembled from wheels) keep the wheels' *.dist-info in <root>/dist-info.
    std::vector<std::string> toolkit_roots;
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (auto value = environment.get(variable); value && !value->empty()) toolkit_roots.push_back(*value);
    for (const std::string& name : listings.names(root + "/usr/local"))
        if (sys::starts_with(name, "cuda")) toolkit_roots.push_back(root + "/usr/local/" + name);
    toolkit_roots.push_back(root + "/opt/cuda");
    for (const std::string& toolkit : toolkit_roots) {
        const std::string metadata = toolkit + "/dist-info";
        for (const char* lib : {"/lib64", "/lib", "/lib64/stubs", "/lib/stubs"})
            add(toolkit + lib, LibraryOrigin::toolkit, metadata);
        for (const std::string& target : listings.names(toolkit + "/targets")) {
            add(toolkit + "/targets/" + target + "/lib", LibraryOrigin::toolkit, metadata);
            add(toolkit + "/targets/" + target + "/lib/stubs", LibraryOrigin::stub);
        }
    }
    for (const std::string& directory : search.default_directories) add(directory, LibraryOrigin::system);
    add(root + "/usr/local/lib", LibraryOrigin::system);
    add(root + "/usr/lib/wsl/lib", LibraryOrigin::wsl);
    if (auto conda = environment.get("CONDA_PREFIX"); conda && !conda->empty())
        add(*conda + "/lib", LibraryOrigin::conda);
    // Every Python environment's wheels (probes/python_environments: the interpreters on PATH,
    // VIRTUAL_ENV, CONDA_PREFIX, conda's and pipx's environments), and the user sites.
    std::vector<std::string> sites;
    for (const PythonEnvironment& python : find_python_environments(environment, {}, root).environments)
        sites.insert(sites.end(), python.site_packages.begin(), python.site_packages.end());
    for (std::string& site : user_site_packages(environment)) sites.push_back(std::move(site));
    for (const std::string& site : sites) {
        for (const std::string& package : listings.names(site + "/nvidia"))
            add(site + "/nvidia/" + package + "/lib", LibraryOrigin::pip_wheel);
        add(site + "/torch/lib", LibraryOrigin::pip_wheel);
    }

    // The first way a directory was found names it; a later one may know where its metadata is
    // (/usr/local/cuda-13.0/lib is an ld.so.cache directory and a toolkit's).
    std::vector<CopyDirectory> directories;
    std::map<std::string, std::size_t> index_by_real_path;
    for (CopyDirectory& candidate : candidates) {
        const std::string real = sys::real_path(candidate.path);
        if (real.empty()) continue;
        if (auto it = index_by_real_path.find(real); it != index_by_real_path.end()) {
            if (directories[it->second].metadata.empty())
                directories[it->second].metadata = std::move(candidate.metadata);
            continue;
        }
        index_by_real_path.emplace(real, directories.size());
        directories.push_back(std::move(candidate));
    }
    return directories;
}

std::vector<LibraryCopy> find_copies(const LibraryFamily& family, std::span<const CopyDirectory> directories,
                                     DirectoryListings& listings) {
    const std::string dev_link = std::string(family.stem) + ".so";
    std::vector<LibraryCopy> copies;
    std::set<std::string> seen;
    for (const CopyDirectory& directory : directories) {
        // Several names in one directory are usually one file (libcublas.so -> .so.13 -> .so.13.1.0.3).
        std::vector<NamedFile> files;
        for (const std::string& name : listings.names(directory.path)) {
            std::string soname = soname_of_file(name, family);
            if (soname.empty() && name != dev_link) continue;
            std::string real = sys::real_path(directory.path + "/" + name);
            if (real.empty()) continue;
            if (soname.empty()) soname = soname_of_file(file_name_of(real), family);  // the development link's target
            // An unversioned file (the toolkit's stubs/libcuda.so) stands for the family's only soname.
            if (soname.empty() && file_name_of(real) == dev_link && family.distinct_sonames().size() == 1)
                soname = std::string(family.distinct_sonames().front());
            if (!soname.empty()) files.push_back({name, std::move(soname), std::move(real)});
        }
        for (const NamedFile& file : files) {
            if (!seen.insert(file.real_path).second) continue;
            LibraryCopy copy;
            copy.soname = file.soname;
            copy.real_path = file.real_path;
            copy.origin = directory.origin;
            const bool has_soname_link = std::any_of(files.begin(), files.end(), [&](const NamedFile& other) {
                return other.name == file.soname && other.real_path == file.real_path;
            });
            copy.path = directory.path + "/" + (has_soname_link ? file.soname : file.name);
            copy.version = version_from_file_name(file_name_of(file.real_path), family);
            for (const NamedFile& other : files)
                if (copy.version.empty() && other.real_path == file.real_path)
                    copy.version = version_from_file_name(other.name, family);
            if (copy.version.empty() && !directory.metadata.empty())
                if (auto wheel = wheel_from_dist_info(listings.names(directory.metadata), family.wheel,
                                                      soname_major(copy.soname))) {
                    copy.version = wheel->version;
                    if (copy.origin == LibraryOrigin::pip_wheel) copy.package = wheel->package;
                }
            copies.push_back(std::move(copy));
        }
    }
    return copies;
}

const LibraryCopy* LibraryLocation::copy_at(const std::string& real_path) const {
    for (const LibraryCopy& copy : copies)
        if (copy.real_path == real_path) return &copy;
    return nullptr;
}

const Resolution* LibraryLocation::resolution_of(std::string_view soname) const {
    for (const Resolution& resolution : resolutions)
        if (resolution.soname == soname) return &resolution;
    return nullptr;
}

LibraryFacts locate_libraries(const Environment& environment, const std::string& root) {
    LibraryFacts facts;
    const LoaderSearch search = loader_search(environment, root);
    facts.cache_status = search.cache_status;
    DirectoryListings listings;
    const std::vector<CopyDirectory> directories = copy_directories(environment, search, listings, root);
    facts.directories_searched = directories.size();
    for (const LibraryFamily& family : library_families()) {
        LibraryLocation location;
        location.family = &family;
        for (std::string_view soname : family.distinct_sonames())
            if (Resolution resolution = resolve(soname, search, listings); resolution.found())
                location.resolutions.push_back(std::move(resolution));
        location.copies = find_copies(family, directories, listings);
        if (!location.resolutions.empty() || !location.copies.empty()) facts.libraries.push_back(std::move(location));
    }
    return facts;
}

}  // namespace cudacheck
