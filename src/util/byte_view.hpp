// Bounds-checked little-endian reads over a file's bytes (ELF headers, fatbinaries, ld.so.cache):
// every offset in such a file comes from the file itself, so every read is checked first, without
// overflowing (`has` compares against what is left).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cudacheck {

class ByteView {
public:
    explicit ByteView(std::span<const std::uint8_t> data) : data_(data) {}
    [[nodiscard]] std::uint64_t size() const { return data_.size(); }
    [[nodiscard]] bool has(std::uint64_t offset, std::uint64_t length) const {
        return offset <= size() && length <= size() - offset;
    }
    [[nodiscard]] std::uint8_t u8(std::uint64_t offset) const { return data_[offset]; }
    [[nodiscard]] std::uint16_t u16(std::uint64_t offset) const {
        return static_cast<std::uint16_t>(little_endian(offset, 2));
    }
    [[nodiscard]] std::uint32_t u32(std::uint64_t offset) const {
        return static_cast<std::uint32_t>(little_endian(offset, 4));
    }
    [[nodiscard]] std::uint64_t u64(std::uint64_t offset) const { return little_endian(offset, 8); }
    [[nodiscard]] std::string_view text(std::uint64_t offset, std::uint64_t length) const {
        return {reinterpret_cast<const char*>(data_.data() + offset), static_cast<std::size_t>(length)};
    }
    // The NUL-terminated string at `offset` into the table of `length` bytes at `start`; nullopt
    // when the table lies outside the data or the string runs past the table's end.
    [[nodiscard]] std::optional<std::string_view> c_string(std::uint64_t start, std::uint64_t length,
                                                           std::uint64_t offset) const {
        if (!has(start, length) || offset >= length) return std::nullopt;
        const std::string_view table = text(start, length);
        const std::size_t end = table.find('\0', static_cast<std::size_t>(offset));
        if (end == std::string_view::npos) return std::nullopt;
        return table.substr(static_cast<std::size_t>(offset), end - static_cast<std::size_t>(offset));
    }

private:
    [[nodiscard]] std::uint64_t little_endian(std::uint64_t offset, int width) const {
        std::uint64_t value = 0;
        for (int i = width - 1; i >= 0; --i) value = (value << 8) | data_[offset + static_cast<std::uint64_t>(i)];
        return value;
    }
    std::span<const std::uint8_t> data_;
};

}  // namespace cudacheck
