// The worker: the process that runs the checks for its supervisor (isolation/supervisor.hpp). Every
// call into vendor code (libcuda, NVML, the CUDA libraries, GPU kernels) happens here, so a
// segfault, an abort or a hang inside it costs one check, not the report.
//
// What it reads and writes: isolation/protocol.hpp.
#pragma once

#include "engine/engine.hpp"
#include "engine/report_builder.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// `cudacheck __worker`: reads the job on stdin, runs it, returns the exit status.
[[nodiscard]] int run_worker();

// What the worker does with its job, in the calling process (the worker, or `--no-isolation`).
struct ChecksRun {
    std::vector<CheckResult> results;
    ReportFacts facts;
    std::optional<std::string> usage_error;  // then nothing ran
};
[[nodiscard]] ChecksRun run_checks_here(const EngineInput& input);

}  // namespace cudacheck
