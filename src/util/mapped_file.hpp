// A read-only private mapping of a whole file, for readers that touch a few headers of a large
// binary (libtorch_cuda.so is 456 MB): only the pages read are loaded.
#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cudacheck {

class MappedFile {
public:
    // The file mapped, or the error: errno's text ("No such file or directory"), "is a directory",
    // "not a regular file" or "cannot map it: <errno's text>". An empty file maps to no bytes. The
    // access pattern is advised random: headers are scattered through the file.
    [[nodiscard]] static Expected<MappedFile> open(const std::string& path);
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();
    [[nodiscard]] std::span<const std::uint8_t> bytes() const {
        return {static_cast<const std::uint8_t*>(data_), size_};
    }

private:
    MappedFile(const void* data, std::size_t size) : data_(data), size_(size) {}
    const void* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace cudacheck
