#include "isolation/stop_signals.hpp"

#include "report/report.hpp"
#include "util/atomic_file.hpp"
#include "util/process.hpp"

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <fcntl.h>
#include <iterator>
#include <unistd.h>
#include <utility>

namespace cudacheck {

namespace {

constexpr int stop_signal_numbers[] = {SIGINT, SIGTERM, SIGHUP};
constexpr std::size_t stop_signal_count = std::size(stop_signal_numbers);

int signal_pipe[2] = {-1, -1};
volatile std::sig_atomic_t received_signal = 0;
volatile std::sig_atomic_t exit_at_once = 0;

struct sigaction previous_stop[stop_signal_count]{};
struct sigaction previous_pipe{};
struct sigaction previous_file_size{};

extern "C" void on_stop_signal(int signal) {
    if (exit_at_once != 0) {
        AtomicFile::remove_temporaries_now();
        sys::kill_spawned_groups();  // the programs the checks run go too: none outlives cudacheck
        ::_exit(exit_interrupted_base + signal);
    }
    const int saved_errno = errno;
    if (received_signal == 0) received_signal = signal;  // the first one names the interruption
    const char byte = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(signal_pipe[1], &byte, 1);
    errno = saved_errno;
}

// Only there so that the signal does not kill: the write that exceeded the limit fails with EFBIG.
extern "C" void on_file_size_signal(int) {}

struct sigaction action_for(void (*handler)(int)) {
    struct sigaction action{};
    action.sa_handler = handler;
    // Reads and writes elsewhere resume after the handler; poll() still returns, and the pipe wakes it anyway.
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (const int signal : stop_signal_numbers) sigaddset(&action.sa_mask, signal);
    return action;
}

}  // namespace

StopSignals::StopSignals(OnSignal on_signal) {
    received_signal = 0;
    exit_at_once = on_signal == OnSignal::exit_now ? 1 : 0;
    if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) signal_pipe[0] = signal_pipe[1] = -1;
    const struct sigaction stop = action_for(on_stop_signal);
    for (std::size_t i = 0; i < stop_signal_count; ++i) {
        ::sigaction(stop_signal_numbers[i], nullptr, &previous_stop[i]);
        // Ignored by whoever started us (nohup, a script's `&`): it stays ignored.
        if (previous_stop[i].sa_handler != SIG_IGN) ::sigaction(stop_signal_numbers[i], &stop, nullptr);
    }
    struct sigaction ignore{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &previous_pipe);
    const struct sigaction file_size = action_for(on_file_size_signal);
    ::sigaction(SIGXFSZ, &file_size, &previous_file_size);
}

StopSignals::~StopSignals() {
    for (std::size_t i = 0; i < stop_signal_count; ++i) ::sigaction(stop_signal_numbers[i], &previous_stop[i], nullptr);
    ::sigaction(SIGPIPE, &previous_pipe, nullptr);
    ::sigaction(SIGXFSZ, &previous_file_size, nullptr);
    exit_at_once = 0;
    for (int& fd : signal_pipe)
        if (fd >= 0) ::close(std::exchange(fd, -1));
}

int StopSignals::fd() const { return signal_pipe[0]; }

int StopSignals::received() const { return received_signal; }

}  // namespace cudacheck
