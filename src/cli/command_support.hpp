// What the subcommands share: how a usage error is told, whether to colour the output, and the
// GPUs of this machine as a worker process finds them.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "cudacheck/report.hpp"
#include "util/environment.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// "cudacheck: MESSAGE" on stderr; the caller returns exit_usage.
void usage_error(const std::string& message);

// Refuses "nan" and infinities, which CLI::Range lets through (every comparison with nan is false):
// `fleet --threshold nan` flagged every figure (issue 18).
extern const CLI::Validator finite_number;

// Colours only on a terminal, and not when --no-color, NO_COLOR (no-color.org) or TERM=dumb say otherwise.
[[nodiscard]] bool colour_wanted(bool no_color_option, const Environment& environment);

struct FoundGpus {
    std::vector<DeviceInfo> devices;
    std::optional<CudaVersion> driver_cuda;
};

// The GPUs of this machine, asked the way `cudacheck --level quick --only cuda.devices` asks:
// through the supervisor, so libcuda and NVML are loaded by the worker process, never by this one
// (a broken driver then costs a verdict, not the listing). Quick: NVML and cuDriverGetVersion,
// no cuInit. `inspect` and `env` use it.
[[nodiscard]] FoundGpus find_gpus();

}  // namespace cudacheck
