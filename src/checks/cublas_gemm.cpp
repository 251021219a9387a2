// cublas.gemm: cuBLAS multiplies matrices correctly and at the speed the GPU should reach.
//  1. SGEMM and DGEMM on a small non-square problem, every element compared with a float64 CPU
//     product (relative Frobenius error; NaN never passes; the output is poisoned first).
//  2. cublasGemmEx throughput for FP32, TF32, FP16 and BF16 on square matrices large enough to fill
//     the GPU: CUDA events, median after warm-up, random inputs; a sample of entries of every
//     product is checked against a float64 reference, so a fast wrong answer cannot pass.
#include "checks/cublas_gemm.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "cuda/cuda_facts.hpp"
#include "gpu/cublas_support.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"
#include "probes/probes.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace cudacheck {

namespace {

using gpu::at;
using gpu::CublasHandle;
using gpu::stored_value;

using GemmSizes = std::array<std::size_t, gemm_precisions.size()>;

// Three matrices as large as the largest precision's (size^2 of its elements), allocated once and
// reused by every precision.
struct GemmBuffers {
    explicit GemmBuffers(const GemmSizes& sizes) : GemmBuffers(largest_matrix_bytes(sizes)) {}
    gpu::DeviceArray<unsigned char> a, b, c;

private:
    explicit GemmBuffers(std::size_t bytes) : a(bytes), b(bytes), c(bytes) {}
    static std::size_t largest_matrix_bytes(const GemmSizes& sizes) {
        std::size_t bytes = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i)
            bytes = std::max(bytes, sizes[i] * sizes[i] * gpu::element_bytes(gemm_precisions[i].element));
        return bytes;
    }
};

// Each precision's kernels load on their first use: ~100-150 ms each on an H200, ~150 ms for all
// four side by side, ~350 ms one after another (bench/cublas_costs.cpp). One untimed product per
// precision, each on its own thread, handle and stream, holding the GPU in shared mode, makes the
// loads overlap one another and whatever runs meanwhile; the destructor waits for them. The
// threads announce the cuBLAS step of the device (util/actions.hpp): a cuBLAS that kills the
// process here is charged to it. Other failures are left to the timed runs, which report them.
// Capturing the product into a CUDA graph instead of running it (no GPU work, so no need to hold
// the GPU) does not help: the kernels load during the capture just as long, and captures on
// several threads at once fail ("operation failed due to a previous error during capture"; bench/
// cublas_costs.cpp first-use ... capture, docs/examples/h200/issue21/third-pass/call-1).
class FirstUse {
public:
    FirstUse(const CublasApi& api, GemmBuffers& buffers, const GemmSizes& sizes, int device) {
        for (std::size_t i = 0; i < gemm_precisions.size(); ++i)
            loads_.push_back(std::async(std::launch::async, [&api, &buffers, size = sizes[i], device,
                                                             &precision = gemm_precisions[i]] {
                try {
                    const trace::Span span(fmt::format("first use of {}", precision.name));
                    const actions::Action step = gpu::cublas_handle_step(device);
                    gpu::refuse_if_failed(step);
                    const actions::Announced announced(step);
                    gpu::check(cudaSetDevice(device), "cudaSetDevice");
                    const gpu::Stream stream;
                    const CublasHandle handle(api);
                    handle.check(api.set_stream(handle.get(), stream.get()), "cublasSetStream");
                    const gpu::DeviceWork shared(device);
                    const float alpha = 1.0f;
                    const float beta = 0.0f;
                    const int s = static_cast<int>(size);
                    (void)api.gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, buffers.a.data(),
                                      precision.type, s, buffers.b.data(), precision.type, s, &beta, buffers.c.data(),
                                      precision.type, s, precision.compute, CUBLAS_GEMM_DEFAULT);
                    stream.synchronize();
                } catch (const std::exception&) {
                    // The timed run of this precision meets the same failure and reports it.
                }
            }));
    }
    FirstUse(const FirstUse&) = delete;
    FirstUse& operator=(const FirstUse&) = delete;
    ~FirstUse() {
        for (auto& load : loads_) load.wait();
    }

private:
    std::vector<std::future<void>> loads_;
};

// What the check's preparation makes for one device, in the background, as soon as cuBLAS is
// loaded and the device's context exists (the host checks still run): the check's handle
// (cublasCreate costs ~80-100 ms there), the buffers, and each precision's first use under way.
struct PreparedDevice {
    cublasHandle_t handle = nullptr;  // nullptr: none was made, the check creates its own
    GemmSizes sizes{};
    std::unique_ptr<GemmBuffers> buffers;  // null: the check allocates them
    std::unique_ptr<FirstUse> first_use;   // null: the check starts it
};

GemmSizes sizes_on_current_device() {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    return gemm_sizes(free_bytes);
}

// The check's preparation, once per process: a PreparedDevice per selected device.
class Preparation {
public:
    // Never destroyed: the threads of a FirstUse no check took may still run when the process ends.
    static Preparation& instance() {
        static Preparation* const handles = new Preparation;
        return *handles;
    }
    // Called from the check's preparation, in the background. Runs once per process.
    void create_all(Probes& probes) {
        if (started_.exchange(true)) return;
        struct Done {
            std::promise<void>& promise;
            ~Done() { promise.set_value(); }
        } done{done_};
        (void)bind_symbols(probes.library(cuda_library::cublas).library, cublas_symbols,
                           api_);  // the check reports what is missing
        const DriverFacts& driver = probes.driver();
        if (api_.create == nullptr || !driver.initialised()) return;
        std::vector<std::future<void>> per_device;
        for (const DeviceInfo& device : driver.devices) {
            const std::vector<int>& wanted = probes.prefetched_devices();
            if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), device.ordinal) == wanted.end()) continue;
            per_device.push_back(std::async(std::launch::async,
                                            [this, &probes, ordinal = device.ordinal] { prepare(probes, ordinal); }));
        }
    }
    // What was made for `device`, once (later calls get nothing); empty if nothing was made.
    // Waits for the preparation if it started (it is then nearly done: the check runs after cuInit).
    PreparedDevice take(int device) {
        if (started_) (void)ready_.wait_for(std::chrono::seconds(10));
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto found = prepared_.find(device);
        if (found == prepared_.end()) return {};
        return std::exchange(found->second, PreparedDevice{});
    }

private:
    void prepare(Probes& probes, int ordinal) {
        const trace::Span span(fmt::format("cublasCreate for device {} (prepared)", ordinal));
        probes.wait_for_context(ordinal);
        // Not after a failed context or handle: the check reports those.
        const actions::Action step = gpu::cublas_handle_step(ordinal);
        if (actions::failed(gpu::context_step(ordinal)) != nullptr || actions::failed(step) != nullptr) return;
        PreparedDevice prepared;
        try {
            {
                const trace::Span allocating("cuBLAS products' buffers (prepared)");
                gpu::check(cudaSetDevice(ordinal), "cudaSetDevice");
                prepared.sizes = sizes_on_current_device();
                prepared.buffers = std::make_unique<GemmBuffers>(prepared.sizes);
            }
            prepared.first_use = std::make_unique<FirstUse>(api_, *prepared.buffers, prepared.sizes, ordinal);
            const actions::Announced announced(step);
            if (api_.create(&prepared.handle) != CUBLAS_STATUS_SUCCESS) prepared.handle = nullptr;
        } catch (const std::exception&) {
            // Out of memory, a CUDA error: the check meets it again and reports it.
        }
        const std::lock_guard<std::mutex> lock(mutex_);
        prepared_[ordinal] = std::move(prepared);
    }

    CublasApi api_;  // bound once; the prepared FirstUse threads use it
    std::atomic<bool> started_{false};
    std::promise<void> done_;
    std::shared_future<void> ready_ = done_.get_future().share();
    std::mutex mutex_;
    std::map<int, PreparedDevice> prepared_;
};

// --- 1. correctness on a small problem, every element -------------------------------------

template <typename T>
gpu::Accuracy small_gemm_accuracy(const CublasApi& api, const CublasHandle& handle, const gpu::Stream& stream,
                                  kernels::Element element, int device) {
    // Non-square, K not a multiple of typical tile sizes: edges and remainders are exercised.
    constexpr std::size_t m = 256;
    constexpr std::size_t n = 192;
    constexpr std::size_t k = 328;
    // The float64 reference needs only the seeds: compute it on another core while the GPU works.
    std::future<std::vector<double>> reference = std::async(std::launch::async, [element] {
        std::vector<double> a_host(m * k), b_host(k * n), product(m * n, 0.0);
        for (std::size_t i = 0; i < a_host.size(); ++i) a_host[i] = stored_value(element, 11, i);
        for (std::size_t i = 0; i < b_host.size(); ++i) b_host[i] = stored_value(element, 12, i);
        for (std::size_t column = 0; column < n; ++column)
            for (std::size_t inner = 0; inner < k; ++inner) {
                const double factor = b_host[at(inner, column, k)];
                for (std::size_t row = 0; row < m; ++row)
                    product[at(row, column, m)] += a_host[at(row, inner, m)] * factor;
            }
        return product;
    });
    std::optional<gpu::DeviceWork> gpu_work(device);
    gpu::DeviceArray<T> a(m * k);
    gpu::DeviceArray<T> b(k * n);
    gpu::DeviceArray<T> c(m * n);
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(a.data(), element, a.size(), 11, stream.get())),
               "fill kernel");
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(b.data(), element, b.size(), 12, stream.get())),
               "fill kernel");
    gpu::check(cudaMemsetAsync(c.data(), 0xFF, c.bytes(), stream.get()),
               "cudaMemsetAsync");  // NaN: unwritten output fails
    const T one = 1;
    const T zero = 0;
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    if constexpr (std::is_same_v<T, float>)
        handle.check(api.sgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, mi, ni, ki, &one, a.data(), mi, b.data(), ki,
                               &zero, c.data(), mi),
                     "cublasSgemm");
    else
        handle.check(api.dgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, mi, ni, ki, &one, a.data(), mi, b.data(), ki,
                               &zero, c.data(), mi),
                     "cublasDgemm");
    std::vector<T> result(m * n);
    gpu::check(cudaMemcpyAsync(result.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    stream.synchronize();
    gpu_work.reset();
    const std::vector<double> expected = reference.get();
    gpu::AccuracyAccumulator accuracy;
    for (std::size_t i = 0; i < expected.size(); ++i) accuracy.add(static_cast<double>(result[i]), expected[i]);
    return accuracy.result();
}

// --- 2. throughput, with sampled verification --------------------------------------------

// The timed products of one precision at `size`^3; returns the rate and, for the float64 check,
// the sampled entries of the last product (`samples` entries spread over the whole output).
std::pair<GemmThroughput, gpu::GemmSamples> measure_gemm(const CublasApi& api, const CublasHandle& handle,
                                                         const gpu::Stream& stream, const GemmPrecision& precision,
                                                         std::size_t size, int warmups, int runs, int samples,
                                                         GemmBuffers& buffers, int device) {
    const std::size_t bytes = gpu::element_bytes(precision.element);
    std::optional<gpu::DeviceWork> gpu_work(device);  // time_on_stream makes it exclusive while timing
    const std::size_t elements = size * size;
    gpu::DeviceArray<unsigned char>& a = buffers.a;
    gpu::DeviceArray<unsigned char>& b = buffers.b;
    gpu::DeviceArray<unsigned char>& c = buffers.c;
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(a.data(), precision.element, elements, 21, stream.get())),
               "fill kernel");
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(b.data(), precision.element, elements, 22, stream.get())),
               "fill kernel");
    gpu::check(cudaMemsetAsync(c.data(), 0xFF, elements * bytes, stream.get()), "cudaMemsetAsync");
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const int s = static_cast<int>(size);
    const auto times = gpu::time_on_stream(stream, gpu_work, warmups, runs, [&] {
        handle.check(api.gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, a.data(), precision.type, s,
                                 b.data(), precision.type, s, &beta, c.data(), precision.type, s, precision.compute,
                                 CUBLAS_GEMM_DEFAULT),
                     fmt::format("cublasGemmEx({}, {}^3)", precision.name, size));
    });
    GemmThroughput throughput;
    throughput.precision = &precision;
    throughput.size = size;
    throughput.tflops = 2.0 * static_cast<double>(size) * size * size / (gpu::median(times) * 1e-3) / 1e12;
    return {throughput, gpu::copy_gemm_samples(c.data(), precision.element, size, samples, stream)};
}

// The sampled entries of each precision's product, recomputed in float64 from the inputs on
// another core while the next precision is timed (each is `size` regenerated products: a few ms).
// The destructor fills in each precision's accuracy, however the check ends.
class SampleChecks {
public:
    explicit SampleChecks(GemmOutcome& outcome) : outcome_(outcome) {}
    SampleChecks(const SampleChecks&) = delete;
    SampleChecks& operator=(const SampleChecks&) = delete;
    ~SampleChecks() {
        for (auto& [index, accuracy] : pending_) outcome_.throughput[index].accuracy = accuracy.get();
    }
    void start(std::size_t index, gpu::GemmSamples samples, kernels::Element element) {
        pending_.emplace_back(index, std::async(std::launch::async, [samples = std::move(samples), element] {
                                  try {
                                      return gpu::compare_gemm_samples(samples, element, 21, 22);
                                  } catch (const std::exception&) {
                                      gpu::Accuracy unknown;  // never within a tolerance: a check that could not run
                                        // does not pass
                                      unknown.relative_error = std::numeric_limits<double>::quiet_NaN();
                                      return unknown;
                                  }
                              }));
    }

private:
    GemmOutcome& outcome_;
    std::vector<std::pair<std::size_t, std::future<gpu::Accuracy>>> pending_;
};

// Wall time of each phase, as evidence: where a slow run spends its time (handle creation and the
// first use of each kernel load code; the GPU lock may wait for other checks).
class Phases {
public:
    void done(std::string_view phase) {
        const auto now = std::chrono::steady_clock::now();
        trace::record(std::string(phase), last_, now);
        text_ += fmt::format("{}{} {:.0f} ms", text_.empty() ? "" : ", ", phase,
                             std::chrono::duration<double, std::milli>(now - last_).count());
        last_ = now;
    }
    [[nodiscard]] const std::string& text() const { return text_; }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::string text_;
};

void measure_gemm_check(CheckContext& context, const CublasApi& api, int device, GemmOutcome& outcome) {
    Phases phases;
    gpu::Stream stream;
    PreparedDevice prepared = Preparation::instance().take(device);
    CublasHandle handle(api, prepared.handle);
    handle.check(api.set_stream(handle.get(), stream.get()), "cublasSetStream");
    handle.check(api.set_math_mode(handle.get(), CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    phases.done("handle");

    if (!prepared.buffers) {
        prepared.sizes = sizes_on_current_device();
        prepared.buffers = std::make_unique<GemmBuffers>(prepared.sizes);
    }
    // The first use of each precision (started by the preparation, or now) loads while the small
    // products are checked; it is over before anything is timed.
    if (!prepared.first_use)
        prepared.first_use = std::make_unique<FirstUse>(api, *prepared.buffers, prepared.sizes, device);
    {
        // DGEMM on its own thread, handle and stream: SGEMM's and DGEMM's kernels load on their first
        // use too (~90 ms each on an H200), side by side rather than one after the other.
        std::future<gpu::Accuracy> dgemm = std::async(std::launch::async, [&api, device] {
            gpu::check(cudaSetDevice(device), "cudaSetDevice");
            const gpu::Stream own_stream;
            const CublasHandle own(api);
            own.check(api.set_stream(own.get(), own_stream.get()), "cublasSetStream");
            return small_gemm_accuracy<double>(api, own, own_stream, kernels::Element::f64, device);
        });
        outcome.sgemm = small_gemm_accuracy<float>(api, handle, stream, kernels::Element::f32, device);
        outcome.dgemm = dgemm.get();
    }
    phases.done("SGEMM/DGEMM with references");
    prepared.first_use.reset();
    phases.done("first use of each precision");

    const bool full = context.options.level == Level::full;
    outcome.warmups = full ? 3 : 2;
    outcome.runs = full ? 20 : 5;
    // Each sample is a float64 dot product of host-regenerated inputs (FP16/BF16 rounding in
    // software), as long as the product's size: 32 keep the standard run short, full checks 128.
    outcome.samples = full ? 128 : 32;
    cudaDeviceProp properties{};
    gpu::check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    outcome.device_name = properties.name;
    SampleChecks sample_checks(outcome);  // its destructor waits for the float64 checks, however this ends
    for (std::size_t i = 0; i < gemm_precisions.size(); ++i) {
        auto [throughput, samples] =
            measure_gemm(api, handle, stream, gemm_precisions[i], prepared.sizes[i], outcome.warmups, outcome.runs,
                         outcome.samples, *prepared.buffers, device);
        outcome.throughput.push_back(throughput);
        sample_checks.start(i, std::move(samples), gemm_precisions[i].element);
        phases.done(gemm_precisions[i].name);
    }
    outcome.phases = phases.text();
}

}  // namespace

std::array<std::size_t, gemm_precisions.size()> gemm_sizes(std::size_t free_bytes) {
    std::array<std::size_t, gemm_precisions.size()> sizes{};
    for (std::size_t i = 0; i < gemm_precisions.size(); ++i) {
        std::size_t size = gemm_precisions[i].size;
        while (size > 2048 && 3 * size * size * 4 > free_bytes / 4) size /= 2;
        sizes[i] = size;
    }
    return sizes;
}

namespace {
constexpr MetricFamily gemm_rate{"gemm", "gemm_{precision}_{size}", Unit::tflops,
                                 "cuBLAS GEMM throughput by precision and matrix size (size^3), in TFLOP/s."};
constexpr MetricFamily gemm_of_peak{"gemm_of_peak", "gemm_{precision}_fraction_of_peak", Unit::percent,
                                    "cuBLAS GEMM throughput as a share (0-1) of the GPU's peak at that precision."};
constexpr MetricFamily gemm_peak{"gemm_peak", "gemm_{precision}_peak", Unit::tflops,
                                 "The GPU's datasheet peak at that precision, which a GEMM's share of the peak is "
                                 "taken of, in TFLOP/s.",
                                 false};
constexpr MetricFamily gemm_error{"gemm_relative_error", "{routine}_relative_error", Unit::ratio,
                                  "Largest relative error of a 256x192x328 product against float64, by routine."};
}  // namespace

void judge_gemm(const GemmOutcome& outcome, ResultBuilder& result) {
    if (outcome.sgemm)
        result.evidence("sgemm_256x192x328", describe(*outcome.sgemm, sgemm_tolerance), outcome.sgemm->relative_error,
                        Unit::ratio);
    if (outcome.dgemm)
        result.evidence("dgemm_256x192x328", describe(*outcome.dgemm, dgemm_tolerance), outcome.dgemm->relative_error,
                        Unit::ratio);
    if (outcome.sgemm && !outcome.sgemm->within(sgemm_tolerance))
        result.add(Code::wrong_result, "SGEMM 256x192x328: " + describe(*outcome.sgemm, sgemm_tolerance));
    if (outcome.dgemm && !outcome.dgemm->within(dgemm_tolerance))
        result.add(Code::wrong_result, "DGEMM 256x192x328: " + describe(*outcome.dgemm, dgemm_tolerance));

    const auto peaks = datasheet_peaks(outcome.device_name);
    std::string figures;
    for (const GemmThroughput& measured : outcome.throughput) {
        const GemmPrecision& precision = *measured.precision;
        const std::string label = sys::to_lower(precision.name);
        result.metric(gemm_rate, measured.tflops, {{"precision", label}, {"size", std::to_string(measured.size)}});
        std::string of_peak;
        if (peaks) {
            const double peak = (*peaks).*precision.peak;
            result.metric(gemm_of_peak, 100.0 * measured.tflops / peak, {{"precision", label}});
            result.metric(gemm_peak, peak, {{"precision", label}});
            of_peak = fmt::format(" ({:.0f}% of {:.0f})", 100.0 * measured.tflops / peak, peak);
        }
        result.evidence(fmt::format("gemm_{}", label),
                        fmt::format("{}^3: {:.1f} TFLOP/s{}, sampled {}", measured.size, measured.tflops, of_peak,
                                    describe(measured.accuracy, precision.tolerance)),
                        measured.tflops, Unit::tflops);
        if (!measured.accuracy.within(precision.tolerance))
            result.add(Code::wrong_result, fmt::format("{} GEMM {}^3: {}", precision.name, measured.size,
                                                       describe(measured.accuracy, precision.tolerance)));
        // "FP32 51, TF32 408 at 4096^3, FP16 751, BF16 786 at 8192^3": each run of one size named once.
        const bool size_changes = &measured == &outcome.throughput.back() || (&measured + 1)->size != measured.size;
        figures += fmt::format("{}{} {:.0f}{}", figures.empty() ? "" : ", ", precision.name, measured.tflops,
                               size_changes ? fmt::format(" at {}^3", measured.size) : "");
    }
    // The rest describes a complete measurement; a failure part-way is reported by its own finding.
    if (outcome.phases.empty() || !outcome.sgemm || !outcome.dgemm) return;
    result.evidence("phases", outcome.phases);
    result.metric(gemm_error, outcome.sgemm->relative_error, {{"routine", "sgemm"}});
    result.metric(gemm_error, outcome.dgemm->relative_error, {{"routine", "dgemm"}});
    result.evidence("method", fmt::format("cublasGemmEx, CUDA events, median of {} runs after {} warm-up(s), inputs "
                                          "uniform in [-1,1), "
                                          "{} sampled entries per product checked in float64",
                                          outcome.runs, outcome.warmups, outcome.samples));
    result.summary(fmt::format("SGEMM/DGEMM match float64 ({:.1e}/{:.1e}); TFLOP/s: {}", outcome.sgemm->relative_error,
                               outcome.dgemm->relative_error, figures));
}

std::unique_ptr<Check> make_cublas_gemm_check() {
    return std::make_unique<FunctionCheck>(
        gpu::library_check_info({.id = "cublas.gemm",
                                 .title = "cuBLAS GEMM",
                                 .description = "SGEMM/DGEMM against a float64 CPU reference; FP32/TF32/FP16/BF16 "
                                                "throughput, sampled and verified",
                                 .prepare =
                                     [](Probes& probes) {
                                         probes.prefetch([&probes] { Preparation::instance().create_all(probes); });
                                     },
                                 .answers = "SGEMM/DGEMM against a float64 reference; FP32/TF32 throughput at 4096³ "
                                            "and FP16/BF16 at 8192³, sampled "
                                            "and verified, against the datasheet peak"},
                                cuda_library::cublas),
        [](CheckContext& context, ResultBuilder& result) {
            gpu::run_cublas_check(context, result, [&](const CublasApi& api, int device) {
                measure_then_judge<GemmOutcome>(
                    [&](GemmOutcome& outcome) { measure_gemm_check(context, api, device, outcome); },
                    [&](const GemmOutcome& outcome) { judge_gemm(outcome, result); });
            });
        });
}

const CheckRegistration cublas_gemm_registration{1300, make_cublas_gemm_check};

}  // namespace cudacheck
