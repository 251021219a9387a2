#include "util/mapped_file.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <limits>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace cudacheck {

std::optional<MappedFile> MappedFile::open(const std::string& path, std::string& error) {
    std::uint64_t file_size = 0;
    const int descriptor = sys::open_regular_file(path, file_size, error);
    if (descriptor < 0) return std::nullopt;
    if (file_size > std::numeric_limits<std::size_t>::max()) {
        ::close(descriptor);
        error = "too large to map";
        return std::nullopt;
    }
    const auto size = static_cast<std::size_t>(file_size);
    void* data = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, descriptor, 0) : nullptr;
    const int map_errno = errno;
    ::close(descriptor);  // the mapping stays valid
    if (data == MAP_FAILED) {
        error = std::string("cannot map it: ") + std::strerror(map_errno);
        return std::nullopt;
    }
    if (size > 0) ::madvise(data, size, MADV_RANDOM);
    return MappedFile(data, size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (size_ > 0) ::munmap(const_cast<void*>(data_), size_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

MappedFile::~MappedFile() {
    if (size_ > 0) ::munmap(const_cast<void*>(data_), size_);
}

}  // namespace cudacheck
