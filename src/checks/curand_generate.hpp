// curand.generate: what its GPU part measures, and the pure judge of it (unit tests drive it
// without a GPU).
#pragma once

#include "checks/reference/random_statistics.hpp"
#include "engine/check.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace cudacheck {

// Two independent streams of 32-bit words agree on a word with probability about 2^-23 (float
// uniforms) or less; allow 1 in 1000 (16777 of 2^24) before calling them the same stream.
inline constexpr double max_equal_fraction_between_seeds = 1e-3;

// The host-side statistics of one distribution's samples.
struct RandomStatistics {
    std::size_t bad = 0;  // uniform: outside (0, 1]; normal: not finite
    reference::SampleMoments moments;
    double chi = 0.0;  // Pearson's chi-square over chi_square_bins bins
};

// Of curandGenerateUniform's samples: the range (0, 1], moments and equal-width bins.
[[nodiscard]] RandomStatistics uniform_statistics(std::span<const float> samples);
// Of curandGenerateNormal's samples (mean 0, standard deviation 1): finite, moments and
// equiprobable bins.
[[nodiscard]] RandomStatistics normal_statistics(std::span<const float> samples);

// What the GPU part of curand.generate found. A cuRAND or GPU error stops it before anything is
// judged, so the judge always sees a complete outcome.
struct RandomOutcome {
    std::size_t count = 0;   // samples per distribution
    std::string count_text;  // "2^22"
    int timed_runs = 0;      // of each rate, after 1 warm-up
    RandomStatistics uniform;
    RandomStatistics normal;
    unsigned long long differ_same_seed = 0;   // words that differ between two generators of one seed
    unsigned long long differ_other_seed = 0;  // words that differ between two seeds
    std::vector<float> uniform_ms;  // each timed run of curandGenerateUniform
    std::vector<float> normal_ms;   // each timed run of curandGenerateNormal
};

void judge_random(const RandomOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
