// Pure helpers of the cufft.fft and curand.generate checks, kept apart from the GPU code so that
// unit tests exercise them without a GPU: a float64 reference DFT/FFT, and the statistical bounds
// the generated random numbers must meet. (The libraries' status names and version decoding are
// with their bindings: bind/cufft.hpp, bind/curand.hpp, bind/library_version.hpp.)
// Header-only (inline), so that no build file changes.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::fft_rand {

// --- float64 reference transforms ------------------------------------------------------------

using Complex = std::complex<double>;

// exp(sign * 2 pi i * k / n), the exponent reduced exactly in integers first.
[[nodiscard]] inline Complex unit_root(std::size_t k, std::size_t n, int sign) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(k % n) / static_cast<double>(n);
    return {std::cos(angle), sign * std::sin(angle)};
}

// X[k] = sum_j x[j] exp(sign 2 pi i j k / n), unnormalised (sign -1: cuFFT's CUFFT_FORWARD, +1:
// CUFFT_INVERSE). O(n^2): the definition itself, against which the fast reference is tested.
[[nodiscard]] inline std::vector<Complex> naive_dft(std::span<const Complex> input, int sign) {
    const std::size_t n = input.size();
    std::vector<Complex> output(n);
    for (std::size_t k = 0; k < n; ++k) {
        Complex sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) sum += input[j] * unit_root(j * k, n, sign);
        output[k] = sum;
    }
    return output;
}

// The same transform in O(n * sum of prime factors): mixed-radix Cooley-Tukey (decimation in time
// by the smallest prime factor; a prime length falls back to the direct sum), in float64 with
// twiddles from one table of n roots. Its own error is ~1e-15 relative, far below fp32's.
class ReferenceFft {
public:
    ReferenceFft(std::size_t n, int sign) : n_(n), roots_(n) {
        for (std::size_t k = 0; k < n; ++k) roots_[k] = unit_root(k, n, sign);
    }
    [[nodiscard]] std::size_t size() const { return n_; }
    [[nodiscard]] std::vector<Complex> operator()(std::span<const Complex> input) const {
        std::vector<Complex> output(n_);
        if (input.size() != n_) return output;
        std::vector<Complex> scratch(n_);
        transform(input.data(), 1, output.data(), scratch.data(), n_);
        return output;
    }

private:
    // out[0..m) = DFT_m of in[0], in[stride], ... (m divides n_).
    void transform(const Complex* in, std::size_t stride, Complex* out, Complex* scratch, std::size_t m) const {
        const std::size_t step = n_ / m;  // root of unity of order m: roots_[step]
        if (m == 1) {
            out[0] = in[0];
            return;
        }
        std::size_t p = 2;
        while (p * p <= m && m % p != 0) ++p;
        if (m % p != 0) p = m;  // prime
        if (p == m) {
            for (std::size_t k = 0; k < m; ++k) {
                Complex sum = 0.0;
                for (std::size_t j = 0; j < m; ++j) sum += in[j * stride] * roots_[(j * k % m) * step];
                out[k] = sum;
            }
            return;
        }
        const std::size_t q = m / p;
        // Sub-transforms of the p decimated sequences: in[r*stride + j*p*stride] -> scratch[r*q..].
        for (std::size_t r = 0; r < p; ++r) transform(in + r * stride, stride * p, scratch + r * q, out + r * q, q);
        // X[k] = sum_r w_m^(r k) * S_r[k mod q]
        for (std::size_t k = 0; k < m; ++k) {
            Complex sum = 0.0;
            for (std::size_t r = 0; r < p; ++r) sum += scratch[r * q + k % q] * roots_[(r * k % m) * step];
            out[k] = sum;
        }
    }

    std::size_t n_;
    std::vector<Complex> roots_;
};

// Relative Frobenius error allowed for cufft.fft against the float64 reference.
// A single-precision FFT's error relative to the exact transform grows like eps * log2(n) in the
// worst case (and like eps * sqrt(log2 n) on average): with eps = 6e-8 and n <= 4096 that is at
// most ~7e-7. 1e-5 leaves more than 10x headroom for implementation differences, while a wrong
// twiddle factor, a dropped or shifted batch member or a mis-scaled bin gives errors of order 1.
// The inputs are exactly representable floats, so the float64 reference sees the very same data.
inline constexpr double fft_tolerance = 1e-5;

// --- random-number statistics ----------------------------------------------------------------

// Mean and (population) variance in float64, two passes; non-finite samples counted, not used.
struct SampleMoments {
    std::size_t count = 0;
    std::size_t non_finite = 0;
    double mean = 0.0;
    double variance = 0.0;
};

[[nodiscard]] inline SampleMoments sample_moments(std::span<const float> samples) {
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

// One statistical test: the observed value must lie in [low, high] (NaN never does).
struct StatTest {
    std::string name;  // "uniform mean"
    double observed = 0.0;
    double low = 0.0;
    double high = 0.0;
    [[nodiscard]] bool passed() const { return std::isfinite(observed) && observed >= low && observed <= high; }
    // "0.500012 (allowed 0.499583 to 0.500417)"
    [[nodiscard]] std::string bounds_text() const { return fmt::format("{:.6g} (allowed {:.6g} to {:.6g})", observed, low, high); }
    [[nodiscard]] std::string describe() const { return name + " " + bounds_text(); }
    // An evidence key: "uniform chi-square (100 bins)" -> "uniform_chi_square_100_bins".
    [[nodiscard]] std::string key() const {
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
};

// How many standard errors a sample statistic may stray from its expectation. At 6 the chance that
// a correct generator fails one two-sided test is 2e-9 (normal tail), so a failure means a defect.
inline constexpr double standard_errors_allowed = 6.0;

[[nodiscard]] inline StatTest within_standard_errors(std::string name, double observed, double expected, double standard_error,
                                                     double k = standard_errors_allowed) {
    return {std::move(name), observed, expected - k * standard_error, expected + k * standard_error};
}

// Uniform on (0, 1]: mean 1/2 with variance 1/12, so the sample mean's standard error is
// sqrt(1/(12 n)). The sample variance's standard error is sqrt((mu4 - sigma^4) / n), with the
// fourth central moment mu4 = 1/80 and sigma^4 = 1/144 for the uniform distribution.
[[nodiscard]] inline std::vector<StatTest> uniform_moment_tests(const SampleMoments& moments) {
    const auto n = static_cast<double>(moments.count);
    return {within_standard_errors("uniform mean", moments.mean, 0.5, std::sqrt(1.0 / 12.0 / n)),
            within_standard_errors("uniform variance", moments.variance, 1.0 / 12.0, std::sqrt((1.0 / 80.0 - 1.0 / 144.0) / n))};
}

// Standard normal: mean 0 with standard error 1/sqrt(n); the sample variance's standard error is
// sqrt((mu4 - sigma^4) / n) = sqrt((3 - 1) / n) = sqrt(2 / n).
[[nodiscard]] inline std::vector<StatTest> normal_moment_tests(const SampleMoments& moments) {
    const auto n = static_cast<double>(moments.count);
    return {within_standard_errors("normal mean", moments.mean, 0.0, std::sqrt(1.0 / n)),
            within_standard_errors("normal variance", moments.variance, 1.0, std::sqrt(2.0 / n))};
}

// Samples outside cuRAND's documented range for curandGenerateUniform, (0, 1] (0 excluded, 1
// included), or not finite.
[[nodiscard]] inline std::size_t count_outside_unit_interval(std::span<const float> samples) {
    std::size_t outside = 0;
    for (const float value : samples)
        if (!(value > 0.0f && value <= 1.0f)) ++outside;
    return outside;
}

[[nodiscard]] inline std::size_t count_non_finite(std::span<const float> samples) {
    return static_cast<std::size_t>(std::count_if(samples.begin(), samples.end(), [](float value) { return !std::isfinite(value); }));
}

// Counts of samples in `bins` equal-width bins over (0, 1]: bin floor(x * bins), 1.0 in the last.
// Values outside (0, 1] are not counted (count_outside_unit_interval reports them).
[[nodiscard]] inline std::vector<std::uint64_t> uniform_bin_counts(std::span<const float> samples, std::size_t bins) {
    std::vector<std::uint64_t> counts(bins, 0);
    for (const float value : samples) {
        if (!(value > 0.0f && value <= 1.0f)) continue;
        const auto bin = std::min(static_cast<std::size_t>(static_cast<double>(value) * static_cast<double>(bins)), bins - 1);
        ++counts[bin];
    }
    return counts;
}

// Standard normal CDF.
[[nodiscard]] inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// Edges of `bins` equiprobable bins of the standard normal: the bins-1 quantiles i/bins, by
// bisection of the CDF (to float64 resolution).
[[nodiscard]] inline std::vector<double> normal_bin_edges(std::size_t bins) {
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

// Counts of samples in the equiprobable standard-normal bins (non-finite samples not counted).
[[nodiscard]] inline std::vector<std::uint64_t> normal_bin_counts(std::span<const float> samples, std::size_t bins) {
    const std::vector<double> edges = normal_bin_edges(bins);
    std::vector<std::uint64_t> counts(bins, 0);
    for (const float value : samples) {
        if (!std::isfinite(value)) continue;
        ++counts[static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), static_cast<double>(value)) - edges.begin())];
    }
    return counts;
}

// Pearson's statistic against equal expected counts: sum (O - E)^2 / E.
[[nodiscard]] inline double chi_square(std::span<const std::uint64_t> counts) {
    double total = 0.0;
    for (const std::uint64_t count : counts) total += static_cast<double>(count);
    if (counts.empty() || total == 0.0) return std::numeric_limits<double>::quiet_NaN();
    const double expected = total / static_cast<double>(counts.size());
    double statistic = 0.0;
    for (const std::uint64_t count : counts) statistic += (static_cast<double>(count) - expected) * (static_cast<double>(count) - expected) / expected;
    return statistic;
}

// Two-sided bounds for a chi-square statistic with `degrees` degrees of freedom at z standard
// deviations, by the Wilson-Hilferty approximation ((X/k)^(1/3) is nearly normal with mean
// 1 - 2/(9k) and variance 2/(9k); accurate in the tails, unlike k +- z sqrt(2k)). For 99 degrees
// and z = 6: [36.0, 208.6], whose exact tail probabilities (incomplete gamma function) are 7.2e-10
// below and 8.3e-10 above. Too large: the counts are not uniform. Too small: the samples are more
// even than chance allows (a stratified or low-entropy sequence), also a defect.
[[nodiscard]] inline StatTest chi_square_test(std::string name, double statistic, std::size_t degrees, double z = standard_errors_allowed) {
    const double k = static_cast<double>(degrees);
    const double spread = std::sqrt(2.0 / (9.0 * k));
    const double centre = 1.0 - 2.0 / (9.0 * k);
    const double low_root = std::max(0.0, centre - z * spread);
    return {std::move(name), statistic, k * low_root * low_root * low_root, k * std::pow(centre + z * spread, 3.0)};
}

// Two independent streams of 32-bit words agree on a word with probability about 2^-23 (float
// uniforms) or less; allow 1 in 1000 (16777 of 2^24) before calling them the same stream.
inline constexpr double max_equal_fraction_between_seeds = 1e-3;

}  // namespace cudacheck::fft_rand
