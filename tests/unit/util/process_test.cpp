// util/process: a wait status in words.
#include "util/process.hpp"

#include <csignal>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(WaitStatus, names_the_signal_or_the_exit_status) {
    EXPECT_EQ(sys::describe_wait_status(SIGSEGV), "killed by SIGSEGV (Segmentation fault)");  // WIFSIGNALED encoding
    EXPECT_EQ(sys::describe_wait_status(3 << 8), "exited with status 3");
}

}  // namespace
}  // namespace cudacheck
