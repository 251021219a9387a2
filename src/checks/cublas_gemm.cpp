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
#include "util/system.hpp"
#include "util/trace.hpp"
#include "gpu/cublas_support.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"
#include "probes/probes.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace cudacheck {

namespace {

using gpu::at;
using gpu::CublasHandle;
using gpu::stored_value;

// cublasCreate costs ~100-200 ms on an H200 (cuBLASLt's set-up in the new context). The check's
// preparation creates one handle per device as soon as cuBLAS is loaded and the driver is up, while
// the host checks still run; the check takes it, or creates its own if there is none.
class EarlyHandles {
public:
    static EarlyHandles& instance() {
        static EarlyHandles handles;
        return handles;
    }
    // Called from the check's preparation, in the background. Runs once per process.
    void create_all(Probes& probes) {
        if (started_.exchange(true)) return;
        struct Done {
            std::promise<void>& promise;
            ~Done() { promise.set_value(); }
        } done{done_};
        CublasApi api;
        (void)bind_symbols(probes.library(cuda_library::cublas).library, cublas_symbols, api);  // the check reports what is missing
        const auto create = api.create;
        const DriverFacts& driver = probes.driver();
        if (create == nullptr || !driver.initialised()) return;
        std::vector<std::future<void>> per_device;
        for (const DeviceInfo& device : driver.devices) {
            const std::vector<int>& wanted = probes.prefetched_devices();
            if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), device.ordinal) == wanted.end()) continue;
            per_device.push_back(std::async(std::launch::async, [this, &probes, create, ordinal = device.ordinal] {
                const trace::Span span(fmt::format("cublasCreate for device {} (prepared)", ordinal));
                cublasHandle_t handle = nullptr;
                probes.wait_for_context(ordinal);
                // Not after a failed context or handle: the check reports those.
                const actions::Action step = gpu::cublas_handle_step(ordinal);
                if (actions::failed(gpu::context_step(ordinal)) == nullptr && actions::failed(step) == nullptr) {
                    const actions::Announced announced(step);
                    if (cudaSetDevice(ordinal) != cudaSuccess || create(&handle) != CUBLAS_STATUS_SUCCESS) handle = nullptr;
                }
                const std::lock_guard<std::mutex> lock(mutex_);
                handles_[ordinal] = handle;
            }));
        }
    }
    // The handle made for `device`, once (later calls get nullptr); nullptr if none was made.
    // Waits for the preparation if it started (it is then nearly done: the check runs after cuInit).
    cublasHandle_t take(int device) {
        if (started_) (void)ready_.wait_for(std::chrono::seconds(10));
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto found = handles_.find(device);
        if (found == handles_.end()) return nullptr;
        return std::exchange(found->second, nullptr);
    }

private:
    std::atomic<bool> started_{false};
    std::promise<void> done_;
    std::shared_future<void> ready_ = done_.get_future().share();
    std::mutex mutex_;
    std::map<int, cublasHandle_t> handles_;
};

// --- 1. correctness on a small problem, every element -------------------------------------

template <typename T>
gpu::Accuracy small_gemm_accuracy(const CublasApi& api, const CublasHandle& handle, const gpu::Stream& stream, kernels::Element element,
                                  int device) {
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
                for (std::size_t row = 0; row < m; ++row) product[at(row, column, m)] += a_host[at(row, inner, m)] * factor;
            }
        return product;
    });
    std::optional<gpu::DeviceWork> gpu_work(device);
    gpu::DeviceArray<T> a(m * k);
    gpu::DeviceArray<T> b(k * n);
    gpu::DeviceArray<T> c(m * n);
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(a.data(), element, a.size(), 11, stream.get())), "fill kernel");
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(b.data(), element, b.size(), 12, stream.get())), "fill kernel");
    gpu::check(cudaMemsetAsync(c.data(), 0xFF, c.bytes(), stream.get()), "cudaMemsetAsync");  // NaN: unwritten output fails
    const T one = 1;
    const T zero = 0;
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    if constexpr (std::is_same_v<T, float>)
        handle.check(api.sgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, mi, ni, ki, &one, a.data(), mi, b.data(), ki, &zero, c.data(), mi), "cublasSgemm");
    else
        handle.check(api.dgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, mi, ni, ki, &one, a.data(), mi, b.data(), ki, &zero, c.data(), mi), "cublasDgemm");
    std::vector<T> result(m * n);
    gpu::check(cudaMemcpyAsync(result.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost, stream.get()), "cudaMemcpyAsync");
    stream.synchronize();
    gpu_work.reset();
    const std::vector<double> expected = reference.get();
    gpu::AccuracyAccumulator accuracy;
    for (std::size_t i = 0; i < expected.size(); ++i) accuracy.add(static_cast<double>(result[i]), expected[i]);
    return accuracy.result();
}

// --- 2. throughput, with sampled verification --------------------------------------------

// Three size x size matrices of the widest element, allocated once and reused by every precision.
struct GemmBuffers {
    explicit GemmBuffers(std::size_t size) : a(size * size * 4), b(size * size * 4), c(size * size * 4) {}
    gpu::DeviceArray<unsigned char> a, b, c;
};

GemmThroughput measure_gemm(const CublasApi& api, const CublasHandle& handle, const gpu::Stream& stream, const GemmPrecision& precision,
                        std::size_t size, int warmups, int runs, int samples, GemmBuffers& buffers, int device) {
    const std::size_t bytes = gpu::element_bytes(precision.element);
    std::optional<gpu::DeviceWork> gpu_work(device);  // time_on_stream makes it exclusive while timing
    const std::size_t elements = size * size;
    gpu::DeviceArray<unsigned char>& a = buffers.a;
    gpu::DeviceArray<unsigned char>& b = buffers.b;
    gpu::DeviceArray<unsigned char>& c = buffers.c;
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(a.data(), precision.element, elements, 21, stream.get())), "fill kernel");
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(b.data(), precision.element, elements, 22, stream.get())), "fill kernel");
    gpu::check(cudaMemsetAsync(c.data(), 0xFF, elements * bytes, stream.get()), "cudaMemsetAsync");
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const int s = static_cast<int>(size);
    const auto times = gpu::time_on_stream(stream, gpu_work, warmups, runs, [&] {
        handle.check(api.gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, a.data(), precision.type, s, b.data(), precision.type, s,
                                 &beta, c.data(), precision.type, s, precision.compute, CUBLAS_GEMM_DEFAULT),
                     fmt::format("cublasGemmEx({}, {}^3)", precision.name, size));
    });
    GemmThroughput throughput;
    throughput.precision = &precision;
    throughput.tflops = 2.0 * static_cast<double>(size) * size * size / (gpu::median(times) * 1e-3) / 1e12;

    // Entries spread over the whole output, each recomputed in float64 from the inputs.
    const gpu::GemmSamples picked = gpu::copy_gemm_samples(c.data(), precision.element, size, samples, stream);
    gpu_work.reset();
    throughput.accuracy = gpu::compare_gemm_samples(picked, precision.element, 21, 22);
    return throughput;
}

// Wall time of each phase, as evidence: where a slow run spends its time (handle creation and the
// first use of each kernel load code; the GPU lock may wait for other checks).
class Phases {
public:
    void done(std::string_view phase) {
        const auto now = std::chrono::steady_clock::now();
        trace::record(std::string(phase), last_, now);
        text_ += fmt::format("{}{} {:.0f} ms", text_.empty() ? "" : ", ", phase, std::chrono::duration<double, std::milli>(now - last_).count());
        last_ = now;
    }
    [[nodiscard]] const std::string& text() const { return text_; }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::string text_;
};

// One untimed product per precision, each on its own thread, handle and stream, holding the GPU in
// shared mode; the destructor waits for them. Failures are left to the timed runs, which report them.
class FirstUse {
public:
    FirstUse(const CublasApi& api, GemmBuffers& buffers, std::size_t size, int device) {
        for (const GemmPrecision& precision : gemm_precisions)
            loads_.push_back(std::async(std::launch::async, [&api, &buffers, size, device, &precision] {
                try {
                    const trace::Span span(fmt::format("first use of {}", precision.name));
                    gpu::check(cudaSetDevice(device), "cudaSetDevice");
                    const gpu::Stream stream;
                    const CublasHandle handle(api);
                    handle.check(api.set_stream(handle.get(), stream.get()), "cublasSetStream");
                    const gpu::DeviceWork shared(device);
                    const float alpha = 1.0f;
                    const float beta = 0.0f;
                    const int s = static_cast<int>(size);
                    (void)api.gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &alpha, buffers.a.data(), precision.type, s, buffers.b.data(),
                                      precision.type, s, &beta, buffers.c.data(), precision.type, s, precision.compute, CUBLAS_GEMM_DEFAULT);
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

void measure_gemm_check(CheckContext& context, const CublasApi& api, int device, GemmOutcome& outcome) {
    Phases phases;
    gpu::Stream stream;
    CublasHandle handle(api, EarlyHandles::instance().take(device));
    handle.check(api.set_stream(handle.get(), stream.get()), "cublasSetStream");
    handle.check(api.set_math_mode(handle.get(), CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    phases.done("handle");

    // 8192^3 fills an H100/H200 (and keeps each FP32 product ~20 ms there); full repeats more. Its
    // three 256 MiB matrices may take at most a quarter of the free memory (the other checks of
    // the device run at the same time): smaller GPUs get 4096^3 or 2048^3.
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    std::size_t size = 8192;
    while (size > 2048 && 3 * size * size * 4 > free_bytes / 4) size /= 2;
    GemmBuffers buffers(size);
    {
        // Each precision's kernels load on first use (~100 ms each for FP16 and BF16 on the H200):
        // loaded side by side here, while the small products below are checked, they stop
        // lengthening the timed phases one after another.
        const FirstUse first_use(api, buffers, size, device);
        outcome.sgemm = small_gemm_accuracy<float>(api, handle, stream, kernels::Element::f32, device);
        outcome.dgemm = small_gemm_accuracy<double>(api, handle, stream, kernels::Element::f64, device);
        phases.done("SGEMM/DGEMM with references");
    }
    phases.done("first use of each precision");

    const bool full = context.options.level == Level::full;
    outcome.warmups = full ? 3 : 1;
    outcome.runs = full ? 20 : 3;
    // Each sample is a 8192-long float64 dot product of host-regenerated inputs (FP16/BF16 rounding
    // in software): 32 keep the standard run short, full checks 128.
    outcome.samples = full ? 128 : 32;
    cudaDeviceProp properties{};
    gpu::check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    outcome.device_name = properties.name;
    outcome.size = size;
    for (const GemmPrecision& precision : gemm_precisions) {
        outcome.throughput.push_back(measure_gemm(api, handle, stream, precision, size, outcome.warmups, outcome.runs, outcome.samples, buffers, device));
        phases.done(precision.name);
    }
    outcome.phases = phases.text();
}

}  // namespace

void judge_gemm(const GemmOutcome& outcome, ResultBuilder& result) {
    if (outcome.sgemm) result.evidence("sgemm_256x192x328", describe(*outcome.sgemm, sgemm_tolerance), outcome.sgemm->relative_error, "ratio");
    if (outcome.dgemm) result.evidence("dgemm_256x192x328", describe(*outcome.dgemm, dgemm_tolerance), outcome.dgemm->relative_error, "ratio");
    if (outcome.sgemm && !outcome.sgemm->within(sgemm_tolerance))
        result.add(Code::wrong_result, "SGEMM 256x192x328: " + describe(*outcome.sgemm, sgemm_tolerance));
    if (outcome.dgemm && !outcome.dgemm->within(dgemm_tolerance))
        result.add(Code::wrong_result, "DGEMM 256x192x328: " + describe(*outcome.dgemm, dgemm_tolerance));

    const auto peaks = datasheet_peaks(outcome.device_name);
    std::string figures;
    for (const GemmThroughput& measured : outcome.throughput) {
        const GemmPrecision& precision = *measured.precision;
        const std::string label = sys::to_lower(precision.name);
        result.metric(fmt::format("gemm_{}_{}", label, outcome.size), measured.tflops, "TFLOP/s");
        std::string of_peak;
        if (peaks) {
            const double peak = (*peaks).*precision.peak;
            result.metric(fmt::format("gemm_{}_fraction_of_peak", label), 100.0 * measured.tflops / peak, "%");
            of_peak = fmt::format(" ({:.0f}% of {:.0f})", 100.0 * measured.tflops / peak, peak);
        }
        result.evidence(fmt::format("gemm_{}", label), fmt::format("{}^3: {:.1f} TFLOP/s{}, sampled {}", outcome.size, measured.tflops, of_peak,
                                                                  describe(measured.accuracy, precision.tolerance)),
                        measured.tflops, "TFLOP/s");
        if (!measured.accuracy.within(precision.tolerance))
            result.add(Code::wrong_result,
                       fmt::format("{} GEMM {}^3: {}", precision.name, outcome.size, describe(measured.accuracy, precision.tolerance)));
        figures += fmt::format("{}{} {:.0f}", figures.empty() ? "" : ", ", precision.name, measured.tflops);
    }
    // The rest describes a complete measurement; a failure part-way is reported by its own finding.
    if (outcome.phases.empty() || !outcome.sgemm || !outcome.dgemm) return;
    result.evidence("phases", outcome.phases);
    result.metric("sgemm_relative_error", outcome.sgemm->relative_error, "ratio");
    result.metric("dgemm_relative_error", outcome.dgemm->relative_error, "ratio");
    result.evidence("method", fmt::format("cublasGemmEx, CUDA events, median of {} runs after {} warm-up(s), inputs uniform in [-1,1), "
                                          "{} sampled entries per product checked in float64",
                                          outcome.runs, outcome.warmups, outcome.samples));
    result.summary(fmt::format("SGEMM/DGEMM match float64 ({:.1e}/{:.1e}); {}^3 TFLOP/s: {}", outcome.sgemm->relative_error,
                               outcome.dgemm->relative_error, outcome.size, figures));
}

std::unique_ptr<Check> make_cublas_gemm_check() {
    CheckInfo info = gpu::library_check_info("cublas.gemm", "cuBLAS GEMM",
                                             "SGEMM/DGEMM against a float64 CPU reference; FP32/TF32/FP16/BF16 throughput, sampled and verified",
                                             cuda_library::cublas);
    info.answers = "SGEMM/DGEMM against a float64 reference; FP32/TF32/FP16/BF16 throughput at 8192³, sampled and "
                   "verified, against the datasheet peak";
    info.prepare = [load = info.prepare](Probes& probes) {
        load(probes);
        probes.prefetch([&probes] { EarlyHandles::instance().create_all(probes); });
    };
    return std::make_unique<FunctionCheck>(
        std::move(info),
        [](CheckContext& context, ResultBuilder& result) {
            const LoadedLibrary* library = gpu::require_library(context, result, cuda_library::cublas);
            if (library == nullptr) return;
            CublasApi api;
            if (!gpu::resolve_cublas(*library, api, result)) return;
            gpu::run_gpu_check(context, result, [&](int device) {
                try {
                    measure_then_judge<GemmOutcome>([&](GemmOutcome& outcome) { measure_gemm_check(context, api, device, outcome); },
                                                    [&](const GemmOutcome& outcome) { judge_gemm(outcome, result); });
                } catch (const gpu::CublasFailure& failure) {
                    gpu::report_failure(result, Code::library_call_failed, failure);
                }
            });
        });
}

const CheckRegistration cublas_gemm_registration{1300, make_cublas_gemm_check};

}  // namespace cudacheck
