// cuda.p2p: what its GPU part measures between each ordered pair of GPUs, and the pure judge of it
// (unit tests drive it without a GPU).
#pragma once

#include "engine/check.hpp"
#include "probes/nvml/nvml_topology.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace cudacheck {

// cuda.p2p: what happened between one ordered pair of GPUs.
struct PeerCopy {
    int source = 0;       // CUDA ordinals
    int destination = 0;
    bool can_access = false;  // cudaDeviceCanAccessPeer(source, destination)
    std::optional<double> bandwidth_gbps;    // median copy rate, bytes counted once
    std::uint64_t words = 0;                 // 32-bit words copied
    std::optional<std::uint64_t> wrong_words;  // words that arrived different; nullopt when not compared
    std::optional<NvmlPeerLink> link;       // NVML's view of the link from source to destination
    // Other processes that used either GPU while the copy was timed: its rate is not
    // judged against the link.
    std::string shared_with;
};
void judge_p2p(const std::vector<PeerCopy>& copies, ResultBuilder& result);

}  // namespace cudacheck
