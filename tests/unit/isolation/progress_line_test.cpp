// The progress line's text (isolation/progress_line.cpp): what it says, and that it fits the width.
#include "isolation/progress_line.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <unistd.h>

namespace cudacheck {
namespace {

using namespace std::chrono_literals;

ProgressSnapshot burn_in() {
    ProgressSnapshot snapshot;
    snapshot.done = 20;
    snapshot.total = 23;
    snapshot.elapsed_s = 41.26;
    snapshot.running.push_back({"gpu.stress@0", 13.0, false, ProgressFigure{12.4, 20, 812.3, "TFLOP/s", {}}});
    snapshot.running.push_back(
        {"gpu.memtest@1", 6.0, false, ProgressFigure{5.2, 20, 2950.4, "GB/s", "1.2 TiB tested"}});
    return snapshot;
}

TEST(ProgressLine, names_the_counts_the_running_checks_and_the_time) {
    ProgressSnapshot snapshot;
    snapshot.done = 12;
    snapshot.total = 27;
    snapshot.elapsed_s = 3.14;
    snapshot.running = {{"cublas.gemm@0", 0.4, false, std::nullopt}, {"gpu.stress@0", 0.2, false, std::nullopt}};
    EXPECT_EQ(progress_text(snapshot, 120, false), "[12/27] running cublas.gemm@0, gpu.stress@0 — 3.1 s");
}

TEST(ProgressLine, burn_in_checks_show_elapsed_against_planned_and_their_figure) {
    EXPECT_EQ(progress_text(burn_in(), 200, false),
              "[20/23] running gpu.stress@0 (12/20 s, 812 TFLOP/s), gpu.memtest@1 (5/20 s, 2950 GB/s, 1.2 TiB tested) "
              "— 41.3 s");
}

TEST(ProgressLine, figures_keep_about_three_digits) {
    ProgressSnapshot snapshot;
    snapshot.total = 1;
    snapshot.running.push_back({"x", 1, false, ProgressFigure{1, 0, 51.24, "TFLOP/s", {}}});
    EXPECT_EQ(progress_text(snapshot, 200, false), "[0/1] running x (1 s, 51.2 TFLOP/s) — 0.0 s");
    snapshot.running[0].figure->value = 4.256;
    EXPECT_EQ(progress_text(snapshot, 200, false), "[0/1] running x (1 s, 4.26 TFLOP/s) — 0.0 s");
}

TEST(ProgressLine, a_check_running_long_shows_its_own_time_and_a_waiting_one_says_so) {
    ProgressSnapshot snapshot;
    snapshot.done = 0;
    snapshot.total = 2;
    snapshot.elapsed_s = 3.5;
    snapshot.running = {{"fault.hang", 3.4, false, std::nullopt}, {"gpu.memtest@0", 1.0, true, std::nullopt}};
    EXPECT_EQ(progress_text(snapshot, 120, false),
              "[0/2] running fault.hang (3 s), gpu.memtest@0 (waiting for the GPU) — 3.5 s");
}

// Whole seconds gone, as a clock counts them: a check 2.6 s into a run of 2.6 s is not at "3 s"
// (seen under tmux with fault.hang before this rounded down).
TEST(ProgressLine, a_check_never_shows_more_seconds_than_the_run) {
    ProgressSnapshot snapshot;
    snapshot.total = 2;
    snapshot.elapsed_s = 2.6;
    snapshot.running = {{"fault.hang", 2.55, false, std::nullopt},
                        {"gpu.stress@0", 2.55, false, ProgressFigure{2.55, 20, 800, "TFLOP/s", {}}}};
    EXPECT_EQ(progress_text(snapshot, 200, false),
              "[0/2] running fault.hang (2 s), gpu.stress@0 (2/20 s, 800 TFLOP/s) — 2.6 s");
}

TEST(ProgressLine, says_what_happens_when_nothing_runs) {
    ProgressSnapshot snapshot;
    snapshot.total = 5;
    EXPECT_EQ(progress_text(snapshot, 80, false), "[0/5] starting — 0.0 s");
    snapshot.done = 2;
    EXPECT_EQ(progress_text(snapshot, 80, false), "[2/5] between checks — 0.0 s");
    snapshot.done = 5;
    EXPECT_EQ(progress_text(snapshot, 80, false), "[5/5] finishing — 0.0 s");
}

TEST(ProgressLine, checks_that_do_not_fit_become_a_count) {
    const std::string full = progress_text(burn_in(), 200, false);
    // One column short of the whole line (the last column stays free): the second check goes.
    EXPECT_EQ(progress_text(burn_in(), test::columns_of(full), false),
              "[20/23] running gpu.stress@0 (12/20 s, 812 TFLOP/s), +1 more — 41.3 s");
    EXPECT_EQ(progress_text(burn_in(), 40, false), "[20/23] running +2 more — 41.3 s");
}

TEST(ProgressLine, never_wider_than_the_terminal_less_one_column) {
    for (std::size_t width = 0; width <= 160; ++width) {
        for (const bool colour : {false, true}) {
            const std::string text = progress_text(burn_in(), width, colour);
            EXPECT_LE(test::columns_of(text), width > 0 ? width - 1 : 0) << width << ": " << text;
            EXPECT_EQ(text.find('\n'), std::string::npos);
            EXPECT_EQ(text.find('\r'), std::string::npos);
        }
    }
    // Too narrow for even the count: the line cut, ending in an ellipsis, never half a character.
    EXPECT_EQ(progress_text(burn_in(), 12, false), "[20/23] ru…");
    EXPECT_EQ(progress_text(burn_in(), 1, false), "");
}

TEST(ProgressLine, colour_only_when_asked_and_it_costs_no_columns) {
    const std::string plain = progress_text(burn_in(), 200, false);
    const std::string coloured = progress_text(burn_in(), 200, true);
    EXPECT_EQ(plain.find('\x1b'), std::string::npos);
    EXPECT_NE(coloured.find("\x1b[1m[20/23]\x1b[0m"), std::string::npos) << coloured;
    EXPECT_EQ(test::columns_of(coloured), test::columns_of(plain));
    // The same checks fit at the same width with colour as without.
    EXPECT_EQ(test::columns_of(progress_text(burn_in(), 90, true)),
              test::columns_of(progress_text(burn_in(), 90, false)));
}

TEST(ProgressLine, snapshot_moves_the_time_on_and_puts_the_oldest_check_first) {
    const auto start = ProgressModel::Clock::now();
    ProgressModel model;
    model.done = 3;
    model.total = 2;  // a stale total never shows fewer than done
    model.running.push_back({"gpu.memtest@0", start + 2s, false, std::nullopt, {}});
    model.running.push_back(
        {"gpu.stress@0", start + 1s, false, ProgressFigure{4.0, 20, 800, "TFLOP/s", {}}, start + 4s});
    const ProgressSnapshot snapshot = snapshot_at(model, start, start + 5500ms);
    EXPECT_EQ(snapshot.done, 3u);
    EXPECT_EQ(snapshot.total, 3u);
    EXPECT_DOUBLE_EQ(snapshot.elapsed_s, 5.5);
    ASSERT_EQ(snapshot.running.size(), 2u);
    EXPECT_EQ(snapshot.running[0].label, "gpu.stress@0");
    EXPECT_DOUBLE_EQ(snapshot.running[0].running_s, 4.5);
    ASSERT_TRUE(snapshot.running[0].figure.has_value());
    EXPECT_DOUBLE_EQ(snapshot.running[0].figure->elapsed_s, 5.5) << "4 s when it came, 1.5 s ago";
    EXPECT_EQ(snapshot.running[1].label, "gpu.memtest@0");
}

TEST(ProgressLine, draws_nothing_when_off) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    {
        ProgressLine line(ProgressSettings{ProgressOutput::none, false, fds[1]}, ProgressModel{},
                          ProgressModel::Clock::now());
        EXPECT_FALSE(line.enabled());
        line.update(ProgressModel{});
    }
    ::close(fds[1]);
    char byte = 0;
    EXPECT_EQ(::read(fds[0], &byte, 1), 0) << "no byte written";
    ::close(fds[0]);
}

TEST(ProgressLine, redraws_in_place_and_ends_erased) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    {
        ProgressModel model;
        model.total = 1;
        ProgressLine line(ProgressSettings{ProgressOutput::redraw, false, fds[1]}, model, ProgressModel::Clock::now());
        std::this_thread::sleep_for(600ms);
    }
    ::close(fds[1]);
    std::string written;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        written.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    EXPECT_TRUE(written.starts_with("\r\x1b[2K[0/1] starting — 0.0 s")) << written;
    EXPECT_TRUE(written.ends_with("\r\x1b[2K")) << "erased at the end";
    EXPECT_EQ(written.find('\n'), std::string::npos);
    std::size_t draws = 0;
    for (std::size_t at = 0; (at = written.find("\r\x1b[2K[", at)) != std::string::npos; ++at) ++draws;
    EXPECT_GE(draws, 3u) << "at least every 250 ms: " << written;
}

TEST(ProgressLine, lines_mode_writes_plain_lines_without_cursor_control) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    {
        ProgressModel model;
        model.total = 1;
        ProgressLine line(ProgressSettings{ProgressOutput::lines, true, fds[1]}, model, ProgressModel::Clock::now());
        model.done = 1;
        line.update(model);  // within the second: not drawn at once
        std::this_thread::sleep_for(300ms);
    }
    ::close(fds[1]);
    std::string written;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
        written.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    EXPECT_EQ(written, "[0/1] starting — 0.0 s\n") << "one line a second at most, no colour, nothing erased";
}

}  // namespace
}  // namespace cudacheck
