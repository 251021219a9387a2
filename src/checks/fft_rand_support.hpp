// Pure helpers of the cufft.fft and curand.generate checks, kept apart from the GPU code so that
// unit tests exercise them without a GPU: status-name tables and the library version encoding.
// (The float64 references are in checks/reference/.)
#pragma once

#include "probes/library_locator.hpp"

#include <cufft.h>
#include <curand.h>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace cudacheck::fft_rand {

// --- status names ----------------------------------------------------------------------------

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

// "CUFFT_ALLOC_FAILED (2)": how findings name a status.
[[nodiscard]] inline std::string describe_status(cufftResult result) {
    return fmt::format("{} ({})", cufft_result_name(result), static_cast<int>(result));
}
[[nodiscard]] inline std::string describe_status(curandStatus_t status) {
    return fmt::format("{} ({})", curand_status_name(status), static_cast<int>(status));
}

// What to do about a failed cuFFT/cuRAND call, specific to the status.
[[nodiscard]] inline std::string remediation_for(cufftResult result) {
    switch (result) {
        case CUFFT_ALLOC_FAILED:
            return "cuFFT could not allocate GPU memory for the plan or its work area: free GPU memory (`nvidia-smi "
                   "--query-compute-apps=pid,used_memory --format=csv`) or run when the GPU is idle.";
        case CUFFT_INVALID_DEVICE:
        case CUFFT_SETUP_FAILED:
            return "cuFFT could not set up on this GPU: check that the cuFFT package matches the CUDA runtime and the driver (see "
                   "cuda.pairing); reinstall cuFFT if it was copied from another toolkit.";
        case CUFFT_MISSING_DEPENDENCY:
        case CUFFT_NVRTC_FAILURE:
        case CUFFT_NVJITLINK_FAILURE:
            return "cuFFT needs a library it could not load (NVRTC/nvJitLink of the same CUDA major version): install them "
                   "beside cuFFT or add their directory to LD_LIBRARY_PATH.";
        case CUFFT_EXEC_FAILED:
            return "A cuFFT kernel failed to launch: check `dmesg` for Xid errors and that this GPU's architecture is supported by the "
                   "installed cuFFT.";
        default:
            return "Reinstall the cuFFT matching the CUDA runtime; if it persists, report the status with `nvidia-smi -q` output.";
    }
}
[[nodiscard]] inline std::string remediation_for(curandStatus_t status) {
    switch (status) {
        case CURAND_STATUS_ALLOCATION_FAILED:
            return "cuRAND could not allocate GPU memory for the generator state: free GPU memory (`nvidia-smi "
                   "--query-compute-apps=pid,used_memory --format=csv`) or run when the GPU is idle.";
        case CURAND_STATUS_VERSION_MISMATCH:
            return "The cuRAND library is of another version than the headers cudacheck was built with: install the cuRAND of the "
                   "CUDA toolkit cudacheck was built with.";
        case CURAND_STATUS_INITIALIZATION_FAILED:
            return "cuRAND could not initialise CUDA on this GPU: check the driver (see cuda.pairing and driver.libcuda).";
        case CURAND_STATUS_LAUNCH_FAILURE:
        case CURAND_STATUS_ARCH_MISMATCH:
            return "A cuRAND kernel failed on this GPU: check `dmesg` for Xid errors and that the installed cuRAND supports this GPU's "
                   "architecture.";
        default:
            return "Reinstall the cuRAND matching the CUDA runtime; if it persists, report the status with `nvidia-smi -q` output.";
    }
}

// --- versions --------------------------------------------------------------------------------

struct LibraryVersion {
    int major = 0;
    int minor = 0;
    int patch = 0;
    [[nodiscard]] std::string text() const { return fmt::format("{}.{}.{}", major, minor, patch); }
};

// cufftGetVersion and curandGetVersion both encode M*1000 + m*100 + p (cuFFT 10.5.2 -> 10502,
// cuRAND 10.4.0 -> 10400; CUFFT_VERSION/CURAND_VERSION in the headers).
[[nodiscard]] inline LibraryVersion decode_library_version(int encoded) {
    return {encoded / 1000, (encoded % 1000) / 100, encoded % 100};
}

// "12.0.0 (major 12, as libcufft.so.12 implies)" or "... (major 11, but libcufft.so.12 implies 12)".
[[nodiscard]] inline std::string describe_version(int encoded, std::string_view soname) {
    const LibraryVersion version = decode_library_version(encoded);
    const int expected = soname_major(soname);
    if (expected < 0) return version.text();
    if (expected == version.major) return fmt::format("{} (major {}, as {} implies)", version.text(), version.major, soname);
    return fmt::format("{} (major {}, but {} implies {})", version.text(), version.major, soname, expected);
}

}  // namespace cudacheck::fft_rand
