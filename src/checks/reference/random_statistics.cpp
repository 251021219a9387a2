#include "checks/reference/random_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>

namespace cudacheck::reference {

SampleMoments sample_moments(std::span<const float> samples) {
    SampleMoments moments;
    double sum = 0.0;
    for (const float value : samples) {
        if (!std::isfinite(value)) {
            ++moments.non_finite;
            continue;
        }
        sum += value;
        ++moments.count;
    }
    if (moments.count == 0) return moments;
    moments.mean = sum / static_cast<double>(moments.count);
    double squares = 0.0;
    for (const float value : samples)
        if (std::isfinite(value)) squares += (value - moments.mean) * (value - moments.mean);
    moments.variance = squares / static_cast<double>(moments.count);
    return moments;
}

bool StatTest::passed() const { return std::isfinite(observed) && observed >= low && observed <= high; }

std::string StatTest::bounds_text() const {
    return fmt::format("{:.6g} (allowed {:.6g} to {:.6g})", observed, low, high);
}

std::string StatTest::key() const {
    std::string key;
    for (const char c : name) {
        const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (word) key += c;
        else if (c >= 'A' && c <= 'Z') key += static_cast<char>(c - 'A' + 'a');
        else if (!key.empty() && key.back() != '_') key += '_';
    }
    while (!key.empty() && key.back() == '_') key.pop_back();
    return key;
}

StatTest within_standard_errors(std::string name, double observed, double expected, double standard_error, double k) {
    return {std::move(name), observed, expected - k * standard_error, expected + k * standard_error};
}

std::vector<StatTest> uniform_moment_tests(const SampleMoments& moments) {
    const auto n = static_cast<double>(moments.count);
    return {within_standard_errors("uniform mean", moments.mean, 0.5, std::sqrt(1.0 / 12.0 / n)),
            within_standard_errors("uniform variance", moments.variance, 1.0 / 12.0,
                                   std::sqrt((1.0 / 80.0 - 1.0 / 144.0) / n))};
}

std::vector<StatTest> normal_moment_tests(const SampleMoments& moments) {
    const auto n = static_cast<double>(moments.count);
    return {within_standard_errors("normal mean", moments.mean, 0.0, std::sqrt(1.0 / n)),
            within_standard_errors("normal variance", moments.variance, 1.0, std::sqrt(2.0 / n))};
}

std::size_t count_outside_unit_interval(std::span<const float> samples) {
    std::size_t outside = 0;
    for (const float value : samples)
        if (!(value > 0.0f && value <= 1.0f)) ++outside;
    return outside;
}

std::size_t count_non_finite(std::span<const float> samples) {
    return static_cast<std::size_t>(
        std::count_if(samples.begin(), samples.end(), [](float value) { return !std::isfinite(value); }));
}

std::vector<std::uint64_t> uniform_bin_counts(std::span<const float> samples, std::size_t bins) {
    std::vector<std::uint64_t> counts(bins, 0);
    for (const float value : samples) {
        if (!(value > 0.0f && value <= 1.0f)) continue;
        const auto bin =
            std::min(static_cast<std::size_t>(static_cast<double>(value) * static_cast<double>(bins)), bins - 1);
        ++counts[bin];
    }
    return counts;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

std::vector<double> normal_bin_edges(std::size_t bins) {
    std::vector<double> edges;
    for (std::size_t i = 1; i < bins; ++i) {
        const double target = static_cast<double>(i) / static_cast<double>(bins);
        double low = -40.0;
        double high = 40.0;
        for (int iteration = 0; iteration < 200 && high - low > 1e-15; ++iteration) {
            const double middle = 0.5 * (low + high);
            (normal_cdf(middle) < target ? low : high) = middle;
        }
        edges.push_back(0.5 * (low + high));
    }
    return edges;
}

std::vector<std::uint64_t> normal_bin_counts(std::span<const float> samples, std::size_t bins) {
    const std::vector<double> edges = normal_bin_edges(bins);
    // A sample's bin is the number of edges at or below it (std::upper_bound's answer). A binary
    // search per sample mispredicts its branches: 142 ms for 2^22 samples, the longest part of
    // the default run's curand.generate. Instead, a table over [-8, 8) in cells of 1/256 gives
    // the number of edges at or below each cell's start, and the few edges inside the sample's
    // cell are stepped over: the same bins, 24-28 ms.
    constexpr double lowest = -8.0;
    constexpr double cells_per_unit = 256.0;
    constexpr std::size_t cells = std::size_t{16} * 256;
    std::vector<std::uint32_t> edges_below(cells);
    for (std::size_t cell = 0, edge = 0; cell < cells; ++cell) {
        const double start = lowest + static_cast<double>(cell) / cells_per_unit;
        while (edge < edges.size() && edges[edge] <= start) ++edge;
        edges_below[cell] = static_cast<std::uint32_t>(edge);
    }
    std::vector<std::uint64_t> counts(bins, 0);
    for (const float value : samples) {
        if (!std::isfinite(value)) continue;
        const double x = value;
        // The cell whose start is at or below x: floor(x * 256) is exact (x + 8 would round tiny
        // values); below the table cell 0 (no edge at or below -8 is passed), above it the last.
        const double cell =
            std::clamp(std::floor(x * cells_per_unit) - lowest * cells_per_unit, 0.0, static_cast<double>(cells - 1));
        std::size_t bin = edges_below[static_cast<std::size_t>(cell)];
        while (bin < edges.size() && edges[bin] <= x) ++bin;
        ++counts[bin];
    }
    return counts;
}

double chi_square(std::span<const std::uint64_t> counts) {
    double total = 0.0;
    for (const std::uint64_t count : counts) total += static_cast<double>(count);
    if (counts.empty() || total == 0.0) return std::numeric_limits<double>::quiet_NaN();
    const double expected = total / static_cast<double>(counts.size());
    double statistic = 0.0;
    for (const std::uint64_t count : counts)
        statistic += (static_cast<double>(count) - expected) * (static_cast<double>(count) - expected) / expected;
    return statistic;
}

StatTest chi_square_test(std::string name, double statistic, std::size_t degrees, double z) {
    const double k = static_cast<double>(degrees);
    const double spread = std::sqrt(2.0 / (9.0 * k));
    const double centre = 1.0 - 2.0 / (9.0 * k);
    const double low_root = std::max(0.0, centre - z * spread);
    return {std::move(name), statistic, k * low_root * low_root * low_root, k * std::pow(centre + z * spread, 3.0)};
}

}  // namespace cudacheck::reference
