// Cross-cutting, so at the top level: the files a user hands cudacheck, and the ones it writes, when
// they are not what they seem (issue 18). Through the binary: a FIFO as an input never hangs, input
// nested a million levels deep is one error, `-o` replaces only regular files (and writes through a
// symlink to one), a name at the filesystem's limit works, a full stdout is an error, and a
// threshold of nan is refused.
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string report = std::string(CUDACHECK_SOURCE_DIR) + "/docs/examples/h200/cudacheck.json";

TEST(HostileFiles, a_fifo_as_any_input_is_refused_at_once) {
    test::TempDir dir;
    const std::string fifo = dir.path() + "/report.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
             {"diff", fifo, report}, {"fleet", fifo}, {"--only", "host.os", "--expect", fifo}, {"inspect", fifo}}) {
        const test::BinaryRun run = run_cudacheck(arguments);
        EXPECT_FALSE(run.timed_out) << arguments.front();
        EXPECT_LT(run.wall_ms, 10000.0) << arguments.front();
        EXPECT_NE(run.exit_status, 0) << arguments.front() << "\n" << run.output;
        EXPECT_TRUE(contains(run.output, "a FIFO, not a regular file")) << arguments.front() << "\n" << run.output;
    }
}

TEST(HostileFiles, json_nested_a_million_levels_deep_is_one_clear_error) {
    test::TempDir dir;
    const std::string deep = dir.write("deep.json", std::string(1000000, '[') + std::string(1000000, ']'));
    const test::BinaryRun diff = run_cudacheck({"diff", deep, report});
    EXPECT_EQ(diff.exit_status, 2) << diff.output;
    EXPECT_TRUE(contains(diff.output, "nested deeper than 1000 levels")) << diff.output;
    const test::BinaryRun expect = run_cudacheck({"--only", "host.os", "--expect", deep});
    EXPECT_EQ(expect.exit_status, 2) << expect.output;
    EXPECT_TRUE(contains(expect.output, "nested deeper than 1000 levels")) << expect.output;
    // In a fleet, that node is unreadable and the others are still summarised.
    fs::copy_file(report, dir.path() + "/good.json");
    const test::BinaryRun fleet = run_cudacheck({"fleet", dir.path()});
    EXPECT_EQ(fleet.exit_status, 1) << fleet.output;
    EXPECT_TRUE(contains(fleet.output, "UNREADABLE")) << fleet.output;
    EXPECT_TRUE(contains(fleet.output, "nested deeper than 1000 levels")) << fleet.output;
    EXPECT_TRUE(contains(fleet.output, "1 x NVIDIA H200")) << "the readable node is still summarised\n" << fleet.output;
}

TEST(HostileFiles, a_report_larger_than_the_limit_says_so) {
    test::TempDir dir;
    const std::string huge = dir.path() + "/huge.json";
    std::ofstream(huge).close();
    fs::resize_file(huge, std::uintmax_t{65} << 20);  // sparse: no disk used
    const test::BinaryRun run = run_cudacheck({"diff", huge, report});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "more than the 64 MiB this reads")) << run.output;
}

TEST(HostileFiles, output_replaces_only_regular_files_and_writes_through_a_symlink) {
    test::TempDir dir;
    const test::BinaryRun device = run_cudacheck({"--only", "host.os", "-q", "-o", "/dev/null"});
    EXPECT_EQ(device.exit_status, 2) << device.output;
    EXPECT_TRUE(contains(device.output, "/dev/null is a character device: -o writes only regular files")) << device.output;
    struct stat status {};
    ASSERT_EQ(::stat("/dev/null", &status), 0);
    EXPECT_TRUE(S_ISCHR(status.st_mode));

    const std::string target = dir.write("reports/real.json", "old");
    const std::string link = dir.symlink(target, "latest.json");
    const test::BinaryRun through = run_cudacheck({"--only", "host.os", "-q", "-o", link});
    EXPECT_EQ(through.exit_status, 0) << through.output;
    EXPECT_TRUE(fs::is_symlink(link)) << "the link stays";
    EXPECT_TRUE(contains(test::read_text(target), "\"schema_version\"")) << "the file it names is replaced";

    const std::string dangling = dir.symlink(dir.path() + "/missing/x.json", "dangling.json");
    const test::BinaryRun nowhere = run_cudacheck({"--only", "host.os", "-q", "-o", dangling});
    EXPECT_EQ(nowhere.exit_status, 2) << nowhere.output;
    EXPECT_TRUE(contains(nowhere.output, "is a symbolic link to nothing")) << nowhere.output;
    for (const auto& entry : fs::directory_iterator(dir.path()))
        EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp.")) << "a temporary file was left: " << entry.path();
}

TEST(HostileFiles, an_output_name_at_the_filesystems_limit_works) {
    test::TempDir dir;
    const std::string name = std::string(250, 'r') + ".json";  // 255 bytes
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", dir.path() + "/" + name});
    EXPECT_EQ(run.exit_status, 0) << run.output;
    EXPECT_TRUE(fs::exists(dir.path() + "/" + name));
}

TEST(HostileFiles, a_full_stdout_is_an_error_with_a_message) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
    const sys::CommandResult run =
        sys::run_command({"/bin/sh", "-c", std::string("exec '") + CUDACHECK_BINARY + "' list > /dev/full"}, std::chrono::seconds(30));
    ASSERT_TRUE(run.started) << run.error;
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "cannot write to standard output: No space left on device")) << run.output;
}

TEST(HostileFiles, a_threshold_that_is_not_a_finite_number_is_refused) {
    for (const char* command : {"diff", "fleet"}) {
        const std::vector<std::string> arguments = std::string(command) == "diff"
                                                       ? std::vector<std::string>{"diff", report, report, "--threshold", "nan"}
                                                       : std::vector<std::string>{"fleet", report, "--threshold", "nan"};
        const test::BinaryRun run = run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << command << "\n" << run.output;
        EXPECT_TRUE(contains(run.output, "'nan' is not a finite number")) << command << "\n" << run.output;
    }
}

}  // namespace
}  // namespace cudacheck
