// Random access to bytes that need not all be in memory: a mapped file (SpanByteSource over its
// span), or a member of a zip archive inflated on demand (util/zip_archive.hpp). Readers such as
// the GPU-code scan (cuda/gpu_code.hpp) take a ByteSource so that the same code reads a file on
// disk and a shared library inside a wheel, with bounded memory: every read is at most max_read
// bytes, and reads are mostly forward (a zip member restarts inflation when read backwards).
#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>

namespace cudacheck {

// Where a file stores data: the extent [begin, end) at or after an offset, {size, size} when only a
// hole is left. What lies between extents is a hole of a sparse file, which reads as zeros
// (lseek(2): SEEK_DATA, SEEK_HOLE): a reader steps over it without touching its pages.
struct DataExtent {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

class ByteSource {
public:
    virtual ~ByteSource() = default;
    [[nodiscard]] virtual std::uint64_t size() const = 0;
    // `length` bytes at `offset` (the caller has checked offset + length <= size(); length at most
    // max_read), valid until the next call on this source; an Error when they cannot be read
    // (a damaged zip member: its message is the whole line the user sees).
    [[nodiscard]] virtual Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) = 0;
    // The first stored extent at or after `offset` (sparse files); by default everything is stored.
    [[nodiscard]] virtual DataExtent find_data(std::uint64_t offset) { return {offset, size()}; }
    static constexpr std::size_t max_read = std::size_t{1} << 20;  // 1 MiB
};

// A span in memory (a mapped file, a test's bytes): read() never fails and returns a subspan, so
// nothing is copied. `find_data`, when given, says where a sparse file's holes are.
class SpanByteSource final : public ByteSource {
public:
    using FindData = std::function<DataExtent(std::uint64_t offset)>;

    explicit SpanByteSource(std::span<const std::uint8_t> bytes, FindData find_data = {})
        : bytes_(bytes), find_data_(std::move(find_data)) {}
    [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
    [[nodiscard]] Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override {
        if (offset > bytes_.size() || length > bytes_.size() - offset) return Error{"read beyond the end of the data"};
        return bytes_.subspan(static_cast<std::size_t>(offset), length);
    }
    [[nodiscard]] DataExtent find_data(std::uint64_t offset) override {
        if (find_data_) return find_data_(offset);
        return ByteSource::find_data(offset);
    }
    [[nodiscard]] std::span<const std::uint8_t> bytes() const { return bytes_; }

private:
    std::span<const std::uint8_t> bytes_;
    FindData find_data_;
};

}  // namespace cudacheck
