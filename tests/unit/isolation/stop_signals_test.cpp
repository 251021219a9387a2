// isolation/stop_signals: in this process, a stop signal is recorded and wakes the loop instead of
// killing, an ignored one stays ignored, SIGXFSZ never kills, and the previous handlers come back.
#include "isolation/stop_signals.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <poll.h>

namespace cudacheck {
namespace {

void (*handler_of(int signal))(int) {
    struct sigaction current{};
    ::sigaction(signal, nullptr, &current);
    return current.sa_handler;
}

bool readable(int fd) {
    pollfd poller{fd, POLLIN, 0};
    return ::poll(&poller, 1, 0) == 1;
}

TEST(StopSignals, sigint_sigterm_and_sighup_are_recorded_and_wake_the_poll) {
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        const StopSignals signals;
        EXPECT_EQ(signals.received(), 0);
        EXPECT_FALSE(readable(signals.fd()));
        ASSERT_EQ(::raise(signal), 0);  // would end this test process without the handler
        EXPECT_EQ(signals.received(), signal);
        EXPECT_TRUE(readable(signals.fd()));
    }
}

TEST(StopSignals, the_first_signal_names_the_interruption) {
    const StopSignals signals;
    ASSERT_EQ(::raise(SIGTERM), 0);
    ASSERT_EQ(::raise(SIGINT), 0);
    EXPECT_EQ(signals.received(), SIGTERM);
}

TEST(StopSignals, a_signal_ignored_before_stays_ignored) {
    struct sigaction ignore{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction previous{};
    ::sigaction(SIGHUP, &ignore, &previous);
    {
        const StopSignals signals;
        EXPECT_EQ(handler_of(SIGHUP), SIG_IGN);
        ASSERT_EQ(::raise(SIGHUP), 0);
        EXPECT_EQ(signals.received(), 0) << "nohup meant it not to stop the run";
    }
    EXPECT_EQ(handler_of(SIGHUP), SIG_IGN);
    ::sigaction(SIGHUP, &previous, nullptr);
}

TEST(StopSignals, sigxfsz_does_not_kill_and_the_previous_handlers_come_back) {
    void (*const before_int)(int) = handler_of(SIGINT);
    void (*const before_file_size)(int) = handler_of(SIGXFSZ);
    {
        const StopSignals signals;
        EXPECT_NE(handler_of(SIGXFSZ), SIG_DFL);
        EXPECT_NE(handler_of(SIGXFSZ), SIG_IGN) << "caught, not ignored: exec gives the worker the default back";
        ASSERT_EQ(::raise(SIGXFSZ), 0);  // the default action would end this process
        EXPECT_EQ(signals.received(), 0) << "not a stop signal";
    }
    EXPECT_EQ(handler_of(SIGINT), before_int);
    EXPECT_EQ(handler_of(SIGXFSZ), before_file_size);
}

}  // namespace
}  // namespace cudacheck
