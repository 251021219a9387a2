// The live progress line `cudacheck run` draws on stderr while its checks run, so that a long
// run shows it is alive:
//
//   [12/27] running cublas.gemm@0, gpu.stress@0 (12/20 s, 812 TFLOP/s) — 3.1 s
//
// the checks done of those the run will report, the checks running (oldest first; a burn-in check
// with its last figure, engine/progress.hpp; any other with its own time once past 2 s), and the
// time since the run began. The supervisor (isolation/supervisor.cpp) hands a ProgressModel to a
// ProgressLine at every event; the line's own thread draws it, so it keeps moving while no event
// comes (a hung check) and a terminal that blocks a write never holds up the supervision loop.
//
//   redraw: in place, "\r\x1b[2K" then the text, at most every 50 ms and at least every 250 ms,
//           cut to the terminal's width; erased when the run ends, before the report is printed.
//   lines:  for TERM=dumb (no cursor control): plain newline-terminated lines, at most one a
//           second when something changed, else one every 10 s; no colour, nothing erased.
#pragma once

#include "engine/progress.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cudacheck {

enum class ProgressOutput { none, redraw, lines };

struct ProgressSettings {
    ProgressOutput output = ProgressOutput::none;
    bool colour = false;  // bold counter, cyan figures (redraw only)
    int fd = 2;           // stderr
};

// One running check as the line shows it.
struct RunningCheck {
    std::string label;                    // "gpu.stress@0", "host.os"
    double running_s = 0;                 // since it started
    bool waiting = false;                 // blocked on a GPU another check holds
    std::optional<ProgressFigure> figure;  // its last figure, elapsed_s advanced to now
};

struct ProgressSnapshot {
    std::size_t done = 0;
    std::size_t total = 0;
    std::vector<RunningCheck> running;  // oldest first
    double elapsed_s = 0;               // since the run began
};

// The line for `snapshot`, at most width - 1 columns (the last column is left free, where some
// terminals wrap): running checks that do not fit become "+N more"; a line that still does not
// fit is cut, ending in "…". Columns are UTF-8 code points; colour escapes count none. Pure.
[[nodiscard]] std::string progress_text(const ProgressSnapshot& snapshot, std::size_t width, bool colour);

// The columns of the terminal on `fd` (TIOCGWINSZ), else COLUMNS, else 80.
[[nodiscard]] std::size_t terminal_width(int fd);

// What the supervisor knows, as of its last event: the line's own thread turns it into a
// snapshot at each draw, with the clock of that moment.
struct ProgressModel {
    using Clock = std::chrono::steady_clock;
    struct Running {
        std::string label;
        Clock::time_point started;
        bool waiting = false;
        std::optional<ProgressFigure> figure;
        Clock::time_point figure_at;  // when the figure came
    };
    std::size_t done = 0;
    std::size_t total = 0;
    std::vector<Running> running;
};
[[nodiscard]] ProgressSnapshot snapshot_at(const ProgressModel& model, ProgressModel::Clock::time_point run_start,
                                           ProgressModel::Clock::time_point now);

class ProgressLine {
public:
    using Clock = ProgressModel::Clock;
    // Draws at once, then from a thread of its own, unless settings.output is none.
    ProgressLine(ProgressSettings settings, ProgressModel first, Clock::time_point run_start);
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;
    ~ProgressLine();  // finish()

    [[nodiscard]] bool enabled() const { return settings_.output != ProgressOutput::none; }
    void update(ProgressModel model);
    // Erases the line now, for someone else's output on the same terminal (-v's worker output);
    // the next draw brings it back.
    void make_room();
    // Stops the thread and erases the line: what follows starts on a clean line.
    void finish();

private:
    void run();
    void draw_locked(Clock::time_point now);
    void erase_locked();

    ProgressSettings settings_;
    Clock::time_point run_start_;
    std::mutex mutex_;
    std::condition_variable wake_;
    ProgressModel model_;
    bool changed_ = true;
    bool stopping_ = false;
    bool shown_ = false;  // redraw: a line is on the terminal
    Clock::time_point last_draw_{};
    std::thread thread_;
};

}  // namespace cudacheck
