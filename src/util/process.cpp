#include "util/process.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <string_view>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

// Linux's numbers for these system calls are the same on every architecture (asm-generic numbering,
// which new calls share); the release build's glibc 2.28 headers predate them.
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

extern char** environ;

namespace cudacheck::sys {

void FileDescriptor::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

std::optional<Pipe> Pipe::open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
    return Pipe{FileDescriptor(fds[0]), FileDescriptor(fds[1])};
}

namespace {

// The posix_spawn attribute and file action objects, destroyed with the scope.
class SpawnSetup {
public:
    SpawnSetup() {
        posix_spawn_file_actions_init(&actions_);
        posix_spawnattr_init(&attributes_);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
    ~SpawnSetup() {
        posix_spawnattr_destroy(&attributes_);
        posix_spawn_file_actions_destroy(&actions_);
    }
    posix_spawn_file_actions_t* actions() { return &actions_; }
    posix_spawnattr_t* attributes() { return &attributes_; }

private:
    posix_spawn_file_actions_t actions_;
    posix_spawnattr_t attributes_;
};

std::vector<char*> null_terminated(const std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (const std::string& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
    pointers.push_back(nullptr);
    return pointers;
}

// The children spawn started and nobody reaped yet: +pid, or -pid for one that leads its own process
// group (kill(entry, SIGKILL) then reaches what it should). Lock-free, so that a signal handler can
// walk it; a run has a few dozen children at most at a time.
constexpr std::size_t child_slots = 1024;
std::atomic<pid_t> spawned_children[child_slots];

void remember_child(pid_t pid, bool group) {
    const pid_t entry = group ? -pid : pid;
    for (std::atomic<pid_t>& slot : spawned_children) {
        pid_t empty = 0;
        if (slot.compare_exchange_strong(empty, entry)) return;
    }
}

void forget_child(pid_t pid) {
    for (std::atomic<pid_t>& slot : spawned_children) {
        pid_t entry = slot.load();
        if ((entry == pid || entry == -pid) && slot.compare_exchange_strong(entry, 0)) return;
    }
}

bool spawned_here(pid_t pid) {
    return std::any_of(std::begin(spawned_children), std::end(spawned_children), [pid](const std::atomic<pid_t>& slot) {
        const pid_t entry = slot.load();
        return entry == pid || entry == -pid;
    });
}

using AddClosefrom = int (*)(posix_spawn_file_actions_t*, int);
std::atomic<bool> closefrom_disabled{false};

AddClosefrom closefrom_action() {
    // glibc 2.34 (manual, "Spawning a Process"; posix_spawn_file_actions_addclosefrom_np(3)).
    static const auto found =
        reinterpret_cast<AddClosefrom>(::dlsym(RTLD_DEFAULT, "posix_spawn_file_actions_addclosefrom_np"));
    return closefrom_disabled.load() ? nullptr : found;
}

// Every descriptor of this process from `first` up close-on-exec: close_range(2) with
// CLOSE_RANGE_CLOEXEC (Linux 5.11), else each one /proc/self/fd lists, else each one below the
// open-files limit. Descriptors dup2'd into the child by the spawn's file actions are copies without
// the flag, so what the request names still reaches it.
void mark_close_on_exec_from(int first) {
    constexpr unsigned close_range_cloexec = 1U << 2;  // linux/close_range.h
    if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, close_range_cloexec) == 0) return;
    const auto mark = [](int fd) {
        const int flags = ::fcntl(fd, F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) == 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    };
    if (DIR* directory = ::opendir("/proc/self/fd")) {
        const int own = ::dirfd(directory);
        while (const dirent* entry = ::readdir(directory)) {
            const int fd = std::atoi(entry->d_name);
            if (fd >= first && fd != own) mark(fd);
        }
        ::closedir(directory);
        return;
    }
    rlimit limit{};
    const rlim_t highest =
        ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? limit.rlim_cur : 65536;
    for (rlim_t fd = static_cast<rlim_t>(first); fd < std::min<rlim_t>(highest, 1 << 20); ++fd)
        mark(static_cast<int>(fd));
}

}  // namespace

namespace testing {
void spawn_without_closefrom(bool without) { closefrom_disabled.store(without); }
}  // namespace testing

Expected<pid_t> spawn(const SpawnRequest& request) {
    if (request.argv.empty()) return Error{"empty command"};
    SpawnSetup setup;
    int highest_child = 2;
    for (const ChildFd& fd : request.fds) highest_child = std::max(highest_child, fd.child);
    // Each descriptor handed over is first copied above every number the child gets, so that no
    // dup2 overwrites one a later dup2 reads, and a copy onto its own number (which would keep
    // close-on-exec on glibc before 2.29) never happens. The copies close on exec.
    std::vector<FileDescriptor> copies;
    for (const ChildFd& fd : request.fds) {
        if (fd.parent >= 0) {
            copies.emplace_back(::fcntl(fd.parent, F_DUPFD_CLOEXEC, highest_child + 1));
            if (copies.back().get() < 0) {
                const int copy_error = errno;
                return Error{std::strerror(copy_error), copy_error};
            }
            posix_spawn_file_actions_adddup2(setup.actions(), copies.back().get(), fd.child);
        } else {
            posix_spawn_file_actions_addopen(setup.actions(), fd.child, fd.path.c_str(), fd.flags, 0);
        }
    }
    // No other descriptor: those below the highest the request names one by one (closing one that
    // is not open is no error, glibc's spawni), the rest at once.
    for (int fd = 3; fd < highest_child; ++fd)
        if (std::none_of(request.fds.begin(), request.fds.end(),
                         [fd](const ChildFd& wanted) { return wanted.child == fd; }))
            posix_spawn_file_actions_addclose(setup.actions(), fd);
    if (const AddClosefrom closefrom = closefrom_action()) closefrom(setup.actions(), highest_child + 1);
    else mark_close_on_exec_from(3);
    int flags = 0;
    if (request.own_process_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(setup.attributes(), 0);
    }
    if (request.default_signals) {
        flags |= POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int signal : {SIGINT, SIGTERM, SIGPIPE}) sigaddset(&defaults, signal);
        posix_spawnattr_setsigdefault(setup.attributes(), &defaults);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigmask(setup.attributes(), &none);
    }
    posix_spawnattr_setflags(setup.attributes(), static_cast<short>(flags));
    const std::vector<char*> argv = null_terminated(request.argv);
    const std::vector<char*> environment =
        request.environment != nullptr ? null_terminated(*request.environment) : std::vector<char*>{};
    pid_t pid = -1;
    const int spawn_error = ::posix_spawn(&pid, request.argv[0].c_str(), setup.actions(), setup.attributes(),
                                          argv.data(), request.environment != nullptr ? environment.data() : environ);
    // The code lets callers tell the process limit (EAGAIN) or the open-files limit (EMFILE) from
    // other failures.
    if (spawn_error != 0) return Error{std::strerror(spawn_error), spawn_error};
    remember_child(pid, request.own_process_group);
    return pid;
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    forget_child(pid);
    return status;
}

bool has_ended(pid_t pid) {
    siginfo_t info{};
    while (true) {
        info.si_pid = 0;
        if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) return info.si_pid != 0;
        if (errno != EINTR) return true;  // ECHILD: not ours to wait for any more
    }
}

FileDescriptor open_end_descriptor(pid_t pid) {
    return FileDescriptor(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));  // -1 (ENOSYS) before Linux 5.3
}

void kill_spawned_groups() {
    for (std::atomic<pid_t>& slot : spawned_children)
        if (const pid_t entry = slot.load(); entry < 0) ::kill(entry, SIGKILL);
}

namespace {

std::vector<pid_t> children_of_this_process() { return children_of(::getpid()); }

}  // namespace

// /proc/<pid>/task/<tid>/children (Linux 3.5, CONFIG_PROC_CHILDREN) for each thread, since a child
// is listed under the thread that started it and an orphan under one of the subreaper's threads;
// else every /proc/<pid>/stat whose parent is `pid`.
std::optional<std::vector<pid_t>> processes_named(const std::string& proc, std::string_view name, std::size_t limit) {
    constexpr std::size_t comm_length = 15;  // TASK_COMM_LEN - 1
    const std::vector<std::string> entries = list_directory(proc);
    if (entries.empty()) return std::nullopt;
    const std::string_view kept = name.substr(0, comm_length);
    std::vector<pid_t> pids;
    std::size_t seen = 0;
    for (const std::string& entry : entries) {
        if (entry.empty() || entry.size() > 9 || entry.find_first_not_of("0123456789") != std::string::npos) continue;
        if (++seen > limit) break;
        const std::optional<std::string> comm = read_file(proc + "/" + entry + "/comm", 64);
        if (comm && trim(*comm) == kept) pids.push_back(static_cast<pid_t>(std::stoi(entry)));
    }
    return pids;
}

std::vector<pid_t> children_of(pid_t pid) {
    std::vector<pid_t> children;
    bool listed = false;
    if (DIR* tasks = ::opendir(fmt::format("/proc/{}/task", pid).c_str())) {
        while (const dirent* task = ::readdir(tasks)) {
            if (task->d_name[0] == '.') continue;
            const int fd =
                ::open(fmt::format("/proc/{}/task/{}/children", pid, task->d_name).c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            listed = true;
            std::string text;
            char buffer[4096];
            for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
                text.append(buffer, static_cast<std::size_t>(n));
            ::close(fd);
            for (const char* cursor = text.c_str(); *cursor != '\0';) {
                char* end = nullptr;
                const long child = std::strtol(cursor, &end, 10);
                if (end == cursor) break;
                if (child > 0) children.push_back(static_cast<pid_t>(child));
                cursor = end;
            }
        }
        ::closedir(tasks);
    }
    if (listed) return children;
    if (DIR* processes = ::opendir("/proc")) {
        while (const dirent* process = ::readdir(processes)) {
            const long candidate = std::atol(process->d_name);
            if (candidate <= 0) continue;
            char buffer[1024];
            const int fd = ::open(fmt::format("/proc/{}/stat", candidate).c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
            ::close(fd);
            if (n <= 0) continue;
            buffer[n] = '\0';
            // "pid (comm) state ppid ...": comm may hold spaces and parentheses, the last ')' ends it (proc(5)).
            const char* close = std::strrchr(buffer, ')');
            if (close == nullptr) continue;
            char state = 0;
            long parent = 0;
            if (std::sscanf(close + 1, " %c %ld", &state, &parent) == 2 && parent == pid)
                children.push_back(static_cast<pid_t>(candidate));
        }
        ::closedir(processes);
    }
    return children;
}

void kill_with_group(pid_t pid) {
    // Only a group it leads: a process may have joined another group of the session.
    if (::getpgid(pid) == pid && pid != ::getpgrp()) ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
}

std::size_t kill_adopted_children() {
    std::size_t killed = 0;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    // Each round kills what is there; their own children come to this process as they die.
    for (int round = 0; round < 16; ++round) {
        std::vector<pid_t> adopted;
        for (const pid_t child : children_of_this_process())
            if (!spawned_here(child)) adopted.push_back(child);
        if (adopted.empty()) break;
        for (const pid_t child : adopted) {
            kill_with_group(child);
            ++killed;
        }
        // Reaped as they die; one stuck in the kernel (uninterruptible sleep) is left after 2 s.
        for (const pid_t child : adopted) {
            while (::waitpid(child, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < give_up)
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    return killed;
}

std::optional<std::uint64_t> user_task_count(unsigned uid) {
    DIR* processes = ::opendir("/proc");
    if (processes == nullptr) return std::nullopt;
    std::uint64_t count = 0;
    bool any = false;
    while (const dirent* process = ::readdir(processes)) {
        if (process->d_name[0] < '0' || process->d_name[0] > '9') continue;
        const int fd = ::open(fmt::format("/proc/{}/status", process->d_name).c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
        ::close(fd);
        if (n <= 0) continue;
        buffer[n] = '\0';
        // "Uid:\treal\teffective\tsaved\tfs" and "Threads:\tN" (proc(5)).
        const char* uid_line = std::strstr(buffer, "\nUid:");
        const char* threads_line = std::strstr(buffer, "\nThreads:");
        if (uid_line == nullptr) continue;
        any = true;
        if (std::strtoul(uid_line + 5, nullptr, 10) != uid) continue;
        count += threads_line != nullptr ? std::max<std::uint64_t>(1, std::strtoull(threads_line + 9, nullptr, 10)) : 1;
    }
    ::closedir(processes);
    if (!any) return std::nullopt;
    return count;
}

std::string process_limit_words() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return "the system's process or thread limit (kernel.threads-max, kernel.pid_max, the control group's "
               "pids.max) was reached";
    const std::optional<std::uint64_t> running = user_task_count(::getuid());
    return fmt::format("the process limit (RLIMIT_NPROC, ulimit -u) is {}{}",
                       static_cast<std::uint64_t>(limit.rlim_cur),
                       running ? fmt::format(" and this user runs {} processes and threads", *running) : std::string());
}

bool read_available(int fd, const std::function<void(std::string_view)>& take) {
    char buffer[16384];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n == 0;
        take(std::string_view(buffer, static_cast<std::size_t>(n)));
    }
}

bool write_all(int fd, std::string_view bytes) {
    for (std::size_t written = 0; written < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<std::size_t>(n);
    }
    return true;
}

std::string signal_name(int signal) {
    switch (signal) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
        case SIGXFSZ: return "SIGXFSZ";
        case SIGSEGV: return "SIGSEGV";
        case SIGABRT: return "SIGABRT";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        case SIGKILL: return "SIGKILL";
        default: return fmt::format("signal {}", signal);
    }
}

std::string describe_wait_status(int status) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* text = ::strsignal(signal);
        return fmt::format("killed by {} ({})", signal_name(signal), text != nullptr ? text : "unknown signal");
    }
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    return fmt::format("ended with wait status {}", status);
}

}  // namespace cudacheck::sys
