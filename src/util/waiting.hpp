// A check that blocks on a GPU another check holds is waiting, not running. The supervisor's time
// limit per check counts running time only, so that the check that hangs, not the ones queued
// behind it on the same GPU, is the one that times out (found on the H200: a spinning kernel made
// the checks waiting for its device time out one after another).
// The engine says, for each check's thread, where its waits are reported (WaitReporting); code that
// blocks on another check's lock says when it waits (WaitScope). Threads a check starts itself
// report nothing, so their waits count as running: conservative, never hides a hang.
#pragma once

#include "util/trace.hpp"

#include <functional>

namespace cudacheck {

// Sets this thread's reporter for its lifetime (the thread runs one check); `waiting(true)` when a
// wait starts, `waiting(false)` when it ends.
class WaitReporting {
public:
    explicit WaitReporting(std::function<void(bool waiting)> reporter);
    WaitReporting(const WaitReporting&) = delete;
    WaitReporting& operator=(const WaitReporting&) = delete;
    ~WaitReporting();
};

// Reports a wait on this thread for its lifetime; does nothing on a thread with no reporter.
class WaitScope {
public:
    WaitScope();
    WaitScope(const WaitScope&) = delete;
    WaitScope& operator=(const WaitScope&) = delete;
    ~WaitScope();

private:
    trace::Span span_{"waiting for a GPU another check holds"};
};

// Takes `lock` (shared or exclusive), reporting a wait only when another holder makes it block.
template <typename Lock>
void lock_reporting_wait(Lock& lock) {
    if (lock.try_lock()) return;
    const WaitScope waiting;
    lock.lock();
}

}  // namespace cudacheck
