// Helpers shared by the tests: temporary directory trees and running the built binary.
#pragma once

#include <chrono>
#include <sys/types.h>

#include "report/result.hpp"

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace cudacheck::test {

// A directory under /tmp, removed with everything in it when the object goes away.
class TempDir {
public:
    TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir();
    [[nodiscard]] const std::string& path() const { return path_; }
    // Creates parent directories as needed; returns the full path.
    std::string write(const std::string& relative, std::string_view content, unsigned mode = 0644) const;
    std::string make_dir(const std::string& relative) const;
    std::string symlink(const std::string& target, const std::string& relative) const;

private:
    std::string path_;
};

[[nodiscard]] std::string read_text(const std::string& path);

// `gcc` and `g++` in `dir`/`relative` that run /usr/bin's but report, and predefine, gcc `major`:
// a compiler a toolkit's host_config.h rejects, made of one it accepts. Returns the directory.
std::string write_gcc_wrappers(const TempDir& dir, const std::string& relative, int major);

// Whether `part` occurs in `text`: what most assertions on a message or a remediation ask.
[[nodiscard]] inline bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}
// The columns a terminal shows for `text`: code points, colour escape sequences none.
[[nodiscard]] inline std::size_t columns_of(const std::string& text) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\x1b') {
            while (i < text.size() && text[i] != 'm') ++i;
            continue;
        }
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++count;
    }
    return count;
}

[[nodiscard]] inline std::size_t line_count(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct BinaryRun {
    int exit_status = -1;
    bool timed_out = false;
    std::string output;  // stdout and stderr together
    double wall_ms = 0.0;
};

// Which binary a test runs: the shipped cudacheck, or the test build that also has the fault
// checks (fault.segfault, fault.hang, ...: tests/support/fault_checks.cpp).
enum class Build { shipped, with_faults };

// Runs the built cudacheck with the current environment plus `overrides` (NAME, value); a value of
// "\x01unset" removes the variable.
// This process's environment with `overrides` applied (as run_cudacheck gives it), as "NAME=value"
// entries for sys::run_command: for tests that run another program in the binary's environment.
[[nodiscard]] std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& overrides);

// Runs `argv` (argv[0] a path) with `environment` ("NAME=value" entries), stopped after 60 s.
[[nodiscard]] BinaryRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

// The processes (zombies aside, this one aside) whose command line holds `marker`, a fixture's
// `exec -a <marker>`; and how many are still there after waiting up to `limit` for them to go (those
// are killed, so that a failing test leaves nothing behind either).
[[nodiscard]] std::vector<pid_t> processes_with(const std::string& marker);
[[nodiscard]] std::size_t left_running(const std::string& marker,
                                       std::chrono::milliseconds limit = std::chrono::seconds(3));

[[nodiscard]] BinaryRun run_cudacheck(const std::vector<std::string>& arguments,
                                      const std::vector<std::pair<std::string, std::string>>& overrides = {},
                                      Build build = Build::shipped);
inline constexpr const char* unset_marker = "\x01unset";

// Starts the built cudacheck in the background with the current environment plus `extra`
// ("NAME=value" entries, taking precedence), its output discarded, as the leader of its own process
// group (as a shell starts a foreground job: kill(-pid, SIGINT) is a terminal's Ctrl-C); returns
// its pid (-1 on failure), for tests that signal it.
[[nodiscard]] pid_t start_cudacheck(const std::vector<std::string>& arguments,
                                    const std::vector<std::string>& extra = {}, Build build = Build::shipped);

// The first check result with this id in a JSON report, or nullptr.
[[nodiscard]] const nlohmann::json* find_check(const nlohmann::json& report, std::string_view id);

// A test failure for each finding whose code its check does not declare (CheckInfo::raises). CC9xx
// are the engine's and the supervisor's, for any check; an id that is no built-in check (a test's own
// check, expect.*) is not judged. Returns the number of findings judged, so that a caller can show
// it judged something.
std::size_t expect_codes_declared(std::string_view check_id, const std::vector<std::string>& codes);
std::size_t expect_codes_declared(const CheckResult& result);
// Every result of a JSON report.
std::size_t expect_codes_declared(const nlohmann::json& report);

// For the cases that run the built binary as another user (setpriv --reuid=UID --regid=UID
// --clear-groups): the first directory on the binary's path that UID cannot search, or the binary
// itself when UID cannot read and execute it; empty when UID reaches it. A clone under /root
// (mode 0700), as on a fresh machine set up as root, is one such path: those cases skip there
// and say why, rather than fail on the loader's "Permission denied".
[[nodiscard]] std::string unreachable_by(uid_t uid, const std::string& path);
// Skips the running test, naming the directory, where `uid` cannot reach the built cudacheck.
#define SKIP_UNLESS_BINARY_REACHABLE_BY(uid)                                                                          \
    do {                                                                                                              \
        if (const std::string blocked = ::cudacheck::test::unreachable_by((uid), CUDACHECK_BINARY); !blocked.empty()) \
            GTEST_SKIP() << "uid " << (uid) << " cannot reach the built binary through " << blocked                   \
                         << " (clone outside it to run this case)";                                                   \
    } while (false)

}  // namespace cudacheck::test
