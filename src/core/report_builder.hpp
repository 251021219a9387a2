// Assembles the Report from the results and the facts the probes gathered.
#pragma once

#include "cudacheck/report.hpp"
#include "probes/probes.hpp"

#include <string>
#include <vector>

namespace cudacheck {

struct RunMetadata {
    std::vector<std::string> argv;
    std::string level;
    bool strict = false;
    std::string timestamp_utc;
    double duration_ms = 0.0;
};

// Host facts are always included (they are cheap); driver, device and toolkit facts only when a
// check already gathered them, so `--only env` never initialises the driver.
[[nodiscard]] Report assemble_report(std::vector<CheckResult> results, Probes& probes, const RunMetadata& metadata);

// "2026-11-30T01:40:00Z"
[[nodiscard]] std::string utc_timestamp_now();

}  // namespace cudacheck
