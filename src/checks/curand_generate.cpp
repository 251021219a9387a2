// curand.generate: cuRAND (opened at run time, never linked) generates uniform and normal floats
// with a Philox generator; the samples must meet their distributions' moments and a chi-square
// test, lie in the documented range, repeat bit for bit with the same seed and differ with another.
#include "checks/curand_generate.hpp"
#include "bind/curand.hpp"
#include "bind/library_version.hpp"
#include "bind/owned.hpp"
#include "checks/checks.hpp"
#include "checks/reference/random_statistics.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/compare.cuh"
#include "util/trace.hpp"

#include <cmath>
#include <curand.h>
#include <fmt/format.h>
#include <future>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudacheck {

namespace {

constexpr MetricFamily generation_rate{"curand", "{distribution}_rate", Unit::gsamples_per_s,
                                       "cuRAND generation rate by distribution."};
constexpr MetricFamily sample_mean{"curand_mean", "{distribution}_mean", Unit::value,
                                   "Mean of the generated samples, by distribution."};
constexpr MetricFamily sample_variance{"curand_variance", "{distribution}_variance", Unit::value,
                                       "Variance of the generated samples, by distribution."};

void curand_check(curandStatus_t status, const std::string& call) {
    if (status != CURAND_STATUS_SUCCESS) throw CurandFailure(status, call, describe_status(status));
}

// A Philox4x32-10 generator with a seed, on a stream; destroyed through the resolved function.
class Generator {
public:
    Generator(const CurandApi& api, unsigned long long seed, cudaStream_t stream) : api_(api) {
        curandGenerator_t generator = nullptr;
        curand_check(api.create(&generator, CURAND_RNG_PSEUDO_PHILOX4_32_10),
                     "curandCreateGenerator(CURAND_RNG_PSEUDO_PHILOX4_32_10)");
        generator_ = Owned<curandGenerator_t, decltype(CurandApi::destroy)>(generator, api.destroy);
        curand_check(api.set_stream(generator_.get(), stream), "curandSetStream");
        curand_check(api.set_seed(generator_.get(), seed),
                     fmt::format("curandSetPseudoRandomGeneratorSeed({:#x})", seed));
    }
    void uniform(float* output, std::size_t count) const {
        curand_check(api_.generate_uniform(generator_.get(), output, count),
                     fmt::format("curandGenerateUniform(n={})", count));
    }
    void normal(float* output, std::size_t count) const {
        curand_check(api_.generate_normal(generator_.get(), output, count, 0.0f, 1.0f),
                     fmt::format("curandGenerateNormal(n={}, 0, 1)", count));
    }

private:
    const CurandApi& api_;
    Owned<curandGenerator_t, decltype(CurandApi::destroy)> generator_;
};

struct RandSizes {
    std::size_t count;  // samples per distribution; even (curandGenerateNormal needs a multiple of 2)
    int timed_runs;
    std::string_view count_text;
};

RandSizes sizes_for(Level level) {
    if (level == Level::full) return {std::size_t{1} << 27, 20, "2^27"};
    // 2^22 keeps the host-side statistics (moments, two histograms) near 100 ms; the bounds below
    // are derived from n, so they tighten or widen with it.
    return {std::size_t{1} << 22, 5, "2^22"};
}

constexpr unsigned long long seed = 0x5EED'CAFE'F00D'0001ULL;
constexpr unsigned long long other_seed = 0x5EED'CAFE'F00D'0002ULL;  // differs in the last two bits
// 100 bins: 41943 expected per bin at 2^22, so the chi-square statistic is very close to its
// asymptotic distribution with 99 degrees of freedom.
constexpr std::size_t chi_square_bins = 100;

constexpr std::string_view statistics_remediation =
    "cuRAND's output failed a test that a correct generator fails with probability about 1e-9 (6 standard errors): "
    "rerun to see "
    "whether it is reproducible; check `dmesg` for Xid errors and `nvidia-smi -q -d ECC`, and that the installed "
    "cuRAND matches "
    "the CUDA runtime.";

double gigasamples_per_second(std::size_t count, double milliseconds) {
    return static_cast<double>(count) / (milliseconds * 1e-3) / 1e9;
}

// Fills the outcome completely or throws (CurandFailure, or a GPU error for run_gpu_check).
void measure_random(const CurandApi& api, Level level, int device, RandomOutcome& outcome) {
    const RandSizes sizes = sizes_for(level);
    const std::size_t n = sizes.count;
    outcome.count = n;
    outcome.count_text = std::string(sizes.count_text);
    outcome.timed_runs = sizes.timed_runs;
    gpu::PinnedArray<float> host_uniform(n);
    gpu::PinnedArray<float> host_normal(n);
    std::optional<gpu::DeviceWork> gpu_work(device);  // GPU phase; the statistics run without it
    gpu::Stream stream;
    gpu::DeviceArray<float> uniform(n);
    gpu::DeviceArray<float> normal(n);
    gpu::DeviceArray<float> other(n);
    gpu::DeviceArray<unsigned long long> mismatches(2);
    const Generator first(api, seed, stream.get());
    const Generator again(api, seed, stream.get());
    const Generator different(api, other_seed, stream.get());
    first.uniform(uniform.data(), n);
    first.normal(normal.data(), n);
    // Same seed, fresh generator: the same sequence, bit for bit (Philox is counter-based and
    // cuRAND's output for a given seed, offset and ordering is deterministic).
    again.uniform(other.data(), n);
    gpu::check(static_cast<cudaError_t>(
                   kernels::count_mismatches(reinterpret_cast<const std::uint32_t*>(uniform.data()),
                                             reinterpret_cast<const std::uint32_t*>(other.data()), n, mismatches.data(),
                                             stream.get())),
               "compare kernel");
    // Another seed: an independent stream, so almost every word differs.
    different.uniform(other.data(), n);
    gpu::check(static_cast<cudaError_t>(
                   kernels::count_mismatches(reinterpret_cast<const std::uint32_t*>(uniform.data()),
                                             reinterpret_cast<const std::uint32_t*>(other.data()), n,
                                             mismatches.data() + 1, stream.get())),
               "compare kernel");
    gpu::check(cudaMemcpyAsync(&outcome.differ_same_seed, mismatches.data(), sizeof outcome.differ_same_seed,
                               cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    gpu::check(cudaMemcpyAsync(&outcome.differ_other_seed, mismatches.data() + 1, sizeof outcome.differ_other_seed,
                               cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    gpu::check(cudaMemcpyAsync(host_uniform.data(), uniform.data(), uniform.bytes(), cudaMemcpyDeviceToHost,
                               stream.get()),
               "cudaMemcpyAsync");
    gpu::check(cudaMemcpyAsync(host_normal.data(), normal.data(), normal.bytes(), cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    stream.synchronize();
    // The statistics run on the CPU while the rates wait for the GPU to be free (on the H200
    // they were the last thing of the whole run when computed after). The two distributions'
    // statistics are independent: each on its own core.
    std::future<RandomStatistics> uniform_statistics_done = std::async(std::launch::async, [&] {
        const trace::Span span("uniform statistics (host)");
        return uniform_statistics(std::span<const float>(host_uniform.data(), n));
    });
    std::future<RandomStatistics> normal_statistics_done = std::async(std::launch::async, [&] {
        const trace::Span span("normal statistics (host)");
        return normal_statistics(std::span<const float>(host_normal.data(), n));
    });
    // Rates, on the generator whose output is no longer needed.
    outcome.uniform_ms =
        gpu::time_on_stream(stream, gpu_work, 1, sizes.timed_runs, [&] { different.uniform(other.data(), n); });
    outcome.normal_ms =
        gpu::time_on_stream(stream, gpu_work, 1, sizes.timed_runs, [&] { different.normal(other.data(), n); });
    gpu_work.reset();
    outcome.uniform = uniform_statistics_done.get();
    outcome.normal = normal_statistics_done.get();
}

}  // namespace

RandomStatistics uniform_statistics(std::span<const float> samples) {
    return RandomStatistics{reference::count_outside_unit_interval(samples), reference::sample_moments(samples),
                            reference::chi_square(reference::uniform_bin_counts(samples, chi_square_bins))};
}

RandomStatistics normal_statistics(std::span<const float> samples) {
    return RandomStatistics{reference::count_non_finite(samples), reference::sample_moments(samples),
                            reference::chi_square(reference::normal_bin_counts(samples, chi_square_bins))};
}

void judge_random(const RandomOutcome& outcome, ResultBuilder& result) {
    const std::size_t n = outcome.count;
    std::vector<reference::StatTest> failed;
    std::vector<std::string> other_failures;
    auto judge = [&](const reference::StatTest& test) {
        result.evidence(test.key(), test.bounds_text(), test.observed);
        if (!test.passed()) failed.push_back(test);
    };

    const RandomStatistics& uniform_stats = outcome.uniform;
    const RandomStatistics& normal_stats = outcome.normal;

    // Uniform floats: documented range (0, 1], first two moments, and the histogram.
    if (uniform_stats.bad > 0)
        other_failures.push_back(
            fmt::format("{} of {} uniform floats outside (0, 1] (cuRAND documents 0 excluded, 1 included)",
                        uniform_stats.bad, n));
    const reference::SampleMoments& uniform_moments = uniform_stats.moments;
    for (const auto& test : reference::uniform_moment_tests(uniform_moments)) judge(test);
    const double uniform_chi = uniform_stats.chi;
    judge(reference::chi_square_test(fmt::format("uniform chi-square ({} bins)", chi_square_bins), uniform_chi,
                                     chi_square_bins - 1));

    // Normal floats (mean 0, standard deviation 1): finite, moments, histogram over equiprobable bins.
    if (normal_stats.bad > 0)
        other_failures.push_back(fmt::format("{} of {} normal floats are NaN or infinite", normal_stats.bad, n));
    const reference::SampleMoments& normal_moments = normal_stats.moments;
    for (const auto& test : reference::normal_moment_tests(normal_moments)) judge(test);
    const double normal_chi = normal_stats.chi;
    judge(reference::chi_square_test(fmt::format("normal chi-square ({} equiprobable bins)", chi_square_bins),
                                     normal_chi, chi_square_bins - 1));

    // Seeds.
    const unsigned long long differ_same_seed = outcome.differ_same_seed;
    result.evidence("same_seed", fmt::format("{} of {} words differ between two generators seeded {:#x}",
                                             differ_same_seed, n, seed));
    if (differ_same_seed != 0)
        other_failures.push_back(
            fmt::format("two generators with the same seed gave different output: {} of {} words differ",
                        differ_same_seed, n));
    const unsigned long long equal_other_seed = n - outcome.differ_other_seed;
    result.evidence("other_seed", fmt::format("{} of {} words equal between seeds {:#x} and {:#x}", equal_other_seed, n,
                                              seed, other_seed));
    if (static_cast<double>(equal_other_seed) > max_equal_fraction_between_seeds * static_cast<double>(n))
        other_failures.push_back(fmt::format(
            "seeds {:#x} and {:#x} gave nearly the same output: {} of {} words equal (at most {:.0f} expected)", seed,
            other_seed, equal_other_seed, n, max_equal_fraction_between_seeds * static_cast<double>(n)));

    const double uniform_rate = gigasamples_per_second(n, gpu::median(outcome.uniform_ms));
    const double normal_rate = gigasamples_per_second(n, gpu::median(outcome.normal_ms));
    result.metric(generation_rate, uniform_rate, {{"distribution", "uniform"}});
    result.metric(generation_rate, normal_rate, {{"distribution", "normal"}});
    if (std::isfinite(uniform_moments.mean) && std::isfinite(uniform_moments.variance)) {
        result.metric(sample_mean, uniform_moments.mean, {{"distribution", "uniform"}});
        result.metric(sample_variance, uniform_moments.variance, {{"distribution", "uniform"}});
    }
    if (std::isfinite(normal_moments.mean) && std::isfinite(normal_moments.variance)) {
        result.metric(sample_mean, normal_moments.mean, {{"distribution", "normal"}});
        result.metric(sample_variance, normal_moments.variance, {{"distribution", "normal"}});
    }
    result.evidence(
        "method",
        fmt::format("CURAND_RNG_PSEUDO_PHILOX4_32_10, seed {:#x}, {} floats per distribution; moments and chi-square "
                    "in float64 on the host, each within {} standard errors; rates by CUDA events, median of {} "
                    "runs after 1 warm-up",
                    seed, outcome.count_text, reference::standard_errors_allowed, outcome.timed_runs));

    for (const std::string& failure : other_failures)
        result.add(Code::wrong_result, failure, std::string(statistics_remediation));
    for (const auto& test : failed)
        result.add(Code::wrong_result, fmt::format("cuRAND {} out of bounds: {}", test.name, test.describe()),
                   std::string(statistics_remediation));
    if (!failed.empty() || !other_failures.empty()) return;
    result.evidence("tests",
                    fmt::format("moments within {:.0f} standard errors, chi-square({}) {:.1f} and {:.1f}; same seed "
                                "identical, other "
                                "seed differs",
                                reference::standard_errors_allowed, chi_square_bins - 1, uniform_chi, normal_chi));
    result.summary(
        fmt::format("Philox, {} uniform and normal floats pass moment, chi-square and seed tests; uniform {:.1f}, "
                    "normal {:.1f} "
                    "Gsamples/s",
                    outcome.count_text, uniform_rate, normal_rate));
}

std::unique_ptr<Check> make_curand_generate_check() {
    return std::make_unique<FunctionCheck>(
        gpu::library_check_info({.id = "curand.generate",
                                 .title = "cuRAND generation",
                                 .description = "cuRAND Philox uniform and normal floats: moments, chi-square, range, "
                                                "reproducible by seed",
                                 .answers = "uniform and normal generation within statistical bounds; same seed same "
                                            "bits, other seed other "
                                            "stream"},
                                cuda_library::curand),
        [](CheckContext& context, ResultBuilder& result) {
            const auto version = gpu::version_evidence(result, "curandGetVersion", &CurandApi::get_version,
                                                       CURAND_STATUS_SUCCESS, describe_status);
            // A failed call stops the measurement unjudged (run_library_check reports it).
            gpu::run_library_check<Curand>(context, result, cuda_library::curand, curand_symbols, version,
                                           [&](const LoadedLibrary&, const CurandApi& api, int device) {
                                               RandomOutcome outcome;
                                               measure_random(api, context.options.level, device, outcome);
                                               judge_random(outcome, result);
                                           });
        });
}

const CheckRegistration curand_generate_registration{1600, make_curand_generate_check};

}  // namespace cudacheck
