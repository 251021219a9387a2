// The table at a terminal's width: cudacheck run in a real pseudo-terminal of 80
// columns (openpty, the size set with TIOCSWINSZ) wraps its long lines with a hanging indent and
// loses nothing; into a pipe it wraps only when COLUMNS asks (cli/command_support.hpp output_width).
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <pty.h>
#include <sstream>
#include <string>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;

const std::string golden = CUDACHECK_SOURCE_DIR "/tests/golden/";

struct TerminalRun {
    int exit_status = -1;
    std::string output;  // what the terminal showed, "\r\n" back to "\n"
};

// Runs the built cudacheck with a pseudo-terminal of `columns` columns as its controlling terminal,
// stdin, stdout and stderr, as a shell in a terminal emulator starts it.
TerminalRun run_in_terminal(const std::vector<std::string>& arguments, unsigned short columns) {
    TerminalRun run;
    int master = -1, slave = -1;
    if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
        ADD_FAILURE() << "openpty: " << std::strerror(errno);
        return run;
    }
    winsize size{};
    size.ws_row = 50;
    size.ws_col = columns;
    EXPECT_EQ(::ioctl(slave, TIOCSWINSZ, &size), 0) << std::strerror(errno);
    // Colours on (a terminal), whatever this shell's environment says; no COLUMNS to override the size.
    const std::vector<std::string> environment = test::environment_with({{"COLUMNS", test::unset_marker},
                                                                         {"NO_COLOR", test::unset_marker},
                                                                         {"FORCE_COLOR", test::unset_marker},
                                                                         {"CLICOLOR_FORCE", test::unset_marker},
                                                                         {"TERM", "xterm-256color"}});
    std::vector<std::string> argv{CUDACHECK_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv_pointers, environment_pointers;
    for (std::string& argument : argv) argv_pointers.push_back(argument.data());
    argv_pointers.push_back(nullptr);
    for (const std::string& entry : environment) environment_pointers.push_back(const_cast<char*>(entry.c_str()));
    environment_pointers.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setsid();
        ::ioctl(slave, TIOCSCTTY, 0);
        ::dup2(slave, STDIN_FILENO);
        ::dup2(slave, STDOUT_FILENO);
        ::dup2(slave, STDERR_FILENO);
        ::close(master);
        ::close(slave);
        ::execve(argv_pointers[0], argv_pointers.data(), environment_pointers.data());
        ::_exit(127);
    }
    ::close(slave);
    std::string raw;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    // Read until the terminal closes (EIO once the last process holding it exits).
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd ready{master, POLLIN, 0};
        if (::poll(&ready, 1, 200) <= 0) continue;
        char buffer[4096];
        const ssize_t got = ::read(master, buffer, sizeof buffer);
        if (got <= 0) break;
        raw.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(master);
    if (std::chrono::steady_clock::now() >= deadline) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    for (std::size_t i = 0; i < raw.size(); ++i)
        if (!(raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n')) run.output += raw[i];
    return run;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string without_colours(const std::string& text) {
    std::string plain;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\x1b') {
            while (i < text.size() && text[i] != 'm') ++i;
            continue;
        }
        plain += text[i];
    }
    return plain;
}

// Every run of spaces and line breaks as one space: what wrapping may change, and nothing else.
std::string words_of(const std::string& text) {
    std::string words;
    for (const char c : without_colours(text)) {
        if (c == ' ' || c == '\n') {
            if (!words.empty() && words.back() != ' ') words += ' ';
        } else {
            words += c;
        }
    }
    return words;
}

// The text without any space or line break: what is left when a word longer than a line (a path,
// a command) had to be cut.
std::string letters_of(const std::string& text) {
    std::string letters;
    for (const char c : without_colours(text))
        if (c != ' ' && c != '\n') letters += c;
    return letters;
}

std::size_t indent_of(const std::string& line) { return line.find_first_not_of(' '); }

// Each "fix:" line's later lines start under its text, 5 columns after "fix:"'s own indent;
// returns how many such continuation lines there are.
std::size_t expect_fixes_hang(const std::vector<std::string>& lines) {
    std::size_t continuations = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string line = without_colours(lines[i]);
        const std::size_t at = indent_of(line);
        if (at == std::string::npos || line.compare(at, 5, "fix: ") != 0) continue;
        for (std::size_t j = i + 1; j < lines.size(); ++j) {
            const std::string next = without_colours(lines[j]);
            const std::size_t next_at = indent_of(next);
            if (next_at == std::string::npos || next_at <= at) break;  // the next finding, check or section
            EXPECT_EQ(next_at, at + 5) << "a fix continues under its text:\n" << lines[i] << '\n' << lines[j];
            ++continuations;
        }
    }
    return continuations;
}

TEST(TableAtTerminalWidth, the_golden_report_wraps_at_80_columns_and_loses_nothing) {
    const TerminalRun run = run_in_terminal({"render", golden + "report.json", "-v"}, 80);
    ASSERT_EQ(run.exit_status, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "\x1b[")) << "a terminal gets colours";
    const std::vector<std::string> lines = lines_of(run.output);
    for (const std::string& line : lines) EXPECT_LE(test::columns_of(line), 80u) << line;
    // The same words in the same order as the unwrapped golden table: only line breaks moved.
    const std::string unwrapped = test::read_text(golden + "report.txt");
    EXPECT_EQ(words_of(run.output), words_of(unwrapped));
    EXPECT_GT(lines.size(), lines_of(unwrapped).size()) << "some lines of the golden table are wider than 80 columns";
    EXPECT_GE(expect_fixes_hang(lines), 1u) << run.output;
    // A long result continues under the RESULT column.
    std::size_t result_column = 0;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        const std::string line = without_colours(lines[i]);
        if (line.starts_with("STATUS  ")) result_column = line.find("RESULT");
        if (line.starts_with("WARN    frameworks.builds")) {
            ASSERT_GT(result_column, 0u);
            EXPECT_EQ(indent_of(without_colours(lines[i + 1])), result_column) << lines[i + 1];
        }
    }
}

TEST(TableAtTerminalWidth, a_real_run_wraps_at_80_columns_with_every_fix_whole) {
    test::TempDir dir;
    const TerminalRun run =
        run_in_terminal({"--level", "quick", "--progress", "never", "-o", dir.path() + "/report.json"}, 80);
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.exit_status << '\n' << run.output;
    const std::vector<std::string> lines = lines_of(run.output);
    for (const std::string& line : lines) EXPECT_LE(test::columns_of(line), 80u) << line;
    expect_fixes_hang(lines);
    // Every finding's fix is in the table, whole, however it was wrapped (a path longer than a
    // line may have been cut: spaces aside).
    const nlohmann::json report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    const std::string shown = letters_of(run.output);
    std::size_t fixes = 0;
    for (const nlohmann::json& check : report["checks"])
        for (const nlohmann::json& finding : check["findings"]) {
            const std::string fix = letters_of("fix: " + finding["remediation"].get<std::string>() + " [" +
                                               finding["code"].get<std::string>() + "]");
            EXPECT_TRUE(contains(shown, fix)) << fix << "\n" << run.output;
            ++fixes;
        }
    RecordProperty("fixes", static_cast<int>(fixes));
}

// Into a pipe the table is as it always was (the golden file), unless COLUMNS gives a width.
TEST(TableAtTerminalWidth, a_pipe_wraps_only_when_columns_is_set) {
    const std::vector<std::string> render{"render", golden + "report.json", "-v", "--color", "never"};
    const test::BinaryRun plain = run_cudacheck(render, {{"COLUMNS", test::unset_marker}});
    EXPECT_EQ(plain.output, test::read_text(golden + "report.txt"));
    const test::BinaryRun narrow = run_cudacheck(render, {{"COLUMNS", "60"}});
    EXPECT_EQ(narrow.exit_status, 0) << narrow.output;
    for (const std::string& line : lines_of(narrow.output)) EXPECT_LE(test::columns_of(line), 60u) << line;
    // At 60 columns "CUDA_INJECTION64_PATH=/opt/x.so" is wider than what its line leaves: cut.
    EXPECT_EQ(letters_of(narrow.output), letters_of(plain.output));
    EXPECT_GE(expect_fixes_hang(lines_of(narrow.output)), 2u) << narrow.output;
    // A file written with -o never wraps, whatever COLUMNS says.
    test::TempDir dir;
    const test::BinaryRun to_file =
        run_cudacheck({"render", golden + "report.json", "-v", "-o", dir.path() + "/r.txt"}, {{"COLUMNS", "60"}});
    EXPECT_EQ(to_file.exit_status, 0) << to_file.output;
    EXPECT_EQ(test::read_text(dir.path() + "/r.txt"), plain.output);
    // COLUMNS that is not a positive number is ignored.
    EXPECT_EQ(run_cudacheck(render, {{"COLUMNS", "abc"}}).output, plain.output);
}

}  // namespace
}  // namespace cudacheck
