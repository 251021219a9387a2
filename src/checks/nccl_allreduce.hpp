// nccl.allreduce: what its GPU part measures, and the pure judge of it (unit tests drive it
// without a GPU, or with fewer GPUs than it needs).
#pragma once

#include "engine/check.hpp"
#include "gpu/library_support.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Runs the check with NCCL opened from `soname` (tests pass a name that does not exist, or a stub).
void run_nccl_allreduce(CheckContext& context, ResultBuilder& result, std::string_view soname);

// nccl-tests' bus bandwidth of an all-reduce over `ranks` GPUs: algbw * 2 (n - 1) / n, the rate
// each link carries, comparable across GPU counts (nccl-tests doc/PERFORMANCE.md).
[[nodiscard]] double nccl_allreduce_bus_bandwidth(double algorithm_bandwidth, int ranks);

// Relative error allowed for a float sum over a handful of GPUs against float64: a few roundings
// of 2^-24 each.
inline constexpr double allreduce_tolerance = 1e-5;

// One GPU's result of the all-reduce against the float64 sum of every GPU's input.
struct AllReduceAccuracy {
    int device = 0;
    gpu::Accuracy accuracy;
};

// What the GPU part of nccl.allreduce found, filled as it goes: an NCCL or GPU error that stops it
// leaves `complete` false and the judge reports the GPUs verified before it.
struct AllReduceOutcome {
    std::string version;       // "2.28.9"
    std::vector<int> devices;  // CUDA ordinals, one rank each
    std::size_t count = 0;     // floats per GPU
    int warmups = 0;
    int runs = 0;
    double init_ms = 0.0;                   // ncclCommInitAll, wall time
    std::vector<float> times_ms;            // each timed run, the slowest GPU's
    std::vector<AllReduceAccuracy> accuracy;  // in `devices` order, as far as verified
    bool complete = false;
};

void judge_allreduce(const AllReduceOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
