// A running check's live figure: how far a burn-in check is and how fast it goes now,
// for the progress line `cudacheck run` draws on a terminal (isolation/progress_line.hpp). A check
// reports it with report_progress(context, ...) as often as it likes; the worker sends at most four
// a second per check to its supervisor (isolation/worker.cpp), so reporting costs nothing
// measurable. Only checks that include this header pay for it.
#pragma once

#include "engine/check.hpp"

#include <string>

namespace cudacheck {

struct ProgressFigure {
    double elapsed_s = 0;  // since the check's own work began
    double planned_s = 0;  // how long it means to run (--duration); 0: not known
    double value = 0;      // the live figure, e.g. the TFLOP/s of the last second
    std::string unit;      // "TFLOP/s", "GB/s"; empty: no figure, only the time
    std::string note;      // a few more words, e.g. "1.2 TiB tested"; may be empty
};

// Hands `figure` to whoever runs the check (the engine's observer); nothing when nobody listens.
inline void report_progress(const CheckContext& context, const ProgressFigure& figure) {
    if (context.progress) context.progress(figure);
}

}  // namespace cudacheck
