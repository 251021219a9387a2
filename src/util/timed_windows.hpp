// When a check timed GPU work, by the wall clock: the windows in which other processes on the same
// GPU would make its figures not the GPU's own. The engine records, for each check's
// thread, the windows its timed sections open (TimedWindowRecording); the GPU layer opens one
// around every section it runs alone on a device (TimedWindow). The clock is CLOCK_REALTIME in
// microseconds, NVML's own for its per-process utilization samples, so the two can be matched.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace cudacheck {

struct TimedSpan {
    int device = 0;  // CUDA ordinal
    std::int64_t start_us = 0;
    std::int64_t end_us = 0;
    bool operator==(const TimedSpan&) const = default;
};

// Microseconds since the epoch, as NVML stamps its samples.
[[nodiscard]] std::int64_t wall_clock_us();

// Watches one GPU while a timed section runs on it: the engine reads its SM clock and temperature
// through NVML, so that each figure says what the GPU ran at (engine/engine.cpp). Made as the
// section opens, stopped as it ends, destroyed after the GPU's exclusive lock is released.
class SpanWatch {
public:
    SpanWatch() = default;
    SpanWatch(const SpanWatch&) = delete;
    SpanWatch& operator=(const SpanWatch&) = delete;
    virtual ~SpanWatch() = default;
    // The section's end. Must return at once: it runs while the section still holds the GPU.
    virtual void stop() = 0;
};
// Makes the watch of one GPU (a CUDA ordinal) for a section that opens; nullptr for none.
using SpanWatcher = std::function<std::unique_ptr<SpanWatch>(int device)>;

// Collects this thread's timed spans for its lifetime (the thread runs one check), and hands each
// to `closed` as it ends: NVML tells only who used the GPU in its last sample period, so who shared
// a span is asked when it ends, not when the check does.
class TimedWindowRecording {
public:
    explicit TimedWindowRecording(std::function<void(const TimedSpan&)> closed = {}, SpanWatcher watcher = {});
    TimedWindowRecording(const TimedWindowRecording&) = delete;
    TimedWindowRecording& operator=(const TimedWindowRecording&) = delete;
    ~TimedWindowRecording();
    // The spans recorded so far, in the order they ended.
    [[nodiscard]] std::vector<TimedSpan> spans() const;
    // This thread's recording (nullptr when none), for the threads a check starts to join: a
    // check that times work on its own threads (cufft.fft, one per length) joins them to it.
    [[nodiscard]] static TimedWindowRecording* current();
    // Makes `recording` this thread's for the Join's lifetime.
    class Join {
    public:
        explicit Join(TimedWindowRecording* recording);
        Join(const Join&) = delete;
        Join& operator=(const Join&) = delete;
        ~Join();

    private:
        TimedWindowRecording* outer_;
    };

private:
    friend class TimedWindow;
    void close(const TimedSpan& span);
    mutable std::mutex mutex_;  // spans of several threads (Join) end concurrently
    std::vector<TimedSpan> spans_;
    std::function<void(const TimedSpan&)> closed_;
    SpanWatcher watcher_;
    TimedWindowRecording* outer_ = nullptr;
};

// A timed section on `devices`, from construction to stop() (or destruction), recorded when it is
// destroyed; does nothing on a thread that records none. Destroyed after the GPU's exclusive lock
// is released, the recording's NVML query does not hold the GPU from the other checks. The
// recording's watcher watches each device from construction to stop().
class TimedWindow {
public:
    explicit TimedWindow(std::vector<int> devices);
    TimedWindow(const TimedWindow&) = delete;
    TimedWindow& operator=(const TimedWindow&) = delete;
    ~TimedWindow();
    void stop();  // the section's end; the first call counts

private:
    std::vector<int> devices_;
    std::vector<std::unique_ptr<SpanWatch>> watches_;
    std::int64_t start_us_;
    std::int64_t end_us_ = 0;
};

}  // namespace cudacheck
