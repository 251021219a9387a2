// cuBLAS as cublas.gemm and gpu.stress bind it: the entry points, opened at run time (the library
// names its own statuses: cublasGetStatusName).
#pragma once

#include "bind/symbols.hpp"

#include <cublas_v2.h>  // types and enums only: cuBLAS is opened at run time

namespace cudacheck {

struct CublasApi {
    decltype(&::cublasCreate_v2) create = nullptr;
    decltype(&::cublasDestroy_v2) destroy = nullptr;
    decltype(&::cublasSetStream_v2) set_stream = nullptr;
    decltype(&::cublasSetMathMode) set_math_mode = nullptr;
    decltype(&::cublasGetProperty) get_property = nullptr;
    decltype(&::cublasGetStatusName) status_name = nullptr;
    decltype(&::cublasSgemm_v2) sgemm = nullptr;
    decltype(&::cublasDgemm_v2) dgemm = nullptr;
    // cublasGemmEx is overloaded in C++ (a legacy cudaDataType compute type): name the C one.
    cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                              const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                              cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

inline constexpr LibrarySymbol<CublasApi> cublas_symbols[] = {
    required_symbol<&CublasApi::create>("cublasCreate_v2"),
    required_symbol<&CublasApi::destroy>("cublasDestroy_v2"),
    required_symbol<&CublasApi::set_stream>("cublasSetStream_v2"),
    required_symbol<&CublasApi::set_math_mode>("cublasSetMathMode"),
    required_symbol<&CublasApi::get_property>("cublasGetProperty"),
    required_symbol<&CublasApi::status_name>("cublasGetStatusName"),
    required_symbol<&CublasApi::sgemm>("cublasSgemm_v2"),
    required_symbol<&CublasApi::dgemm>("cublasDgemm_v2"),
    required_symbol<&CublasApi::gemm_ex>("cublasGemmEx"),
};

}  // namespace cudacheck
