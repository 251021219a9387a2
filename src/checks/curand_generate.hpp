// curand.generate: what its GPU part measures, and the pure judge of it (unit tests drive it
// without a GPU).
#pragma once

namespace cudacheck {

// Two independent streams of 32-bit words agree on a word with probability about 2^-23 (float
// uniforms) or less; allow 1 in 1000 (16777 of 2^24) before calling them the same stream.
inline constexpr double max_equal_fraction_between_seeds = 1e-3;

}  // namespace cudacheck
