// cuRAND as curand.generate binds it: the entry points (opened at run time, never linked), the
// names of its statuses and what to do about each.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/symbols.hpp"

#include <curand.h>  // types and values only
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace cudacheck {

struct CurandApi {
    decltype(&::curandGetVersion) get_version = nullptr;
    decltype(&::curandCreateGenerator) create = nullptr;
    decltype(&::curandDestroyGenerator) destroy = nullptr;
    decltype(&::curandSetStream) set_stream = nullptr;
    decltype(&::curandSetPseudoRandomGeneratorSeed) set_seed = nullptr;
    decltype(&::curandGenerateUniform) generate_uniform = nullptr;
    decltype(&::curandGenerateNormal) generate_normal = nullptr;
};

inline constexpr LibrarySymbol<CurandApi> curand_symbols[] = {
    required_symbol<&CurandApi::get_version>("curandGetVersion"),
    required_symbol<&CurandApi::create>("curandCreateGenerator"),
    required_symbol<&CurandApi::destroy>("curandDestroyGenerator"),
    required_symbol<&CurandApi::set_stream>("curandSetStream"),
    required_symbol<&CurandApi::set_seed>("curandSetPseudoRandomGeneratorSeed"),
    required_symbol<&CurandApi::generate_uniform>("curandGenerateUniform"),
    required_symbol<&CurandApi::generate_normal>("curandGenerateNormal"),
};

// "CURAND_STATUS_LAUNCH_FAILURE" for 201 (values from curand.h); "unknown curandStatus_t" otherwise.
[[nodiscard]] inline std::string_view curand_status_name(curandStatus_t status) {
    switch (status) {
        case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
        case CURAND_STATUS_VERSION_MISMATCH: return "CURAND_STATUS_VERSION_MISMATCH";
        case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
        case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
        case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
        case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
        case CURAND_STATUS_LENGTH_NOT_MULTIPLE: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
        case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
        case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
        case CURAND_STATUS_PREEXISTING_FAILURE: return "CURAND_STATUS_PREEXISTING_FAILURE";
        case CURAND_STATUS_INITIALIZATION_FAILED: return "CURAND_STATUS_INITIALIZATION_FAILED";
        case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
        case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
    }
    return "unknown curandStatus_t";
}

// "CURAND_STATUS_ALLOCATION_FAILED (102)": how findings name a status.
[[nodiscard]] inline std::string describe_status(curandStatus_t status) {
    return fmt::format("{} ({})", curand_status_name(status), static_cast<int>(status));
}

// What to do about a failed cuRAND call, specific to the status.
[[nodiscard]] inline std::string remediation_for(curandStatus_t status) {
    switch (status) {
        case CURAND_STATUS_ALLOCATION_FAILED:
            return "cuRAND could not allocate GPU memory for the generator state: free GPU memory (`nvidia-smi "
                   "--query-compute-apps=pid,used_memory --format=csv`) or run when the GPU is idle.";
        case CURAND_STATUS_VERSION_MISMATCH:
            return "The cuRAND library is of another version than the headers cudacheck was built with: install the "
                   "cuRAND of the "
                   "CUDA toolkit cudacheck was built with.";
        case CURAND_STATUS_INITIALIZATION_FAILED:
            return "cuRAND could not initialise CUDA on this GPU: check the driver (see cuda.pairing and "
                   "driver.libcuda).";
        case CURAND_STATUS_LAUNCH_FAILURE:
        case CURAND_STATUS_ARCH_MISMATCH:
            return "A cuRAND kernel failed on this GPU: check `dmesg` for Xid errors and that the installed cuRAND "
                   "supports this GPU's "
                   "architecture.";
        default:
            return "Reinstall the cuRAND matching the CUDA runtime; if it persists, report the status with `nvidia-smi "
                   "-q` output.";
    }
}

// A cuRAND call returned an error status.
struct Curand {
    using Status = curandStatus_t;
    [[nodiscard]] static std::string remediation(Status status) { return remediation_for(status); }
};
using CurandFailure = LibraryFailure<Curand>;

}  // namespace cudacheck
