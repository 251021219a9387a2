#include "isolation/progress_line.hpp"

#include <system_error>

#include "util/process.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace cudacheck {

namespace {

using namespace std::chrono_literals;

constexpr const char* erase_line = "\r\x1b[2K";
constexpr const char* bold = "\x1b[1m";
constexpr const char* cyan = "\x1b[36m";
constexpr const char* reset = "\x1b[0m";
constexpr const char* ellipsis = "…";

// redraw: soon after a change, and often enough that the time moves; lines: see the header.
constexpr auto redraw_soonest = 50ms;
constexpr auto redraw_latest = 250ms;
constexpr auto lines_soonest = 1s;
constexpr auto lines_latest = 10s;

// Columns of UTF-8 text: its code points (the line holds no wide characters: ids, digits, units).
std::size_t columns(std::string_view text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The first `count` columns of `text`, never half a code point.
std::string first_columns(std::string_view text, std::size_t count) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            if (seen == count) return std::string(text.substr(0, i));
            ++seen;
        }
    }
    return std::string(text);
}

// Three significant figures or so: 812, 51.2, 4.25.
std::string figure_value(double value) {
    if (value >= 100 || value <= -100) return fmt::format("{:.0f}", value);
    if (value >= 10 || value <= -10) return fmt::format("{:.1f}", value);
    return fmt::format("{:.2f}", value);
}

// "(12/20 s, 812 TFLOP/s, 1.2 TiB tested)", "(waiting)", "(5 s)", or "" for a check just started.
std::string detail_of(const RunningCheck& check) {
    if (check.waiting) return "(waiting for the GPU)";
    if (check.figure) {
        const ProgressFigure& figure = *check.figure;
        // Whole seconds gone (floor, as a clock counts), never ahead of the run's own time at the end.
        const double elapsed = std::floor(figure.elapsed_s);
        std::string text = figure.planned_s > 0 ? fmt::format("({:.0f}/{:g} s", elapsed, figure.planned_s)
                                                : fmt::format("({:.0f} s", elapsed);
        if (!figure.unit.empty()) text += fmt::format(", {} {}", figure_value(figure.value), figure.unit);
        if (!figure.note.empty()) text += ", " + figure.note;
        return text + ")";
    }
    if (check.running_s >= 2) return fmt::format("({:.0f} s)", std::floor(check.running_s));
    return {};
}

// The line as pieces, so that colour can wrap some without counting as columns.
struct Piece {
    std::string text;
    const char* style = nullptr;
};

std::string joined(const std::vector<Piece>& pieces, bool colour) {
    std::string line;
    for (const Piece& piece : pieces) {
        if (colour && piece.style != nullptr && !piece.text.empty())
            line += fmt::format("{}{}{}", piece.style, piece.text, reset);
        else line += piece.text;
    }
    return line;
}

std::size_t columns(const std::vector<Piece>& pieces) {
    std::size_t total = 0;
    for (const Piece& piece : pieces) total += columns(piece.text);
    return total;
}

}  // namespace

std::string progress_text(const ProgressSnapshot& snapshot, std::size_t width, bool colour) {
    const std::size_t room = width > 1 ? width - 1 : 0;
    const Piece head{fmt::format("[{}/{}]", snapshot.done, snapshot.total), bold};
    const Piece tail{fmt::format(" — {:.1f} s", snapshot.elapsed_s)};
    // The first `shown` running checks, and "+N more" for the rest.
    const auto line_with = [&](std::size_t shown) {
        std::vector<Piece> pieces{head};
        if (snapshot.running.empty()) {
            pieces.push_back({snapshot.done == 0                ? " starting"
                              : snapshot.done >= snapshot.total ? " finishing"
                                                                : " between checks"});
        } else {
            pieces.push_back({" running"});
            for (std::size_t i = 0; i < shown; ++i) {
                const RunningCheck& check = snapshot.running[i];
                pieces.push_back({fmt::format("{} {}", i == 0 ? "" : ",", check.label)});
                if (const std::string detail = detail_of(check); !detail.empty())
                    pieces.push_back({" " + detail, cyan});
            }
            if (shown < snapshot.running.size())
                pieces.push_back({fmt::format("{} +{} more", shown == 0 ? "" : ",", snapshot.running.size() - shown)});
        }
        pieces.push_back(tail);
        return pieces;
    };
    for (std::size_t shown = snapshot.running.size();; --shown) {
        const std::vector<Piece> pieces = line_with(shown);
        if (columns(pieces) <= room) return joined(pieces, colour);
        if (shown == 0) break;
    }
    // Not even "[3/9] running +4 more — 1.0 s" fits: the plain line, cut.
    if (room == 0) return {};
    const std::string plain = joined(line_with(snapshot.running.size()), false);
    return first_columns(plain, room - 1) + ellipsis;
}

std::size_t terminal_width(int fd) {
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    if (const char* text = std::getenv("COLUMNS"); text != nullptr) {
        std::size_t value = 0;
        const std::string_view view(text);
        if (const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
            error == std::errc{} && end == view.data() + view.size() && value > 0)
            return value;
    }
    return 80;
}

ProgressSnapshot snapshot_at(const ProgressModel& model, ProgressModel::Clock::time_point run_start,
                             ProgressModel::Clock::time_point now) {
    const auto seconds = [](ProgressModel::Clock::duration duration) {
        return std::max(0.0, std::chrono::duration<double>(duration).count());
    };
    ProgressSnapshot snapshot;
    snapshot.done = model.done;
    snapshot.total = std::max(model.total, model.done);
    snapshot.elapsed_s = seconds(now - run_start);
    for (const ProgressModel::Running& running : model.running) {
        RunningCheck check{running.label, seconds(now - running.started), running.waiting, running.figure};
        // The figure's time moves on between figures (a check reports each second or so).
        if (check.figure) check.figure->elapsed_s += seconds(now - running.figure_at);
        snapshot.running.push_back(std::move(check));
    }
    std::stable_sort(snapshot.running.begin(), snapshot.running.end(),
                     [](const RunningCheck& a, const RunningCheck& b) { return a.running_s > b.running_s; });
    return snapshot;
}

ProgressLine::ProgressLine(ProgressSettings settings, ProgressModel first, Clock::time_point run_start)
    : settings_(settings), run_start_(run_start), model_(std::move(first)) {
    if (!enabled()) return;
    if (settings_.output == ProgressOutput::lines) settings_.colour = false;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        draw_locked(Clock::now());
    }
    // Without a thread (EAGAIN under a process limit) the line stays as first drawn.
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {}
}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(ProgressModel model) {
    if (!enabled()) return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        model_ = std::move(model);
        changed_ = true;
    }
    wake_.notify_one();
}

void ProgressLine::make_room() {
    if (!enabled()) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    erase_locked();
}

void ProgressLine::finish() {
    if (!enabled()) return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    const std::lock_guard<std::mutex> lock(mutex_);
    erase_locked();
}

void ProgressLine::run() {
    const bool lines = settings_.output == ProgressOutput::lines;
    const auto soonest = lines ? Clock::duration(lines_soonest) : Clock::duration(redraw_soonest);
    const auto latest = lines ? Clock::duration(lines_latest) : Clock::duration(redraw_latest);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        const auto due = last_draw_ + (changed_ ? soonest : latest);
        if (Clock::now() < due) {
            // Woken early by a change: wait again for the soonest a change may be drawn.
            wake_.wait_until(lock, due);
            continue;
        }
        draw_locked(Clock::now());
    }
}

void ProgressLine::draw_locked(Clock::time_point now) {
    const bool lines = settings_.output == ProgressOutput::lines;
    const std::string text =
        progress_text(snapshot_at(model_, run_start_, now), terminal_width(settings_.fd), settings_.colour);
    last_draw_ = now;
    changed_ = false;
    // A failed write (stderr closed) costs only the line.
    if (lines) {
        (void)sys::write_all(settings_.fd, text + "\n");
    } else {
        (void)sys::write_all(settings_.fd, erase_line + text);
        shown_ = true;
    }
}

void ProgressLine::erase_locked() {
    if (!shown_) return;
    (void)sys::write_all(settings_.fd, erase_line);
    shown_ = false;
}

}  // namespace cudacheck
