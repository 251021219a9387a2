// --help of cudacheck and of every subcommand (cli/help_format.cpp): examples first,
// every line under 100 columns, no CLI11 type annotations.
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The subcommands `cudacheck --help` lists: a new one is held to the same rules without an edit here.
std::vector<std::string> listed_subcommands(const std::string& help) {
    std::vector<std::string> names;
    bool in_list = false;
    for (const std::string& line : lines_of(help)) {
        if (line == "Subcommands:") in_list = true;
        else if (in_list && line.empty()) break;
        else if (in_list && line.size() > 2 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
    return names;
}

TEST(Help, every_command_has_examples_first_short_lines_and_no_type_annotations) {
    const test::BinaryRun top = run_cudacheck({"--help"});
    ASSERT_EQ(top.exit_status, 0) << top.output;
    const std::vector<std::string> subcommands = listed_subcommands(top.output);
    ASSERT_GE(subcommands.size(), 9u) << top.output;
    std::vector<std::vector<std::string>> commands{{"--help"}};
    for (const std::string& name : subcommands) commands.push_back({name, "--help"});
    // What CLI11 writes after an option by default: its type ("UINT", "TEXT", "FLOAT"), the
    // validator's range or set ("FLOAT in [0.1 - 86400]", ":{table,json}") and "REQUIRED".
    const std::regex annotation(R"(\b(UINT|INT|TEXT|FLOAT|BOOLEAN|REQUIRED|FINITE)\b| in \[|:\{)");
    for (const std::vector<std::string>& command : commands) {
        const std::string shown = command.size() > 1 ? command[0] + " --help" : "--help";
        SCOPED_TRACE(shown);
        const test::BinaryRun help = run_cudacheck(command);
        ASSERT_EQ(help.exit_status, 0) << help.output;
        const std::vector<std::string> lines = lines_of(help.output);
        std::size_t examples_at = lines.size(), usage_at = lines.size(), options_at = lines.size(), examples = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string& line = lines[i];
            EXPECT_LT(test::columns_of(line), 100u) << "line " << i + 1 << ": " << line;
            EXPECT_FALSE(std::regex_search(line, annotation)) << "line " << i + 1 << ": " << line;
            if (line == "Examples:" && examples_at == lines.size()) examples_at = i;
            if (line.starts_with("Usage:") && usage_at == lines.size()) usage_at = i;
            if ((line == "Options:" || line == "Positionals:") && options_at == lines.size()) options_at = i;
            if (examples_at < i && usage_at == lines.size() && line.starts_with("  ") && line[2] != ' ') {
                ++examples;
                EXPECT_TRUE(contains(line, "cudacheck")) << "an example runs cudacheck: " << line;
                EXPECT_TRUE(contains(line, "  # ")) << "an example says what it does: " << line;
            }
        }
        // The description (a line or two), then the examples, before the usage line and the options.
        EXPECT_LE(examples_at, 3u) << help.output;
        EXPECT_LT(examples_at, usage_at) << help.output;
        EXPECT_LT(usage_at, options_at) << help.output;
        EXPECT_GE(examples, 3u) << help.output;
    }
    // `run --help` is cudacheck's own (its options are the top level's).
    EXPECT_EQ(run_cudacheck({"run", "--help"}).output, top.output);
}

// Options that take a value show a word for it; flags show none; descriptions wrap under their column.
TEST(Help, options_show_a_value_word_and_wrap_under_their_description) {
    const test::BinaryRun help = run_cudacheck({"--help"});
    for (const char* expected : {"  -o,--output FILE ...  ", "  --only IDS ...  ", "  --timeout SECONDS  ",
                                 "  --memory-limit MIB  ", "  --level LEVEL  ", "  --strict  "})
        EXPECT_TRUE(contains(help.output, expected)) << expected << "\n" << help.output;
    const std::vector<std::string> lines = lines_of(help.output);
    std::size_t continued = 0;
    for (std::size_t i = 1; i < lines.size(); ++i)
        if (lines[i - 1].starts_with("  --") && lines[i].starts_with(std::string(26, ' ')) && lines[i][26] != ' ')
            ++continued;
    EXPECT_GE(continued, 5u) << "long descriptions continue under the description column\n" << help.output;
    // The completion scripts still offer the choices the options' validators hold.
    const test::BinaryRun bash = run_cudacheck({"completion", "bash"});
    EXPECT_TRUE(contains(bash.output, "quick standard full")) << bash.output.substr(0, 2000);
}

}  // namespace
}  // namespace cudacheck
