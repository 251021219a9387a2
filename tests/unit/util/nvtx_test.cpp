// NVTX ranges (util/trace.cpp): with a tool attached through NVTX_INJECTION64_PATH, as `nsys
// profile` attaches, every check is a range on a thread named after it, pushed and popped in
// pairs; with none, NVTX is not called at all. The tool here is tests/support/nvtx_recorder.cpp.
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::contains;

TEST(Nvtx, every_check_is_a_range_on_a_thread_named_after_it_when_a_tool_is_attached) {
    if (!CUDACHECK_NVTX_BUILT) GTEST_SKIP() << "built with -DCUDACHECK_NVTX=OFF: no ranges to record";
    test::TempDir dir;
    const std::string recorded = dir.path() + "/nvtx.txt";
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "--only", "host.os,env.variables,driver.nvml", "-q"},
                            {{"NVTX_INJECTION64_PATH", CUDACHECK_NVTX_RECORDER}, {"NVTX_RECORDER_FILE", recorded}});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    std::istringstream lines(test::read_text(recorded));
    std::set<std::string> ranges;
    std::set<std::string> threads;
    std::map<std::string, int> open_per_thread;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string kind, thread, name;
        words >> kind >> thread;
        std::getline(words >> std::ws, name);
        if (kind == "push") {
            ranges.insert(name);
            ++open_per_thread[thread];
        } else if (kind == "pop") {
            EXPECT_GE(--open_per_thread[thread], 0) << "a pop without its push on thread " << thread;
        } else if (kind == "thread") {
            threads.insert(name);
        }
    }
    for (const char* check : {"host.os", "env.variables", "driver.nvml"}) {
        EXPECT_TRUE(ranges.count(check)) << check;
        EXPECT_TRUE(threads.count(check)) << check;
    }
    EXPECT_TRUE(ranges.count("NVML: open, init, query every GPU")) << "a check's own phase";
    for (const auto& [thread, open] : open_per_thread) EXPECT_EQ(open, 0) << "ranges left open on thread " << thread;
}

TEST(Nvtx, nothing_is_called_without_a_tool) {
    test::TempDir dir;
    const std::string recorded = dir.path() + "/nvtx.txt";
    // The recorder's file is named, but no tool is attached: NVTX never loads it.
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "--only", "host.os", "-q"},
                            {{"NVTX_INJECTION64_PATH", test::unset_marker}, {"NVTX_RECORDER_FILE", recorded}});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    EXPECT_FALSE(std::filesystem::exists(recorded));
}

}  // namespace
}  // namespace cudacheck
