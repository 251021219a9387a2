// cuDNN as cudnn.conv binds it: the entry points, opened at run time (the library names its own
// statuses: cudnnGetErrorString), and its version encoding.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/library_version.hpp"
#include "bind/symbols.hpp"

#include <cstddef>
#include <cudnn.h>  // types, enums and CUDNN_VERSION only: cuDNN is opened at run time

namespace cudacheck {

struct CudnnApi {
    decltype(&::cudnnGetVersion) get_version = nullptr;
    decltype(&::cudnnGetCudartVersion) get_cudart_version = nullptr;
    decltype(&::cudnnGetErrorString) error_string = nullptr;
    decltype(&::cudnnGetLastErrorString) last_error_string = nullptr;
    decltype(&::cudnnGraphVersionCheck) graph_version_check = nullptr;
    decltype(&::cudnnOpsVersionCheck) ops_version_check = nullptr;
    decltype(&::cudnnCnnVersionCheck) cnn_version_check = nullptr;
    decltype(&::cudnnCreate) create = nullptr;
    decltype(&::cudnnDestroy) destroy = nullptr;
    decltype(&::cudnnSetStream) set_stream = nullptr;
    decltype(&::cudnnCreateTensorDescriptor) create_tensor = nullptr;
    decltype(&::cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
    decltype(&::cudnnSetTensor4dDescriptor) set_tensor_4d = nullptr;
    decltype(&::cudnnCreateFilterDescriptor) create_filter = nullptr;
    decltype(&::cudnnDestroyFilterDescriptor) destroy_filter = nullptr;
    decltype(&::cudnnSetFilter4dDescriptor) set_filter_4d = nullptr;
    decltype(&::cudnnCreateConvolutionDescriptor) create_convolution = nullptr;
    decltype(&::cudnnDestroyConvolutionDescriptor) destroy_convolution = nullptr;
    decltype(&::cudnnSetConvolution2dDescriptor) set_convolution_2d = nullptr;
    decltype(&::cudnnSetConvolutionMathType) set_math_type = nullptr;
    decltype(&::cudnnGetConvolution2dForwardOutputDim) output_dim = nullptr;
    decltype(&::cudnnGetConvolutionForwardAlgorithm_v7) forward_algorithm = nullptr;
    decltype(&::cudnnGetConvolutionForwardWorkspaceSize) workspace_size = nullptr;
    decltype(&::cudnnConvolutionForward) forward = nullptr;
};

inline constexpr LibrarySymbol<CudnnApi> cudnn_symbols[] = {
    required_symbol<&CudnnApi::get_version>("cudnnGetVersion"),
    required_symbol<&CudnnApi::get_cudart_version>("cudnnGetCudartVersion"),
    required_symbol<&CudnnApi::error_string>("cudnnGetErrorString"),
    required_symbol<&CudnnApi::last_error_string>("cudnnGetLastErrorString"),
    required_symbol<&CudnnApi::graph_version_check>("cudnnGraphVersionCheck"),
    required_symbol<&CudnnApi::ops_version_check>("cudnnOpsVersionCheck"),
    required_symbol<&CudnnApi::cnn_version_check>("cudnnCnnVersionCheck"),
    required_symbol<&CudnnApi::create>("cudnnCreate"),
    required_symbol<&CudnnApi::destroy>("cudnnDestroy"),
    required_symbol<&CudnnApi::set_stream>("cudnnSetStream"),
    required_symbol<&CudnnApi::create_tensor>("cudnnCreateTensorDescriptor"),
    required_symbol<&CudnnApi::destroy_tensor>("cudnnDestroyTensorDescriptor"),
    required_symbol<&CudnnApi::set_tensor_4d>("cudnnSetTensor4dDescriptor"),
    required_symbol<&CudnnApi::create_filter>("cudnnCreateFilterDescriptor"),
    required_symbol<&CudnnApi::destroy_filter>("cudnnDestroyFilterDescriptor"),
    required_symbol<&CudnnApi::set_filter_4d>("cudnnSetFilter4dDescriptor"),
    required_symbol<&CudnnApi::create_convolution>("cudnnCreateConvolutionDescriptor"),
    required_symbol<&CudnnApi::destroy_convolution>("cudnnDestroyConvolutionDescriptor"),
    required_symbol<&CudnnApi::set_convolution_2d>("cudnnSetConvolution2dDescriptor"),
    required_symbol<&CudnnApi::set_math_type>("cudnnSetConvolutionMathType"),
    required_symbol<&CudnnApi::output_dim>("cudnnGetConvolution2dForwardOutputDim"),
    required_symbol<&CudnnApi::forward_algorithm>("cudnnGetConvolutionForwardAlgorithm_v7"),
    required_symbol<&CudnnApi::workspace_size>("cudnnGetConvolutionForwardWorkspaceSize"),
    required_symbol<&CudnnApi::forward>("cudnnConvolutionForward"),
};

// A cuDNN call failed; `status` decides the finding (code_for_cudnn_status) and, with the path of
// the library, its remediation (add_failure).
struct Cudnn {
    using Status = cudnnStatus_t;
};
using CudnnFailure = LibraryFailure<Cudnn>;

// cudnnGetVersion()/CUDNN_VERSION: cuDNN 9+ M*10000+m*100+p (90300 -> 9.3.0); cuDNN <= 8
// M*1000+m*100+p (8005 -> 8.0.5) (cudnn_version.h).
[[nodiscard]] inline LibraryVersion decode_cudnn_version(std::size_t encoded) {
    const int value = static_cast<int>(encoded);
    // cuDNN 8 and older: M*1000+m*100+p (8.9.7 -> 8907, always below 10000); 9+: M*10000+m*100+p.
    if (value < 10000) return {value / 1000, (value % 1000) / 100, value % 100};
    return {value / 10000, (value % 10000) / 100, value % 100};
}

}  // namespace cudacheck
