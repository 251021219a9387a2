// GPU code files built byte by byte: fatbinaries and ELF files as nvcc lays them out, for the
// reader (cuda/gpu_code) and the judge (inspect/inspection) without nvcc.
#pragma once

#include "cuda/gpu_code.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck::test {

using ByteVector = std::vector<std::uint8_t>;

inline void put(ByteVector& bytes, std::size_t offset, std::uint64_t value, int width) {
    if (bytes.size() < offset + static_cast<std::size_t>(width)) bytes.resize(offset + static_cast<std::size_t>(width));
    for (int i = 0; i < width; ++i)
        bytes[offset + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
}

struct Entry {
    std::uint16_t kind = 2;  // 1 PTX, 2 ELF
    std::uint32_t arch = 80;
    std::uint64_t flags = 0x11;
    std::size_t payload_size = 24;
    PtxIsa isa{};
    std::uint64_t uncompressed_size = 0;
};

// A fatbinary as nvcc lays it out (fatbinary_section.h): 16-byte header, 64-byte entry headers.
inline ByteVector make_fatbin(const std::vector<Entry>& entries) {
    ByteVector bytes;
    std::size_t offset = 16;
    for (const Entry& entry : entries) {
        put(bytes, offset, entry.kind, 2);
        put(bytes, offset + 2, 0x101, 2);
        put(bytes, offset + 4, 64, 4);
        put(bytes, offset + 8, entry.payload_size, 8);
        put(bytes, offset + 24, static_cast<std::uint64_t>(entry.isa.minor), 2);
        put(bytes, offset + 26, static_cast<std::uint64_t>(entry.isa.major), 2);
        put(bytes, offset + 28, entry.arch, 4);
        put(bytes, offset + 40, entry.flags, 8);
        put(bytes, offset + 56, entry.uncompressed_size, 8);
        offset += 64 + entry.payload_size;
        bytes.resize(offset, 0xcc);
    }
    put(bytes, 0, 0xBA55ED50, 4);
    put(bytes, 4, 1, 2);
    put(bytes, 6, 16, 2);
    put(bytes, 8, offset - 16, 8);
    return bytes;
}

// An ELF64 file whose sections hold the given bytes (plus the null section and .shstrtab).
inline ByteVector make_elf(std::uint16_t type, const std::vector<std::pair<std::string, ByteVector>>& sections) {
    ByteVector bytes(64, 0);
    const char ident[] =
        "\x7f"
        "ELF\x02\x01\x01";
    std::memcpy(bytes.data(), ident, 7);
    put(bytes, 16, type, 2);
    put(bytes, 18, 62, 2);  // x86-64
    std::string names(1, '\0');
    std::vector<std::array<std::uint64_t, 3>> headers;  // name, offset, size
    for (const auto& [name, data] : sections) {
        bytes.resize((bytes.size() + 7) / 8 * 8, 0);
        headers.push_back({names.size(), bytes.size(), data.size()});
        names += name + '\0';
        bytes.insert(bytes.end(), data.begin(), data.end());
    }
    headers.push_back({names.size(), bytes.size(), 0});
    names += ".shstrtab";
    names += '\0';
    headers.back()[2] = names.size();
    bytes.insert(bytes.end(), names.begin(), names.end());
    bytes.resize((bytes.size() + 7) / 8 * 8, 0);
    const std::size_t table = bytes.size();
    bytes.resize(table + 64 * (headers.size() + 1), 0);
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const std::size_t header = table + 64 * (i + 1);
        put(bytes, header, headers[i][0], 4);
        put(bytes, header + 4, 1, 4);  // PROGBITS
        put(bytes, header + 24, headers[i][1], 8);
        put(bytes, header + 32, headers[i][2], 8);
    }
    put(bytes, 0x28, table, 8);
    put(bytes, 0x3a, 64, 2);
    put(bytes, 0x3c, headers.size() + 1, 2);
    put(bytes, 0x3e, headers.size(), 2);
    return bytes;
}

inline GpuCodeScan scan(const ByteVector& bytes) { return scan_gpu_code(bytes); }

}  // namespace cudacheck::test
