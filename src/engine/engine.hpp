// Runs a selection of checks. Host checks run first, each as soon as its dependencies finished;
// then per-device checks, every device at once and, within a device, every check whose
// dependencies are met (checks serialise their own GPU work: gpu::DeviceWork), and alongside them
// the multi-device checks, once each over all selected devices. The burn-ins (CheckInfo::burn_in)
// start on a device only once its other checks and the multi-device checks have finished. Each
// timed section's SM clock and temperature are read through NVML and added to the check's
// evidence (probes/nvml/timed_conditions.hpp). Results keep registry order: host checks, then the
// GPU checks (a per-device check's results by device).
#pragma once

#include "engine/check.hpp"
#include "engine/registry.hpp"
#include "report/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// Told about each check of a run as it is planned, starts and finishes; called from the checks'
// threads. The worker process streams these to its supervisor (isolation/worker.cpp).
class EngineObserver {
public:
    virtual ~EngineObserver() = default;
    // Once per check (and device) the run will report, before it starts or is skipped.
    virtual void planned(const std::string& check_id, std::optional<int> device) = 0;
    virtual void started(const std::string& check_id, std::optional<int> device) = 0;
    // A started check blocks on (true) or gets (false) a GPU another check holds (util/waiting.hpp).
    virtual void waiting(const std::string& /*check_id*/, std::optional<int> /*device*/, bool /*waiting*/) {}
    // Every result the run produces, skipped ones included (not the `decided` ones).
    virtual void finished(const CheckResult& result) = 0;
    // A started check's live figure (engine/progress.hpp), as often as the check reports it.
    virtual void progress(const std::string& /*check_id*/, std::optional<int> /*device*/,
                          const ProgressFigure& /*figure*/) {}
};

struct EngineInput {
    const Selection& selection;
    const RunOptions& options;
    const Environment& environment;
    Probes& probes;
    // Results decided before this run, by an earlier worker or by the supervisor for a check that
    // crashed or timed out: those checks do not run again; their results stand and feed dependents.
    const std::vector<CheckResult>* decided = nullptr;
    EngineObserver* observer = nullptr;
    // Run checks strictly one after another: after a crash with several checks in flight, the
    // supervisor reruns them this way to find the one that crashes.
    bool one_at_a_time = false;
};

// Never throws because of a check: a check that throws becomes an `error` result. The results are
// in report order (sort_in_report_order).
[[nodiscard]] std::vector<CheckResult> run_checks(const EngineInput& input);

// The report's order, whatever order the checks finished in: host checks, then GPU checks
// (per-device and multi-device), each in the selection's (registry) order, a per-device check's
// results by device. The supervisor, which gathers one run's results from several workers, puts
// them in the same order.
void sort_in_report_order(std::vector<CheckResult>& results, const Selection& selection);

}  // namespace cudacheck
