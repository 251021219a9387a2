#include "bind/cuda_driver.hpp"

#include <fmt/format.h>

namespace cudacheck {

std::string cu_result_name(int result) {
    switch (result) {
        case CUDA_SUCCESS: return "CUDA_SUCCESS";
        case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
        case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
        case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
        case CUDA_ERROR_DEINITIALIZED: return "CUDA_ERROR_DEINITIALIZED";
        case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
        case CUDA_ERROR_DEVICE_UNAVAILABLE: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
        case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
        case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
        case CUDA_ERROR_DEVICE_NOT_LICENSED: return "CUDA_ERROR_DEVICE_NOT_LICENSED";
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
        case CUDA_ERROR_OPERATING_SYSTEM: return "CUDA_ERROR_OPERATING_SYSTEM";
        case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
        case CUDA_ERROR_SYSTEM_NOT_READY: return "CUDA_ERROR_SYSTEM_NOT_READY";
        case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
        case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
        case CUDA_ERROR_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
        default: return fmt::format("CUDA_ERROR_{}", result);
    }
}

std::string CudaDriver::remediation(Status status) {
    switch (status) {
        case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
            return "The driver's PTX JIT compiler (libnvidia-ptxjitcompiler.so.1) is missing: reinstall the NVIDIA "
                   "driver (in "
                   "containers, the NVIDIA container toolkit must mount it).";
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_INVALID_IMAGE:
            return "The driver could not use the code NVRTC produced for this GPU: install an NVRTC that supports this "
                   "architecture, "
                   "and a driver at least as new as that NVRTC's CUDA version.";
        default: return "Act on the CUresult named; see cuda.pairing and driver.libcuda for the driver's state.";
    }
}

}  // namespace cudacheck
