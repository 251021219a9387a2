#include "probes/cuda_libraries.hpp"

#include "probes/library_locator.hpp"

#include "util/system.hpp"
#include "util/trace.hpp"
#include "probes/driver_probe.hpp"

#include <fmt/format.h>

namespace cudacheck {

std::string_view library_name(CudaLibrary id) {
    switch (id) {
        case CudaLibrary::cublas: return "cuBLAS";
        case CudaLibrary::cublas_lt: return "cuBLASLt";
        case CudaLibrary::cufft: return "cuFFT";
        case CudaLibrary::curand: return "cuRAND";
        case CudaLibrary::cudnn: return "cuDNN";
        case CudaLibrary::nvrtc: return "NVRTC";
    }
    return "?";
}

std::string library_soname(CudaLibrary id, int cuda_major) {
    // One table of sonames for all of cudacheck (library_locator.cpp, ../shared/cuda-facts.md §5).
    const LibraryFamily* family = find_library_family(library_name(id));
    return family != nullptr ? std::string(family->soname_for(cuda_major)) : std::string();
}

std::string library_install_hint(CudaLibrary id, int cuda_major) {
    const std::string toolkit = fmt::format("{}-0", cuda_major);
    switch (id) {
        case CudaLibrary::cublas:
        case CudaLibrary::cublas_lt:
            return fmt::format("the libcublas-{} package (NVIDIA's repository) or `pip install nvidia-cublas{}`", toolkit,
                               cuda_major >= 13 ? "" : fmt::format("-cu{}", cuda_major));
        case CudaLibrary::cufft:
            return fmt::format("the libcufft-{} package or `pip install nvidia-cufft{}`", toolkit, cuda_major >= 13 ? "" : fmt::format("-cu{}", cuda_major));
        case CudaLibrary::curand:
            return fmt::format("the libcurand-{} package or `pip install nvidia-curand{}`", toolkit, cuda_major >= 13 ? "" : fmt::format("-cu{}", cuda_major));
        case CudaLibrary::cudnn:
            return fmt::format("the libcudnn9-cuda-{} package or `pip install nvidia-cudnn-cu{}`", cuda_major, cuda_major);
        case CudaLibrary::nvrtc:
            return fmt::format("the cuda-nvrtc-{} package or `pip install nvidia-cuda-nvrtc{}`", toolkit, cuda_major >= 13 ? "" : fmt::format("-cu{}", cuda_major));
    }
    return {};
}

LoadedLibrary load_cuda_library(CudaLibrary id, int cuda_major, const Environment& environment) {
    LoadedLibrary loaded;
    loaded.id = id;
    loaded.name = std::string(library_name(id));
    loaded.soname = library_soname(id, cuda_major);
    {
        const trace::Span span("dlopen " + loaded.soname);
        loaded.library = DynamicLibrary::open(loaded.soname);
    }
    // Only a library the loader cannot find at all is looked for elsewhere: one it finds but cannot
    // load (damaged, wrong architecture, missing dependency) is what every program here would get.
    // glibc words a missing dependency the same way, but names the dependency first.
    const bool not_found = !loaded.library.ok() && sys::starts_with(loaded.library.error(), loaded.soname + ":") &&
                           loaded.library.error().find("cannot open shared object file") != std::string::npos;
    if (!loaded.library.ok()) loaded.tried.push_back(fmt::format("{} (loader search path): {}", loaded.soname, loaded.library.error()));
    if (not_found) {
        std::vector<std::string> directories;
        for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
            if (auto root = environment.get(variable); root && !root->empty()) directories.push_back(*root + "/lib64");
        directories.push_back("/usr/local/cuda/lib64");
        directories.push_back("/usr/local/cuda/targets/x86_64-linux/lib");
        for (const std::string& directory : directories) {
            const std::string path = directory + "/" + loaded.soname;
            if (!sys::exists(path)) {
                loaded.tried.push_back(path + ": absent");
                continue;
            }
            DynamicLibrary candidate = DynamicLibrary::open(path);
            if (!candidate.ok()) {
                loaded.tried.push_back(fmt::format("{}: {}", path, candidate.error()));
                continue;
            }
            loaded.library = std::move(candidate);
            loaded.outside_loader_path = true;
            break;
        }
    }
    if (loaded.library.ok()) {
        const std::string prefix = loaded.soname.substr(0, loaded.soname.find(".so") + 4);  // "libcublas.so."
        loaded.file_version = library_version_from_path(loaded.library.loaded_path(), prefix);
    }
    return loaded;
}

}  // namespace cudacheck
