#include "isolation/stop_signals.hpp"

#include <csignal>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace cudacheck {

namespace {

int signal_pipe[2] = {-1, -1};
volatile std::sig_atomic_t received_signal = 0;

struct sigaction previous_int {};
struct sigaction previous_term {};
struct sigaction previous_pipe {};

extern "C" void on_stop_signal(int signal) {
    received_signal = signal;
    const char byte = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(signal_pipe[1], &byte, 1);
}

}  // namespace

StopSignals::StopSignals() {
    received_signal = 0;
    if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) signal_pipe[0] = signal_pipe[1] = -1;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &previous_int);
    ::sigaction(SIGTERM, &action, &previous_term);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &previous_pipe);
}

StopSignals::~StopSignals() {
    ::sigaction(SIGINT, &previous_int, nullptr);
    ::sigaction(SIGTERM, &previous_term, nullptr);
    ::sigaction(SIGPIPE, &previous_pipe, nullptr);
    for (int& fd : signal_pipe)
        if (fd >= 0) ::close(std::exchange(fd, -1));
}

int StopSignals::fd() const { return signal_pipe[0]; }

int StopSignals::received() const { return received_signal; }

}  // namespace cudacheck
