#include "util/atomic_file.hpp"

#include "util/system.hpp"

#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace cudacheck {

namespace {

// The uncommitted temporary files, where a signal handler can read them: fixed storage, no
// allocation, a slot's path complete before the slot is marked ready. More -o files than slots
// still work; those beyond are only not removed by remove_temporaries_now().
struct TemporarySlot {
    std::atomic<int> state{0};  // free, being filled, ready
    char path[PATH_MAX] = {};
};
enum : int { slot_free = 0, slot_filling = 1, slot_ready = 2 };
std::array<TemporarySlot, 32> temporary_slots;

int remember_temporary(const std::string& path) {
    if (path.size() >= PATH_MAX) return -1;
    for (std::size_t i = 0; i < temporary_slots.size(); ++i) {
        int expected = slot_free;
        if (!temporary_slots[i].state.compare_exchange_strong(expected, slot_filling)) continue;
        std::memcpy(temporary_slots[i].path, path.c_str(), path.size() + 1);
        temporary_slots[i].state.store(slot_ready);
        return static_cast<int>(i);
    }
    return -1;
}

// "512 bytes", "1 KiB", "4 GiB": exact, as the limit is.
std::string exact_bytes(std::uint64_t bytes) {
    constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes == 0 || bytes % 1024 != 0) return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
    std::size_t unit = 0;
    bytes /= 1024;
    while (bytes % 1024 == 0 && unit + 1 < std::size(units)) {
        bytes /= 1024;
        ++unit;
    }
    return fmt::format("{} {}", bytes, units[unit]);
}

}  // namespace

std::string write_error_words(int error) {
    std::string words = std::strerror(error);
    struct rlimit limit{};
    if (error == EFBIG && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        words += fmt::format(" (the file-size limit, ulimit -f, is {})", exact_bytes(limit.rlim_cur));
    return words;
}

Expected<void> write_whole(int fd, std::string_view text) {
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int write_errno = errno;
            return Error{write_error_words(write_errno), write_errno};
        }
        if (n == 0) return Error{"the write made no progress"};
        written += static_cast<std::size_t>(n);
    }
    return {};
}

void AtomicFile::remove_temporaries_now() noexcept {
    for (TemporarySlot& slot : temporary_slots)
        if (slot.state.load() == slot_ready) ::unlink(slot.path);
}

namespace {

// The path an output is written to, resolved as the kernel would resolve it for open(): `path`
// has no symbolic link in it (each was checked and followed here), and names what rename() replaces.
struct OutputTarget {
    std::string path;
    std::string directory;  // the directory holding it ("." for a bare name in the working directory)
    bool exists = false;
    struct stat status{};  // of the existing file
};

std::string joined(const std::vector<std::string>& parts, bool absolute, std::size_t count) {
    std::string path = absolute ? "/" : "";
    for (std::size_t i = 0; i < count; ++i) {
        if (i > 0) path += '/';
        path += parts[i];
    }
    return path.empty() ? "." : path;
}

bool sticky_and_writable_by_others(const struct stat& directory, mode_t writable) {
    return (directory.st_mode & S_ISVTX) != 0 && (directory.st_mode & writable) != 0;
}

// fs.protected_symlinks (Documentation/admin-guide/sysctl/fs.rst; may_follow_link() in
// fs/namei.c): a link in a sticky world-writable directory is followed only when the follower owns
// it or the directory's owner owns it. Applied whatever the sysctl says: root's `-o` into /tmp
// must never become another user's write into /root.
bool may_follow(const struct stat& link, const struct stat& directory) {
    if (!sticky_and_writable_by_others(directory, S_IWOTH)) return true;
    return link.st_uid == ::geteuid() || link.st_uid == directory.st_uid;
}

// Walks `requested` one component at a time with lstat(), following each link only where
// may_follow() allows (at most 40, the kernel's MAXSYMLINKS), so no link is followed that open()
// would refuse, whether it is the last component or one of the directories on the way.
Expected<OutputTarget> resolve_output(const std::string& requested) {
    std::vector<std::string> done;  // directories walked (never links), or leading ".." of a relative path
    bool absolute = requested.front() == '/';
    std::deque<std::string> pending;
    for (std::string& part : sys::split(requested, '/'))
        if (!part.empty() && part != ".") pending.push_back(std::move(part));
    int links = 0;
    bool final_link = false;  // the last component was a link: a target that is missing is an error, not a new file
    while (!pending.empty()) {
        std::string part = std::move(pending.front());
        pending.pop_front();
        if (part == ".") continue;
        if (part == "..") {
            // `done` holds real directories only, so ".." is the one before.
            if (!done.empty() && done.back() != "..") done.pop_back();
            else if (!absolute) done.emplace_back("..");
            continue;
        }
        done.push_back(std::move(part));
        const std::string candidate = joined(done, absolute, done.size());
        struct stat status{};
        if (::lstat(candidate.c_str(), &status) != 0) {
            const int error_number = errno;
            if (error_number == ENOENT && final_link)
                return Error{requested + " is a symbolic link to nothing; remove it or name another file"};
            if (error_number == ENOENT && pending.empty())
                return OutputTarget{.path = candidate, .directory = joined(done, absolute, done.size() - 1)};
            return Error{"cannot write " + requested + ": " + std::strerror(error_number)};
        }
        if (S_ISLNK(status.st_mode)) {
            done.pop_back();
            const std::string directory = joined(done, absolute, done.size());
            struct stat directory_status{};
            if (++links > 40 || ::stat(directory.c_str(), &directory_status) != 0) {
                return Error{"cannot write " + requested + ": " + std::strerror(links > 40 ? ELOOP : errno)};
            }
            if (!may_follow(status, directory_status)) {
                return Error{
                    fmt::format("cannot write {}: {} is a symbolic link of {} in the sticky world-writable directory "
                                "{}, and the kernel follows "
                                "such a link only for its owner or the directory's owner (fs.protected_symlinks); "
                                "remove the link or name "
                                "another file",
                                requested, candidate, owner_words(status.st_uid), directory)};
            }
            const std::string target = sys::read_link(candidate);
            if (target.empty())
                return Error{"cannot write " + requested + ": cannot read the symbolic link " + candidate};
            if (pending.empty()) final_link = true;
            if (target.front() == '/') {
                done.clear();
                absolute = true;
            }
            std::vector<std::string> parts = sys::split(target, '/');
            for (auto it = parts.rbegin(); it != parts.rend(); ++it)
                if (!it->empty()) pending.push_front(std::move(*it));
            continue;
        }
        if (!pending.empty() && !S_ISDIR(status.st_mode))
            return Error{"cannot write " + requested + ": " + std::strerror(ENOTDIR)};
        if (pending.empty())
            return OutputTarget{.path = candidate,
                                .directory = joined(done, absolute, done.size() - 1),
                                .exists = true,
                                .status = status};
    }
    // "/", ".", "a/..": a directory.
    OutputTarget target{.path = joined(done, absolute, done.size()), .directory = {}, .exists = true};
    if (::stat(target.path.c_str(), &target.status) != 0)
        return Error{"cannot write " + requested + ": " + std::strerror(errno)};
    return target;
}

// Why the final rename() over an existing file would fail, or the shell's `>` would be refused:
// found now, before any check runs (as an ordinary user, `-o` over another user's file in
// /tmp would otherwise fail only after the whole run). Nothing when it can be replaced.
Expected<void> check_replaceable(const std::string& requested, const OutputTarget& target) {
    struct stat directory{};
    if (::stat(target.directory.c_str(), &directory) != 0)
        return Error{"cannot write " + requested + ": " + std::strerror(errno)};
    const uid_t self = ::geteuid();
    const uid_t owner = target.status.st_uid;
    // fs.protected_regular (fs.rst; may_create_in_sticky() in fs/namei.c): in a sticky directory
    // writable by others, an existing file of another user is not opened for writing unless the
    // directory's owner owns it, root included. Mode 2 of the sysctl also covers group-writable
    // directories; the stricter reading is applied whatever the sysctl says.
    if (owner != self && owner != directory.st_uid && sticky_and_writable_by_others(directory, S_IWOTH | S_IWGRP))
        return Error{
            fmt::format("cannot write {}: {} belongs to {} in the sticky directory {}, where the kernel opens another "
                        "user's file for "
                        "writing for no one else, root included (fs.protected_regular); name another file, or remove "
                        "it as its owner",
                        requested, target.path, owner_words(owner), target.directory)};
    // The sticky bit (rename(2), EPERM): only the file's owner, the directory's owner or a process
    // with CAP_FOWNER may replace a file in a sticky directory.
    if (owner != self && directory.st_uid != self && (directory.st_mode & S_ISVTX) != 0 && !may_act_on_others_files())
        return Error{
            fmt::format("cannot write {}: {} belongs to {} in the sticky directory {}, where only its owner may "
                        "replace it; name "
                        "another file, or remove it as its owner",
                        requested, target.path, owner_words(owner), target.directory)};
    // An immutable or append-only file (chattr +i, +a) cannot be replaced by anyone (rename(2): EPERM).
    const int fd = ::open(target.path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
        int flags = 0;
        const bool fixed = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)) != 0;
        ::close(fd);
        if (fixed)
            return Error{
                fmt::format("cannot write {}: {} is {}, so it cannot be replaced; `lsattr {}` shows it, `chattr -{} "
                            "{}` (as root) clears it",
                            requested, target.path, (flags & FS_IMMUTABLE_FL) != 0 ? "immutable" : "append-only",
                            target.path, (flags & FS_IMMUTABLE_FL) != 0 ? "i" : "a", target.path)};
    }
    return {};
}

}  // namespace

std::string owner_words(uid_t uid) {
    std::string name;
    struct passwd entry{};
    struct passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
        found->pw_name != nullptr)
        name = sys::printable(found->pw_name);
    return name.empty() ? fmt::format("uid {}", uid) : fmt::format("uid {} ({})", uid, name);
}

bool may_act_on_others_files() {
    // CapEff in /proc/self/status (proc(5)); CAP_FOWNER is bit 3 (linux/capability.h).
    if (const std::optional<std::string> status = sys::read_file("/proc/self/status"))
        if (const std::size_t at = status->find("\nCapEff:"); at != std::string::npos) {
            const std::string_view rest = sys::trim(std::string_view(*status).substr(at + 8, 24));
            std::uint64_t bits = 0;
            for (const char c : rest) {
                if (!std::isxdigit(static_cast<unsigned char>(c))) break;
                bits = bits * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(c))
                                                                  ? c - '0'
                                                                  : std::tolower(c) - 'a' + 10);
            }
            return (bits & (std::uint64_t{1} << 3)) != 0;
        }
    return ::geteuid() == 0;
}

Expected<AtomicFile> AtomicFile::create(const std::string& requested) {
    if (requested.empty()) return Error{"empty output path"};
    if (requested.back() == '/') {  // open("dir/", O_CREAT) is EISDIR: a name with a slash last is no file
        return Error{requested + " names a directory: -o writes only regular files (name a file)"};
    }
    // Only regular files are replaced (as root, `-o /dev/null` would otherwise replace the
    // device). A symlink to one is written through where the kernel would follow it: the file it
    // names is replaced, the link stays.
    const Expected<OutputTarget> target = resolve_output(requested);
    if (!target) return target.error();
    if (target->exists) {
        if (!S_ISREG(target->status.st_mode)) {
            return Error{
                fmt::format("{} is {}: -o writes only regular files (leave -o out to print to the terminal, or name a "
                            "file)",
                            requested, sys::file_type_words(target->status.st_mode))};
        }
        if (Expected<void> replaceable = check_replaceable(requested, *target); !replaceable)
            return replaceable.error();
    }
    const std::string& path = target->path;
    const std::string& directory = target->directory;
    const std::size_t slash = path.find_last_of('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    // ".<name>.tmp.XXXXXX" beside the target (a rename stays on one filesystem); a name within 12
    // characters of the filesystem's limit gets a short temporary name instead.
    const long name_max = ::pathconf(directory.c_str(), _PC_NAME_MAX);
    const std::size_t limit = name_max > 0 ? static_cast<std::size_t>(name_max) : 255;
    std::string pattern =
        directory + "/." + (name.size() + 12 <= limit ? name : std::string("cudacheck")) + ".tmp.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const int fd = ::mkostemp(buffer.data(), O_CLOEXEC);
    if (fd < 0) return Error{"cannot write " + requested + ": " + std::strerror(errno)};
    // mkstemp creates 0600. A replaced file keeps its mode, never widened (a 0600 report must not
    // become 0644); a new report is an ordinary file, so it honours the umask like open() would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, target->exists ? (target->status.st_mode & 0777) : (0666 & ~mask));
    std::string temporary = buffer.data();
    const int slot = remember_temporary(temporary);
    return AtomicFile(requested, path, std::move(temporary), fd, slot);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : requested_(std::move(other.requested_)),
      path_(std::move(other.path_)),
      temporary_(std::move(other.temporary_)),
      fd_(std::exchange(other.fd_, -1)),
      slot_(std::exchange(other.slot_, -1)),
      finished_(std::exchange(other.finished_, true)) {}

void AtomicFile::forget_temporary() noexcept {
    if (slot_ >= 0) temporary_slots[static_cast<std::size_t>(slot_)].state.store(slot_free);
    slot_ = -1;
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!finished_ && !temporary_.empty()) ::unlink(temporary_.c_str());
    forget_temporary();
}

Expected<void> AtomicFile::commit(std::string_view content) {
    if (finished_ || fd_ < 0) return Error{"cannot write " + requested_ + ": already committed or failed"};
    // The temporary file goes at once (the destructor would too): nothing half-written stays.
    const auto fail = [&](std::string why, int code) {
        ::close(std::exchange(fd_, -1));
        ::unlink(temporary_.c_str());
        forget_temporary();
        finished_ = true;
        return Error{std::move(why), code};
    };
    if (const Expected<void> written = write_whole(fd_, content); !written)
        return fail("cannot write " + requested_ + ": " + written.error().message, written.error().code);
    // Each errno is taken at once: building the message may set errno again.
    if (::fsync(fd_) != 0) {
        const int code = errno;
        return fail("cannot write " + requested_ + ": " + write_error_words(code), code);
    }
    if (::close(std::exchange(fd_, -1)) != 0) {
        const int code = errno;
        return fail("cannot write " + requested_ + ": " + write_error_words(code), code);
    }
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
        const int code = errno;
        return fail(fmt::format("cannot rename {} to {}: {}", temporary_, path_, std::strerror(code)), code);
    }
    finished_ = true;
    forget_temporary();
    return {};
}

}  // namespace cudacheck
