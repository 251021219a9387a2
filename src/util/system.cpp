#include "util/system.hpp"

#include "util/activity.hpp"
#include "util/process.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cudacheck::sys {

std::optional<std::string> read_file(const std::string& path, std::size_t limit) {
    // Without blocking, and regular files only (those of /proc and /sys are): a FIFO named like a
    // file the probes read (pyvenv.cfg, METADATA) would otherwise hold the check until its time
    // limit. O_NONBLOCK changes nothing for a regular file's reads.
    activity::reading(path);  // named by the supervisor after a crash or hang in reading or parsing it
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    struct stat status{};
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        ::close(fd);
        return std::nullopt;
    }
    std::string text;
    char buffer[8192];
    while (text.size() < limit) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    if (text.size() > limit) text.resize(limit);
    return text;
}

std::string_view file_type_words(unsigned mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "a regular file";
}

Expected<RegularFile> open_regular_file(const std::string& path) {
    activity::reading(path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return Error{std::strerror(errno), errno};
    struct stat status{};
    if (::fstat(fd, &status) != 0) {
        const int fstat_errno = errno;
        ::close(fd);
        return Error{std::strerror(fstat_errno), fstat_errno};
    }
    if (!S_ISREG(status.st_mode)) {
        ::close(fd);
        return Error{std::string(file_type_words(status.st_mode)) + ", not a regular file"};
    }
    // Reads of a regular file never block; clear the flag so they behave as usual.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return RegularFile{fd, static_cast<std::uint64_t>(status.st_size)};
}

Expected<std::string> read_regular_file(const std::string& path, std::uint64_t limit) {
    const Expected<RegularFile> file = open_regular_file(path);
    if (!file) return file.error();
    const int fd = file->fd;
    if (file->size > limit) {
        ::close(fd);
        return Error{fmt::format("{} bytes, more than the {} MiB this reads", file->size, limit >> 20)};
    }
    std::string text;
    text.reserve(static_cast<std::size_t>(file->size));
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int read_errno = errno;
            ::close(fd);
            return Error{std::strerror(read_errno), read_errno};
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > limit) {  // grew while being read
            ::close(fd);
            return Error{fmt::format("more than the {} MiB this reads", limit >> 20)};
        }
    }
    ::close(fd);
    return text;
}

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto byte = static_cast<unsigned char>(c);
        // C1 controls (U+0080-U+009F, UTF-8 C2 80-C2 9F): U+009B is CSI on terminals that honour them.
        if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
        } else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (byte < 0x20 || byte == 0x7f) out += fmt::format("\\x{:02x}", byte);
        else out += c;
    }
    return out;
}

bool exists(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_executable_file(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string real_path(const std::string& path) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return {};
    return resolved;
}

std::string read_link(const std::string& path) {
    char target[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    if (n <= 0) return {};
    return std::string(target, static_cast<std::size_t>(n));
}

std::string current_directory() {
    std::string buffer(PATH_MAX, '\0');
    if (::getcwd(buffer.data(), buffer.size()) == nullptr) return {};
    // Linux names a removed working directory "<path> (deleted)" in /proc but getcwd fails with
    // ENOENT for it; an unreachable one starts with "(unreachable)".
    buffer.resize(std::strlen(buffer.c_str()));
    return buffer.empty() || buffer.front() != '/' ? std::string() : buffer;
}

std::vector<std::string> list_directory(const std::string& path) {
    std::vector<std::string> names;
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return names;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        parts.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return parts;
}

std::string_view trim(std::string_view text) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string to_lower(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string find_in_path(std::string_view name, std::string_view path_list) {
    for (const std::string& dir : split(path_list, ':')) {
        // An empty PATH entry means the current directory (POSIX); cudacheck does not follow it
        // because a diagnosis should not depend on where it was started.
        if (dir.empty()) continue;
        std::string candidate = dir + "/" + std::string(name);
        if (is_executable_file(candidate)) return candidate;
    }
    return {};
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds time_limit,
                          const std::vector<std::string>* environment) {
    constexpr std::size_t output_limit = std::size_t{1} << 20;
    CommandResult result;
    std::optional<Pipe> output = Pipe::open();
    if (!output) {
        result.error = std::strerror(errno);
        return result;
    }
    // Its own process group, so that what it starts (a compiler's cc1plus, an import's forked
    // helper, a wrapper's background job) is killed with it, at its limit and when it is done
    // (nothing a check started outlives it); no descriptor but these three (util/process.hpp's spawn).
    const SpawnRequest request{.argv = argv,
                               .environment = environment,
                               .fds = {ChildFd::open("/dev/null", O_RDONLY, 0), ChildFd::copy(output->write.get(), 1),
                                       ChildFd::copy(output->write.get(), 2)},
                               .own_process_group = true,
                               .default_signals = true};
    // Noted for the supervisor: a check that dies or hangs while this runs names it, not a GPU fault.
    std::string command;
    for (const std::string& argument : argv) command += (command.empty() ? "" : " ") + printable(argument);
    const activity::Running running(command);
    const Expected<pid_t> pid = spawn(request);
    output->write.reset();
    if (!pid) {
        result.error = pid.error().message;
        if (pid.error().code == EAGAIN) result.error += fmt::format(" ({})", process_limit_words());
        return result;
    }
    result.started = true;
    ::fcntl(output->read.get(), F_SETFL, ::fcntl(output->read.get(), F_GETFL) | O_NONBLOCK);
    const FileDescriptor ended = open_end_descriptor(*pid);
    // The limit covers the whole life of the child: its output until end of file, then its exit. A
    // child that closes its output and goes on (`exec >&- 2>&-; sleep 300`) used to hold waitpid
    // for ever; one that exits while something it started still holds the pipe is finished, with
    // its own exit status.
    const auto deadline = std::chrono::steady_clock::now() + time_limit;
    bool end_of_file = false;
    // Reads up to `budget` bytes of what is there now (a writer that never pauses cannot hold the
    // loop past its deadline); keeps the first MiB.
    const auto read_some = [&](std::size_t budget) {
        char buffer[16384];
        while (!end_of_file && budget > 0) {
            const ssize_t n = ::read(output->read.get(), buffer, std::min(sizeof buffer, budget));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return;  // EAGAIN: nothing more for now
            if (n == 0) end_of_file = true;
            const std::string_view chunk(buffer, static_cast<std::size_t>(n));
            if (result.output.size() < output_limit)
                result.output.append(chunk.substr(0, output_limit - result.output.size()));
            budget -= static_cast<std::size_t>(n);
        }
    };
    while (!has_ended(*pid)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            break;
        }
        pollfd fds[2] = {{end_of_file ? -1 : output->read.get(), POLLIN, 0}, {ended.get(), POLLIN, 0}};
        const long long wait =
            ended.get() >= 0 ? left.count() : std::min<long long>(left.count(), ended_poll_interval_ms);
        const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(wait, 1000)));
        if (ready < 0 && errno != EINTR) break;  // cannot wait: stop it rather than spin
        if (!end_of_file && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) read_some(1 << 20);
    }
    // The whole group, whether the child finished or ran out of time: nothing it started outlives it.
    // Killed before it is reaped, so that the group's id cannot have gone to another process.
    ::kill(-*pid, SIGKILL);
    // What is left in the pipe: the child's last words (those of its group are cut short).
    read_some(std::size_t{4} << 20);
    output->read.reset();
    const int status = wait_for(*pid);
    if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.exit_status = 128 + WTERMSIG(status);
    return result;
}

}  // namespace cudacheck::sys
