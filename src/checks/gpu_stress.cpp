// gpu.stress (--level full): sustained cuBLAS GEMMs on each GPU for --duration seconds, holding
// the GPU alone. A stable GPU gives bit-identical products for identical inputs with the same
// algorithm (cuBLAS is bitwise reproducible on one GPU, one stream and one handle), so every
// product is compared on the GPU with the first, word for word (kernels/compare.cu), and the first
// with a sampled float64 CPU reference. NVML is read every half second meanwhile: SM clock,
// clocks-event reasons, temperature, power. Findings: products that changed (CC516) or a wrong
// first product (CC504), slowdowns for heat, power brake or hardware reasons (CC517), and a rate
// that fell over the run (CC518).
//
// The id's area is `gpu` rather than `cublas`: this checks the GPU under load (cuBLAS is only the
// way to load it), like gpu.memtest beside it, and `--only gpu` selects exactly the two burn-in checks.
#include "checks/gpu_stress.hpp"
#include "checks/checks.hpp"
#include "cuda/cuda_facts.hpp"
#include "engine/progress.hpp"
#include "gpu/cublas_support.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/compare.cuh"
#include "kernels/random_fill.cuh"
#include "probes/nvml/gpu_sharing.hpp"
#include "probes/probes.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <future>
#include <mutex>
#include <thread>

namespace cudacheck {

namespace {

constexpr MetricFamily stress_rate{"stress", "stress_tflops_{stat}", Unit::tflops,
                                   "GEMM throughput under gpu.stress, per second of the run, by statistic, in "
                                   "TFLOP/s."};
constexpr MetricFamily stress_clock{"stress_sm_clock", "stress_sm_clock_{stat}", Unit::mhz,
                                    "SM clock NVML reported during gpu.stress, by statistic."};
constexpr MetricFamily stress_power{"stress_power", "stress_power_{stat}", Unit::watts,
                                    "Power draw NVML reported during gpu.stress, by statistic."};
constexpr MetricFamily stress_temperature{"stress_temperature", "stress_temperature_{stat}", Unit::celsius,
                                          "Temperature NVML reported during gpu.stress, by statistic."};
constexpr MetricFamily stress_drop{"stress_rate_drop", "stress_rate_drop", Unit::percent,
                                   "How far (0-1) the throughput fell from its best second during gpu.stress."};
constexpr MetricFamily stress_products{"stress_products", "stress_products", Unit::count,
                                       "Products gpu.stress computed and compared."};
constexpr MetricFamily stress_error{"stress_reference_relative_error", "stress_reference_relative_error", Unit::ratio,
                                    "Relative error of gpu.stress's reference product against float64."};

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t seed_a = 31;
constexpr std::uint64_t seed_b = 32;
// BF16 inputs with FP32 accumulation and FP32 output: tensor-core speed, and 32 bits of every
// entry to compare (a BF16 output would round most small flips away).
constexpr int reference_samples = 128;
// FP32 accumulation over K = 8192 of exact BF16 products: ~sqrt(K) * 2^-24 ≈ 5e-6 of relative
// error. 1e-3 leaves a wide margin, and one wrong sampled entry still fails (its share of the
// error over 128 samples is ~1/sqrt(128) ≈ 0.09).
constexpr double reference_tolerance = 1e-3;
constexpr double batch_seconds = 0.25;  // GEMMs queued between two looks at the clock and the counters
constexpr std::size_t max_batch = 512;
constexpr auto sample_interval = std::chrono::milliseconds(500);

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median_of(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
}

// Reads the GPU through NVML on its own thread, every sample_interval, until stopped.
class BackgroundSampler {
public:
    explicit BackgroundSampler(const NvmlClockSampler& sampler) : sampler_(sampler) {
        if (sampler_.ok()) thread_ = std::thread([this] { loop(); });
    }
    BackgroundSampler(const BackgroundSampler&) = delete;
    BackgroundSampler& operator=(const BackgroundSampler&) = delete;
    ~BackgroundSampler() { (void)stop(); }
    std::vector<NvmlClockSample> stop() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
        return samples_;
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stopping_) {
            lock.unlock();
            const NvmlClockSample sample = sampler_.sample(seconds_since(start_));
            lock.lock();
            samples_.push_back(sample);
            wake_.wait_for(lock, sample_interval, [this] { return stopping_; });
        }
    }

    const NvmlClockSampler& sampler_;
    const Clock::time_point start_ = Clock::now();
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::vector<NvmlClockSample> samples_;
    std::thread thread_;
};

// CUDA events, created once for the whole run.
class Events {
public:
    explicit Events(std::size_t count) : events_(count, nullptr) {
        for (cudaEvent_t& event : events_) gpu::check(cudaEventCreate(&event), "cudaEventCreate");
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    ~Events() {
        for (cudaEvent_t event : events_)
            if (event != nullptr) cudaEventDestroy(event);
    }
    [[nodiscard]] cudaEvent_t operator[](std::size_t index) const { return events_[index]; }

private:
    std::vector<cudaEvent_t> events_;
};

// The GPU half of the check: one product kept as the reference, then batches of products each
// timed with events and compared with it, until the duration is spent.
StressOutcome run_stress(const CheckContext& context, const CublasApi& api, int device, const DeviceInfo* info) {
    const gpu::Stream stream;
    const gpu::CublasHandle handle(api);
    handle.check(api.set_stream(handle.get(), stream.get()), "cublasSetStream");
    handle.check(api.set_math_mode(handle.get(), CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    std::optional<gpu::DeviceWork> gpu_work(device);
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    // 8192^3 keeps an H200 at its BF16 rate (~1.4 ms per product). A and B (2 bytes), the first and
    // the current product (4 bytes): at most a quarter of the free memory, for the other checks.
    std::size_t size = 8192;
    while (size > 1024 && 12 * size * size > free_bytes / 4) size /= 2;
    const std::size_t elements = size * size;
    gpu::DeviceArray<unsigned char> a(elements * 2);
    gpu::DeviceArray<unsigned char> b(elements * 2);
    gpu::DeviceArray<std::uint32_t> first(elements);
    gpu::DeviceArray<std::uint32_t> current(elements);
    gpu::DeviceArray<unsigned long long> differing(max_batch);
    gpu::PinnedArray<unsigned long long> differing_host(max_batch);
    const Events events(2 * max_batch);
    gpu::check(static_cast<cudaError_t>(
                   kernels::fill_uniform(a.data(), kernels::Element::bf16, elements, seed_a, stream.get())),
               "fill kernel");
    gpu::check(static_cast<cudaError_t>(
                   kernels::fill_uniform(b.data(), kernels::Element::bf16, elements, seed_b, stream.get())),
               "fill kernel");
    gpu::check(cudaMemsetAsync(first.data(), 0xFF, first.bytes(), stream.get()),
               "cudaMemsetAsync");  // NaN: unwritten output fails
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const int s = static_cast<int>(size);
    const std::string call = fmt::format("cublasGemmEx(BF16 in, FP32 out, {}^3)", size);
    const auto gemm = [&](std::uint32_t* output) {
        handle.check(api.gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, a.data(), CUDA_R_16BF, s,
                                 b.data(), CUDA_R_16BF, s, &beta, output, CUDA_R_32F, s, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT),
                     call);
    };
    gemm(first.data());
    const gpu::GemmSamples picked = gpu::copy_gemm_samples(reinterpret_cast<const unsigned char*>(first.data()),
                                                           kernels::Element::f32, size, reference_samples, stream);
    // The float64 reference needs only the seeds: computed on another core while the GPU works.
    std::future<gpu::Accuracy> reference = std::async(std::launch::async, [&picked] {
        return gpu::compare_gemm_samples(picked, kernels::Element::bf16, seed_a, seed_b);
    });

    StressOutcome outcome;
    outcome.work = fmt::format("BF16 {}^3 GEMM (FP32 accumulation and output)", size);
    outcome.words_per_result = elements;
    outcome.tolerance = reference_tolerance;
    const NvmlClockSampler sampler(context.probes.nvml(), info != nullptr ? info->pci_bus_id : std::string());
    std::vector<double> bucket_ms;
    std::vector<std::uint64_t> bucket_products;
    std::vector<NvmlClockSample> samples;
    gpu::alone_on_device(gpu_work, [&] {
        BackgroundSampler background(sampler);
        const Clock::time_point start = Clock::now();
        const double duration = context.options.stress_seconds;
        double mean_ms = 0;  // of one product; unknown before the first batch
        // The batches of the last second, for the progress line's live rate: (ended, products, ms).
        struct Recent {
            double ended;
            std::size_t products;
            double ms;
        };
        std::deque<Recent> recent;
        const double product_tflop =
            2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size) / 1e12;
        for (double now = 0; now < duration; now = seconds_since(start)) {
            const double wanted = std::min(batch_seconds, duration - now) * 1000.0;
            const std::size_t batch =
                mean_ms > 0
                    ? std::clamp<std::size_t>(static_cast<std::size_t>(std::llround(wanted / mean_ms)), 1, max_batch)
                    : 1;
            for (std::size_t j = 0; j < batch; ++j) {
                gpu::check(cudaEventRecord(events[2 * j], stream.get()), "cudaEventRecord");
                gemm(current.data());
                gpu::check(cudaEventRecord(events[2 * j + 1], stream.get()), "cudaEventRecord");
                gpu::check(static_cast<cudaError_t>(kernels::count_mismatches(first.data(), current.data(), elements,
                                                                              differing.data() + j, stream.get())),
                           "compare kernel");
            }
            gpu::check(cudaMemcpyAsync(differing_host.data(), differing.data(), batch * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, stream.get()),
                       "cudaMemcpyAsync");
            stream.synchronize();
            const double ended = seconds_since(start);
            double batch_ms = 0;
            for (std::size_t j = 0; j < batch; ++j) {
                float milliseconds = 0;
                gpu::check(cudaEventElapsedTime(&milliseconds, events[2 * j], events[2 * j + 1]),
                           "cudaEventElapsedTime");
                batch_ms += milliseconds;
                if (differing_host.data()[j] == 0) continue;
                ++outcome.differing_results;
                outcome.differing_words += differing_host.data()[j];
                if (!outcome.first_difference_seconds) outcome.first_difference_seconds = ended;
            }
            outcome.results += batch;
            const auto bucket = static_cast<std::size_t>(ended);
            if (bucket_ms.size() <= bucket) {
                bucket_ms.resize(bucket + 1, 0.0);
                bucket_products.resize(bucket + 1, 0);
            }
            bucket_ms[bucket] += batch_ms;
            bucket_products[bucket] += batch;
            mean_ms = batch_ms / static_cast<double>(batch);
            recent.push_back({ended, batch, batch_ms});
            while (recent.size() > 1 && recent.front().ended < ended - 1.0) recent.pop_front();
            double recent_ms = 0;
            std::size_t recent_products = 0;
            for (const Recent& entry : recent) recent_ms += entry.ms, recent_products += entry.products;
            if (recent_ms > 0)
                report_progress(context, ProgressFigure{ended,
                                                        duration,
                                                        product_tflop * static_cast<double>(recent_products) /
                                                            (recent_ms * 1e-3),
                                                        "TFLOP/s",
                                                        {}});
        }
        outcome.seconds = seconds_since(start);
        samples = background.stop();
    });
    gpu_work.reset();
    const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
    for (std::size_t i = 0; i < bucket_ms.size(); ++i)
        if (bucket_products[i] > 0 && bucket_ms[i] > 0)
            outcome.tflops_per_second.push_back(flops * static_cast<double>(bucket_products[i]) /
                                                (bucket_ms[i] * 1e-3) / 1e12);
    if (sampler.ok()) outcome.samples = std::move(samples);
    outcome.reference = reference.get();
    return outcome;
}

constexpr std::uint64_t judged_slowdowns[] = {clocks_event::hw_slowdown, clocks_event::sw_thermal_slowdown,
                                              clocks_event::hw_thermal_slowdown, clocks_event::hw_power_brake_slowdown};

// The values of the samples that have the field, scaled.
template <typename Field>
std::vector<double> sampled_values(const std::vector<NvmlClockSample>& samples, Field field, double scale) {
    std::vector<double> values;
    for (const NvmlClockSample& sample : samples)
        if (const auto value = field(sample)) values.push_back(static_cast<double>(*value) * scale);
    return values;
}

// "34-61 C", from the samples that have the field.
template <typename Field>
std::string range_text(const std::vector<NvmlClockSample>& samples, Field field, double scale, std::string_view unit) {
    const std::vector<double> values = sampled_values(samples, field, scale);
    if (values.empty()) return "?";
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    if (*low == *high) return fmt::format("{:.0f} {}", *low, unit);
    return fmt::format("{:.0f}-{:.0f} {}", *low, *high, unit);
}

// The range as evidence; when every sample had the one value, that value is its figure too ("61 C":
// 61, rounded as the text rounds it: "{:.0f}" rounds half to even, as nearbyint does).
template <typename Field>
void range_evidence(ResultBuilder& result, std::string key, const std::vector<NvmlClockSample>& samples, Field field,
                    double scale, Unit unit) {
    std::string text = range_text(samples, field, scale, to_string(unit));
    const std::vector<double> values = sampled_values(samples, field, scale);
    const bool one_value = !values.empty() && std::all_of(values.begin(), values.end(),
                                                          [&](double value) { return value == values.front(); });
    if (one_value) result.evidence(std::move(key), std::move(text), std::nearbyint(values.front()), unit);
    else result.evidence(std::move(key), std::move(text));
}

std::optional<double> highest(const std::vector<NvmlClockSample>& samples,
                              std::optional<unsigned int> NvmlClockSample::* field) {
    std::optional<double> best;
    for (const NvmlClockSample& sample : samples)
        if (const auto value = sample.*field; value && (!best || *value > *best)) best = *value;
    return best;
}

void add_nvml_evidence(const std::vector<NvmlClockSample>& samples, ResultBuilder& result) {
    result.evidence("nvml_samples",
                    fmt::format("{} over the run, every {} ms", samples.size(), sample_interval.count()));
    range_evidence(
        result, "sm_clock", samples, [](const NvmlClockSample& s) { return s.sm_clock_mhz; }, 1.0, Unit::mhz);
    range_evidence(
        result, "temperature", samples, [](const NvmlClockSample& s) { return s.temperature_c; }, 1.0, Unit::celsius);
    range_evidence(result, "power", samples, [](const NvmlClockSample& s) { return s.power_mw; }, 1e-3, Unit::watts);
    // Every reason seen, the normal ones too (SW power cap is where a GPU at full load sits).
    std::vector<std::string> seen;
    std::size_t answered = 0;
    for (const NvmlClockSample& sample : samples) answered += sample.clocks_event_reasons.has_value();
    for (int bit = 0; bit < 64; ++bit) {
        const std::uint64_t reason = std::uint64_t{1} << bit;
        std::size_t with = 0;
        for (const NvmlClockSample& sample : samples) with += (sample.clocks_event_reasons.value_or(0) & reason) != 0;
        if (with > 0)
            seen.push_back(fmt::format("{} {:.0f}%", describe_clocks_event_reasons(reason),
                                       100.0 * static_cast<double>(with) / static_cast<double>(answered)));
    }
    result.evidence("clocks_event_reasons", answered == 0  ? "not reported"
                                            : seen.empty() ? "none"
                                                           : fmt::format("{}", fmt::join(seen, ", ")));
    if (const auto clock = highest(samples, &NvmlClockSample::sm_clock_mhz))
        result.metric(stress_clock, *clock, {{"stat", "max"}});
    std::optional<double> lowest_clock;
    for (const NvmlClockSample& sample : samples)
        if (sample.sm_clock_mhz && (!lowest_clock || *sample.sm_clock_mhz < *lowest_clock))
            lowest_clock = *sample.sm_clock_mhz;
    if (lowest_clock) result.metric(stress_clock, *lowest_clock, {{"stat", "min"}});
    if (const auto temperature = highest(samples, &NvmlClockSample::temperature_c))
        result.metric(stress_temperature, *temperature, {{"stat", "max"}});
    if (const auto power = highest(samples, &NvmlClockSample::power_mw))
        result.metric(stress_power, *power / 1000.0, {{"stat", "max"}});
}

// NVML's readings as numbers: every sample (seconds since sampling began), and per second of the
// run beside the rate: the mean clock and power, the highest temperature, the reasons seen.
template <typename Field>
std::optional<double> reading(const NvmlClockSample& sample, Field field, double scale) {
    if (const auto value = field(sample)) return static_cast<double>(*value) * scale;
    return std::nullopt;
}

Series nvml_sample_series(const std::vector<NvmlClockSample>& samples) {
    Series table{"nvml_samples",
                 {},
                 {{"time", "s", {}},
                  {"sm_clock", "MHz", {}},
                  {"temperature", "C", {}},
                  {"power", "W", {}},
                  {"clocks_event_reasons", "bitmask", {}}}};
    for (const NvmlClockSample& sample : samples) {
        table.columns[0].values.push_back(sample.seconds);
        table.columns[1].values.push_back(
            reading(sample, [](const NvmlClockSample& s) { return s.sm_clock_mhz; }, 1.0));
        table.columns[2].values.push_back(
            reading(sample, [](const NvmlClockSample& s) { return s.temperature_c; }, 1.0));
        table.columns[3].values.push_back(reading(sample, [](const NvmlClockSample& s) { return s.power_mw; }, 1e-3));
        table.columns[4].values.push_back(
            reading(sample, [](const NvmlClockSample& s) { return s.clocks_event_reasons; }, 1.0));
    }
    return table;
}

Series per_second_series(const StressOutcome& outcome) {
    Series table{"per_second", {}, {{"second", "s", {}}, {"tflops", "TFLOP/s", {}}}};
    const bool sampled = outcome.samples.has_value();
    if (sampled)
        for (const auto& [name, unit] :
             {std::pair{"sm_clock", "MHz"}, {"temperature", "C"}, {"power", "W"}, {"clocks_event_reasons", "bitmask"}})
            table.columns.push_back(SeriesColumn{name, unit, {}});
    for (std::size_t second = 0; second < outcome.tflops_per_second.size(); ++second) {
        table.columns[0].values.push_back(static_cast<double>(second));
        table.columns[1].values.push_back(outcome.tflops_per_second[second]);
        if (!sampled) continue;
        double clock_sum = 0, power_sum = 0;
        std::size_t clocks = 0, powers = 0;
        std::optional<double> temperature;
        std::optional<std::uint64_t> reasons;
        for (const NvmlClockSample& sample : *outcome.samples) {
            if (sample.seconds < static_cast<double>(second) || sample.seconds >= static_cast<double>(second + 1))
                continue;
            if (sample.sm_clock_mhz) clock_sum += *sample.sm_clock_mhz, ++clocks;
            if (sample.power_mw) power_sum += *sample.power_mw / 1000.0, ++powers;
            if (sample.temperature_c && (!temperature || *sample.temperature_c > *temperature))
                temperature = *sample.temperature_c;
            if (sample.clocks_event_reasons) reasons = reasons.value_or(0) | *sample.clocks_event_reasons;
        }
        table.columns[2].values.push_back(clocks ? std::optional(clock_sum / static_cast<double>(clocks))
                                                 : std::nullopt);
        table.columns[3].values.push_back(temperature);
        table.columns[4].values.push_back(powers ? std::optional(power_sum / static_cast<double>(powers))
                                                 : std::nullopt);
        table.columns[5].values.push_back(reasons ? std::optional(static_cast<double>(*reasons)) : std::nullopt);
    }
    return table;
}

}  // namespace

std::vector<ReasonShare> slowdown_shares(const std::vector<NvmlClockSample>& samples) {
    std::vector<ReasonShare> shares;
    std::size_t answered = 0;
    for (const NvmlClockSample& sample : samples) answered += sample.clocks_event_reasons.has_value();
    for (const std::uint64_t reason : judged_slowdowns) {
        std::size_t with = 0;
        for (const NvmlClockSample& sample : samples) with += (sample.clocks_event_reasons.value_or(0) & reason) != 0;
        if (with > 0) shares.push_back(ReasonShare{reason, with, answered});
    }
    return shares;
}

std::optional<double> rate_drop(const std::vector<double>& tflops_per_second) {
    const std::size_t third = tflops_per_second.size() / 3;
    if (third == 0) return std::nullopt;
    const double early =
        median_of({tflops_per_second.begin(), tflops_per_second.begin() + static_cast<std::ptrdiff_t>(third)});
    const double late =
        median_of({tflops_per_second.end() - static_cast<std::ptrdiff_t>(third), tflops_per_second.end()});
    if (early <= 0) return std::nullopt;
    return 1.0 - late / early;
}

void judge_stress(const StressOutcome& outcome, ResultBuilder& result) {
    result.evidence("work", outcome.work);
    result.evidence("method", fmt::format("held the GPU alone for {:.1f} s; each product timed with CUDA events and "
                                          "compared word for word on the GPU "
                                          "with the first; the first's {} sampled entries against float64 (tolerance "
                                          "{:g}); rates per second "
                                          "of the run from the products' GPU time",
                                          outcome.seconds, outcome.reference.count, outcome.tolerance));
    result.evidence("products",
                    fmt::format("{} compared, {} differed from the first", outcome.results, outcome.differing_results));
    std::vector<std::string> buckets;
    for (std::size_t i = 0; i < outcome.tflops_per_second.size(); ++i)
        buckets.push_back(fmt::format("{:.0f}", outcome.tflops_per_second[i]));
    result.evidence("tflops_per_second", fmt::format("{}", fmt::join(buckets, " ")));
    result.series(per_second_series(outcome));
    if (outcome.samples) result.series(nvml_sample_series(*outcome.samples));
    const double median = median_of(outcome.tflops_per_second);
    double low = 0;
    double high = 0;
    if (!outcome.tflops_per_second.empty()) {
        low = *std::min_element(outcome.tflops_per_second.begin(), outcome.tflops_per_second.end());
        high = *std::max_element(outcome.tflops_per_second.begin(), outcome.tflops_per_second.end());
    }
    result.metric(stress_rate, median, {{"stat", "median"}});
    result.metric(stress_rate, low, {{"stat", "min"}});
    result.metric(stress_rate, high, {{"stat", "max"}});
    result.metric(stress_products, static_cast<double>(outcome.results));
    result.metric(stress_error, outcome.reference.relative_error);

    if (!outcome.reference.within(outcome.tolerance))
        result.add(Code::wrong_result, fmt::format("the first {} product's sampled entries against float64: {}",
                                                   outcome.work, gpu::describe(outcome.reference, outcome.tolerance)));
    if (outcome.differing_results > 0)
        result.add(Code::gpu_results_unstable,
                   fmt::format("{} of {} products differed from the first ({} of {} words per product on average; "
                               "first seen {:.1f} s into the run): "
                               "the same inputs and algorithm gave different bits",
                               outcome.differing_results, outcome.results,
                               outcome.differing_words / outcome.differing_results, outcome.words_per_result,
                               outcome.first_difference_seconds.value_or(0.0)));
    if (outcome.samples) {
        add_nvml_evidence(*outcome.samples, result);
        std::vector<std::string> reasons;
        for (const ReasonShare& share : slowdown_shares(*outcome.samples))
            reasons.push_back(
                fmt::format("{} ({} of {} samples, {:.0f}%)", describe_clocks_event_reasons(share.reason),
                            share.samples_with, share.samples,
                            100.0 * static_cast<double>(share.samples_with) / static_cast<double>(share.samples)));
        if (!reasons.empty()) {
            const auto temperature = highest(*outcome.samples, &NvmlClockSample::temperature_c);
            const auto power = highest(*outcome.samples, &NvmlClockSample::power_mw);
            result.add(Code::gpu_throttled_under_load,
                       fmt::format("clocks held down during the stress by {}{}{}", fmt::join(reasons, ", "),
                                   temperature ? fmt::format("; up to {:.0f} C", *temperature) : "",
                                   power ? fmt::format(", {:.0f} W", *power / 1000.0) : ""));
        }
    } else {
        result.evidence("nvml_samples",
                        "none: NVML is not available for this GPU (see driver.nvml), so clocks and slowdowns were not "
                        "read");
    }
    if (const auto drop = rate_drop(outcome.tflops_per_second); drop) {
        result.metric(stress_drop, 100.0 * *drop);
        if (!outcome.shared_with.empty())
            result.evidence("rate_not_judged", fmt::format("the GPU was shared during the stress ({}): a fall of the "
                                                           "rate is not this GPU's",
                                                           outcome.shared_with));
        else if (*drop > stress_rate_drop_limit) {
            const std::size_t third = outcome.tflops_per_second.size() / 3;
            result.add(Code::gpu_rate_dropped,
                       fmt::format("the rate fell {:.0f}% over the run (limit {:.0f}%): median {:.0f} TFLOP/s in the "
                                   "first {} s, {:.0f} in the last {} s",
                                   100.0 * *drop, 100.0 * stress_rate_drop_limit,
                                   median_of({outcome.tflops_per_second.begin(),
                                              outcome.tflops_per_second.begin() + static_cast<std::ptrdiff_t>(third)}),
                                   third,
                                   median_of({outcome.tflops_per_second.end() - static_cast<std::ptrdiff_t>(third),
                                              outcome.tflops_per_second.end()}),
                                   third));
        }
    }
    std::string conditions;
    if (outcome.samples && !outcome.samples->empty())
        conditions = fmt::format(
            "; SM {}, {}",
            range_text(
                *outcome.samples, [](const NvmlClockSample& s) { return s.sm_clock_mhz; }, 1.0, "MHz"),
            range_text(*outcome.samples, [](const NvmlClockSample& s) { return s.temperature_c; }, 1.0, "C"));
    // The headline: the work, its repeatability and its rate; the float64 match and the clocks and
    // temperatures while it ran are evidence.
    result.evidence("first_product_against_float64", fmt::format("{:.1e}", outcome.reference.relative_error));
    if (!conditions.empty()) result.evidence("clocks_and_temperature", conditions.substr(2));
    result.summary(fmt::format("{} for {:.0f} s: {} products bit-identical; {:.0f} TFLOP/s median ({:.0f}-{:.0f})",
                               outcome.work.substr(0, outcome.work.find(" (")), outcome.seconds, outcome.results,
                               median, low, high));
}

namespace {

// One GPU's stress run, judged; the datasheet peak of its model beside the median rate.
void run_and_judge_stress(CheckContext& context, ResultBuilder& result, const CublasApi& api, int device) {
    const DeviceInfo* device_info = nullptr;
    for (const DeviceInfo& listed : context.probes.initialised_driver().devices)
        if (listed.ordinal == device) device_info = &listed;
    StressOutcome outcome = run_stress(context, api, device, device_info);
    if (context.sharing)
        for (const GpuSharing& sharing : context.sharing())
            if (sharing.device == device) outcome.shared_with = describe_sharing(sharing);
    judge_stress(outcome, result);
    if (const auto peaks = device_info != nullptr ? datasheet_peaks(device_info->name) : std::nullopt;
        peaks && !outcome.tflops_per_second.empty())
        result.evidence("datasheet_peak", fmt::format("BF16 {:.0f} TFLOP/s: the median is {:.0f}% of it", peaks->bf16,
                                                      100.0 * median_of(outcome.tflops_per_second) / peaks->bf16));
}

}  // namespace

std::unique_ptr<Check> make_gpu_stress_check() {
    return std::make_unique<FunctionCheck>(
        gpu::library_check_info(
            {.id = "gpu.stress",
             .title = "GPU stress (--level full)",
             .description =
                 "Sustained BF16 GEMMs for --duration seconds: every product bit-identical, the first against float64; "
                 "TFLOP/s over time, clocks, slowdowns and temperature through NVML",
             .min_level = Level::full,
             .raises = {Code::gpu_results_unstable, Code::gpu_throttled_under_load, Code::gpu_rate_dropped},
             .answers =
                 "at `--level full`: sustained BF16 GEMMs (cuBLAS, 8192³) holding the GPU alone for `--duration` "
                 "seconds (default 20): every product compared bit for bit with the first on the GPU, the first with "
                 "a float64 reference; TFLOP/s per second of the run, SM clock, clocks-event reasons, temperature and"
                 " power from NVML; warns on thermal, power-brake or hardware slowdowns and on a rate that falls by "
                 "more than 15%",
             .burn_in = true},
            cuda_library::cublas),
        [](CheckContext& context, ResultBuilder& result) {
            gpu::run_cublas_check(context, result, [&](const CublasApi& api, int device) {
                run_and_judge_stress(context, result, api, device);
            });
        });
}

const CheckRegistration gpu_stress_registration{1800, make_gpu_stress_check};

}  // namespace cudacheck
