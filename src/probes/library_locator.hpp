// Which file each CUDA library resolves to for a plain C/C++ program on this machine, by which
// search rule, and every other copy installed in the usual places. Nothing is loaded: the loader's
// search is emulated from LD_LIBRARY_PATH, /etc/ld.so.cache and the default directories, because
// opening cuDNN costs tens of milliseconds and runs its initialisers, and because a library that
// this process already loaded would hide the copy a fresh program gets.
#pragma once

#include "cuda/library_families.hpp"
#include "util/environment.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Where a copy came from (who installed it); the search rule that picks it is separate.
enum class LibraryOrigin { ld_library_path, system, toolkit, pip_wheel, conda, wsl, stub, other };
[[nodiscard]] std::string_view to_string(LibraryOrigin origin);

// One entry of /etc/ld.so.cache: a soname and the file the loader opens for it.
struct LdCacheEntry {
    std::string soname;
    std::string path;
    std::int32_t flags = 0;  // FLAG_ELF_LIBC6 | architecture, e.g. 0x0303 for x86-64
    std::uint64_t hwcap = 0;  // non-zero for copies in hardware-capability subdirectories
};
// Parses the binary cache: the "glibc-ld.so.cache1.1" format (glibc 2.32+ writes only this), or the
// old "ld.so-1.7.0" format with the new one appended (the older glibc default). Empty optional when
// the bytes are neither or are truncated.
[[nodiscard]] std::optional<std::vector<LdCacheEntry>> parse_ld_so_cache(std::string_view bytes);
// The flags of entries this process's loader accepts (0x0303 on x86-64, 0x0a03 on aarch64).
[[nodiscard]] std::int32_t native_ld_cache_flags();

// Version from a file name: "libcublas.so.13.1.0.3" -> "13.1.0.3", "libcudnn.so.9.14.0" ->
// "9.14.0"; "" when the name is only a soname ("libcublas.so.13", "libnvrtc.so.11.2").
[[nodiscard]] std::string version_from_file_name(std::string_view file_name, const LibraryFamily& family);
// Whether two versions name the same release: equal in every component both have ("9.19.0" and
// "9.19.0.56" do, "9.14.0" and "9.19.0" do not); unknown ("") matches anything.
[[nodiscard]] bool same_release(std::string_view a, std::string_view b);
// The wheel a library file in site-packages belongs to, from the *.dist-info names there: for
// wheel "nvidia_cudnn" and soname major 9, "nvidia_cudnn_cu12-9.1.0.70.dist-info" gives
// {"nvidia-cudnn-cu12", "9.1.0.70"}. The version's major must equal the soname's, which tells
// nvidia_cublas_cu12 (.so.12) from nvidia_cublas 13 (.so.13) when both are installed.
struct WheelInfo {
    std::string package;  // as pip names it: "nvidia-cudnn-cu12"
    std::string version;
};
[[nodiscard]] std::optional<WheelInfo> wheel_from_dist_info(std::span<const std::string> names, std::string_view wheel,
                                                            int soname_major);

// Directory listings, each read once per run: the search touches the same directories for every
// library, and a stat per candidate file would be thousands of system calls.
class DirectoryListings {
public:
    [[nodiscard]] const std::vector<std::string>& names(const std::string& directory);
    [[nodiscard]] bool contains(const std::string& directory, std::string_view name);

private:
    std::map<std::string, std::vector<std::string>, std::less<>> listings_;
};

// What the loader consults, in its order, for a program without RPATH/RUNPATH.
struct LoaderSearch {
    std::vector<std::string> ld_library_path;  // non-empty entries, in order
    std::vector<LdCacheEntry> cache;           // native-architecture entries only
    std::string cache_status;                  // "649 entries in /etc/ld.so.cache" or why none
    std::vector<std::string> default_directories;
};
[[nodiscard]] LoaderSearch loader_search(const Environment& environment, const std::string& root = "");

struct Resolution {
    std::string soname;
    std::string rule;       // "LD_LIBRARY_PATH entry /x", "ld.so.cache", "default directory /usr/lib"
    std::string path;       // as the loader opens it; empty when the soname does not resolve
    std::string real_path;  // symlinks resolved
    [[nodiscard]] bool found() const { return !path.empty(); }
};
// The search paths of the object that needs a library (ld.so(8)): the DT_RPATH directories of it
// and of the objects that loaded it, nearest first (each object's own list, $ORIGIN expanded;
// used only when the needing object has no DT_RUNPATH), and its DT_RUNPATH directories.
struct ObjectSearchPaths {
    struct Rpath {
        std::string object;  // file name, for the rule: "libtorch_cuda.so"
        std::vector<std::string> directories;
    };
    std::vector<Rpath> rpath_chain;
    std::string object;                   // the needing object's file name
    std::vector<std::string> runpath;     // its DT_RUNPATH directories
};

// The file the loader would open for `soname`: with `object`, the DT_RPATH chain first (unless the
// object has a DT_RUNPATH); LD_LIBRARY_PATH; with `object`, its DT_RUNPATH; ld.so.cache; the
// default directories. Like the loader it passes over names it cannot open (dangling links, entries
// in the cache whose file was removed). Not modelled: glibc-hwcaps subdirectories and
// wrong-architecture files (the loader skips them, this takes them).
[[nodiscard]] Resolution resolve(std::string_view soname, const LoaderSearch& search, DirectoryListings& listings,
                                 const ObjectSearchPaths* object = nullptr);

struct LibraryCopy {
    std::string soname;     // which soname it provides ("libcublas.so.13")
    std::string path;       // the soname's link where there is one, else the file
    std::string real_path;  // copies are distinct by this
    std::string version;    // file name or wheel metadata; "" when unknown
    std::string package;    // the wheel as pip names it, e.g. "nvidia-cudnn-cu13"; "" when not known
    LibraryOrigin origin = LibraryOrigin::other;
};

// A directory that may hold copies, and what it is.
struct CopyDirectory {
    std::string path;
    LibraryOrigin origin = LibraryOrigin::other;
    std::string metadata;  // where *.dist-info names live (site-packages, a toolkit's dist-info); "" if none
};
// The bounded list of directories searched for copies (never a crawl): LD_LIBRARY_PATH, the
// directories of ld.so.cache entries for these libraries, CUDA_HOME/CUDA_PATH, /usr/local/cuda*,
// /opt/cuda, distro directories, /usr/lib/wsl/lib, $CONDA_PREFIX/lib and the nvidia/*/lib and
// torch/lib directories of Python's site-packages (VIRTUAL_ENV, CONDA_PREFIX, the python3 on PATH,
// ~/.local, in that order). Fixed paths and those in the cache are under `root`; paths taken from
// the environment are used as they are. Duplicates (by real path) removed.
[[nodiscard]] std::vector<CopyDirectory> copy_directories(const Environment& environment, const LoaderSearch& search,
                                                          DirectoryListings& listings, const std::string& root = "");
// `path` as a directory to search: its origin judged by the path (`fallback` when the path says
// nothing) and, for a wheel's nvidia/<package>/lib, the site-packages holding its *.dist-info.
[[nodiscard]] CopyDirectory copy_directory(std::string path, LibraryOrigin fallback, const Environment& environment,
                                           const std::string& root = "", std::string metadata = {});
// Every copy of the family's sonames in those directories, distinct by real path, in directory order.
[[nodiscard]] std::vector<LibraryCopy> find_copies(const LibraryFamily& family,
                                                   std::span<const CopyDirectory> directories,
                                                   DirectoryListings& listings);

// The library file at `path` (the loader's pick for a framework) described as find_copies describes
// a copy; nullopt when it is no file of the family's.
[[nodiscard]] std::optional<LibraryCopy> describe_copy(const std::string& path, const LibraryFamily& family,
                                                       DirectoryListings& listings, const Environment& environment,
                                                       const std::string& root = "");

struct LibraryLocation {
    const LibraryFamily* family = nullptr;
    std::vector<Resolution> resolutions;  // the family's sonames that resolve, newest CUDA first
    std::vector<LibraryCopy> copies;
    [[nodiscard]] const LibraryCopy* copy_at(const std::string& real_path) const;
    [[nodiscard]] const Resolution* resolution_of(std::string_view soname) const;
};

struct LibraryFacts {
    std::vector<LibraryLocation> libraries;  // only families with a copy or a resolution
    std::string cache_status;
    std::size_t directories_searched = 0;
};
[[nodiscard]] LibraryFacts locate_libraries(const Environment& environment, const std::string& root = "");

}  // namespace cudacheck
