#include "bind/nccl.hpp"

#include <fmt/format.h>

namespace cudacheck {

std::string nccl_version_text(int code) {
    // NCCL_VERSION(X,Y,Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z after (nccl.h).
    if (code < 10000) return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
    return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
}

std::string nccl_result_name(int result) {
    switch (result) {
        case 0: return "ncclSuccess";
        case 1: return "ncclUnhandledCudaError";
        case 2: return "ncclSystemError";
        case 3: return "ncclInternalError";
        case 4: return "ncclInvalidArgument";
        case 5: return "ncclInvalidUsage";
        case 6: return "ncclRemoteError";
        case 7: return "ncclInProgress";
        default: return fmt::format("ncclResult_t {}", result);
    }
}

}  // namespace cudacheck
