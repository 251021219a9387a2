// cufft.fft without a GPU: the tolerance against float rounding and real defects, the judge from
// hand-built outcomes (a wrong transform, a NaN, a failure part-way), and a broken libcufft end to end.
#include "checks/cufft_fft.hpp"
#include "checks/reference/fft.hpp"
#include "probes/cuda_libraries.hpp"
#include "support/check_judging.hpp"
#include "support/random_signal.hpp"
#include "support/test_support.hpp"
#include "util/environment.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <complex>
#include <cuda_runtime_api.h>  // CUDART_VERSION
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using namespace reference;
using test::random_signal;
namespace fs = std::filesystem;

using test::contains;

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

// --- end to end --------------------------------------------------------------------------------

// --- the judge -------------------------------------------------------------------------------

// A verdict over `members` transforms of length n: each member's "GPU" spectrum is `transform` of
// the signal, compared with the float64 forward FFT as the check compares cuFFT's.
template <typename Transform>
FftVerdict verdict_of(std::size_t n, int members, Transform transform) {
    FftVerdictBuilder builder(fmt::format("c2c_forward_n{}", n), fmt::format("C2C forward n={}", n));
    const ReferenceFft forward(n, -1);
    for (int member = 0; member < members; ++member) {
        const std::vector<Complex> signal = random_signal(n, 100 + static_cast<unsigned>(member));
        const std::vector<Complex> expected = forward(signal);
        const std::vector<Complex> actual = transform(signal, member);
        for (std::size_t k = 0; k < n; ++k) {
            builder.add(actual[k].real(), expected[k].real());
            builder.add(actual[k].imag(), expected[k].imag());
        }
        builder.end_member(member);
    }
    return builder.finish();
}

// A correct single-precision transform: the exact spectrum rounded to float.
std::vector<Complex> rounded_forward(const std::vector<Complex>& signal, int) {
    std::vector<Complex> spectrum = ReferenceFft(signal.size(), -1)(signal);
    for (Complex& bin : spectrum) bin = Complex(static_cast<float>(bin.real()), static_cast<float>(bin.imag()));
    return spectrum;
}

FftOutcome outcome_with(std::vector<FftVerdict> verdicts) {
    FftOutcome outcome;
    outcome.batch = 4;
    outcome.timed_runs = 5;
    outcome.members_compared = 4;
    outcome.lengths = {FftLengthOutcome{.n = 64, .forward_ms = 0.01, .verdicts = std::move(verdicts)}};
    outcome.complete = true;
    return outcome;
}

CheckResult judged(const FftOutcome& outcome) { return test::judged("cufft.fft", judge_fft, outcome); }

TEST(JudgeFft, passes_a_float_rounded_transform_with_its_rate) {
    const CheckResult result = judged(outcome_with({verdict_of(64, 4, rounded_forward)}));
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(result.message.find("max relative error"), std::string::npos) << result.message;
    ASSERT_GE(result.metrics.size(), 2u);
    EXPECT_EQ(result.metrics[1].name, "c2c_forward_gflops_n64");
    EXPECT_DOUBLE_EQ(result.metrics[1].value, 5.0 * 64 * 6 * 4 / 0.01e-3 / 1e9);  // 5 n log2(n) per transform
}

TEST(JudgeFft, fails_a_transform_with_the_wrong_sign_naming_the_worst_member) {
    // The inverse's sign where the forward's belongs: every bin but the first lands in the wrong place.
    const auto wrong_sign = [](const std::vector<Complex>& signal, int) {
        return ReferenceFft(signal.size(), +1)(signal);
    };
    const CheckResult result = judged(outcome_with({verdict_of(64, 4, wrong_sign)}));
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC504");
    EXPECT_NE(result.message.find("C2C forward n=64 x 4 batches"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("over 4 members"), std::string::npos) << result.message;
}

TEST(JudgeFft, names_the_one_wrong_member_of_a_batch_and_never_passes_a_nan) {
    // Member 2 of 4 comes back with one NaN bin (an unwritten output keeps the poison).
    const auto one_nan = [](const std::vector<Complex>& signal, int member) {
        std::vector<Complex> spectrum = rounded_forward(signal, member);
        if (member == 2) spectrum[5] = Complex(std::numeric_limits<double>::quiet_NaN(), 0.0);
        return spectrum;
    };
    const CheckResult result = judged(outcome_with({verdict_of(64, 4, one_nan)}));
    EXPECT_EQ(result.code, "CC504");
    EXPECT_NE(result.message.find("worst: member 2, inf"), std::string::npos) << result.message;
    for (const Metric& metric : result.metrics)
        EXPECT_NE(metric.name, "max_relative_error") << "no error figure over a NaN";
}

TEST(JudgeFft, reports_the_lengths_done_without_a_summary_when_the_measurement_stopped_part_way) {
    FftOutcome outcome = outcome_with({verdict_of(64, 4, rounded_forward)});
    outcome.complete = false;  // the second length's plan failed
    const CheckResult result = judged(outcome);
    EXPECT_TRUE(result.findings.empty());
    EXPECT_EQ(result.message, "");
    ASSERT_EQ(result.evidence.size(), 1u);
    EXPECT_EQ(result.evidence[0].key, "c2c_forward_n64");
}

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
    const auto report =
        run_to_json(dir, {"--only", "cufft.fft,curand.generate"},
                    {{"LD_LIBRARY_PATH", dir.path() + ":" + fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "1"}}, 1);
    const auto* cufft = test::find_check(report, "cufft.fft");
    ASSERT_NE(cufft, nullptr);
    EXPECT_EQ((*cufft)["status"], "fail");
    EXPECT_EQ((*cufft)["code"], "CC605");  // damaged, so never opened
    EXPECT_TRUE(contains(cufft->dump(), broken)) << cufft->dump();
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
        version_seen |=
            evidence["key"] == "curand_version" && contains(evidence["value"].get<std::string>(), "libcurand.so.");
    EXPECT_TRUE(version_seen) << "curandGetVersion is called before the GPU step";
}

}  // namespace
}  // namespace cudacheck
