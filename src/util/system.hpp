// Small, exception-free wrappers over the operating system: files, directories, the loader search
// path and child processes. Every probe does its I/O through these, and parses with pure functions.
#pragma once

#include "util/expected.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::sys {

// Whole file as text (for /proc and /sys files, which report size 0); empty optional on error and for
// what is not a regular file (a FIFO, a device), which is never waited on.
[[nodiscard]] std::optional<std::string> read_file(const std::string& path, std::size_t limit = 1 << 20);
// A regular file opened for reading, and its size; the caller closes `fd`.
struct RegularFile {
    int fd = -1;
    std::uint64_t size = 0;
};
// A file given on the command line (a report, a policy, a binary to inspect), opened without
// blocking, so that a FIFO or a device never hangs the command, or the error saying why
// ("No such file or directory", "a FIFO, not a regular file"; the errno where there is one).
[[nodiscard]] Expected<RegularFile> open_regular_file(const std::string& path);
// Such a file's whole text, refused (the error naming the limit) when larger than `limit`.
[[nodiscard]] Expected<std::string> read_regular_file(const std::string& path, std::uint64_t limit);
// "a FIFO", "a character device", "a directory", ... for a st_mode; "a regular file" otherwise.
[[nodiscard]] std::string_view file_type_words(unsigned mode);
[[nodiscard]] bool exists(const std::string& path);
[[nodiscard]] bool is_directory(const std::string& path);
[[nodiscard]] bool is_executable_file(const std::string& path);
// Symlinks resolved; empty when the path does not exist.
[[nodiscard]] std::string real_path(const std::string& path);
// Target of a symlink as written, empty if not a symlink.
[[nodiscard]] std::string read_link(const std::string& path);
// The working directory; "" when it cannot be named (it was removed, or is too deep).
[[nodiscard]] std::string current_directory();
// Entry names (no "." or ".."), sorted; empty on error.
[[nodiscard]] std::vector<std::string> list_directory(const std::string& path);

// Splits "a:b::c" into {"a","b","","c"}.
[[nodiscard]] std::vector<std::string> split(std::string_view text, char separator);
[[nodiscard]] std::string_view trim(std::string_view text);
[[nodiscard]] bool starts_with(std::string_view text, std::string_view prefix);
[[nodiscard]] std::string to_lower(std::string_view text);

// `text` with control characters written as escapes ("\n", "\t", "\x1b", ...), so that a file name
// or a library's message can neither break a one-line error nor drive the terminal.
[[nodiscard]] std::string printable(std::string_view text);

// Levenshtein distance, for "did you mean" suggestions.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// First `name` found in the directories of a PATH-like list; empty when none.
[[nodiscard]] std::string find_in_path(std::string_view name, std::string_view path_list);

struct CommandResult {
    bool started = false;   // false: could not be executed (see error)
    bool timed_out = false;
    int exit_status = -1;   // exit code, or 128 + signal
    std::string output;     // stdout and stderr together
    std::string error;      // why it could not start
};
// Runs argv[0] (a path) with arguments, no shell (util/process.hpp's spawn), stdin /dev/null, no
// other descriptor of this process, in a process group of its own. The time limit covers its whole
// life (its output and its exit): past it the group is killed and `timed_out` set. When the child
// ends its group is killed too, so nothing it started outlives it, and its exit status is the
// result even while something it started still held the pipe. The first MiB of the
// output is kept. A start refused with EAGAIN names the process limit (ulimit -u) in `error`.
// `environment` ("NAME=value" entries) replaces the child's environment when given.
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds time_limit,
                                        const std::vector<std::string>* environment = nullptr);

}  // namespace cudacheck::sys
