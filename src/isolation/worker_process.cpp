#include "isolation/worker_process.hpp"

#include "isolation/protocol.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace cudacheck {

namespace {

constexpr std::size_t output_tail_bytes = std::size_t{64} * 1024;

}  // namespace

std::optional<WorkerProcess> WorkerProcess::start(const std::string& executable, const std::string& job,
                                                  StartFailure& failure) {
    auto job_pipe = sys::Pipe::open();
    auto event_pipe = sys::Pipe::open();
    auto output_pipe = sys::Pipe::open();
    if (!job_pipe || !event_pipe || !output_pipe) {
        failure.error_number = errno;
        failure.message = fmt::format("pipe: {}", std::strerror(errno));
        return std::nullopt;
    }
    std::optional<activity::Board> board = activity::Board::create();
    sys::SpawnRequest request;
    request.argv = {executable, protocol::worker_subcommand};
    request.fds = {sys::ChildFd::copy(job_pipe->read.get(), 0), sys::ChildFd::copy(output_pipe->write.get(), 1),
                   sys::ChildFd::copy(output_pipe->write.get(), 2),
                   sys::ChildFd::copy(event_pipe->write.get(), protocol::events_fd)};
    if (board) request.fds.push_back(sys::ChildFd::copy(board->fd(), protocol::activity_fd));
    request.own_process_group = true;
    request.default_signals = true;
    const Expected<pid_t> pid = sys::spawn(request);
    if (!pid) {
        failure.error_number = pid.error().code;
        failure.message =
            fmt::format("could not start {} {}: {}", executable, protocol::worker_subcommand, pid.error().message);
        return std::nullopt;
    }
    WorkerProcess worker;
    worker.pid_ = *pid;
    worker.ended_ = sys::open_end_descriptor(*pid);
    worker.board_ = std::move(board);
    worker.events_ = std::move(event_pipe->read);
    worker.output_ = std::move(output_pipe->read);
    job_pipe->read.reset();
    event_pipe->write.reset();
    output_pipe->write.reset();
    // The worker reads its whole job first; if it died already, the write fails with EPIPE and
    // the supervisor sees it end.
    (void)sys::write_all(job_pipe->write.get(), job);
    job_pipe->write.reset();
    for (int fd : {worker.events_.get(), worker.output_.get()}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return worker;
}

int WorkerProcess::kill_and_reap() {
    // Before reaping: until then the group's id cannot be another process's.
    ::kill(-pid_, SIGKILL);
    return sys::wait_for(pid_);
}

void WorkerProcess::kill_children() const {
    for (const pid_t child : sys::children_of(pid_)) sys::kill_with_group(child);
}

std::vector<activity::ThreadActivity> WorkerProcess::activity() const {
    return board_ ? board_->read() : std::vector<activity::ThreadActivity>{};
}

std::uint64_t WorkerProcess::resident_bytes() const {
    const auto statm = sys::read_file(fmt::format("/proc/{}/statm", pid_), 256);
    if (!statm) return 0;
    const std::vector<std::string> fields = sys::split(*statm, ' ');
    if (fields.size() < 2) return 0;
    return std::strtoull(fields[1].c_str(), nullptr, 10) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

bool WorkerOutput::drain(int fd, std::size_t budget) {
    char buffer[16384];
    while (budget > 0) {
        const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, budget));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;  // nothing more for now (or no descriptor)
        if (n == 0) return true;
        const std::string_view chunk(buffer, static_cast<std::size_t>(n));
        if (forward_) [[maybe_unused]]
            const ssize_t ignored = ::write(STDERR_FILENO, chunk.data(), chunk.size());
        tail_.append(chunk);
        if (tail_.size() > output_tail_bytes) tail_.erase(0, tail_.size() - output_tail_bytes);
        budget -= static_cast<std::size_t>(n);
    }
    return false;
}

std::vector<std::string> WorkerOutput::last_lines(std::size_t count) const {
    std::vector<std::string> lines;
    for (const std::string& line : sys::split(tail_, '\n')) {
        std::string clean;
        for (char c : line) clean += (c >= 0x20 && c < 0x7f) || c == '\t' ? c : '?';
        if (!sys::trim(clean).empty()) lines.push_back(clean.substr(0, 200));
    }
    if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
    return lines;
}

}  // namespace cudacheck
