// Runs a selection of checks and produces a Report. Host checks run first (independent ones
// concurrently), then per-device checks, each device in its own thread; results keep registry order.
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
