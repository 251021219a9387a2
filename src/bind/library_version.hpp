// The version numbers CUDA libraries report about themselves, decoded.
#pragma once

#include "cuda/library_families.hpp"

#include <fmt/format.h>
#include <string>
#include <string_view>

namespace cudacheck {

struct LibraryVersion {
    int major = 0;
    int minor = 0;
    int patch = 0;
    [[nodiscard]] std::string text() const { return fmt::format("{}.{}.{}", major, minor, patch); }
};

// cufftGetVersion and curandGetVersion both encode M*1000 + m*100 + p (cuFFT 10.5.2 -> 10502,
// cuRAND 10.4.0 -> 10400; CUFFT_VERSION/CURAND_VERSION in the headers).
[[nodiscard]] inline LibraryVersion decode_library_version(int encoded) {
    return {encoded / 1000, (encoded % 1000) / 100, encoded % 100};
}

// "12.0.0 (major 12, as libcufft.so.12 implies)" or "... (major 11, but libcufft.so.12 implies 12)".
[[nodiscard]] inline std::string describe_version(int encoded, std::string_view soname) {
    const LibraryVersion version = decode_library_version(encoded);
    const int expected = soname_major(soname);
    if (expected < 0) return version.text();
    if (expected == version.major)
        return fmt::format("{} (major {}, as {} implies)", version.text(), version.major, soname);
    return fmt::format("{} (major {}, but {} implies {})", version.text(), version.major, soname, expected);
}

}  // namespace cudacheck
