#include "util/atomic_file.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {

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
    return AtomicFile(path, buffer.data(), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), temporary_(std::move(other.temporary_)), fd_(other.fd_), committed_(other.committed_) {
    other.fd_ = -1;
    other.committed_ = true;
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

std::optional<std::string> AtomicFile::commit(std::string_view content) {
    const auto fail = [&](const char* what) { return std::string(what) + " " + temporary_ + ": " + std::strerror(errno); };
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd_, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail("cannot write");
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd_) != 0) return fail("cannot fsync");
    ::close(fd_);
    fd_ = -1;
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) return fail("cannot rename");
    committed_ = true;
    return std::nullopt;
}

}  // namespace cudacheck
