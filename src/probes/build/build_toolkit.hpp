// The CUDA toolkit a build would use, and whether it has what building needs. The
// choice is torch.utils.cpp_extension's (_find_cuda_home), which PyTorch extensions, flash-attn
// and xformers builds go through: CUDA_HOME, else CUDA_PATH (an empty value counts as unset), else
// the directory above the bin/ of the nvcc on PATH, as found (no symlinks resolved: /usr/bin/nvcc
// gives /usr), else /usr/local/cuda when it exists. The files are what such a build compiles and
// links with: nvcc, include/cuda_runtime.h, include/crt/host_config.h, and libcudart in lib64 (or
// lib, when there is no lib64, as torch's library_paths picks).
#pragma once

#include "util/environment.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct BuildToolkitChoice {
    std::string root;  // as the rule gives it; empty when none (torch: "CUDA was not found on the system")
    std::string rule;  // "CUDA_HOME", "CUDA_PATH", "nvcc on PATH (/usr/bin/nvcc)", "/usr/local/cuda"
};

// `root` prefixes the filesystem paths looked at (tests); "" is the real system.
[[nodiscard]] BuildToolkitChoice torch_cuda_home(const Environment& environment, const std::string& root = "");

struct DevelopmentFiles {
    std::string nvcc;               // bin/nvcc, when it exists and is executable
    std::string runtime_header;     // include/cuda_runtime.h
    std::string host_config;        // include/crt/host_config.h
    std::string library_directory;  // lib64, or lib without a lib64
    std::string cudart_shared;      // <library_directory>/libcudart.so (what -lcudart links)
    std::string cudart_static;      // <library_directory>/libcudart_static.a (nvcc's default, -cudart static)
    std::vector<std::string> missing;  // the paths looked for and absent, for the message
};

[[nodiscard]] DevelopmentFiles development_files(const std::string& toolkit_root);

// The CUDA library headers that PyTorch's ATen/cuda/CUDAContext.h includes, through
// ATen/cuda/CUDAContextLight.h (torch 2.15.0: cusparse.h, cublas_v2.h, cublasLt.h, and cusolverDn.h
// under CUDART_VERSION, which cuda_runtime_api.h defines): an extension that includes CUDAContext.h
// (for at::cuda::getCurrentCUDAStream, as most do) fails without them with "fatal error: cusparse.h:
// No such file or directory". A toolkit of nvcc and cudart only (the pip nvidia-cuda-nvcc wheel, conda's
// cuda-nvcc, apt's cuda-nvcc-X-Y with cuda-cudart-dev-X-Y) lacks them: they come with the libraries'
// development packages (libcublas-dev, libcusparse-dev, libcusolver-dev).
inline constexpr const char* torch_cuda_library_headers[] = {"cusparse.h", "cublas_v2.h", "cublasLt.h", "cusolverDn.h"};

// Those of torch_cuda_library_headers found neither in <toolkit_root>/include nor in the other
// directories an extension's compilers search: CUDA_INC_PATH (cpp_extension.include_paths adds it),
// CPATH / CPLUS_INCLUDE_PATH (gcc and clang search them, also when nvcc runs them), and the host
// compiler's own `#include <...>` directories where known (`compiler_directories`: /usr/local/include
// and /usr/include, where a distribution's libcusparse-dev or an image's links put them: PyTorch's
// real builder found cusparse.h in /usr/local/include on the build machine for a copy of its
// toolkit without it). Each as the toolkit path looked for.
[[nodiscard]] std::vector<std::string> missing_torch_library_headers(
    const std::string& toolkit_root, const Environment& environment,
    const std::vector<std::string>& compiler_directories = {});

// The directories `#include <...>` searches, in order, from a compiler's `-E -v` output: gcc and
// clang list them between "#include <...> search starts here:" and "End of search list.", one a
// line after a space. Empty when the output holds no such list.
[[nodiscard]] std::vector<std::string> parse_include_search_list(std::string_view verbose_output);

}  // namespace cudacheck
