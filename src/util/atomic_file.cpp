#include "util/atomic_file.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {

std::optional<AtomicFile> AtomicFile::create(const std::string& path, std::string& error) {
    if (path.empty()) {
        error = "empty output path";
        return std::nullopt;
    }
    if (sys::is_directory(path)) {
        error = path + " is a directory";
        return std::nullopt;
    }
    const std::size_t slash = path.find_last_of('/');
    const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string pattern = directory + "/." + name + ".tmp.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const int fd = ::mkstemp(buffer.data());
    if (fd < 0) {
        error = "cannot write " + path + ": " + std::strerror(errno);
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
