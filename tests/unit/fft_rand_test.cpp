// Unit tests for cufft.fft and curand.generate: their pure parts (status names, version decoding,
// the float64 reference transforms, the statistical bounds), and the binary end to end with a
// broken cuFFT in front of the loader (the GPU parts run on the GPU machine).
#include "checks/cufft_fft.hpp"
#include "bind/cufft.hpp"
#include "bind/curand.hpp"
#include "bind/library_version.hpp"
#include "checks/reference/fft.hpp"
#include "checks/reference/random_statistics.hpp"
#include "util/environment.hpp"
#include "gpu/library_support.hpp"
#include "probes/cuda_libraries.hpp"
#include "support/test_support.hpp"

#include <cmath>
#include <complex>
#include <cuda_runtime_api.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace cudacheck {
namespace {

using namespace reference;
namespace fs = std::filesystem;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// --- status names ----------------------------------------------------------------------------

TEST(CufftResultName, names_each_status_of_the_header) {
    EXPECT_EQ(cufft_result_name(CUFFT_SUCCESS), "CUFFT_SUCCESS");
    EXPECT_EQ(cufft_result_name(CUFFT_ALLOC_FAILED), "CUFFT_ALLOC_FAILED");
    EXPECT_EQ(cufft_result_name(CUFFT_INVALID_SIZE), "CUFFT_INVALID_SIZE");
    EXPECT_EQ(cufft_result_name(CUFFT_NVSHMEM_FAILURE), "CUFFT_NVSHMEM_FAILURE");
    EXPECT_EQ(describe_status(CUFFT_ALLOC_FAILED), "CUFFT_ALLOC_FAILED (2)");
    // Every value below MAX_CUFFT_ERROR that the header defines has its own name.
    std::set<std::string_view> names;
    int known = 0;
    for (int value = 0; value < MAX_CUFFT_ERROR; ++value) {
        const std::string_view name = cufft_result_name(static_cast<cufftResult>(value));
        if (name == "unknown cufftResult") continue;
        ++known;
        EXPECT_TRUE(name.starts_with("CUFFT_")) << value;
        names.insert(name);
    }
    EXPECT_EQ(known, 18);
    EXPECT_EQ(names.size(), 18u) << "no two values share a name";
}

TEST(CufftResultName, says_unknown_for_values_outside_the_header) {
    EXPECT_EQ(cufft_result_name(static_cast<cufftResult>(0xA)), "unknown cufftResult");
    EXPECT_EQ(describe_status(static_cast<cufftResult>(77)), "unknown cufftResult (77)");
}

TEST(CurandStatusName, names_each_status_of_the_header) {
    EXPECT_EQ(curand_status_name(CURAND_STATUS_SUCCESS), "CURAND_STATUS_SUCCESS");
    EXPECT_EQ(curand_status_name(CURAND_STATUS_LAUNCH_FAILURE), "CURAND_STATUS_LAUNCH_FAILURE");
    EXPECT_EQ(curand_status_name(CURAND_STATUS_INTERNAL_ERROR), "CURAND_STATUS_INTERNAL_ERROR");
    EXPECT_EQ(describe_status(CURAND_STATUS_ALLOCATION_FAILED), "CURAND_STATUS_ALLOCATION_FAILED (102)");
    EXPECT_EQ(curand_status_name(static_cast<curandStatus_t>(150)), "unknown curandStatus_t");
}

TEST(LibraryRemediation, is_specific_to_the_status) {
    EXPECT_TRUE(contains(remediation_for(CUFFT_ALLOC_FAILED), "GPU memory"));
    EXPECT_TRUE(contains(remediation_for(CUFFT_NVJITLINK_FAILURE), "nvJitLink"));
    EXPECT_TRUE(contains(remediation_for(CURAND_STATUS_VERSION_MISMATCH), "version"));
    EXPECT_NE(remediation_for(CURAND_STATUS_ALLOCATION_FAILED), remediation_for(CURAND_STATUS_LAUNCH_FAILURE));
}

// --- versions --------------------------------------------------------------------------------

TEST(EncodedLibraryVersion, decodes_thousands_hundreds_and_units) {
    EXPECT_EQ(decode_library_version(10502).text(), "10.5.2");
    EXPECT_EQ(decode_library_version(12000).text(), "12.0.0");
    EXPECT_EQ(decode_library_version(10400).text(), "10.4.0");
    // The headers' own encodings agree.
    const LibraryVersion cufft = decode_library_version(CUFFT_VERSION);
    EXPECT_EQ(cufft.major, CUFFT_VER_MAJOR);
    EXPECT_EQ(cufft.minor, CUFFT_VER_MINOR);
    EXPECT_EQ(cufft.patch, CUFFT_VER_PATCH);
    const LibraryVersion curand = decode_library_version(CURAND_VERSION);
    EXPECT_EQ(curand.major, CURAND_VER_MAJOR);
    EXPECT_EQ(curand.minor, CURAND_VER_MINOR);
    EXPECT_EQ(curand.patch, CURAND_VER_PATCH);
}

TEST(EncodedLibraryVersion, soname_major_reads_the_number_after_so) {
    EXPECT_EQ(soname_major("libcufft.so.12"), 12);
    EXPECT_EQ(soname_major("libcurand.so.10"), 10);
    EXPECT_EQ(soname_major("libcufft.so.11.2.1.3"), 11);
    EXPECT_EQ(soname_major("libcufft.so"), -1);
    EXPECT_EQ(soname_major("libcufft.so.x"), -1);
}

TEST(EncodedLibraryVersion, describe_notes_a_major_that_differs_from_the_soname) {
    EXPECT_EQ(describe_version(12000, "libcufft.so.12"), "12.0.0 (major 12, as libcufft.so.12 implies)");
    EXPECT_EQ(describe_version(11300, "libcufft.so.12"), "11.3.0 (major 11, but libcufft.so.12 implies 12)");
}

// --- reference transforms --------------------------------------------------------------------

std::vector<Complex> random_signal(std::size_t n, unsigned seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<Complex> signal(n);
    for (Complex& x : signal) x = {value(engine), value(engine)};
    return signal;
}

double max_abs_difference(const std::vector<Complex>& a, const std::vector<Complex>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

TEST(NaiveDft, delta_at_zero_gives_a_flat_spectrum) {
    std::vector<Complex> delta(8, 0.0);
    delta[0] = 1.0;
    for (const Complex& bin : naive_dft(delta, -1)) EXPECT_NEAR(std::abs(bin - Complex(1.0, 0.0)), 0.0, 1e-15);
}

TEST(NaiveDft, shifted_delta_gives_a_unit_magnitude_linear_phase) {
    const std::size_t n = 12;
    std::vector<Complex> delta(n, 0.0);
    delta[3] = 1.0;
    const std::vector<Complex> spectrum = naive_dft(delta, -1);
    for (std::size_t k = 0; k < n; ++k) {
        EXPECT_NEAR(std::abs(spectrum[k]), 1.0, 1e-14);
        // Forward sign -1: X[k] = exp(-2 pi i 3 k / n).
        EXPECT_NEAR(std::arg(spectrum[k] * std::polar(1.0, 2.0 * std::numbers::pi * 3.0 * static_cast<double>(k) / n)), 0.0, 1e-12) << k;
    }
}

TEST(NaiveDft, cosine_gives_two_spikes_of_height_n_over_2) {
    const std::size_t n = 16;
    std::vector<Complex> cosine(n);
    for (std::size_t j = 0; j < n; ++j) cosine[j] = std::cos(2.0 * std::numbers::pi * 3.0 * static_cast<double>(j) / n);
    const std::vector<Complex> spectrum = naive_dft(cosine, -1);
    for (std::size_t k = 0; k < n; ++k) {
        const double expected = (k == 3 || k == n - 3) ? n / 2.0 : 0.0;
        EXPECT_NEAR(spectrum[k].real(), expected, 1e-12) << k;
        EXPECT_NEAR(spectrum[k].imag(), 0.0, 1e-12) << k;
    }
}

TEST(NaiveDft, inverse_of_forward_is_n_times_the_input) {
    const std::vector<Complex> signal = random_signal(10, 1);
    std::vector<Complex> back = naive_dft(naive_dft(signal, -1), +1);
    for (Complex& x : back) x /= 10.0;
    EXPECT_LT(max_abs_difference(signal, back), 1e-14);
}

TEST(ReferenceFft, matches_the_naive_dft_for_prime_composite_and_power_of_two_lengths) {
    for (const std::size_t n : {1u, 2u, 3u, 7u, 8u, 12u, 30u, 64u, 97u, 125u, 1000u, 4096u}) {
        const std::vector<Complex> signal = random_signal(n, static_cast<unsigned>(n));
        for (const int sign : {-1, +1}) {
            const std::vector<Complex> fast = ReferenceFft(n, sign)(signal);
            const std::vector<Complex> slow = naive_dft(signal, sign);
            // Both in float64: they agree to ~1e-13 of the spectrum's scale (sqrt(n)).
            EXPECT_LT(max_abs_difference(fast, slow), 1e-12 * std::sqrt(static_cast<double>(n)) * 10) << "n=" << n << " sign=" << sign;
        }
    }
}

TEST(ReferenceFft, real_input_gives_a_hermitian_spectrum) {
    // What R2C relies on: bins n/2+1 .. n-1 are the conjugates of bins n/2-1 .. 1.
    const std::size_t n = 1000;
    std::vector<Complex> signal = random_signal(n, 5);
    for (Complex& x : signal) x = x.real();
    const std::vector<Complex> spectrum = ReferenceFft(n, -1)(signal);
    for (std::size_t k = 1; k < n / 2; ++k) EXPECT_LT(std::abs(spectrum[n - k] - std::conj(spectrum[k])), 1e-11) << k;
    EXPECT_NEAR(spectrum[0].imag(), 0.0, 1e-11);
    EXPECT_NEAR(spectrum[n / 2].imag(), 0.0, 1e-11);
}

// The tolerance separates single-precision rounding from real defects.
double relative_error(const std::vector<Complex>& actual, const std::vector<Complex>& reference) {
    gpu::AccuracyAccumulator accuracy;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        accuracy.add(actual[i].real(), reference[i].real());
        accuracy.add(actual[i].imag(), reference[i].imag());
    }
    const gpu::Accuracy result = accuracy.result();
    return result.non_finite > 0 ? std::numeric_limits<double>::infinity() : result.relative_error;
}

TEST(FftTolerance, passes_float_rounding_and_fails_defects) {
    const std::size_t n = 4096;
    const std::vector<Complex> signal = random_signal(n, 9);
    const std::vector<Complex> reference = ReferenceFft(n, -1)(signal);
    // A single-precision transform: its input and output rounded to float, and computed in float.
    std::vector<std::complex<float>> input(n);
    for (std::size_t i = 0; i < n; ++i) input[i] = std::complex<float>(signal[i]);
    std::vector<Complex> rounded_input(n);
    for (std::size_t i = 0; i < n; ++i) rounded_input[i] = Complex(input[i]);
    std::vector<Complex> fp32(n);
    {
        // Radix-2 in float, the accuracy a real fp32 FFT has (error ~ eps * log2 n).
        std::vector<std::complex<float>> data = input;
        for (std::size_t i = 1, j = 0; i < n; ++i) {
            std::size_t bit = n >> 1;
            for (; j & bit; bit >>= 1) j ^= bit;
            j ^= bit;
            if (i < j) std::swap(data[i], data[j]);
        }
        for (std::size_t length = 2; length <= n; length <<= 1)
            for (std::size_t start = 0; start < n; start += length)
                for (std::size_t k = 0; k < length / 2; ++k) {
                    const auto w = std::complex<float>(unit_root(k, length, -1));
                    const std::complex<float> u = data[start + k];
                    const std::complex<float> v = data[start + k + length / 2] * w;
                    data[start + k] = u + v;
                    data[start + k + length / 2] = u - v;
                }
        for (std::size_t i = 0; i < n; ++i) fp32[i] = Complex(data[i]);
    }
    const double fp32_error = relative_error(fp32, ReferenceFft(n, -1)(rounded_input));
    EXPECT_GT(fp32_error, 1e-8) << "the float transform must actually carry float rounding";
    EXPECT_LT(fp32_error, fft_tolerance / 10) << "tenfold headroom";

    std::vector<Complex> shifted(reference.begin() + 1, reference.end());
    shifted.push_back(reference.front());
    EXPECT_GT(relative_error(shifted, reference), fft_tolerance);
    std::vector<Complex> one_bin_off = reference;
    one_bin_off[17] *= 1.01;
    EXPECT_GT(relative_error(one_bin_off, reference), fft_tolerance) << "1% error in one bin of 4096";
    std::vector<Complex> with_nan = reference;
    with_nan[100] = Complex(std::numeric_limits<double>::quiet_NaN(), 0.0);
    EXPECT_GT(relative_error(with_nan, reference), fft_tolerance);
}

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
    const std::vector<float> samples = {0.0f, 1.0f, 0.5f, std::nextafter(1.0f, 2.0f), -0.1f, std::numeric_limits<float>::quiet_NaN(),
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
    for (std::size_t i = 0; i < sample_count; ++i) stratified[i] = static_cast<float>((static_cast<double>(i) + 0.5) / sample_count);
    EXPECT_TRUE(all_pass(uniform_moment_tests(sample_moments(stratified))));
    const double even = chi_square(uniform_bin_counts(stratified, 100));
    EXPECT_FALSE(chi_square_test("stratified", even, 99).passed()) << even;
    // Uniform samples binned as if normal fail too.
    EXPECT_FALSE(chi_square_test("x", chi_square(normal_bin_counts(uniform_samples(6), 100)), 99).passed());
}

// --- end to end --------------------------------------------------------------------------------

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

nlohmann::json run_to_json(const test::TempDir& dir, std::vector<std::string> arguments,
                           const std::vector<std::pair<std::string, std::string>>& overrides, int expected_exit) {
    const std::string path = dir.path() + "/report.json";
    arguments.insert(arguments.end(), {"-o", path, "-q"});
    const test::BinaryRun run = test::run_cudacheck(arguments, overrides);
    EXPECT_EQ(run.exit_status, expected_exit) << run.output;
    EXPECT_EQ(run.output, "") << "-q prints nothing";
    return nlohmann::json::parse(test::read_text(path));
}

TEST(EndToEnd, broken_cufft_fails_its_check_only_and_curand_reaches_the_gpu_step) {
    // curand must load here for its half of the test (it does where the CUDA toolkit is installed).
    if (!load_cuda_library(cuda_library::curand, CUDART_VERSION / 1000, Environment::from_process()).ok())
        GTEST_SKIP() << "cuRAND is not installed here";
    test::TempDir dir;
    const std::string cufft_soname = std::string(cuda_library::cufft.soname_for(CUDART_VERSION / 1000));
    const std::string broken = dir.write(cufft_soname, "not an ELF file\n");
    const auto report = run_to_json(dir, {"--only", "cufft.fft,curand.generate"},
                                    {{"LD_LIBRARY_PATH", dir.path() + ":" + fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "1"}}, 1);
    const auto* cufft = test::find_check(report, "cufft.fft");
    ASSERT_NE(cufft, nullptr);
    EXPECT_EQ((*cufft)["status"], "fail");
    EXPECT_EQ((*cufft)["code"], "CC505");
    EXPECT_TRUE(contains((*cufft)["message"].get<std::string>(), broken)) << (*cufft)["message"];
    EXPECT_TRUE(contains((*cufft)["remediation"].get<std::string>(), "cufft")) << (*cufft)["remediation"];

    const auto* curand = test::find_check(report, "curand.generate");
    ASSERT_NE(curand, nullptr);
    EXPECT_EQ((*curand)["status"], "fail");
    EXPECT_NE((*curand)["code"], "CC505");
    // Loaded and resolved; the fake driver cannot run the CUDA runtime, so the GPU step fails.
    EXPECT_EQ((*curand)["code"], "CC501");
    EXPECT_TRUE(contains((*curand)["message"].get<std::string>(), "cudaSetDevice"));
    bool version_seen = false;
    for (const auto& evidence : (*curand)["evidence"])
        version_seen |= evidence["key"] == "curand_version" && contains(evidence["value"].get<std::string>(), "libcurand.so.");
    EXPECT_TRUE(version_seen) << "curandGetVersion is called before the GPU step";
}

}  // namespace
}  // namespace cudacheck
