// The float64 statistics curand.generate judges by (checks/reference/random_statistics.hpp): moments,
// bins, chi-square and their bounds, on samples of good and of broken generators.
#include "checks/reference/random_statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace cudacheck {
namespace {

using namespace reference;

// --- statistics --------------------------------------------------------------------------------

constexpr std::size_t sample_count = std::size_t{1} << 20;

std::vector<float> uniform_samples(unsigned seed, float scale = 1.0f, float offset = 0.0f) {
    std::mt19937 engine(seed);
    std::vector<float> samples(sample_count);
    // (0, 1] like cuRAND: 1 - [0, 1).
    for (float& x : samples) x = (1.0f - std::generate_canonical<float, 24>(engine)) * scale + offset;
    return samples;
}

std::vector<float> normal_samples(unsigned seed, float scale = 1.0f, float offset = 0.0f) {
    std::mt19937 engine(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<float> samples(sample_count);
    for (float& x : samples) x = static_cast<float>(normal(engine)) * scale + offset;
    return samples;
}

bool all_pass(const std::vector<StatTest>& tests) {
    return std::all_of(tests.begin(), tests.end(), [](const StatTest& test) { return test.passed(); });
}

TEST(StatTest, passes_inside_fails_outside_and_never_on_nan) {
    const StatTest mean = within_standard_errors("mean", 0.5, 0.5, 0.01);
    EXPECT_DOUBLE_EQ(mean.low, 0.44);
    EXPECT_DOUBLE_EQ(mean.high, 0.56);
    EXPECT_TRUE(mean.passed());
    EXPECT_TRUE(within_standard_errors("mean", 0.559, 0.5, 0.01).passed());
    EXPECT_FALSE(within_standard_errors("mean", 0.561, 0.5, 0.01).passed());
    EXPECT_FALSE(within_standard_errors("mean", 0.439, 0.5, 0.01).passed());
    EXPECT_FALSE(within_standard_errors("mean", std::numeric_limits<double>::quiet_NaN(), 0.5, 0.01).passed());
    EXPECT_EQ(mean.describe(), "mean 0.5 (allowed 0.44 to 0.56)");
    EXPECT_EQ(mean.bounds_text(), "0.5 (allowed 0.44 to 0.56)");
}

TEST(StatTest, key_is_snake_case_of_the_name) {
    EXPECT_EQ(StatTest{"uniform chi-square (100 bins)"}.key(), "uniform_chi_square_100_bins");
    EXPECT_EQ(StatTest{"Normal Variance"}.key(), "normal_variance");
}

TEST(SampleMoments, computes_mean_and_variance_and_skips_non_finite) {
    const std::vector<float> samples = {1.0f, 2.0f, 3.0f, 4.0f, std::numeric_limits<float>::quiet_NaN(), INFINITY};
    const SampleMoments moments = sample_moments(samples);
    EXPECT_EQ(moments.count, 4u);
    EXPECT_EQ(moments.non_finite, 2u);
    EXPECT_DOUBLE_EQ(moments.mean, 2.5);
    EXPECT_DOUBLE_EQ(moments.variance, 1.25);
    EXPECT_EQ(count_non_finite(samples), 2u);
}

TEST(UniformMomentTests, pass_for_a_good_generator) {
    const std::vector<StatTest> tests = uniform_moment_tests(sample_moments(uniform_samples(1)));
    ASSERT_EQ(tests.size(), 2u);
    EXPECT_TRUE(all_pass(tests)) << tests[0].describe() << "; " << tests[1].describe();
}

TEST(UniformMomentTests, fail_when_the_mean_is_shifted) {
    // +0.002 on the mean: 7 standard errors (sqrt(1/12/2^20) = 2.8e-4); the variance is unchanged.
    const std::vector<StatTest> tests = uniform_moment_tests(sample_moments(uniform_samples(1, 1.0f, 0.002f)));
    EXPECT_FALSE(tests[0].passed()) << tests[0].describe();
    EXPECT_TRUE(tests[1].passed()) << tests[1].describe();
}

TEST(UniformMomentTests, fail_when_the_spread_is_narrowed) {
    // Scaled by 0.99 about 1/2: mean 1/2 exactly, variance 0.9801/12 (off by 1.7e-3 = 20 standard errors).
    const std::vector<StatTest> tests = uniform_moment_tests(sample_moments(uniform_samples(1, 0.99f, 0.005f)));
    EXPECT_TRUE(tests[0].passed()) << tests[0].describe();
    EXPECT_FALSE(tests[1].passed()) << tests[1].describe();
}

TEST(NormalMomentTests, pass_for_a_good_generator) {
    const std::vector<StatTest> tests = normal_moment_tests(sample_moments(normal_samples(2)));
    ASSERT_EQ(tests.size(), 2u);
    EXPECT_TRUE(all_pass(tests)) << tests[0].describe() << "; " << tests[1].describe();
}

TEST(NormalMomentTests, fail_for_a_shifted_mean_or_a_wrong_variance) {
    // 6 standard errors of the mean at 2^20 samples is 0.0059; of the variance, 0.0083.
    const std::vector<StatTest> shifted = normal_moment_tests(sample_moments(normal_samples(2, 1.0f, 0.01f)));
    EXPECT_FALSE(shifted[0].passed()) << shifted[0].describe();
    EXPECT_TRUE(shifted[1].passed()) << shifted[1].describe();
    const std::vector<StatTest> wide = normal_moment_tests(sample_moments(normal_samples(2, 1.01f)));
    EXPECT_TRUE(wide[0].passed()) << wide[0].describe();
    EXPECT_FALSE(wide[1].passed()) << wide[1].describe();
}

TEST(UnitInterval, excludes_zero_includes_one_and_rejects_nan) {
    const std::vector<float> samples = {0.0f,
                                        1.0f,
                                        0.5f,
                                        std::nextafter(1.0f, 2.0f),
                                        -0.1f,
                                        std::numeric_limits<float>::quiet_NaN(),
                                        std::numeric_limits<float>::denorm_min()};
    EXPECT_EQ(count_outside_unit_interval(samples), 4u);
}

TEST(UniformBinCounts, puts_one_in_the_last_bin_and_skips_out_of_range) {
    const std::vector<float> samples = {0.1f, 0.25f, 0.5f, 0.75f, 1.0f, 0.0f, 1.5f};
    EXPECT_EQ(uniform_bin_counts(samples, 4), (std::vector<std::uint64_t>{1, 1, 1, 2}));
}

TEST(NormalBinEdges, are_the_standard_normal_quantiles) {
    const std::vector<double> forty = normal_bin_edges(40);
    ASSERT_EQ(forty.size(), 39u);
    EXPECT_NEAR(forty[19], 0.0, 1e-12);           // the median
    EXPECT_NEAR(forty[38], 1.959963984540054, 1e-9);  // the 0.975 quantile
    EXPECT_NEAR(forty[0], -1.959963984540054, 1e-9);
    const std::vector<float> samples = {-3.0f, -0.1f, 0.1f, 3.0f, NAN};
    EXPECT_EQ(normal_bin_counts(samples, 2), (std::vector<std::uint64_t>{2, 2}));
}

// The table lookup must put every sample where a binary search over the edges would: the values
// on either side of each edge (the median's edge is -2.8e-16, where x + 8 would round), values
// beyond the table's [-8, 8), and cells holding several edges (1000 bins).
TEST(NormalBinCounts, agree_with_a_binary_search_at_every_edge_and_beyond_the_table) {
    for (const std::size_t bins : {2U, 7U, 100U, 1000U}) {
        const std::vector<double> edges = normal_bin_edges(bins);
        std::vector<float> samples = {-1e30f, -8.0f, -7.999f, -0.0f, 0.0f, std::numeric_limits<float>::denorm_min(),
                                      7.999f, 8.0f,  1e30f};
        for (const double edge : edges)
            for (const float near : {static_cast<float>(edge), std::nextafter(static_cast<float>(edge), -INFINITY),
                                     std::nextafter(static_cast<float>(edge), INFINITY)})
                samples.push_back(near);
        std::vector<std::uint64_t> expected(bins, 0);
        for (const float sample : samples)
            ++expected[static_cast<std::size_t>(
                std::upper_bound(edges.begin(), edges.end(), static_cast<double>(sample)) - edges.begin())];
        EXPECT_EQ(normal_bin_counts(samples, bins), expected) << bins << " bins";
    }
}

TEST(ChiSquare, is_zero_for_even_counts_and_sums_squared_deviations) {
    EXPECT_DOUBLE_EQ(chi_square(std::vector<std::uint64_t>{10, 10, 10, 10}), 0.0);
    EXPECT_DOUBLE_EQ(chi_square(std::vector<std::uint64_t>{20, 0, 10, 10}), 20.0);
    EXPECT_TRUE(std::isnan(chi_square(std::vector<std::uint64_t>{0, 0})));
}

TEST(ChiSquareTest, bounds_for_99_degrees_are_six_sigma_equivalents) {
    const StatTest test = chi_square_test("chi", 99.0, 99);
    EXPECT_NEAR(test.low, 35.958, 0.01);
    EXPECT_NEAR(test.high, 208.604, 0.01);
    EXPECT_TRUE(test.passed());
    EXPECT_FALSE(chi_square_test("chi", 250.0, 99).passed());
    EXPECT_FALSE(chi_square_test("chi", 20.0, 99).passed());
    EXPECT_FALSE(chi_square_test("chi", std::numeric_limits<double>::quiet_NaN(), 99).passed());
}

TEST(ChiSquareTest, passes_good_uniform_and_normal_samples) {
    const double uniform = chi_square(uniform_bin_counts(uniform_samples(3), 100));
    EXPECT_TRUE(chi_square_test("uniform", uniform, 99).passed()) << uniform;
    const double normal = chi_square(normal_bin_counts(normal_samples(4), 100));
    EXPECT_TRUE(chi_square_test("normal", normal, 99).passed()) << normal;
}

TEST(ChiSquareTest, fails_a_skewed_sample_and_a_too_even_one) {
    // Squaring a uniform piles samples up near 0 while keeping them in (0, 1].
    std::vector<float> skewed = uniform_samples(5);
    for (std::size_t i = 0; i < skewed.size(); i += 50) skewed[i] *= skewed[i];  // 2% of the samples
    const double skewed_statistic = chi_square(uniform_bin_counts(skewed, 100));
    EXPECT_FALSE(chi_square_test("skewed", skewed_statistic, 99).passed()) << skewed_statistic;
    // A stratified sequence (i + 1/2) / n: moments perfect, histogram far too even.
    std::vector<float> stratified(sample_count);
    for (std::size_t i = 0; i < sample_count; ++i)
        stratified[i] = static_cast<float>((static_cast<double>(i) + 0.5) / sample_count);
    EXPECT_TRUE(all_pass(uniform_moment_tests(sample_moments(stratified))));
    const double even = chi_square(uniform_bin_counts(stratified, 100));
    EXPECT_FALSE(chi_square_test("stratified", even, 99).passed()) << even;
    // Uniform samples binned as if normal fail too.
    EXPECT_FALSE(chi_square_test("x", chi_square(normal_bin_counts(uniform_samples(6), 100)), 99).passed());
}

}  // namespace
}  // namespace cudacheck
