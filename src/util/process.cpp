#include "util/process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace

std::optional<pid_t> spawn(const SpawnRequest& request, std::string& error) {
    if (request.argv.empty()) {
        error = "empty command";
        return std::nullopt;
    }
    SpawnSetup setup;
    for (const ChildFd& fd : request.fds) {
        if (fd.parent >= 0) posix_spawn_file_actions_adddup2(setup.actions(), fd.parent, fd.child);
        else posix_spawn_file_actions_addopen(setup.actions(), fd.child, fd.path.c_str(), fd.flags, 0);
    }
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
    const std::vector<char*> environment = request.environment != nullptr ? null_terminated(*request.environment) : std::vector<char*>{};
    pid_t pid = -1;
    const int spawn_error = ::posix_spawn(&pid, request.argv[0].c_str(), setup.actions(), setup.attributes(), argv.data(),
                                          request.environment != nullptr ? environment.data() : environ);
    if (spawn_error != 0) {
        error = std::strerror(spawn_error);
        errno = spawn_error;  // for callers that tell the open-files limit (EMFILE) from other failures
        return std::nullopt;
    }
    return pid;
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
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
