// The supervisor's side of one worker process (isolation/worker.hpp): starting it with its job,
// the pipes its events and output come on, stopping it.
#pragma once

#include "util/activity.hpp"
#include "util/process.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace cudacheck {

class WorkerProcess {
public:
    // Starts `executable __worker` in its own process group (Ctrl-C reaches the supervisor only,
    // which then stops the worker) and hands it `job` (protocol::encode) on stdin, the event pipe as
    // fd 3 and the activity board (util/activity.hpp) as fd 4, and no other descriptor.
    // Why a worker could not be started: the message and errno (EMFILE: the open-files limit,
    // EAGAIN: the process limit).
    struct StartFailure {
        std::string message;
        int error_number = 0;
    };
    [[nodiscard]] static std::optional<WorkerProcess> start(const std::string& executable, const std::string& job,
                                                            StartFailure& failure);

    WorkerProcess(WorkerProcess&&) noexcept = default;
    WorkerProcess& operator=(WorkerProcess&&) noexcept = default;
    ~WorkerProcess() = default;  // a worker still running is left to PR_SET_PDEATHSIG

    // Non-blocking: protocol::Event lines, and whatever the checks print.
    [[nodiscard]] int events() const { return events_.get(); }
    [[nodiscard]] int output() const { return output_.get(); }
    // Readable once the worker has ended (a pidfd); -1 where the kernel has none: then poll no
    // longer than sys::ended_poll_interval_ms and ask has_ended().
    [[nodiscard]] int ended_descriptor() const { return ended_.get(); }
    // Whether the worker has ended, by its exit, not by its pipes: a program it started may hold
    // them open (a dead worker would go unnoticed until the run's time limit).
    [[nodiscard]] bool has_ended() const { return sys::has_ended(pid_); }

    // Kills the whole process group (the worker and anything it started that is still in it) and
    // reaps the worker; for a worker that ended by itself too, so that nothing it left keeps
    // running. Its wait status.
    int kill_and_reap();
    // Kills what the worker still runs (each child with the process group it leads) and leaves the
    // worker itself to end: for a worker that said it is done.
    void kill_children() const;
    // Resident memory (/proc/<pid>/statm, in pages); 0 when unknown.
    [[nodiscard]] std::uint64_t resident_bytes() const;
    // What its threads noted they were doing (util/activity.hpp); empty without a board.
    [[nodiscard]] std::vector<activity::ThreadActivity> activity() const;

private:
    WorkerProcess() = default;
    pid_t pid_ = -1;
    sys::FileDescriptor events_;
    sys::FileDescriptor output_;
    sys::FileDescriptor ended_;
    std::optional<activity::Board> board_;
};

// The tail of what the workers printed, kept as evidence for a check that crashed or hung.
class WorkerOutput {
public:
    explicit WorkerOutput(bool forward) : forward_(forward) {}
    // Reads what the worker printed so far, copying it to stderr when forwarding (-v); true at end
    // of file. At most `budget` bytes: a writer that never pauses cannot hold the caller.
    bool drain(int fd, std::size_t budget = std::size_t{4} << 20);
    // The last `count` non-empty lines, printable characters only, each cut to 200.
    [[nodiscard]] std::vector<std::string> last_lines(std::size_t count) const;

private:
    bool forward_;
    std::string tail_;
};

}  // namespace cudacheck
