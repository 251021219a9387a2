// A file on disk as a ByteSource (util/byte_source.hpp) that reads a wave of scattered headers from
// the disk at once, for readers that touch a few headers of a large binary (the GPU-code scan,
// cuda/gpu_code.hpp). On a cold page cache each header is a disk request, and a reader that
// follows a chain of headers (the next one's place is in the one before) waits for each in turn;
// with will_need the reader names the headers it reads next and the source starts them all
// (posix_fadvise(POSIX_FADV_WILLNEED)), so that the disk serves them together. Two ways to read:
//   MappedFileSource  the file mapped (util/mapped_file.hpp, advised random), read in place: no
//                     system call per read once the pages are in memory (what inspect_file uses)
//   FileByteSource    pread(2) into a small buffer, the descriptor advised random
//                     (posix_fadvise(POSIX_FADV_RANDOM)): no mapping
// Both bring one page from the disk for a 64-byte read, not the kernel's readahead window around
// it (read_ahead_kb: 128 KiB by default, 8 MiB on some virtual disks), and find holes with
// lseek(2) SEEK_DATA/SEEK_HOLE. docs/performance.md ("Cold first run") compares them.
#pragma once

#include "util/byte_source.hpp"
#include "util/expected.hpp"
#include "util/mapped_file.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace cudacheck {

// The stored extent at or after `offset` of an open file of `size` bytes: SEEK_DATA, then SEEK_HOLE
// from there (lseek(2)); {size, size} when only a hole is left, and the rest of the file when the
// file system cannot say (it then counts as data).
[[nodiscard]] DataExtent data_extent(int descriptor, std::uint64_t offset, std::uint64_t size);

// A file source that takes hints. (Not in ByteSource itself: the GPU-code scan asks for this kind
// by type, as it asks for a SpanByteSource; a zip member has nothing to read ahead.)
class ReadAheadSource : public ByteSource {
public:
    // A hint that the extents will be read next: starts reading those not in the page cache (their
    // pages, adjacent ones merged into one request) without waiting for them. Returns how many it
    // started: 0 when all were in memory already.
    [[nodiscard]] virtual std::size_t will_need(std::span<const DataExtent> extents) = 0;

    // What the source did, for measurements (bench/cold_gpu_code.cpp) and tests.
    struct Counters {
        std::uint64_t reads = 0;
        std::uint64_t bytes = 0;  // asked for, not what the disk moved (/proc/self/io's read_bytes says that)
        std::uint64_t hinted = 0;  // extents will_need started
    };
    [[nodiscard]] const Counters& counters() const { return counters_; }

protected:
    Counters counters_;
    // Starts the pages (4 KiB, sorted, no duplicates) of descriptor `fd`: one posix_fadvise per run
    // of adjacent pages.
    static void start_pages(int fd, const std::vector<std::uint64_t>& pages);
};

class FileByteSource final : public ReadAheadSource {
public:
    // The file opened without blocking (sys::open_regular_file: a FIFO or device is refused with one
    // line), or the error.
    [[nodiscard]] static Expected<std::unique_ptr<FileByteSource>> open(const std::string& path);
    // An open descriptor of a regular file of `size` bytes, owned from here on (closed with the source).
    FileByteSource(int descriptor, std::uint64_t size);
    FileByteSource(const FileByteSource&) = delete;
    FileByteSource& operator=(const FileByteSource&) = delete;
    ~FileByteSource() override;

    [[nodiscard]] std::uint64_t size() const override { return size_; }
    // An Error with errno's text, or "the file ended at byte N" when it shrank while being read.
    [[nodiscard]] Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override;
    [[nodiscard]] DataExtent find_data(std::uint64_t offset) override { return data_extent(fd_, offset, size_); }
    // Whether a page is in memory: a one-byte read that never waits for the disk
    // (preadv2(RWF_NOWAIT): EAGAIN when it is not), of each extent's first and last page.
    [[nodiscard]] std::size_t will_need(std::span<const DataExtent> extents) override;

private:
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::vector<std::uint8_t> buffer_;
};

class MappedFileSource final : public ReadAheadSource {
public:
    // The file opened without blocking and mapped, both of the same file (the mapping is made
    // through /proc/self/fd), or the error ("cannot map it: ...").
    [[nodiscard]] static Expected<std::unique_ptr<MappedFileSource>> open(const std::string& path);
    // An open descriptor of a regular file, owned from here on, and its mapping.
    MappedFileSource(int descriptor, MappedFile mapped);
    MappedFileSource(const MappedFileSource&) = delete;
    MappedFileSource& operator=(const MappedFileSource&) = delete;
    ~MappedFileSource() override;

    [[nodiscard]] std::uint64_t size() const override { return mapped_.bytes().size(); }
    // A subspan of the mapping: nothing is copied.
    [[nodiscard]] Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override;
    [[nodiscard]] DataExtent find_data(std::uint64_t offset) override { return data_extent(fd_, offset, size()); }
    // Whether a page is in memory: mincore(2), once over the pages the extents span.
    [[nodiscard]] std::size_t will_need(std::span<const DataExtent> extents) override;

private:
    int fd_ = -1;
    MappedFile mapped_;
};

}  // namespace cudacheck
