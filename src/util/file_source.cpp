#include "util/file_source.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utility>

#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008  // linux/fs.h, Linux 4.14: fail with EAGAIN rather than wait for the disk
#endif

namespace cudacheck {

DataExtent data_extent(int descriptor, std::uint64_t offset, std::uint64_t size) {
    const off_t data = ::lseek(descriptor, static_cast<off_t>(offset), SEEK_DATA);
    if (data < 0)
        return errno == ENXIO ? DataExtent{size, size} : DataExtent{offset, size};  // ENXIO: only a hole is left
    const off_t hole = ::lseek(descriptor, data, SEEK_HOLE);
    return {static_cast<std::uint64_t>(data), hole < 0 ? size : static_cast<std::uint64_t>(hole)};
}

Expected<std::unique_ptr<FileByteSource>> FileByteSource::open(const std::string& path) {
    const Expected<sys::RegularFile> file = sys::open_regular_file(path);
    if (!file) return file.error();
    return std::make_unique<FileByteSource>(file->fd, file->size);
}

FileByteSource::FileByteSource(int descriptor, std::uint64_t size) : fd_(descriptor), size_(size) {
    // Headers are scattered through the file: no readahead around each (posix_fadvise(2)). Only
    // advice: a file system that ignores it is read as usual.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM);
}

FileByteSource::~FileByteSource() {
    if (fd_ >= 0) ::close(fd_);
}

Expected<std::span<const std::uint8_t>> FileByteSource::read(std::uint64_t offset, std::size_t length) {
    if (offset > size_ || length > size_ - offset || length > max_read) return Error{"read beyond the end of the data"};
    if (buffer_.size() < length) buffer_.resize(std::max<std::size_t>(length, 4096));
    ++counters_.reads;
    counters_.bytes += length;
    std::size_t done = 0;
    while (done < length) {
        const ssize_t n = ::pread(fd_, buffer_.data() + done, length - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{std::strerror(errno), errno};
        if (n == 0)  // the file is shorter than when it was opened: truncated meanwhile
            return Error{fmt::format("the file ended at byte {}, though it had {} when opened", offset + done, size_)};
        done += static_cast<std::size_t>(n);
    }
    return std::span<const std::uint8_t>(buffer_.data(), length);
}

void ReadAheadSource::start_pages(int fd, const std::vector<std::uint64_t>& pages) {
    constexpr std::uint64_t page = 4096;
    for (std::size_t first = 0; first < pages.size();) {
        std::size_t end = first + 1;
        while (end < pages.size() && pages[end] == pages[end - 1] + 1) ++end;
        // Only advice: a file system that ignores it is read when the pages are touched.
        ::posix_fadvise(fd, static_cast<off_t>(pages[first] * page), static_cast<off_t>((end - first) * page),
                        POSIX_FADV_WILLNEED);
        first = end;
    }
}

namespace {

// The pages of the extents not in memory, sorted and without duplicates, and how many extents
// those are; `resident(offset)` says whether the page holding a byte is in memory.
template <typename Resident>
std::size_t pages_to_start(std::span<const DataExtent> extents, std::uint64_t size, Resident&& resident,
                           std::vector<std::uint64_t>& pages) {
    constexpr std::uint64_t page = 4096;  // the smallest page: a larger one only makes a request cover more
    std::size_t started = 0;
    for (const DataExtent& extent : extents) {
        if (extent.begin >= extent.end || extent.begin >= size) continue;
        const std::uint64_t last = std::min(extent.end, size) - 1;
        if (resident(extent.begin) && (last / page == extent.begin / page || resident(last))) continue;
        ++started;
        for (std::uint64_t at = extent.begin / page; at <= last / page; ++at) pages.push_back(at);
    }
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    return started;
}

}  // namespace

std::size_t FileByteSource::will_need(std::span<const DataExtent> extents) {
    const auto resident = [&](std::uint64_t offset) {
        std::uint8_t byte = 0;
        iovec vector{&byte, 1};
        return ::preadv2(fd_, &vector, 1, static_cast<off_t>(offset), RWF_NOWAIT) == 1;
    };
    std::vector<std::uint64_t> pages;
    const std::size_t started = pages_to_start(extents, size_, resident, pages);
    start_pages(fd_, pages);
    counters_.hinted += started;
    return started;
}

Expected<std::unique_ptr<MappedFileSource>> MappedFileSource::open(const std::string& path) {
    const Expected<sys::RegularFile> file = sys::open_regular_file(path);
    if (!file) return file.error();
    // Mapped through the descriptor's /proc/self/fd link, so that the holes (lseek on the
    // descriptor) and the mapping are of one file even when the path is replaced in between.
    const std::string same_file = fmt::format("/proc/self/fd/{}", file->fd);
    Expected<MappedFile> mapped = MappedFile::open(sys::exists(same_file) ? same_file : path);
    if (!mapped) {
        ::close(file->fd);
        return mapped.error();
    }
    return std::make_unique<MappedFileSource>(file->fd, std::move(*mapped));
}

MappedFileSource::MappedFileSource(int descriptor, MappedFile mapped) : fd_(descriptor), mapped_(std::move(mapped)) {}

MappedFileSource::~MappedFileSource() {
    if (fd_ >= 0) ::close(fd_);
}

Expected<std::span<const std::uint8_t>> MappedFileSource::read(std::uint64_t offset, std::size_t length) {
    const std::span<const std::uint8_t> bytes = mapped_.bytes();
    if (offset > bytes.size() || length > bytes.size() - offset) return Error{"read beyond the end of the data"};
    ++counters_.reads;
    counters_.bytes += length;
    return bytes.subspan(static_cast<std::size_t>(offset), length);
}

std::size_t MappedFileSource::will_need(std::span<const DataExtent> extents) {
    static const auto system_page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::span<const std::uint8_t> bytes = mapped_.bytes();
    const auto resident = [&](std::uint64_t offset) {
        const std::uint64_t start = offset / system_page * system_page;
        unsigned char in_core = 0;
        // Const cast: mincore(2) takes a void*, and only reads the page tables.
        void* address = const_cast<std::uint8_t*>(bytes.data() + start);
        return ::mincore(address, std::min<std::uint64_t>(system_page, bytes.size() - start), &in_core) == 0 &&
               (in_core & 1) != 0;
    };
    std::vector<std::uint64_t> pages;
    const std::size_t started = pages_to_start(extents, bytes.size(), resident, pages);
    start_pages(fd_, pages);
    counters_.hinted += started;
    return started;
}

}  // namespace cudacheck
