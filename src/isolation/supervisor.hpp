// The supervisor: runs the checks in a worker process (isolation/worker.hpp) and turns whatever happens
// to it into results. A worker that dies (signal, abort, exit, too much host memory) costs the
// check that was running an `error`; a check past its time limit is killed and becomes `timeout`;
// the remaining checks run in a fresh worker. A death or hang in a step outside the checks' own
// code (opening a library, cuInit, a context, a handle: util/actions.hpp, announced by the worker)
// is charged to that step, which later workers do not take again: the checks that need it report
// it, the others run. SIGINT/SIGTERM stop the worker and leave a partial report with the unfinished
// checks skipped as "interrupted". The supervisor itself never loads libcuda, NVML or a CUDA library.
//
// Against the programs the checks run, which may be hostile: only lines that carry the worker's nonce count as
// its events, and none after its "done"; its death is seen by its exit, not by its pipes, which such
// a program may hold; what a dead or stopped worker leaves running comes to the supervisor (a child
// subreaper for the run) and is killed; a crash or hang names the program or file the check was
// busy with unless a GPU call may have been in flight (crash_attribution.hpp); a thread or process
// that could not start (EAGAIN) is the process limit's finding, CC908, not a crash.
//
// The pieces: protocol.hpp (the job and the events), worker_process.hpp (starting and stopping a
// worker), stop_signals.hpp (SIGINT/SIGTERM), and here the loop that watches a worker against the
// limits and decides what its death means.
#pragma once

#include "engine/check.hpp"
#include "engine/registry.hpp"
#include "engine/report_builder.hpp"
#include "isolation/progress_line.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

class StopSignals;

struct SupervisorSettings {
    std::string executable;  // this binary (/proc/self/exe), run as `executable __worker`
    RunOptions run;
    std::chrono::milliseconds check_time_limit{0};
    std::chrono::milliseconds run_time_limit{0};
    std::uint64_t memory_limit_bytes = 0;  // the worker's resident memory; 0: no limit
    bool forward_output = false;           // copy the worker's stdout/stderr to stderr as it comes (-v)
    ProgressSettings progress;             // the live progress line on stderr (--progress); none: off
};

struct SupervisedRun {
    std::vector<CheckResult> results;  // one per selected check (and device), in report order
    ReportFacts facts;                 // from the last worker that got that far
    std::optional<std::string> usage_error;
    int interrupted_by = 0;  // SIGINT or SIGTERM when the run was interrupted, else 0
};

// Never throws for anything a worker does. `signals`: the handlers its caller installed before it
// created what a signal must not leave behind (run's -o files); the other form installs its own.
[[nodiscard]] SupervisedRun supervise(const Selection& selection, const SupervisorSettings& settings,
                                      const StopSignals& signals);
[[nodiscard]] SupervisedRun supervise(const Selection& selection, const SupervisorSettings& settings);

}  // namespace cudacheck
