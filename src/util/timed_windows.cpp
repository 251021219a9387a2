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

TimedWindowRecording::TimedWindowRecording(std::function<void(const TimedSpan&)> closed)
    : closed_(std::move(closed)), outer_(recording) {
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

TimedWindow::TimedWindow(std::vector<int> devices) : devices_(std::move(devices)), start_us_(wall_clock_us()) {}

void TimedWindow::stop() {
    if (end_us_ == 0) end_us_ = wall_clock_us();
}

TimedWindow::~TimedWindow() {
    if (recording == nullptr) return;
    stop();
    for (int device : devices_) recording->close({device, start_us_, end_us_});
}

}  // namespace cudacheck
