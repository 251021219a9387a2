// The worker: the process that runs the checks for its supervisor (isolation/supervisor.hpp). Every
// call into vendor code (libcuda, NVML, the CUDA libraries, GPU kernels) happens here, so a
// segfault, an abort or a hang inside it costs one check, not the report.
//
// Protocol (both sides in worker.cpp and supervisor.cpp; key names of results in report_json):
//   stdin   one JSON job: {"parent_pid", "level", "devices", "verbose", "duration", "checks" (ids, registry
//           order), "decided" (results not to run again), "one_at_a_time"}
//   fd 3    JSON lines, as things happen:
//             {"event":"planned","id","device"}   a check (per device) the run will report
//             {"event":"started","id","device"}
//             {"event":"finished","result":{...}}
//             {"event":"usage_error","message"}   e.g. --devices naming a missing ordinal
//             {"event":"facts","versions":{...},"devices":[...]}
//             {"event":"done"}
//   stdout, stderr   whatever the checks or libraries print; the supervisor keeps the tail
#pragma once

#include "engine/report_builder.hpp"
#include "engine/engine.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

inline constexpr const char* worker_subcommand = "__worker";
inline constexpr int worker_events_fd = 3;

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
