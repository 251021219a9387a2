// cuFFT as cufft.fft binds it: the entry points (opened at run time, never linked), the names
// of its statuses and what to do about each.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/symbols.hpp"

#include <cufft.h>  // types and values only
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace cudacheck {

struct CufftApi {
    decltype(&::cufftGetVersion) get_version = nullptr;
    decltype(&::cufftPlanMany) plan_many = nullptr;
    decltype(&::cufftDestroy) destroy = nullptr;
    decltype(&::cufftSetStream) set_stream = nullptr;
    decltype(&::cufftExecC2C) exec_c2c = nullptr;
    decltype(&::cufftExecR2C) exec_r2c = nullptr;
};

inline constexpr LibrarySymbol<CufftApi> cufft_symbols[] = {
    required_symbol<&CufftApi::get_version>("cufftGetVersion"),
    required_symbol<&CufftApi::plan_many>("cufftPlanMany"),
    required_symbol<&CufftApi::destroy>("cufftDestroy"),
    required_symbol<&CufftApi::set_stream>("cufftSetStream"),
    required_symbol<&CufftApi::exec_c2c>("cufftExecC2C"),
    required_symbol<&CufftApi::exec_r2c>("cufftExecR2C"),
};

// "CUFFT_ALLOC_FAILED" for 2 (values from cufft.h); "unknown cufftResult" otherwise.
[[nodiscard]] inline std::string_view cufft_result_name(cufftResult result) {
    switch (result) {
        case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
        case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
        case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
        case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
        case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
        case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
        case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
        case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
        case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
        case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
        case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
        case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
        case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
        case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
        case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
        case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
        case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
        case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
    }
    return "unknown cufftResult";
}

// "CUFFT_ALLOC_FAILED (2)": how findings name a status.
[[nodiscard]] inline std::string describe_status(cufftResult result) {
    return fmt::format("{} ({})", cufft_result_name(result), static_cast<int>(result));
}

// What to do about a failed cuFFT call, specific to the status.
[[nodiscard]] inline std::string remediation_for(cufftResult result) {
    switch (result) {
        case CUFFT_ALLOC_FAILED:
            return "cuFFT could not allocate GPU memory for the plan or its work area: free GPU memory (`nvidia-smi "
                   "--query-compute-apps=pid,used_memory --format=csv`) or run when the GPU is idle.";
        case CUFFT_INVALID_DEVICE:
        case CUFFT_SETUP_FAILED:
            return "cuFFT could not set up on this GPU: check that the cuFFT package matches the CUDA runtime and the "
                   "driver (see "
                   "cuda.pairing); reinstall cuFFT if it was copied from another toolkit.";
        case CUFFT_MISSING_DEPENDENCY:
        case CUFFT_NVRTC_FAILURE:
        case CUFFT_NVJITLINK_FAILURE:
            return "cuFFT needs a library it could not load (NVRTC/nvJitLink of the same CUDA major version): install "
                   "them "
                   "beside cuFFT or add their directory to LD_LIBRARY_PATH.";
        case CUFFT_EXEC_FAILED:
            return "A cuFFT kernel failed to launch: check `dmesg` for Xid errors and that this GPU's architecture is "
                   "supported by the "
                   "installed cuFFT.";
        default:
            return "Reinstall the cuFFT matching the CUDA runtime; if it persists, report the status with `nvidia-smi "
                   "-q` output.";
    }
}

// A cuFFT call returned an error status.
struct Cufft {
    using Status = cufftResult;
    [[nodiscard]] static std::string remediation(Status status) { return remediation_for(status); }
};
using CufftFailure = LibraryFailure<Cufft>;

}  // namespace cudacheck
