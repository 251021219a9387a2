// The float64 statistics generated random numbers must meet (curand.generate): moments against
// their standard errors, the range, and Pearson's chi-square over equal-width or equiprobable bins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cudacheck::reference {

// Mean and (population) variance in float64, two passes; non-finite samples counted, not used.
struct SampleMoments {
    std::size_t count = 0;
    std::size_t non_finite = 0;
    double mean = 0.0;
    double variance = 0.0;
};
[[nodiscard]] SampleMoments sample_moments(std::span<const float> samples);

// One statistical test: the observed value must lie in [low, high] (NaN never does).
struct StatTest {
    std::string name;  // "uniform mean"
    double observed = 0.0;
    double low = 0.0;
    double high = 0.0;
    [[nodiscard]] bool passed() const;
    // "0.500012 (allowed 0.499583 to 0.500417)"
    [[nodiscard]] std::string bounds_text() const;
    [[nodiscard]] std::string describe() const { return name + " " + bounds_text(); }
    // An evidence key: "uniform chi-square (100 bins)" -> "uniform_chi_square_100_bins".
    [[nodiscard]] std::string key() const;
};

// How many standard errors a sample statistic may stray from its expectation. At 6 the chance that
// a correct generator fails one two-sided test is 2e-9 (normal tail), so a failure means a defect.
inline constexpr double standard_errors_allowed = 6.0;

[[nodiscard]] StatTest within_standard_errors(std::string name, double observed, double expected, double standard_error,
                                              double k = standard_errors_allowed);

// Uniform on (0, 1]: mean 1/2 with variance 1/12, so the sample mean's standard error is
// sqrt(1/(12 n)). The sample variance's standard error is sqrt((mu4 - sigma^4) / n), with the
// fourth central moment mu4 = 1/80 and sigma^4 = 1/144 for the uniform distribution.
[[nodiscard]] std::vector<StatTest> uniform_moment_tests(const SampleMoments& moments);

// Standard normal: mean 0 with standard error 1/sqrt(n); the sample variance's standard error is
// sqrt((mu4 - sigma^4) / n) = sqrt((3 - 1) / n) = sqrt(2 / n).
[[nodiscard]] std::vector<StatTest> normal_moment_tests(const SampleMoments& moments);

// Samples outside cuRAND's documented range for curandGenerateUniform, (0, 1] (0 excluded, 1
// included), or not finite.
[[nodiscard]] std::size_t count_outside_unit_interval(std::span<const float> samples);

[[nodiscard]] std::size_t count_non_finite(std::span<const float> samples);

// Counts of samples in `bins` equal-width bins over (0, 1]: bin floor(x * bins), 1.0 in the last.
// Values outside (0, 1] are not counted (count_outside_unit_interval reports them).
[[nodiscard]] std::vector<std::uint64_t> uniform_bin_counts(std::span<const float> samples, std::size_t bins);

// Standard normal CDF.
[[nodiscard]] double normal_cdf(double x);

// Edges of `bins` equiprobable bins of the standard normal: the bins-1 quantiles i/bins, by
// bisection of the CDF (to float64 resolution).
[[nodiscard]] std::vector<double> normal_bin_edges(std::size_t bins);

// Counts of samples in the equiprobable standard-normal bins (non-finite samples not counted).
[[nodiscard]] std::vector<std::uint64_t> normal_bin_counts(std::span<const float> samples, std::size_t bins);

// Pearson's statistic against equal expected counts: sum (O - E)^2 / E.
[[nodiscard]] double chi_square(std::span<const std::uint64_t> counts);

// Two-sided bounds for a chi-square statistic with `degrees` degrees of freedom at z standard
// deviations, by the Wilson-Hilferty approximation ((X/k)^(1/3) is nearly normal with mean
// 1 - 2/(9k) and variance 2/(9k); accurate in the tails, unlike k +- z sqrt(2k)). For 99 degrees
// and z = 6: [36.0, 208.6], whose exact tail probabilities (incomplete gamma function) are 7.2e-10
// below and 8.3e-10 above. Too large: the counts are not uniform. Too small: the samples are more
// even than chance allows (a stratified or low-entropy sequence), also a defect.
[[nodiscard]] StatTest chi_square_test(std::string name, double statistic, std::size_t degrees,
                                       double z = standard_errors_allowed);

}  // namespace cudacheck::reference
