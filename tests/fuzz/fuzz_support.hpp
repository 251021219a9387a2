// What the fuzz targets assert beyond "no crash, no escaped exception, no hang" (which libFuzzer and
// the sanitizers catch), shared with the property tests of the unit suite.
#pragma once

#include "cuda/gpu_code.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::fuzz {

inline void require(bool condition, const char* property, std::string_view detail = {}) {
    if (condition) return;
    std::fprintf(stderr, "fuzz: property broken: %s%s%.*s\n", property, detail.empty() ? "" : ": ",
                 static_cast<int>(detail.size()), detail.empty() ? "" : detail.data());
    std::abort();
}

// A refused input has a reason, on one line, naming the input first ("input.json: ...").
inline void require_clean_error(const std::string& error, std::string_view name) {
    require(!error.empty(), "refused without a reason");
    require(error.find('\n') == std::string::npos, "the reason is not one line", error);
    require(error.rfind(name, 0) == 0, "the reason does not start with the input's name", error);
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// The bytes as a sparse file would have them: every 64-byte block of zeros a hole, reported as
// lseek's SEEK_DATA and SEEK_HOLE would. A scan told so must list exactly what it lists without.
inline FindData holes_where_zero(std::span<const std::uint8_t> bytes) {
    return [bytes](std::uint64_t offset) -> DataExtent {
        constexpr std::uint64_t block = 64;
        const std::uint64_t size = bytes.size();
        const auto zero_block = [&](std::uint64_t start) {
            for (std::uint64_t at = start; at < std::min(start + block, size); ++at)
                if (bytes[at] != 0) return false;
            return true;
        };
        std::uint64_t begin = offset / block * block;
        while (begin < size && zero_block(begin)) begin += block;
        if (begin >= size) return {size, size};
        std::uint64_t end = begin;
        while (end < size && !zero_block(end)) end += block;
        return {std::max(begin, offset), std::min(end, size)};
    };
}

// A ByteSource as a zip member is one (util/byte_source.hpp): each read served from its own buffer,
// overwritten by the next read (a reader that keeps a window past the next read sees poison), and
// every read checked against the contract (inside the data, at most max_read bytes). Counts what is
// read, and the reads that go back before the previous one (a zip member inflates again from a
// checkpoint then). `fail_at`: that read (0-based) and every later one fail, as a damaged member's would.
class CopyingSource final : public ByteSource {
public:
    explicit CopyingSource(std::span<const std::uint8_t> bytes, std::uint64_t fail_at = ~std::uint64_t{0})
        : bytes_(bytes), fail_at_(fail_at) {}
    static constexpr const char* failure = "the member is damaged (a test's failure)";

    [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
    [[nodiscard]] Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override {
        std::fill(buffer_.begin(), buffer_.end(), std::uint8_t{0xee});
        if (offset > bytes_.size() || length > bytes_.size() - offset || length > max_read) {
            ++broken_contract;
            return Error{"a read outside the contract"};
        }
        if (reads++ >= fail_at_) return Error{failure};
        if (reads > 1 && offset < last_offset_) ++backward;
        last_offset_ = offset;
        bytes_read += length;
        largest = std::max<std::uint64_t>(largest, length);
        buffer_.assign(bytes_.begin() + static_cast<std::ptrdiff_t>(offset),
                       bytes_.begin() + static_cast<std::ptrdiff_t>(offset + length));
        return std::span<const std::uint8_t>(buffer_);
    }

    std::uint64_t reads = 0, bytes_read = 0, backward = 0, largest = 0, broken_contract = 0;

private:
    std::span<const std::uint8_t> bytes_;
    std::uint64_t fail_at_;
    std::uint64_t last_offset_ = 0;
    std::vector<std::uint8_t> buffer_;
};

// Two scans of the same bytes list the same thing.
inline bool same_listing(const GpuCodeScan& a, const GpuCodeScan& b) {
    if (a.kind != b.kind || a.fatbins != b.fatbins || a.error != b.error || a.error_message != b.error_message ||
        a.objects.size() != b.objects.size())
        return false;
    for (std::size_t i = 0; i < a.objects.size(); ++i) {
        const CodeObject& x = a.objects[i];
        const CodeObject& y = b.objects[i];
        if (x.kind != y.kind || !(x.arch == y.arch) || x.compression != y.compression || x.size != y.size ||
            x.uncompressed_size != y.uncompressed_size || x.ptx_isa != y.ptx_isa || x.section != y.section ||
            x.fatbin != y.fatbin || x.offset != y.offset)
            return false;
    }
    return true;
}

}  // namespace cudacheck::fuzz
