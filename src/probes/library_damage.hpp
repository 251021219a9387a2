// Damaged copies of CUDA libraries that a process would load, read from the files alone: the one
// judgement of a file's damage that libraries.resolution reports (CC605), that cudacheck applies
// before it opens a library (probes/cuda_libraries.hpp), and that the supervisor applies when a
// check's process dies or hangs (isolation/crash_attribution.hpp). A library that another library
// loads, at once (cuBLASLt under cuBLAS) or later on its own (cuDNN's sub-libraries, nvJitLink under
// cuFFT), kills the process as surely as one cudacheck opens itself.
#pragma once

#include "cuda/library_families.hpp"
#include "probes/library_locator.hpp"
#include "probes/load_closure.hpp"
#include "util/environment.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Why the file the loader opens for `soname` (at `real_path`) cannot be loaded as that library:
// its headers (elf_damage: empty, not ELF, another machine, shorter than they say), or a SONAME
// naming another library or version (a copy renamed to stand in for the wanted one: it loads, with
// another release's symbols). nullopt when neither. Reads only the headers.
struct FileDamage {
    std::string reason;
    bool renamed = false;  // only the SONAME is wrong: the file maps safely
};
[[nodiscard]] std::optional<FileDamage> library_file_damage(const std::string& real_path, std::string_view soname);

// What installed a copy, for a fix: the wheel as pip names it ("nvidia-cudnn-cu13"), else what its
// origin says ("the CUDA toolkit"); "" when the directory tells nothing (LD_LIBRARY_PATH, other).
[[nodiscard]] std::string installed_by(const LibraryCopy& copy);
// The fix for a damaged copy: reinstall what installed it (`installed_by`, "" when unknown), or
// remove the file; and take its directory off LD_LIBRARY_PATH when that is what put it first.
[[nodiscard]] std::string damaged_copy_remediation(const Resolution& resolution, std::string_view installed_by);

// A damaged file a process would load for a library it opens.
struct DamagedLoad {
    std::string used_soname;  // the library the process opens: "libcudnn.so.9"
    std::string soname;       // the damaged one: "libcudnn_graph.so.9" (the used one itself, or one it loads)
    std::string family;       // of the damaged one: "cuDNN graph"; "" when the table has none
    Resolution resolution;    // where the loader finds the damaged one, by which rule
    FileDamage damage;
    // How it gets loaded: "" for the used library itself; "needed by libcublas.so.13 (DT_NEEDED)";
    // "opened by libcudnn.so.9 itself (dlopen), when a call needs it".
    std::string loaded_how;
    std::string installed_by;  // for damaged_copy_remediation
};

// Every damaged file a process that opens `libraries` (their sonames for CUDA `cuda_major`, found
// through `search` as load_cuda_library finds them) would load: each library's own file and what
// it loads, as far as `opens` follows (load_closure.hpp), in the loader's order; each file once.
// Nothing is loaded.
[[nodiscard]] std::vector<DamagedLoad> damaged_loads(std::span<const LibraryFamily* const> libraries, int cuda_major,
                                                     const LoaderSearch& search, FollowedOpens opens,
                                                     const Environment& environment);

}  // namespace cudacheck
