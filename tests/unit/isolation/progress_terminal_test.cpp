// The progress line end to end: cudacheck-with-faults with its stderr on a pseudo-terminal
// and its stdout on a pipe, so the two stay apart and every byte on the terminal has its time.
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <pty.h>
#include <regex>
#include <string>
#include <string_view>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view erase = "\r\x1b[2K";

struct Chunk {
    double at_ms;  // since fork
    std::string bytes;
};

struct TerminalRun {
    int exit_status = -1;
    std::vector<Chunk> terminal;  // stderr, as read from the pty's master side
    std::string output;           // stdout (the pipe)
    double first_byte_ms = -1;    // on the terminal, since fork
    [[nodiscard]] std::string terminal_text() const {
        std::string text;
        for (const Chunk& chunk : terminal) text += chunk.bytes;
        return text;
    }
};

// Runs cudacheck-with-faults with `arguments`; stderr a pty of `columns` columns (or a pipe when
// `pty` is false), stdout a pipe; `environment` entries ("NAME=value") replace the test's own.
TerminalRun run_on_terminal(const std::vector<std::string>& arguments, const std::vector<std::string>& environment,
                            bool pty = true, unsigned short columns = 100) {
    TerminalRun run;
    int master = -1, terminal_side = -1;
    winsize size{};
    size.ws_row = 24;
    size.ws_col = columns;
    int err_pipe[2] = {-1, -1};
    if (pty) {
        if (::openpty(&master, &terminal_side, nullptr, nullptr, &size) != 0) return run;
    } else {
        if (::pipe(err_pipe) != 0) return run;
        master = err_pipe[0];
        terminal_side = err_pipe[1];
    }
    int out_pipe[2];
    if (::pipe(out_pipe) != 0) return run;
    std::vector<std::string> argv{CUDACHECK_WITH_FAULTS_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv_pointers;
    for (std::string& argument : argv) argv_pointers.push_back(argument.data());
    argv_pointers.push_back(nullptr);
    std::vector<std::string> variables;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string variable(*entry);
        const std::string name = variable.substr(0, variable.find('='));
        bool replaced = false;
        for (const std::string& given : environment) replaced |= given.substr(0, given.find('=')) == name;
        if (!replaced && name != "NO_COLOR" && name != "FORCE_COLOR" && name != "CLICOLOR_FORCE")
            variables.push_back(variable);
    }
    variables.insert(variables.end(), environment.begin(), environment.end());
    std::vector<char*> environment_pointers;
    for (std::string& variable : variables) environment_pointers.push_back(variable.data());
    environment_pointers.push_back(nullptr);

    const auto forked = Clock::now();
    const pid_t child = ::fork();
    if (child == 0) {
        ::setsid();
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, 0);
        ::dup2(out_pipe[1], 1);
        ::dup2(terminal_side, 2);
        ::closefrom(3);
        ::execve(argv_pointers[0], argv_pointers.data(), environment_pointers.data());
        ::_exit(127);
    }
    ::close(terminal_side);
    ::close(out_pipe[1]);
    const auto since_fork = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - forked).count(); };
    pollfd fds[2] = {{master, POLLIN, 0}, {out_pipe[0], POLLIN, 0}};
    bool terminal_open = true, output_open = true;
    while ((terminal_open || output_open) && since_fork() < 60000) {
        fds[0].fd = terminal_open ? master : -1;
        fds[1].fd = output_open ? out_pipe[0] : -1;
        if (::poll(fds, 2, 1000) <= 0) continue;
        char buffer[8192];
        if (terminal_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            const ssize_t n = ::read(master, buffer, sizeof buffer);
            if (n > 0) {
                if (run.first_byte_ms < 0) run.first_byte_ms = since_fork();
                run.terminal.push_back({since_fork(), std::string(buffer, static_cast<std::size_t>(n))});
            } else {
                terminal_open = false;  // EIO on a pty once every writer has gone; 0 on a pipe
            }
        }
        if (output_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            const ssize_t n = ::read(out_pipe[0], buffer, sizeof buffer);
            if (n > 0) run.output.append(buffer, static_cast<std::size_t>(n));
            else output_open = false;
        }
    }
    if (terminal_open || output_open) ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ::close(master);
    ::close(out_pipe[0]);
    return run;
}

// Each redraw: when the chunk holding it came, and its text (without the erase before it).
std::vector<std::pair<double, std::string>> redraws(const TerminalRun& run) {
    std::vector<std::pair<double, std::string>> found;
    std::string carried;  // a redraw split over two reads belongs to the read that ends it
    for (const Chunk& chunk : run.terminal) {
        std::string text = carried + chunk.bytes;
        std::size_t at = 0;
        while ((at = text.find(erase, at)) != std::string::npos) {
            const std::size_t next = text.find(erase, at + 1);
            if (next == std::string::npos) break;
            found.emplace_back(chunk.at_ms, text.substr(at + erase.size(), next - at - erase.size()));
            at = next;
        }
        carried = at == std::string::npos ? std::string() : text.substr(at);
    }
    if (carried.size() > erase.size()) found.emplace_back(run.terminal.back().at_ms, carried.substr(erase.size()));
    return found;
}

// `text` without its colour escapes.
std::string plain(const std::string& text) { return std::regex_replace(text, std::regex("\x1b\\[[0-9;]*m"), ""); }

TEST(ProgressTerminal, hung_check_line_comes_at_once_and_moves_every_second_then_goes) {
    const TerminalRun run =
        run_on_terminal({"--level", "quick", "--only", "fault.hang", "--timeout", "3", "--progress", "auto"},
                        {"TERM=xterm-256color"}, true, 100);
    EXPECT_EQ(run.exit_status, 1) << run.output;
    ASSERT_FALSE(run.terminal.empty()) << "auto draws on a terminal";
    const std::string terminal = run.terminal_text();
    std::cout << "first byte on the terminal " << run.first_byte_ms << " ms after fork\n";
    // Within 200 ms the run shows it started. The binary's own start is most of it (7 ms on the 2-core build machine);
    // the line is the first thing the supervisor does, before it starts a worker.
    EXPECT_LT(run.first_byte_ms, 200.0);
    EXPECT_TRUE(terminal.starts_with(erase)) << terminal;
    EXPECT_TRUE(terminal.ends_with(erase)) << "erased before the report is printed: " << terminal;
    EXPECT_EQ(terminal.find('\n'), std::string::npos) << "nothing else on stderr";
    const auto drawn = redraws(run);
    ASSERT_GE(drawn.size(), 8u) << terminal;
    double widest_gap = 0;
    for (std::size_t i = 1; i < drawn.size(); ++i)
        widest_gap = std::max(widest_gap, drawn[i].first - drawn[i - 1].first);
    std::cout << drawn.size() << " redraws over " << drawn.back().first - drawn.front().first << " ms; widest gap "
              << widest_gap << " ms\n";
    EXPECT_LE(widest_gap, 1200.0);
    bool named = false;
    for (const auto& [at, text] : drawn) {
        EXPECT_LE(test::columns_of(text), 99u) << text;
        named |= test::contains(plain(text), "running fault.hang (");
    }
    EXPECT_TRUE(named) << "the hung check, with its time: " << terminal;
    EXPECT_TRUE(plain(drawn.back().second).starts_with("[1/1] "))
        << "the last redraw counts the check done: " << drawn.back().second;
    EXPECT_TRUE(test::contains(run.output, "fault.hang")) << "the table on stdout: " << run.output;
    EXPECT_EQ(run.output.find('\r'), std::string::npos);
}

TEST(ProgressTerminal, a_running_check_figure_reaches_the_line) {
    const TerminalRun run = run_on_terminal({"--level", "quick", "--only", "fault.progress", "--progress", "always"},
                                            {"TERM=xterm"}, true, 120);
    EXPECT_EQ(run.exit_status, 0) << run.output;
    const std::string terminal = plain(run.terminal_text());
    EXPECT_TRUE(test::contains(terminal, "running fault.progress (")) << terminal;
    EXPECT_TRUE(test::contains(terminal, "/2 s, ")) << terminal;
    EXPECT_TRUE(test::contains(terminal, "widgets/s, ")) << terminal;
    EXPECT_TRUE(std::regex_search(terminal, std::regex("\\(\\d+/2 s, \\d+ widgets/s, \\d+ ticks\\)"))) << terminal;
    EXPECT_TRUE(terminal.ends_with(erase));
}

TEST(ProgressTerminal, colour_only_without_no_color) {
    const std::vector<std::string> arguments{"--level", "quick", "--only", "host.os", "--progress", "always"};
    const TerminalRun coloured = run_on_terminal(arguments, {"TERM=xterm"});
    EXPECT_TRUE(test::contains(coloured.terminal_text(), "\x1b[1m[")) << coloured.terminal_text();
    const TerminalRun plain = run_on_terminal(arguments, {"TERM=xterm", "NO_COLOR=1"});
    EXPECT_FALSE(plain.terminal.empty());
    EXPECT_FALSE(test::contains(plain.terminal_text(), "\x1b[1m")) << plain.terminal_text();
    EXPECT_FALSE(test::contains(plain.terminal_text(), "\x1b[0m")) << plain.terminal_text();
    const TerminalRun never =
        run_on_terminal({"--level", "quick", "--only", "host.os", "--progress", "never"}, {"TERM=xterm"});
    EXPECT_EQ(never.terminal_text(), "") << "--progress never: nothing on stderr";
}

TEST(ProgressTerminal, dumb_terminal_gets_no_line_under_auto_and_plain_lines_under_always) {
    const TerminalRun automatic =
        run_on_terminal({"--level", "quick", "--only", "host.os", "--progress", "auto"}, {"TERM=dumb"});
    EXPECT_EQ(automatic.terminal_text(), "");
    const TerminalRun forced =
        run_on_terminal({"--level", "quick", "--only", "fault.hang", "--timeout", "2.5", "--progress", "always"},
                        {"TERM=dumb"});
    const std::string terminal = forced.terminal_text();
    EXPECT_EQ(terminal.find('\x1b'), std::string::npos) << terminal;
    // The pty turns each "\n" into "\r\n" (ONLCR); no other carriage return.
    std::string lines = std::regex_replace(terminal, std::regex("\r\n"), "\n");
    EXPECT_EQ(lines.find('\r'), std::string::npos) << terminal;
    EXPECT_TRUE(lines.starts_with("[0/1] ")) << terminal;
    EXPECT_TRUE(lines.ends_with("\n")) << terminal;
    const std::size_t count = test::line_count(lines);
    EXPECT_GE(count, 1u);
    EXPECT_LE(count, 4u) << "at most one a second over 2.5 s: " << terminal;
}

TEST(ProgressTerminal, stderr_that_is_no_terminal_gets_no_progress_bytes) {
    const TerminalRun run =
        run_on_terminal({"--level", "quick", "--only", "fault.hang", "--timeout", "2"}, {"TERM=xterm"}, false);
    EXPECT_EQ(run.exit_status, 1);
    const std::string stderr_text = run.terminal_text();
    EXPECT_EQ(stderr_text.find('\r'), std::string::npos) << stderr_text;
    EXPECT_EQ(stderr_text.find('\x1b'), std::string::npos) << stderr_text;
    EXPECT_EQ(stderr_text, "");
}

// The report with what differs between two runs taken out: times, timestamps, the command line.
nlohmann::json without_timings(nlohmann::json value) {
    if (value.is_object()) {
        nlohmann::json kept = nlohmann::json::object();
        for (auto& [key, item] : value.items()) {
            if (key == "duration_ms" || key == "timestamp_utc" || key == "argv" || key == "uptime_seconds") continue;
            kept[key] = without_timings(item);
        }
        return kept;
    }
    if (value.is_array()) {
        nlohmann::json kept = nlohmann::json::array();
        for (auto& item : value) kept.push_back(without_timings(item));
        return kept;
    }
    return value;
}

TEST(ProgressTerminal, stdout_is_the_same_with_and_without_the_line) {
    const std::vector<std::string> base{"--level", "quick", "--only", "host.os,env.variables"};
    const auto with = [&](const char* progress, std::vector<std::string> extra) {
        std::vector<std::string> arguments = base;
        arguments.insert(arguments.end(), {"--progress", progress});
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return run_on_terminal(arguments, {"TERM=xterm"});
    };
    const TerminalRun table_never = with("never", {});
    const TerminalRun table_always = with("always", {});
    EXPECT_EQ(table_never.terminal_text(), "");
    EXPECT_FALSE(table_always.terminal.empty());
    // The table's first line holds the start time ("· 2026-12-03T13:27:01Z": two runs may fall in
    // different seconds), its last line the run's time: "... — PASS (exit 0) in 123 ms".
    const auto without_times = [](const std::string& table) {
        static const std::regex started("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z");
        static const std::regex took(" in [0-9.]+ (ms|s)\n$");
        return std::regex_replace(std::regex_replace(table, started, "START"), took, " in T\n");
    };
    EXPECT_EQ(without_times(table_never.output), without_times(table_always.output));
    EXPECT_FALSE(table_never.output.empty());

    const TerminalRun json_never = with("never", {"--format", "json"});
    const TerminalRun json_always = with("always", {"--format", "json"});
    EXPECT_EQ(without_timings(nlohmann::json::parse(json_never.output)).dump(1),
              without_timings(nlohmann::json::parse(json_always.output)).dump(1));
}

}  // namespace
}  // namespace cudacheck
