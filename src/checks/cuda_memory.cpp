// cuda.memory: allocation and copies in every direction, each verified, with bandwidth measured
// by CUDA events (median after warm-up) and compared with the theoretical figure.
#include "checks/cuda_memory.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "gpu/cuda_runtime.hpp"
#include "kernels/compare.cuh"
#include "kernels/random_fill.cuh"
#include "probes/probes.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <optional>

namespace cudacheck {

namespace {

constexpr MetricFamily copy_bandwidth{"memory_bandwidth", "{direction}_bandwidth", Unit::gb_per_s,
                                      "Verified memory copy bandwidth by direction."};
constexpr MetricFamily copy_of_theoretical{"memory_bandwidth_of_theoretical", "{direction}_fraction_of_theoretical",
                                           Unit::percent,
                                           "Memory copy bandwidth as a share (0-1) of the GPU's theoretical "
                                           "bandwidth."};
constexpr MetricFamily copy_theoretical{
    "memory_bandwidth_theoretical", "{direction}_theoretical_bandwidth", Unit::gb_per_s,
    "The GPU's theoretical memory bandwidth that a copy's share is taken of, by direction.", false};

struct MemorySizes {
    std::size_t host_bytes;    // pinned host <-> device transfers
    std::size_t device_bytes;  // device-to-device copy: far beyond L2 (60 MiB on an H200)
    int runs;
};

MemorySizes sizes_for(Level level) {
    // 64 MiB transfers already run at full PCIe/NVLink-C2C speed; pinning more only costs time.
    if (level == Level::full) return {std::size_t{1} << 30, std::size_t{4} << 30, 20};
    return {std::size_t{64} << 20, std::size_t{1} << 30, 5};
}

double gigabytes_per_second(std::size_t bytes, double milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
}

void measure_memory(CheckContext& context, int device, MemoryOutcome& outcome) {
    const MemorySizes sizes = sizes_for(context.options.level);
    outcome.host_bytes = sizes.host_bytes;
    outcome.runs = sizes.runs;
    // Host <-> device: pinned buffers, random content (xorshift: cheap, and no pattern a faulty
    // path could reproduce by accident), round trip compared byte for byte.
    gpu::PinnedArray<std::uint32_t> host_source(sizes.host_bytes / 4);
    gpu::PinnedArray<std::uint32_t> host_back(sizes.host_bytes / 4);
    std::uint64_t state = kernels::mix64(0xC0DE);
    for (std::size_t i = 0; i < host_source.size(); ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        host_source.data()[i] = static_cast<std::uint32_t>(state >> 16);
    }
    std::memset(host_back.data(), 0, host_back.bytes());

    std::optional<gpu::DeviceWork> gpu_work(device);
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    outcome.free_bytes = free_bytes;
    outcome.total_bytes = total_bytes;
    gpu::Stream stream;
    gpu::DeviceArray<std::uint32_t> device_staging(host_source.size());
    outcome.host_to_device_ms = gpu::time_on_stream(stream, gpu_work, 1, sizes.runs, [&] {
        gpu::check(cudaMemcpyAsync(device_staging.data(), host_source.data(), host_source.bytes(),
                                   cudaMemcpyHostToDevice, stream.get()),
                   "cudaMemcpyAsync(host to device)");
    });
    outcome.device_to_host_ms = gpu::time_on_stream(stream, gpu_work, 1, sizes.runs, [&] {
        gpu::check(cudaMemcpyAsync(host_back.data(), device_staging.data(), host_back.bytes(), cudaMemcpyDeviceToHost,
                                   stream.get()),
                   "cudaMemcpyAsync(device to host)");
    });
    stream.synchronize();
    gpu_work.reset();
    outcome.round_trip_intact = std::memcmp(host_source.data(), host_back.data(), host_source.bytes()) == 0;
    if (!*outcome.round_trip_intact) return;

    // Device -> device: random content made on the GPU, copy compared on the GPU.
    // Every GPU check of this device runs at once: take at most an eighth of the free memory, so a
    // small GPU is tested with smaller copies rather than failing for want of memory.
    const std::size_t device_bytes = std::min(sizes.device_bytes, (free_bytes / 8) & ~((std::size_t{1} << 20) - 1));
    const std::size_t words = device_bytes / 4;
    outcome.device_bytes = device_bytes;
    gpu_work.emplace(device);
    gpu::DeviceArray<std::uint32_t> source(words);
    gpu::DeviceArray<std::uint32_t> destination(words);
    gpu::DeviceArray<unsigned long long> mismatches(1);
    gpu::check(static_cast<cudaError_t>(
                   kernels::fill_uniform(source.data(), kernels::Element::f32, words, 7, stream.get())),
               "fill kernel");
    gpu::check(cudaMemsetAsync(destination.data(), 0xFF, destination.bytes(), stream.get()), "cudaMemsetAsync");
    outcome.device_to_device_ms = gpu::time_on_stream(stream, gpu_work, 1, sizes.runs, [&] {
        gpu::check(cudaMemcpyAsync(destination.data(), source.data(), source.bytes(), cudaMemcpyDeviceToDevice,
                                   stream.get()),
                   "cudaMemcpyAsync(device to device)");
    });
    gpu::check(static_cast<cudaError_t>(kernels::count_mismatches(source.data(), destination.data(), words,
                                                                  mismatches.data(), stream.get())),
               "compare kernel");
    unsigned long long wrong = 0;
    gpu::check(cudaMemcpyAsync(&wrong, mismatches.data(), sizeof wrong, cudaMemcpyDeviceToHost, stream.get()),
               "cudaMemcpyAsync");
    stream.synchronize();
    outcome.device_wrong_words = wrong;
    for (const DeviceInfo& info : context.probes.initialised_driver().devices)
        if (info.ordinal == device && info.theoretical_bandwidth_gbps)
            outcome.theoretical_bandwidth_gbps = info.theoretical_bandwidth_gbps;
}

}  // namespace

void judge_memory(const MemoryOutcome& outcome, ResultBuilder& result) {
    if (!outcome.free_bytes) return;
    result.evidence("memory",
                    fmt::format("{} free of {}", format_bytes(*outcome.free_bytes), format_bytes(outcome.total_bytes)),
                    static_cast<double>(*outcome.free_bytes), Unit::bytes);
    if (!outcome.round_trip_intact) return;
    if (!*outcome.round_trip_intact) {
        result.add(Code::wrong_result, fmt::format("host -> device -> host round trip of {} changed the data",
                                                   format_bytes(outcome.host_bytes)));
        return;
    }
    if (!outcome.device_wrong_words) return;
    if (*outcome.device_wrong_words > 0) {
        result.add(Code::wrong_result,
                   fmt::format("device-to-device copy of {}: {} of {} words differ", format_bytes(outcome.device_bytes),
                               *outcome.device_wrong_words, outcome.device_bytes / 4));
        return;
    }

    const double h2d_rate = gigabytes_per_second(outcome.host_bytes, gpu::median(outcome.host_to_device_ms));
    const double d2h_rate = gigabytes_per_second(outcome.host_bytes, gpu::median(outcome.device_to_host_ms));
    // Counting bytes read plus bytes written, as bandwidth figures for copies usually do.
    const double d2d_rate = gigabytes_per_second(2 * outcome.device_bytes, gpu::median(outcome.device_to_device_ms));
    result.metric(copy_bandwidth, d2d_rate, {{"direction", "device_to_device"}});
    result.metric(copy_bandwidth, h2d_rate, {{"direction", "host_to_device"}});
    result.metric(copy_bandwidth, d2h_rate, {{"direction", "device_to_host"}});
    std::string fraction;
    if (const auto theoretical = outcome.theoretical_bandwidth_gbps) {
        result.metric(copy_of_theoretical, 100.0 * d2d_rate / *theoretical, {{"direction", "device_to_device"}});
        result.metric(copy_theoretical, *theoretical, {{"direction", "device_to_device"}});
        fraction = fmt::format(" ({:.0f}% of {:.0f} GB/s theoretical)", 100.0 * d2d_rate / *theoretical, *theoretical);
    }
    result.evidence(
        "method", fmt::format("CUDA events, median of {} runs after 1 warm-up; {} pinned host buffers, {} device copy "
                              "(read + write counted)",
                              outcome.runs, format_bytes(outcome.host_bytes), format_bytes(outcome.device_bytes)));
    result.summary(
        fmt::format("copies verified; device {:.0f} GB/s{}, host->device {:.1f} GB/s, device->host {:.1f} GB/s",
                    d2d_rate, fraction, h2d_rate, d2h_rate));
}

std::unique_ptr<Check> make_cuda_memory_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "cuda.memory",
                  .title = "GPU memory",
                  .description = "Pinned host<->device and device<->device copies, verified; bandwidth vs theoretical",
                  .scope = Scope::device,
                  .min_level = Level::standard,
                  .depends_on = {"cuda.devices"},
                  .raises = {Code::cuda_call_failed, Code::gpu_out_of_memory, Code::wrong_result},
                  .answers = "pinned host↔device and device↔device copies, verified, with bandwidth against the "
                             "theoretical figure"},
        [](CheckContext& context, ResultBuilder& result) {
            gpu::run_gpu_check(context, result, [&](int device) {
                measure_then_judge<MemoryOutcome>(
                    [&](MemoryOutcome& outcome) { measure_memory(context, device, outcome); },
                    [&](const MemoryOutcome& outcome) { judge_memory(outcome, result); });
            });
        });
}

const CheckRegistration cuda_memory_registration{1200, make_cuda_memory_check};

}  // namespace cudacheck
