// The host compilers a CUDA build can use here: those named by CC, CXX and NVCC_CCBIN
// (nvcc's variable for its default -ccbin), and gcc, g++, clang, clang++ and their versioned names
// (g++-13, clang++-18) in the PATH directories, each with the version `--version` reports. Which
// one a build picks, and whether a toolkit accepts it (cuda/host_config), is toolkit.build's to
// judge.
#pragma once

#include "cuda/host_config.hpp"
#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct HostCompiler {
    std::string name;     // as named: "g++", "g++-13", or the variable's value
    std::string source;   // "CXX", "CC", "NVCC_CCBIN", "PATH"
    std::string path;     // what runs, symlinks resolved; empty when not found
    std::string version_line;  // the first line of `--version`
    std::optional<HostCompilerVersion> version;  // none when not a gcc or clang it can read
    std::string failure;  // why it could not be asked
    std::string identity = {};  // which compiler `--version` says it is (identify_compiler); "" for none
};

// Which compiler a `--version` output names: "gcc", "clang", "Intel icx/icpx", "Intel icc",
// "NVIDIA nvc++", "Arm C/C++", "IBM XL C/C++"; "" when it names none (/bin/true, a script, a text
// file run by the shell). Each compiler's own banner: GCC's copyright line ("Free Software
// Foundation"), LLVM's "clang version" (also in Apple's, AMD's and IBM Open XL's), Intel oneAPI's
// "Intel(R) oneAPI DPC++/C++ Compiler", classic icc's "(ICC)", the HPC SDK's "NVIDIA Compilers and
// Tools", Arm's "Arm C/C++/Fortran Compiler", IBM's "IBM XL C/C++". Only the first 4 KiB are read.
[[nodiscard]] std::string identify_compiler(std::string_view version_output);

// The kind and version from `--version`'s output: "g++ (Debian 12.2.0-14+deb12u1) 12.2.0",
// "gcc (GCC) 11.4.1 20231218 (Red Hat 11.4.1-3)", "Ubuntu clang version 18.1.3 (1ubuntu1)",
// "clang version 20.1.8". nullopt for anything else (icpx, nvc++, a script).
[[nodiscard]] std::optional<HostCompilerVersion> parse_compiler_version(std::string_view version_output);

// The versioned names of gcc/g++/clang/clang++ among a directory's entries ("g++-13",
// "clang++-18", "x86_64-linux-gnu-g++-12"), sorted; the plain names are not included.
[[nodiscard]] std::vector<std::string> versioned_compiler_names(const std::vector<std::string>& entries);

// Finds and asks every candidate (one `--version` each, a few milliseconds).
[[nodiscard]] std::vector<HostCompiler> collect_host_compilers(const Environment& environment);

}  // namespace cudacheck
