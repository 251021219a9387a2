// util/system: splitting, trimming, edit distance, PATH lookups, running commands, reading files.
#include "support/fixtures.hpp"

#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace cudacheck;
using cudacheck::test::fixture_path;
using cudacheck::test::ScratchTree;

// ---------------------------------------------------------------------------------------------
// util/system

TEST(Split, keeps_empty_fields_when_separators_adjacent) {
    EXPECT_EQ(sys::split("a:b::c", ':'), (std::vector<std::string>{"a", "b", "", "c"}));
}

TEST(Split, gives_one_empty_field_when_text_empty) { EXPECT_EQ(sys::split("", ':'), (std::vector<std::string>{""})); }

TEST(Split, gives_trailing_empty_field_when_text_ends_with_separator) {
    EXPECT_EQ(sys::split("4.4.0-19041-Microsoft\n", '\n'), (std::vector<std::string>{"4.4.0-19041-Microsoft", ""}));
}

TEST(Trim, removes_spaces_tabs_and_newlines_when_at_both_ends) {
    EXPECT_EQ(sys::trim(" \t 580.159.04  \r\n"), "580.159.04");
    EXPECT_EQ(sys::trim("a b"), "a b");
    EXPECT_EQ(sys::trim(" \t\n"), "");
}

TEST(EditDistance, counts_edits_when_strings_differ) {
    EXPECT_EQ(sys::edit_distance("kitten", "sitting"), 3U);
    EXPECT_EQ(sys::edit_distance("", "abc"), 3U);
    EXPECT_EQ(sys::edit_distance("driver", "drvier"), 2U);
}

TEST(EditDistance, is_zero_when_strings_equal) { EXPECT_EQ(sys::edit_distance("cuda", "cuda"), 0U); }

TEST(FindInPath, finds_first_executable_when_listed_in_later_directory) {
    ScratchTree tree;
    tree.write("first/tool", "not executable\n", 0644);
    const std::string wanted = tree.write("second/tool", "#!/bin/sh\n", 0755);
    tree.write("third/tool", "#!/bin/sh\n", 0755);
    const std::string path_list =
        "::" + tree.path() + "/missing:" + tree.path() + "/first:" + tree.path() + "/second:" + tree.path() + "/third";
    EXPECT_EQ(sys::find_in_path("tool", path_list), wanted);
}

TEST(FindInPath, returns_empty_when_not_found) {
    ScratchTree tree;
    tree.make_dir("bin");
    EXPECT_EQ(sys::find_in_path("tool", tree.path() + "/bin"), "");
    EXPECT_EQ(sys::find_in_path("tool", ""), "");
}

TEST(RunCommand, captures_output_when_echo) {
    const auto result = sys::run_command({"/bin/echo", "hello", "world"}, std::chrono::seconds(10));
    EXPECT_TRUE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_status, 0);
    EXPECT_EQ(result.output, "hello world\n");
    EXPECT_EQ(result.error, "");
}

TEST(RunCommand, reports_exit_status_and_stderr_when_command_fails) {
    const auto result = sys::run_command({"/bin/sh", "-c", "echo oops >&2; exit 7"}, std::chrono::seconds(10));
    EXPECT_TRUE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_status, 7);
    EXPECT_EQ(result.output, "oops\n");
}

TEST(RunCommand, kills_child_when_it_runs_past_limit) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = sys::run_command({"/bin/sleep", "10"}, std::chrono::milliseconds(200));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(result.started);
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_status, 128 + 9);  // SIGKILL
    EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(RunCommand, does_not_start_when_program_missing) {
    const auto result = sys::run_command({"/nonexistent-cudacheck/no-such-program"}, std::chrono::seconds(10));
    EXPECT_FALSE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.error, "No such file or directory");
}

TEST(RunCommand, does_not_start_when_argv_empty) {
    const auto result = sys::run_command({}, std::chrono::seconds(10));
    EXPECT_FALSE(result.started);
    EXPECT_EQ(result.error, "empty command");
}

TEST(RunCommand, replaces_environment_when_given) {
    const std::vector<std::string> environment{"CUDACHECK_PARSERS_TEST=1"};
    const auto result = sys::run_command({"/usr/bin/env"}, std::chrono::seconds(10), &environment);
    EXPECT_TRUE(result.started);
    EXPECT_EQ(result.exit_status, 0);
    EXPECT_EQ(result.output, "CUDACHECK_PARSERS_TEST=1\n");
}

TEST(ReadFile, returns_nothing_when_file_missing) {
    EXPECT_FALSE(sys::read_file("/nonexistent-cudacheck/missing.txt").has_value());
}

TEST(ReadFile, returns_exact_bytes_when_fixture) {
    EXPECT_EQ(sys::read_file(fixture_path("osrelease/wsl1-4.4.0-19041-Microsoft.txt")), "4.4.0-19041-Microsoft\n");
}

TEST(ReadFile, truncates_when_over_limit) {
    EXPECT_EQ(sys::read_file(fixture_path("osrelease/wsl1-4.4.0-19041-Microsoft.txt"), 5), "4.4.0");
}

TEST(Printable, escapes_c0_and_c1_controls_and_keeps_other_text) {
    EXPECT_EQ(sys::printable("a\nb\tc\rd\x1b[2J\x7f"), "a\\nb\\tc\\rd\\x1b[2J\\x7f");
    EXPECT_EQ(sys::printable("csi \xc2\x9b"
                             "31m"),
              "csi \\u009b31m");
    EXPECT_EQ(sys::printable("H200 \xc3\xa9t\xc3\xa9 \xe2\x86\x92 ok"), "H200 \xc3\xa9t\xc3\xa9 \xe2\x86\x92 ok")
        << "UTF-8 text stays";
    EXPECT_EQ(sys::printable("\xc2\xa0"), "\xc2\xa0") << "U+00A0 is no control";
}

}  // namespace
