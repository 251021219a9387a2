// The shape of every GPU check: its GPU part fills a plain outcome as it measures, and a pure
// judge turns the outcome into findings, evidence, metrics and the summary (unit tests drive the
// judge with hand-built outcomes, without a GPU).
#pragma once

#include <utility>

namespace cudacheck {

// Runs `measure(outcome)`, then `judge(outcome)`. A GPU error thrown by the measurement (reported
// by gpu::run_gpu_check or the check's own handler) still gets what was measured before it judged
// first, so the evidence gathered up to the failure stays in the report.
template <typename Outcome, typename Measure, typename Judge>
void measure_then_judge(Measure&& measure, Judge&& judge) {
    Outcome outcome;
    try {
        std::forward<Measure>(measure)(outcome);
    } catch (...) {
        judge(static_cast<const Outcome&>(outcome));
        throw;
    }
    std::forward<Judge>(judge)(static_cast<const Outcome&>(outcome));
}

}  // namespace cudacheck
