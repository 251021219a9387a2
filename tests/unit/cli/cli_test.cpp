// The command line as a whole (cli/cli.cpp): each subcommand's help, bad input, list and explain.
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::line_count;
using test::run_cudacheck;
namespace fs = std::filesystem;

// Each subcommand's help states its own exit codes, not the run's.
TEST(EndToEnd, subcommand_help_gives_its_own_exit_codes) {
    for (const auto& [subcommand, expected] :
         std::vector<std::pair<std::string, std::string>>{{"inspect", "2 unreadable or not a GPU binary"},
                                                          {"diff", "1 differences"},
                                                          {"fleet", "1 a node failed or stands out"}}) {
        const test::BinaryRun run = run_cudacheck({subcommand, "--help"});
        EXPECT_EQ(run.exit_status, 0) << subcommand;
        EXPECT_TRUE(contains(run.output, expected)) << subcommand << ": " << run.output;
        EXPECT_FALSE(contains(run.output, "--strict")) << subcommand << " shows the run's exit codes";
    }
}

struct BadInput {
    std::vector<std::string> arguments;
    std::string expected_text;
};

TEST(BadInput, each_gives_one_line_on_stderr_and_exit_2) {
    test::TempDir dir;
    dir.write("a-file", "x");
    const std::vector<BadInput> cases{
        {{"--bogus"}, "--bogus"},
        {{"--only", "cuda.device"}, "closest: cuda.devices"},
        {{"--skip", "driverr"}, "unknown check 'driverr'"},
        {{"--format", "xml"}, "xml"},
        {{"--level", "insane"}, "insane"},
        {{"--devices", "abc"}, "--devices 'abc'"},
        {{"--devices", "0,,1"}, "--devices"},
        {{"-o", "/nonexistent-dir/report.json"}, "No such file or directory"},
        {{"-o", dir.path() + "/a-file/report.json"}, "Not a directory"},
        {{"-o", dir.path()}, "is a directory"},
        {{"-o", dir.path() + "/a.json", "-o", "/nonexistent-dir/b.prom"}, "No such file or directory"},
        {{"--format", "json", "-o", dir.path() + "/a.json", "-o", dir.path() + "/b.json"},
         "--format applies to one output"},
        {{"explain", "CC999"}, "closest"},
        {{"explain"}, "needs a code"},
        {{"run", "extra-argument"}, "extra-argument"},
        // A typo gets its correction, an unknown -o extension is refused, stdout is taken once.
        {{"--formt", "json"}, "unknown option --formt; did you mean --format?"},
        {{"--onl", "host.os"}, "unknown option --onl; did you mean --only?"},
        {{"lst"}, "unknown subcommand lst; did you mean list?"},
        {{"--zzzzzz"}, "unknown option --zzzzzz (see"},
        {{"-o", dir.path() + "/report.pdf"}, "the extension .pdf names no report format"},
        {{"-o", "-", "-o", "-"}, "-o - is given twice"},
    };
    for (const BadInput& bad : cases) {
        const test::BinaryRun run = run_cudacheck(bad.arguments);
        SCOPED_TRACE(bad.arguments.front() + (bad.arguments.size() > 1 ? " " + bad.arguments[1] : ""));
        EXPECT_EQ(run.exit_status, 2) << run.output;
        EXPECT_EQ(line_count(run.output), 1u) << run.output;
        EXPECT_TRUE(contains(run.output, bad.expected_text)) << run.output;
    }
    EXPECT_FALSE(fs::exists("/nonexistent-dir/report.json"));
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 1u) << "no partial or temporary output left behind";
}

// `-o -` is standard output (not a file named "-"), in the format --format gives; `run --help`
// lists the run options; --color and FORCE_COLOR decide colours whatever stdout is.
TEST(Commands, output_dash_help_of_run_and_colours) {
    test::TempDir dir;
    const test::BinaryRun json = run_cudacheck({"--only", "host.os", "-o", "-", "--format", "json"});
    EXPECT_EQ(json.exit_status, 0) << json.output;
    EXPECT_TRUE(json.output.starts_with("{")) << json.output;
    EXPECT_FALSE(fs::exists("-")) << "no file named -";
    const test::BinaryRun both = run_cudacheck({"--only", "host.os", "-o", "-", "-o", dir.path() + "/r.txt"});
    EXPECT_TRUE(contains(both.output, "STATUS  CHECK")) << both.output;
    EXPECT_TRUE(contains(test::read_text(dir.path() + "/r.txt"), "STATUS  CHECK")) << ".txt is the table";
    const test::BinaryRun help = run_cudacheck({"run", "--help"});
    EXPECT_EQ(help.exit_status, 0);
    for (const char* option : {"--only", "--level", "--timeout", "--profile", "--color"})
        EXPECT_TRUE(contains(help.output, option)) << option;
    const std::vector<std::pair<std::string, std::string>> plain = {{"FORCE_COLOR", test::unset_marker},
                                                                    {"CLICOLOR_FORCE", test::unset_marker},
                                                                    {"NO_COLOR", test::unset_marker}};
    EXPECT_FALSE(contains(run_cudacheck({"--only", "host.os"}, plain).output, "\x1b[")) << "not a terminal: no colours";
    EXPECT_TRUE(contains(run_cudacheck({"--only", "host.os", "--color", "always"}).output, "\x1b["));
    EXPECT_TRUE(contains(run_cudacheck({"--only", "host.os"}, {{"FORCE_COLOR", "1"}}).output, "\x1b["));
    EXPECT_TRUE(contains(run_cudacheck({"--only", "host.os"}, {{"CLICOLOR_FORCE", "1"}}).output, "\x1b["));
    EXPECT_FALSE(contains(
        run_cudacheck({"--only", "host.os"}, {{"FORCE_COLOR", "0"}, {"CLICOLOR_FORCE", test::unset_marker}}).output,
        "\x1b["));
    EXPECT_FALSE(
        contains(run_cudacheck({"--only", "host.os"}, {{"FORCE_COLOR", "1"}, {"NO_COLOR", "1"}}).output, "\x1b["))
        << "NO_COLOR wins";
    EXPECT_FALSE(contains(run_cudacheck({"--only", "host.os", "--no-color"}, {{"FORCE_COLOR", "1"}}).output, "\x1b["))
        << "the command line wins";
}

TEST(Commands, list_explain_version_and_help) {
    const test::BinaryRun list = run_cudacheck({"list"});
    EXPECT_EQ(list.exit_status, 0);
    for (const char* id : {"host.os", "env.variables", "driver.kernel_module", "driver.libcuda", "driver.nvml",
                           "toolkit.nvcc", "cuda.pairing", "cuda.devices"})
        EXPECT_TRUE(contains(list.output, id)) << id;
    const test::BinaryRun explain = run_cudacheck({"explain", "libcuda-stub"});
    EXPECT_EQ(explain.exit_status, 0);
    EXPECT_TRUE(contains(explain.output, "CC211"));
    EXPECT_TRUE(contains(explain.output, "CUDA_ERROR_STUB_LIBRARY"));
    const test::BinaryRun version = run_cudacheck({"--version"});
    EXPECT_EQ(version.exit_status, 0);
    EXPECT_TRUE(contains(version.output, "cudacheck 0.1.0"));
    const test::BinaryRun help = run_cudacheck({"--help"});
    EXPECT_EQ(help.exit_status, 0);
    EXPECT_TRUE(contains(help.output, "Exit codes: 0"));
    EXPECT_TRUE(contains(help.output, "--strict"));
}

}  // namespace
}  // namespace cudacheck
