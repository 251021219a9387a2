// The supervisor's side of one worker process (isolation/worker.hpp): starting it with its job,
// the pipes its events and output come on, stopping it.
#pragma once

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
    // which then stops the worker) and hands it `job` (protocol::encode) on stdin.
    // Why a worker could not be started: the message and errno (EMFILE: the open-files limit).
    struct StartFailure {
        std::string message;
        int error_number = 0;
    };
    [[nodiscard]] static std::optional<WorkerProcess> start(const std::string& executable, const std::string& job, StartFailure& failure);

    WorkerProcess(WorkerProcess&&) noexcept = default;
    WorkerProcess& operator=(WorkerProcess&&) noexcept = default;
    ~WorkerProcess() = default;  // a worker still running is left to PR_SET_PDEATHSIG

    // Non-blocking: protocol::Event lines, and whatever the checks print.
    [[nodiscard]] int events() const { return events_.get(); }
    [[nodiscard]] int output() const { return output_.get(); }

    // Kills the whole process group (the worker and anything it started) and reaps the worker.
    int kill_and_reap();
    // Waits for the worker to end; its wait status.
    int reap();
    // Resident memory (/proc/<pid>/statm, in pages); 0 when unknown.
    [[nodiscard]] std::uint64_t resident_bytes() const;

private:
    WorkerProcess() = default;
    pid_t pid_ = -1;
    sys::FileDescriptor events_;
    sys::FileDescriptor output_;
};

// The tail of what the workers printed, kept as evidence for a check that crashed or hung.
class WorkerOutput {
public:
    explicit WorkerOutput(bool forward) : forward_(forward) {}
    // Reads what the worker printed so far, copying it to stderr when forwarding (-v).
    void drain(int fd);
    // The last `count` non-empty lines, printable characters only, each cut to 200.
    [[nodiscard]] std::vector<std::string> last_lines(std::size_t count) const;

private:
    bool forward_;
    std::string tail_;
};

}  // namespace cudacheck
