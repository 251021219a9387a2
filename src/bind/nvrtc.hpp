// NVRTC as nvrtc.compile binds it: the entry points, opened at run time (the library names its own
// statuses: nvrtcGetErrorString), and what to do when a call other than the compilation fails.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/symbols.hpp"
#include "cuda/library_families.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the NVRTC of the runtime cudacheck uses
#include <fmt/format.h>
#include <nvrtc.h>  // types only: NVRTC is opened at run time
#include <string>

namespace cudacheck {

struct NvrtcApi {
    decltype(&::nvrtcVersion) version = nullptr;
    decltype(&::nvrtcGetErrorString) error_string = nullptr;
    decltype(&::nvrtcGetNumSupportedArchs) num_supported_archs = nullptr;
    decltype(&::nvrtcGetSupportedArchs) supported_archs = nullptr;
    decltype(&::nvrtcCreateProgram) create_program = nullptr;
    decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
    decltype(&::nvrtcCompileProgram) compile_program = nullptr;
    decltype(&::nvrtcGetProgramLogSize) log_size = nullptr;
    decltype(&::nvrtcGetProgramLog) log = nullptr;
    decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
    decltype(&::nvrtcGetCUBIN) cubin = nullptr;
    decltype(&::nvrtcGetPTXSize) ptx_size = nullptr;
    decltype(&::nvrtcGetPTX) ptx = nullptr;
};

inline constexpr LibrarySymbol<NvrtcApi> nvrtc_symbols[] = {
    required_symbol<&NvrtcApi::version>("nvrtcVersion"),
    required_symbol<&NvrtcApi::error_string>("nvrtcGetErrorString"),
    required_symbol<&NvrtcApi::num_supported_archs>("nvrtcGetNumSupportedArchs"),
    required_symbol<&NvrtcApi::supported_archs>("nvrtcGetSupportedArchs"),
    required_symbol<&NvrtcApi::create_program>("nvrtcCreateProgram"),
    required_symbol<&NvrtcApi::destroy_program>("nvrtcDestroyProgram"),
    required_symbol<&NvrtcApi::compile_program>("nvrtcCompileProgram"),
    required_symbol<&NvrtcApi::log_size>("nvrtcGetProgramLogSize"),
    required_symbol<&NvrtcApi::log>("nvrtcGetProgramLog"),
    required_symbol<&NvrtcApi::cubin_size>("nvrtcGetCUBINSize"),
    required_symbol<&NvrtcApi::cubin>("nvrtcGetCUBIN"),
    required_symbol<&NvrtcApi::ptx_size>("nvrtcGetPTXSize"),
    required_symbol<&NvrtcApi::ptx>("nvrtcGetPTX"),
};

// An NVRTC call other than the compilation failed: CC507 with the status name.
struct Nvrtc {
    using Status = nvrtcResult;
    [[nodiscard]] static std::string remediation(Status) {
        return fmt::format("Reinstall NVRTC for CUDA {} ({}).", CUDART_VERSION / 1000,
                           cuda_library::nvrtc.install_hint(CUDART_VERSION / 1000));
    }
};
using NvrtcFailure = LibraryFailure<Nvrtc>;

}  // namespace cudacheck
