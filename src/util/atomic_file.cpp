#include "util/atomic_file.hpp"

#include "util/system.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
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
    struct rlimit limit {};
    if (error == EFBIG && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        words += fmt::format(" (the file-size limit, ulimit -f, is {})", exact_bytes(limit.rlim_cur));
    return words;
}

std::optional<std::string> write_whole(int fd, std::string_view text) {
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return write_error_words(errno);
        if (n == 0) return std::string("the write made no progress");
        written += static_cast<std::size_t>(n);
    }
    return std::nullopt;
}

void AtomicFile::remove_temporaries_now() noexcept {
    for (TemporarySlot& slot : temporary_slots)
        if (slot.state.load() == slot_ready) ::unlink(slot.path);
}

std::optional<AtomicFile> AtomicFile::create(const std::string& requested, std::string& error) {
    if (requested.empty()) {
        error = "empty output path";
        return std::nullopt;
    }
    // Only regular files are replaced (issue 18: as root, `-o /dev/null` used to replace the
    // device). A symlink to one is written through: the file it names is replaced, the link stays.
    std::string path = requested;
    struct stat status {};
    if (::lstat(path.c_str(), &status) == 0) {
        if (S_ISLNK(status.st_mode)) {
            path = sys::real_path(requested);
            if (path.empty() || ::stat(path.c_str(), &status) != 0) {
                error = requested + " is a symbolic link to nothing; remove it or name another file";
                return std::nullopt;
            }
        }
        if (!S_ISREG(status.st_mode)) {
            error = fmt::format("{} is {}: -o writes only regular files (leave -o out to print to the terminal, or name a file)", requested,
                                sys::file_type_words(status.st_mode));
            return std::nullopt;
        }
    }
    const std::size_t slash = path.find_last_of('/');
    const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    // ".<name>.tmp.XXXXXX" beside the target (a rename stays on one filesystem); a name within 12
    // characters of the filesystem's limit gets a short temporary name instead.
    const long name_max = ::pathconf(directory.c_str(), _PC_NAME_MAX);
    const std::size_t limit = name_max > 0 ? static_cast<std::size_t>(name_max) : 255;
    std::string pattern = directory + "/." + (name.size() + 12 <= limit ? name : std::string("cudacheck")) + ".tmp.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const int fd = ::mkstemp(buffer.data());
    if (fd < 0) {
        error = "cannot write " + requested + ": " + std::strerror(errno);
        return std::nullopt;
    }
    // mkstemp creates 0600; a report is an ordinary file, so honour the umask like open() would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
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

std::optional<std::string> AtomicFile::commit(std::string_view content) {
    if (finished_ || fd_ < 0) return "cannot write " + requested_ + ": already committed or failed";
    // The temporary file goes at once (the destructor would too): nothing half-written stays.
    const auto fail = [&](const std::string& why) {
        ::close(std::exchange(fd_, -1));
        ::unlink(temporary_.c_str());
        forget_temporary();
        finished_ = true;
        return why;
    };
    if (auto why = write_whole(fd_, content)) return fail("cannot write " + requested_ + ": " + *why);
    if (::fsync(fd_) != 0) return fail("cannot write " + requested_ + ": " + write_error_words(errno));
    if (::close(std::exchange(fd_, -1)) != 0) return fail("cannot write " + requested_ + ": " + write_error_words(errno));
    if (::rename(temporary_.c_str(), path_.c_str()) != 0)
        return fail(fmt::format("cannot rename {} to {}: {}", temporary_, path_, std::strerror(errno)));
    finished_ = true;
    forget_temporary();
    return std::nullopt;
}

}  // namespace cudacheck
