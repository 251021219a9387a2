#include "util/mapped_file.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace cudacheck {

Expected<MappedFile> MappedFile::open(const std::string& path) {
    const Expected<sys::RegularFile> file = sys::open_regular_file(path);
    if (!file) return file.error();
    const int descriptor = file->fd;
    if (file->size > std::numeric_limits<std::size_t>::max()) {
        ::close(descriptor);
        return Error{"too large to map"};
    }
    const auto size = static_cast<std::size_t>(file->size);
    void* data = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, descriptor, 0) : nullptr;
    const int map_errno = errno;
    ::close(descriptor);  // the mapping stays valid
    if (data == MAP_FAILED) return Error{std::string("cannot map it: ") + std::strerror(map_errno), map_errno};
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
