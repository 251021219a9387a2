// Runs a selection of checks. Host checks run first, each as soon as its dependencies finished;
// then per-device checks, every device at once and, within a device, every check whose
// dependencies are met (checks serialise their own GPU work: gpu::DeviceWork). Results keep
// registry order (per-device ones by check, then device).
#pragma once

#include "cudacheck/check.hpp"
#include "cudacheck/registry.hpp"
#include "cudacheck/report.hpp"

namespace cudacheck {

struct EngineInput {
    const Selection& selection;
    const RunOptions& options;
    const Environment& environment;
    Probes& probes;
};

// Never throws because of a check: a check that throws becomes an `error` result.
[[nodiscard]] std::vector<CheckResult> run_checks(const EngineInput& input);

}  // namespace cudacheck
