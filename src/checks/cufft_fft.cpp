// cufft.fft: cuFFT (opened at run time, never linked) plans and runs batched single-precision 1-D
// transforms, C2C and R2C, for a power-of-two length and one that is not; every result is verified
// against a float64 reference FFT on the host, and inverse(forward(x)) / n against x.
#include "checks/cufft_fft.hpp"
#include "bind/cufft.hpp"
#include "bind/library_version.hpp"
#include "bind/owned.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "checks/reference/fft.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"
#include "util/timed_windows.hpp"
#include "util/trace.hpp"

#include <cmath>
#include <cufft.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudacheck {

namespace {

using reference::Complex;

void cufft_check(cufftResult status, const std::string& call) {
    if (status != CUFFT_SUCCESS) throw CufftFailure(status, call, describe_status(status));
}

// A batched 1-D plan in the default (contiguous) layout, bound to a stream; destroyed through the
// resolved cufftDestroy.
class Plan {
public:
    Plan(const CufftApi& api, cufftType type, int n, int batch, cudaStream_t stream) {
        int length = n;
        cufftHandle handle = 0;
        // NULL inembed/onembed: the basic layout (members n apart on input; n, or n/2+1 complex for
        // R2C, apart on output); strides and distances are then ignored.
        cufft_check(api.plan_many(&handle, 1, &length, nullptr, 1, n, nullptr, 1, n, type, batch),
                    fmt::format("cufftPlanMany({}, n={}, batch={})", type == CUFFT_R2C ? "R2C" : "C2C", n, batch));
        plan_ = Owned<cufftHandle, decltype(CufftApi::destroy)>(handle, api.destroy);
        cufft_check(api.set_stream(plan_.get(), stream), "cufftSetStream");
    }
    [[nodiscard]] cufftHandle get() const { return plan_.get(); }

private:
    Owned<cufftHandle, decltype(CufftApi::destroy)> plan_;
};

constexpr double tolerance = fft_tolerance;  // 1e-5, justified in cufft_fft.hpp

constexpr int lengths[] = {4096, 1000};  // a power of two, and 2^3 * 5^3 (a mixed-radix plan)

struct FftSizes {
    int batch;
    int timed_runs;
};

FftSizes sizes_for(Level level) {
    if (level == Level::full) return {4096, 20};
    return {64, 5};
}

// Forward transforms checked against the reference: this many members, spread over the batch
// (first and last included). The round trip is checked for every member.
constexpr int members_compared = 64;

std::vector<int> members_to_compare(int batch) {
    std::vector<int> members;
    const int count = std::min(batch, members_compared);
    for (int i = 0; i < count; ++i)
        members.push_back(count == 1 ? 0 : static_cast<int>(static_cast<long long>(i) * (batch - 1) / (count - 1)));
    return members;
}

// Complex test input: element i of the interleaved float array is uniform_value(seed, i).
Complex complex_input(std::uint64_t seed, std::size_t element) {
    return {kernels::uniform_value(seed, 2 * element), kernels::uniform_value(seed, 2 * element + 1)};
}

// The float64 spectra of one compared member: its complex input's, and its real input's.
struct ExpectedSpectra {
    int member = 0;
    std::vector<Complex> complex;  // n bins
    std::vector<Complex> real;     // n bins, of which the first n/2+1 are compared
};

std::vector<ExpectedSpectra> expected_spectra(int n, int batch, std::uint64_t complex_seed, std::uint64_t real_seed) {
    const trace::Span span(fmt::format("float64 reference, n={} (host)", n));
    const reference::ReferenceFft reference(static_cast<std::size_t>(n), -1);
    const auto length = static_cast<std::size_t>(n);
    std::vector<ExpectedSpectra> spectra;
    std::vector<Complex> signal(length);
    for (const int member : members_to_compare(batch)) {
        const std::size_t base = static_cast<std::size_t>(member) * length;
        ExpectedSpectra expected;
        expected.member = member;
        for (std::size_t j = 0; j < length; ++j) signal[j] = complex_input(complex_seed, base + j);
        expected.complex = reference(signal);
        for (std::size_t j = 0; j < length; ++j) signal[j] = Complex(kernels::uniform_value(real_seed, base + j), 0.0);
        expected.real = reference(signal);
        spectra.push_back(std::move(expected));
    }
    return spectra;
}

FftLengthOutcome run_length(const CufftApi& api, const gpu::Stream& stream, int n, const FftSizes& sizes, int device) {
    const int batch = sizes.batch;
    const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
    const std::size_t bins = static_cast<std::size_t>(n) / 2 + 1;
    const std::uint64_t complex_seed = 0xF0F0 + static_cast<std::uint64_t>(n);
    const std::uint64_t real_seed = 0x0F0F + static_cast<std::uint64_t>(n);
    // The float64 spectra the compared members must match depend only on the seeds: another core
    // computes them while the GPU plans, fills and transforms (after the GPU work, on the H200,
    // n=4096's took 108 ms and ended the whole default run).
    std::future<std::vector<ExpectedSpectra>> expected_done =
        std::async(std::launch::async,
                   [n, batch, complex_seed, real_seed] { return expected_spectra(n, batch, complex_seed, real_seed); });

    Plan c2c(api, CUFFT_C2C, n, batch, stream.get());
    Plan r2c(api, CUFFT_R2C, n, batch, stream.get());
    std::optional<gpu::DeviceWork> gpu_work(device);  // GPU phase; the float64 reference below runs without it
    gpu::DeviceArray<cufftComplex> input(count);
    gpu::DeviceArray<cufftComplex> spectrum(count);
    gpu::DeviceArray<cufftComplex> round_trip(count);
    gpu::DeviceArray<cufftReal> real_input(count);
    gpu::DeviceArray<cufftComplex> real_spectrum(bins * static_cast<std::size_t>(batch));
    gpu::check(static_cast<cudaError_t>(
                   kernels::fill_uniform(input.data(), kernels::Element::f32, 2 * count, complex_seed, stream.get())),
               "fill kernel");
    gpu::check(static_cast<cudaError_t>(
                   kernels::fill_uniform(real_input.data(), kernels::Element::f32, count, real_seed, stream.get())),
               "fill kernel");
    // Poison the outputs so that a transform that writes nothing cannot pass.
    gpu::check(cudaMemsetAsync(spectrum.data(), 0xFF, spectrum.bytes(), stream.get()), "cudaMemsetAsync");
    gpu::check(cudaMemsetAsync(round_trip.data(), 0xFF, round_trip.bytes(), stream.get()), "cudaMemsetAsync");
    gpu::check(cudaMemsetAsync(real_spectrum.data(), 0xFF, real_spectrum.bytes(), stream.get()), "cudaMemsetAsync");

    const std::string forward_call = fmt::format("cufftExecC2C(n={}, batch={}, CUFFT_FORWARD)", n, batch);
    // Out of place, so every timed run computes the same spectrum from the same input.
    const std::vector<float> times = gpu::time_on_stream(stream, gpu_work, 1, sizes.timed_runs, [&] {
        cufft_check(api.exec_c2c(c2c.get(), input.data(), spectrum.data(), CUFFT_FORWARD), forward_call);
    });
    cufft_check(api.exec_c2c(c2c.get(), spectrum.data(), round_trip.data(), CUFFT_INVERSE),
                fmt::format("cufftExecC2C(n={}, batch={}, CUFFT_INVERSE)", n, batch));
    cufft_check(api.exec_r2c(r2c.get(), real_input.data(), real_spectrum.data()),
                fmt::format("cufftExecR2C(n={}, batch={})", n, batch));

    gpu::PinnedArray<cufftComplex> host_spectrum(count);
    gpu::PinnedArray<cufftComplex> host_round_trip(count);
    gpu::PinnedArray<cufftComplex> host_real_spectrum(real_spectrum.size());
    gpu::check(cudaMemcpyAsync(host_spectrum.data(), spectrum.data(), spectrum.bytes(), cudaMemcpyDeviceToHost,
                               stream.get()),
               "cudaMemcpyAsync");
    gpu::check(cudaMemcpyAsync(host_round_trip.data(), round_trip.data(), round_trip.bytes(), cudaMemcpyDeviceToHost,
                               stream.get()),
               "cudaMemcpyAsync");
    gpu::check(cudaMemcpyAsync(host_real_spectrum.data(), real_spectrum.data(), real_spectrum.bytes(),
                               cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    stream.synchronize();
    gpu_work.reset();

    FftLengthOutcome outcome;
    outcome.n = n;
    outcome.forward_ms = gpu::median(times);
    const auto length = static_cast<std::size_t>(n);
    FftVerdictBuilder forward(fmt::format("c2c_forward_n{}", n), fmt::format("C2C forward n={}", n));
    FftVerdictBuilder real(fmt::format("r2c_n{}", n), fmt::format("R2C n={}", n));
    const std::vector<ExpectedSpectra> expected = [&] {
        const trace::Span waiting(fmt::format("waiting for the float64 reference, n={} (host)", n));
        return expected_done.get();
    }();
    for (const ExpectedSpectra& member : expected) {
        const std::size_t base = static_cast<std::size_t>(member.member) * length;
        // (1) C2C forward against the float64 FFT of the same input.
        for (std::size_t k = 0; k < length; ++k) {
            const cufftComplex actual = host_spectrum.data()[base + k];
            forward.add(actual.x, member.complex[k].real());
            forward.add(actual.y, member.complex[k].imag());
        }
        forward.end_member(member.member);
        // (3) R2C: the n/2+1 non-redundant bins of the real input's transform.
        for (std::size_t k = 0; k < bins; ++k) {
            const cufftComplex actual = host_real_spectrum.data()[static_cast<std::size_t>(member.member) * bins + k];
            real.add(actual.x, member.real[k].real());
            real.add(actual.y, member.real[k].imag());
        }
        real.end_member(member.member);
    }
    // (2) inverse(forward(x)) / n against x, every member (cuFFT does not normalise).
    FftVerdictBuilder inverse(fmt::format("c2c_round_trip_n{}", n), fmt::format("C2C inverse(forward(x))/n n={}", n));
    const double scale = 1.0 / static_cast<double>(n);
    for (int member = 0; member < batch; ++member) {
        const std::size_t base = static_cast<std::size_t>(member) * length;
        for (std::size_t j = 0; j < length; ++j) {
            const cufftComplex actual = host_round_trip.data()[base + j];
            const Complex original = complex_input(complex_seed, base + j);
            inverse.add(actual.x * scale, original.real());
            inverse.add(actual.y * scale, original.imag());
        }
        inverse.end_member(member);
    }
    outcome.verdicts = {forward.finish(), inverse.finish(), real.finish()};
    return outcome;
}

// Conventional flop count of a complex FFT of length n: 5 n log2(n).
double gflops(int n, int batch, double milliseconds) {
    return 5.0 * n * std::log2(static_cast<double>(n)) * batch / (milliseconds * 1e-3) / 1e9;
}

void measure_fft(const CufftApi& api, Level level, int device, FftOutcome& outcome) {
    const FftSizes sizes = sizes_for(level);
    outcome.batch = sizes.batch;
    outcome.timed_runs = sizes.timed_runs;
    outcome.members_compared = std::min(sizes.batch, members_compared);
    // The lengths are independent: each on its own thread and stream, so one length's plan
    // creation and float64 reference overlap the other's GPU work.
    // Their timed sections are the check's: whether another process used the GPU meanwhile is
    // asked for them too (util/timed_windows.hpp).
    TimedWindowRecording* const recording = TimedWindowRecording::current();
    std::vector<std::future<FftLengthOutcome>> lengths_done;
    for (const int n : lengths)
        lengths_done.push_back(std::async(std::launch::async, [&api, &sizes, n, device, recording] {
            const TimedWindowRecording::Join joined(recording);
            gpu::check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
            const gpu::Stream stream;
            return run_length(api, stream, n, sizes, device);
        }));
    for (auto& length : lengths_done) outcome.lengths.push_back(length.get());
    outcome.complete = true;
}

}  // namespace

FftVerdictBuilder::FftVerdictBuilder(std::string key, std::string what) {
    verdict_.key = std::move(key);
    verdict_.what = std::move(what);
}

void FftVerdictBuilder::add(double actual, double reference) {
    member_.add(actual, reference);
    total_.add(actual, reference);
}

void FftVerdictBuilder::end_member(int member) {
    const gpu::Accuracy accuracy = member_.result();
    const double error = accuracy.non_finite > 0 ? INFINITY : accuracy.relative_error;
    if (verdict_.members == 0 || error > verdict_.worst_member_error) {
        verdict_.worst_member = member;
        verdict_.worst_member_error = error;
    }
    ++verdict_.members;
    member_ = {};
}

FftVerdict FftVerdictBuilder::finish() {
    verdict_.accuracy = total_.result();
    return verdict_;
}

namespace {
constexpr MetricFamily fft_time{"cufft_forward", "{transform}_forward_time_n{n}", Unit::ms,
                                "cuFFT forward transform time by transform and length."};
constexpr MetricFamily fft_rate{"cufft_forward", "{transform}_forward_gflops_n{n}", Unit::gflops,
                                "cuFFT forward transform throughput by transform and length, in TFLOP/s."};
constexpr MetricFamily fft_error{"cufft_max_relative_error", "max_relative_error", Unit::ratio,
                                 "Largest relative error of the transforms against the float64 FFT."};
}  // namespace

void judge_fft(const FftOutcome& outcome, ResultBuilder& result) {
    std::vector<std::string> timings;  // the headline's rates, "12644"
    for (const FftLengthOutcome& length : outcome.lengths) {
        const double rate = gflops(length.n, outcome.batch, length.forward_ms);
        result.metric(fft_time, length.forward_ms, {{"transform", "c2c"}, {"n", std::to_string(length.n)}});
        result.metric(fft_rate, rate, {{"transform", "c2c"}, {"n", std::to_string(length.n)}});
        timings.push_back(fmt::format("{:.0f}", rate));
    }
    if (outcome.complete)
        result.evidence(
            "method",
            fmt::format("single precision, out of place; forward C2C and R2C of {} members per length compared with a "
                        "float64 mixed-radix FFT, inverse(forward(x))/n with x for all {}; forward C2C timed with CUDA "
                        "events, median of {} runs after 1 warm-up, 5 n log2(n) flops per transform",
                        outcome.members_compared, outcome.batch, outcome.timed_runs));

    double worst = 0.0;  // over the finite values
    bool all_finite = true;
    bool all_passed = true;
    for (const FftLengthOutcome& length : outcome.lengths)
        for (const FftVerdict& verdict : length.verdicts) {
            const gpu::Accuracy& accuracy = verdict.accuracy;
            result.evidence(verdict.key, gpu::describe(accuracy, tolerance), accuracy.relative_error, Unit::ratio);
            worst = std::max(worst, accuracy.relative_error);
            all_finite = all_finite && accuracy.non_finite == 0;
            if (accuracy.within(tolerance)) continue;
            all_passed = false;
            result.add(Code::wrong_result,
                       fmt::format("{} x {} batches: {} over {} members (worst: member {}, {:.2e})", verdict.what,
                                   outcome.batch, gpu::describe(accuracy, tolerance), verdict.members,
                                   verdict.worst_member, verdict.worst_member_error),
                       "cuFFT computed a wrong transform on this GPU: check `dmesg` for Xid errors, `nvidia-smi -q -d "
                       "ECC` for memory "
                       "errors, and that the installed cuFFT matches the CUDA runtime; rerun to see whether it is "
                       "reproducible.");
        }
    if (!outcome.complete) return;  // the failure that stopped the measurement is its own finding
    if (all_finite) result.metric(fft_error, worst);
    if (!all_passed) return;
    result.summary(
        fmt::format("C2C and R2C, n=4096 and 1000 x {} batches: max relative error {:.1e}; forward C2C {} GFLOP/s",
                    outcome.batch, worst, fmt::join(timings, " and ")));
}

std::unique_ptr<Check> make_cufft_fft_check() {
    return std::make_unique<FunctionCheck>(
        gpu::library_check_info({.id = "cufft.fft",
                                 .title = "cuFFT transforms",
                                 .description = "cuFFT batched C2C and R2C FFTs (n=4096 and 1000) match a float64 "
                                                "reference; inverse(forward(x))/n = x",
                                 .answers = "C2C and R2C transforms (n = 4096 and 1000, batched) against a float64 "
                                            "FFT, round trip, throughput"},
                                cuda_library::cufft),
        [](CheckContext& context, ResultBuilder& result) {
            const auto version = gpu::version_evidence(result, "cufftGetVersion", &CufftApi::get_version, CUFFT_SUCCESS,
                                                       describe_status);
            gpu::run_library_check<Cufft>(context, result, cuda_library::cufft, cufft_symbols, version,
                                          [&](const LoadedLibrary&, const CufftApi& api, int device) {
                                              measure_then_judge<FftOutcome>(
                                                  [&](FftOutcome& outcome) {
                                                      measure_fft(api, context.options.level, device, outcome);
                                                  },
                                                  [&](const FftOutcome& outcome) { judge_fft(outcome, result); });
                                          });
        });
}

const CheckRegistration cufft_fft_registration{1400, make_cufft_fft_check};

}  // namespace cudacheck
