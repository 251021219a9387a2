// NCCL as nccl.allreduce binds it: the few types and values used, declared here so that building
// needs no nccl.h; the entry points, opened at run time (libnccl.so.2); its status names and its
// version encoding.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/symbols.hpp"

#include <cstddef>
#include <cuda_runtime_api.h>  // cudaStream_t
#include <string>

namespace cudacheck {

// From nccl.h (NCCL 2.28).
using ncclResult_t = int;
using ncclComm_t = struct ncclComm*;
inline constexpr int nccl_float32 = 7;  // ncclFloat32
inline constexpr int nccl_sum = 0;      // ncclSum

struct NcclApi {
    ncclResult_t (*get_version)(int*) = nullptr;
    ncclResult_t (*comm_init_all)(ncclComm_t*, int, const int*) = nullptr;
    ncclResult_t (*comm_destroy)(ncclComm_t) = nullptr;
    ncclResult_t (*all_reduce)(const void*, void*, std::size_t, int, int, ncclComm_t, cudaStream_t) = nullptr;
    ncclResult_t (*group_start)() = nullptr;
    ncclResult_t (*group_end)() = nullptr;
    const char* (*get_error_string)(ncclResult_t) = nullptr;
    const char* (*get_last_error)(ncclComm_t) = nullptr;  // NCCL 2.13 and later; optional
};

inline constexpr LibrarySymbol<NcclApi> nccl_symbols[] = {
    required_symbol<&NcclApi::get_version>("ncclGetVersion"),
    required_symbol<&NcclApi::comm_init_all>("ncclCommInitAll"),
    required_symbol<&NcclApi::comm_destroy>("ncclCommDestroy"),
    required_symbol<&NcclApi::all_reduce>("ncclAllReduce"),
    required_symbol<&NcclApi::group_start>("ncclGroupStart"),
    required_symbol<&NcclApi::group_end>("ncclGroupEnd"),
    required_symbol<&NcclApi::get_error_string>("ncclGetErrorString"),
    optional_symbol<&NcclApi::get_last_error>("ncclGetLastError"),
};

// An NCCL call failed; becomes a CC515 finding naming the ncclResult_t (the catalogue's remediation).
struct Nccl {
    using Status = ncclResult_t;
    [[nodiscard]] static std::string remediation(Status) { return {}; }
};
using NcclError = LibraryFailure<Nccl>;

// ncclGetVersion's code as text: "2.28.9" for 22809 (X*10000+Y*100+Z since 2.9), "2.8.4" for 2804.
[[nodiscard]] std::string nccl_version_text(int code);
// "ncclUnhandledCudaError" for 1 (nccl.h ncclResult_t).
[[nodiscard]] std::string nccl_result_name(int result);

}  // namespace cudacheck
