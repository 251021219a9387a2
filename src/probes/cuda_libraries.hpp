// The CUDA libraries cudacheck exercises (cuda/library_families.hpp), opened at run time by soname
// so that a missing or broken library is a finding, not a loader error at start-up. Each records
// what was asked for, every path tried and the file that loaded.
#pragma once

#include "bind/dynamic_library.hpp"
#include "cuda/library_families.hpp"
#include "probes/library_locator.hpp"
#include "util/actions.hpp"
#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct LoadedLibrary {
    const LibraryFamily* family = nullptr;
    std::string name;                 // "cuBLAS"
    std::string soname;               // "libcublas.so.13"
    DynamicLibrary library;           // ok() when loaded
    std::vector<std::string> tried;  // "libcublas.so.13 (loader path): <error>", "/usr/local/cuda/lib64/...: <error>"
    bool outside_loader_path = false;  // found only in a toolkit directory the loader does not search
    std::string file_version;  // from the loaded file's name, e.g. "13.1.0.3"; empty if none
    // The copy the loader would pick, when it is damaged and was therefore not opened (elf_damage),
    // or the damaged copy of a library it needs (DT_NEEDED: the same dlopen would map it).
    std::string damaged_path;
    std::string damage;  // why: "truncated: its headers describe ... bytes"
    std::string damaged_dependency;  // that library's soname ("libcublasLt.so.13"); "" when the copy is this library's
                                     // own
    // Opening this copy killed or hung an earlier check process of the run: not opened again
    // (damaged_path names it when the loader's pick is known).
    std::optional<actions::Failure> step_failure;
    [[nodiscard]] bool ok() const { return library.ok(); }
};

// Opens the library through the loader's search path; if the loader finds none, in the toolkit
// directories (CUDA_HOME, CUDA_PATH, /usr/local/cuda) a program built with the toolkit's rpath would
// use. A library the loader finds but cannot load is not looked for elsewhere.
// `search` is the loader's search for this process (where the copy it picks is looked up, to check
// it is not damaged before opening it); without one it is read from `environment`.
[[nodiscard]] LoadedLibrary load_cuda_library(const LibraryFamily& family, int cuda_major,
                                              const Environment& environment, const LoaderSearch* search = nullptr);

}  // namespace cudacheck
