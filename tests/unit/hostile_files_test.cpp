// Cross-cutting, so at the top level: the files a user hands cudacheck, and the ones it writes, when
// they are not what they seem (issue 18). Through the binary: a FIFO as an input never hangs, input
// nested a million levels deep is one error, `-o` replaces only regular files (and writes through a
// symlink to one), a name at the filesystem's limit works, a full stdout is an error, and a
// threshold of nan is refused; a damaged CUDA library fails only the checks that use it; fleet names
// dangling and looping links as unreadable nodes.
#include "cuda/library_families.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the cuBLAS soname cudacheck opens
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string report = std::string(CUDACHECK_SOURCE_DIR) + "/docs/examples/h200/cudacheck.json";
const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

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

TEST(HostileFiles, a_damaged_cuda_library_first_on_ld_library_path_fails_only_the_checks_that_use_it) {
    // As a full disk leaves a copy: the first half of a real shared library, named as cuBLAS.
    test::TempDir dir;
    const std::string whole = test::read_text(std::string(CUDACHECK_ELF_FIXTURES) + "/librpath_shape.so");
    const std::string soname(cuda_library::cublas.soname_for(CUDART_VERSION / 1000));
    const std::string damaged = dir.write("lib/" + soname, whole.substr(0, whole.size() / 2));
    const std::string report_path = dir.path() + "/report.json";
    const test::BinaryRun run =
        run_cudacheck({"--only", "host.os,env.variables,driver.libcuda,libraries.resolution,cublas.gemm", "-o", report_path, "-q"},
                      {{"LD_LIBRARY_PATH", dir.path() + "/lib:" + fake_driver_dir}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const auto report = nlohmann::json::parse(test::read_text(report_path));
    for (const char* unaffected : {"host.os", "driver.libcuda"}) {
        const auto* check = test::find_check(report, unaffected);
        ASSERT_NE(check, nullptr) << unaffected;
        EXPECT_EQ((*check)["status"], "pass") << unaffected << ": " << (*check)["message"];
    }
    for (const char* affected : {"libraries.resolution", "cublas.gemm"}) {
        const auto* check = test::find_check(report, affected);
        ASSERT_NE(check, nullptr) << affected;
        EXPECT_EQ((*check)["status"], "fail") << affected;
        EXPECT_EQ((*check)["code"], "CC605") << affected << ": " << (*check)["message"];
        const std::string message = (*check)["message"].get<std::string>();
        EXPECT_TRUE(contains(message, damaged) && contains(message, "truncated: its headers describe")) << affected << ": " << message;
    }
    EXPECT_FALSE(contains(report.dump(), "CC902")) << "nothing crashed";
}

TEST(HostileFiles, a_file_name_with_a_newline_and_an_escape_sequence_stays_one_harmless_line) {
    test::TempDir dir;
    const std::string name = dir.path() + "/evil\n\x1b[2Jname.json";
    const test::BinaryRun run = run_cudacheck({"diff", name, report});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_EQ(test::line_count(run.output), 1u) << run.output;
    EXPECT_TRUE(contains(run.output, "evil\\n\\x1b[2Jname.json")) << run.output;
    EXPECT_FALSE(contains(run.output, "\x1b")) << "no raw escape reaches the terminal";
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

TEST(HostileFiles, fleet_names_dangling_and_looping_links_as_unreadable_nodes) {
    test::TempDir dir;
    fs::copy_file(report, dir.path() + "/good.json");
    dir.symlink(dir.path() + "/gone.json", "dangling.json");
    dir.symlink(dir.path() + "/loop-b.json", "loop-a.json");
    dir.symlink(dir.path() + "/loop-a.json", "loop-b.json");
    const test::BinaryRun table = run_cudacheck({"fleet", dir.path()});
    EXPECT_EQ(table.exit_status, 1) << table.output;
    EXPECT_TRUE(contains(table.output, "1 x NVIDIA H200")) << "the readable node is still summarised\n" << table.output;
    EXPECT_TRUE(contains(table.output, "4 node(s): 1 without failures, 3 failed or unreadable")) << table.output;

    const test::BinaryRun json = run_cudacheck({"fleet", dir.path(), "--format", "json"});
    const auto document = nlohmann::json::parse(json.output);
    std::map<std::string, std::string> errors;
    for (const auto& node : document.at("nodes"))
        if (!node.at("error").is_null()) errors[node.at("node").get<std::string>()] = node.at("error").get<std::string>();
    ASSERT_EQ(errors.size(), 3u) << json.output;
    EXPECT_TRUE(contains(errors["dangling"], "a symbolic link to nothing (it points to " + dir.path() + "/gone.json)")) << errors["dangling"];
    for (const char* loop : {"loop-a", "loop-b"}) EXPECT_TRUE(contains(errors[loop], "too many levels of symbolic links")) << errors[loop];

    // Named on the command line, a dangling link is an unreadable node too, not "no such file".
    const test::BinaryRun named = run_cudacheck({"fleet", report, dir.path() + "/dangling.json"});
    EXPECT_EQ(named.exit_status, 1) << named.output;
    EXPECT_TRUE(contains(named.output, "UNREADABLE") && contains(named.output, "a symbolic link to nothing")) << named.output;
}

}  // namespace
}  // namespace cudacheck
