#include "util/timed_windows.hpp"

#include <ctime>
#include <utility>

namespace cudacheck {
namespace {

thread_local TimedWindowRecording* recording = nullptr;

}  // namespace

std::int64_t wall_clock_us() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

TimedWindowRecording::TimedWindowRecording(std::function<void(const TimedSpan&)> closed, SpanWatcher watcher)
    : closed_(std::move(closed)), watcher_(std::move(watcher)), outer_(recording) {
    recording = this;
}

TimedWindowRecording::~TimedWindowRecording() { recording = outer_; }

std::vector<TimedSpan> TimedWindowRecording::spans() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return spans_;
}

TimedWindowRecording* TimedWindowRecording::current() { return recording; }

TimedWindowRecording::Join::Join(TimedWindowRecording* joined) : outer_(recording) { recording = joined; }

TimedWindowRecording::Join::~Join() { recording = outer_; }

// Under the lock: `closed` (the engine's NVML query) is not run by two threads at once.
void TimedWindowRecording::close(const TimedSpan& span) {
    const std::lock_guard<std::mutex> lock(mutex_);
    spans_.push_back(span);
    if (closed_) closed_(span);
}

TimedWindow::TimedWindow(std::vector<int> devices) : devices_(std::move(devices)), start_us_(wall_clock_us()) {
    if (recording == nullptr || !recording->watcher_) return;
    for (int device : devices_) {
        try {
            if (std::unique_ptr<SpanWatch> watch = recording->watcher_(device)) watches_.push_back(std::move(watch));
        } catch (...) {
            // A watch that cannot start (no thread to be had) leaves the section unwatched, not the timing undone.
        }
    }
}

void TimedWindow::stop() {
    if (end_us_ != 0) return;
    end_us_ = wall_clock_us();
    for (const std::unique_ptr<SpanWatch>& watch : watches_) watch->stop();
}

TimedWindow::~TimedWindow() {
    stop();
    watches_.clear();  // each hands over what it saw
    if (recording == nullptr) return;
    for (int device : devices_) recording->close({device, start_us_, end_us_});
}

}  // namespace cudacheck
