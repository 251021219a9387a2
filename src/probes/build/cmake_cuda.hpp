// What a CMake project that enables CUDA (`project(x LANGUAGES CUDA)`, `enable_language(CUDA)`)
// takes from the environment at its first configure, by CMake's own rules: its
// Modules/CMakeDetermineCUDACompiler.cmake, CMakeDetermineCompiler.cmake (_cmake_find_compiler),
// Compiler/NVIDIA-CUDA.cmake and CMakeTestCUDACompiler.cmake (read in CMake 3.25), and the
// documentation of the CUDACXX, CUDAHOSTCXX and CUDAARCHS environment variables, of find_program
// and of CMAKE_CUDA_ARCHITECTURES / CUDA_ARCHITECTURES.
//
// - nvcc (CMAKE_CUDA_COMPILER): CUDACXX when it is set and not empty: its first word, a path or a
//   name looked up on PATH (get_filename_component PROGRAM); CMake stops with "Could not find
//   compiler set in environment variable CUDACXX" when that does not exist. Else find_program(nvcc)
//   in find_program's order: <prefix>/bin and /sbin of the CMAKE_PREFIX_PATH environment variable,
//   the CMAKE_PROGRAM_PATH environment variable, PATH, and last $CUDA_PATH/bin (the system
//   prefixes are not yet set when project() looks: see cmake_cuda.cpp). Unlike PyTorch's rule,
//   /usr/local/cuda is not looked in. The toolkit is the directory above nvcc's bin/ with links
//   resolved (what nvcc reports as `#$ TOP=`, from which CMake takes it).
// - host compiler (CMAKE_CUDA_HOST_COMPILER): CUDAHOSTCXX when set (its first word, looked up as
//   CUDACXX's; "Could not find compiler set in environment variable CUDAHOSTCXX" when absent),
//   which CMake passes to every nvcc command as `-ccbin=<it>`; else none, and nvcc picks its own
//   (NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS -ccbin, NVCC_CCBIN, gcc on PATH: build_setup). nvcc takes
//   the last -ccbin of its command line, so one in NVCC_APPEND_FLAGS beats CUDAHOSTCXX, and
//   CUDAHOSTCXX beats one in NVCC_PREPEND_FLAGS (measured with CMake 3.25 and nvcc 13.0).
// - architectures (CMAKE_CUDA_ARCHITECTURES): CUDAARCHS when set and not empty, checked against
//   CMake's pattern (a ';' list of numbers, each with an optional `a` or `f` and `-real` or
//   `-virtual`, or one of all, all-major, native), else the compiler's default architecture, which
//   CMake reads from nvcc's `-arch compute_XY` during compiler identification.
#pragma once

#include "util/environment.hpp"

#include <string>
#include <string_view>

namespace cudacheck {

// The program of a variable that may carry flags after it ("gcc -m64", CUDACXX="nvcc -ccbin g++-12"):
// its first word, as CMake's get_filename_component(PROGRAM) and nvcc's NVCC_CCBIN take it.
[[nodiscard]] std::string program_word(std::string_view value);

struct CMakeCudaCompiler {
    std::string program = {};  // CUDACXX's first word, or "nvcc"
    std::string rule = {};     // "CUDACXX", "CMAKE_PREFIX_PATH", "CMAKE_PROGRAM_PATH", "nvcc on PATH", "CUDA_PATH"
    std::string path = {};     // the nvcc CMake runs; "" when none
    std::string failure = {};  // why there is none
};

[[nodiscard]] CMakeCudaCompiler cmake_cuda_compiler(const Environment& environment);

// The toolkit above an nvcc's bin/, links resolved: /usr/local/cuda/bin/nvcc -> /usr/local/cuda-13.0.
[[nodiscard]] std::string toolkit_root_of_nvcc(const std::string& nvcc);

enum class CMakeArchitecturesKind { list, all, all_major, native, invalid };
// What CMake makes of a CMAKE_CUDA_ARCHITECTURES value: "invalid" when its pattern rejects it
// ("is not one of the following: a semicolon-separated list of integers...").
[[nodiscard]] CMakeArchitecturesKind cmake_architectures_kind(std::string_view value);

}  // namespace cudacheck
