// Reproducible pseudo-random test data. The value at index i depends only on (seed, i), through a
// function compiled for both the GPU and the host: kernels fill large buffers on the device, and
// the CPU reference recomputes any element it needs without copying the inputs back.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CUDACHECK_HOST_DEVICE __host__ __device__
#else
#define CUDACHECK_HOST_DEVICE
#endif

struct CUstream_st;

namespace cudacheck::kernels {

// splitmix64 (Steele, Lea, Flood 2014): a fast, well-mixed hash of the index.
CUDACHECK_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1): 24 random bits, exactly representable in float (so every precision starts
// from the same value before its own rounding).
CUDACHECK_HOST_DEVICE inline float uniform_value(std::uint64_t seed, std::uint64_t index) {
    const std::uint64_t bits = mix64(seed * 0x100000001B3ULL ^ index) >> 40;
    return static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;
}

enum class Element { f32, f64, f16, bf16 };

// Fills `count` elements of type `element` at `data` with uniform_value(seed, i), rounded to nearest
// for f16/bf16. Returns a cudaError_t value (0 on success).
[[nodiscard]] int fill_uniform(void* data, Element element, std::size_t count, std::uint64_t seed, CUstream_st* stream);

}  // namespace cudacheck::kernels
