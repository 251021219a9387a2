// gpu.memtest (--level full): write and verify patterns over half the free GPU memory (at most
// 64 GiB), holding the GPU alone: address-in-address and its complement, a seeded random pattern,
// then walking ones and walking zeros in each of 32 rotations (kernels/memtest.cu; the verify
// kernel regenerates each word, so nothing but the mismatches crosses to the host). It stops
// starting patterns once --duration has passed. Any word read back wrong fails with its offset,
// the bits that flipped and the patterns that saw it (CC519).
#include "checks/gpu_memtest.hpp"
#include "checks/checks.hpp"
#include "engine/progress.hpp"
#include "gpu/cuda_runtime.hpp"
#include "kernels/memtest.cuh"
#include "util/units.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

constexpr MetricFamily bandwidth_figure{"memtest_bandwidth", "memtest_bandwidth", Unit::gb_per_s,
                                        "Memory bandwidth the gpu.memtest patterns ran at."};
constexpr MetricFamily tested_figure{"memtest_tested", "memtest_bytes", Unit::bytes,
                                     "Device memory gpu.memtest wrote and verified."};
constexpr MetricFamily patterns_figure{"memtest_patterns", "memtest_patterns", Unit::count,
                                       "Patterns gpu.memtest ran."};

using Clock = std::chrono::steady_clock;

constexpr unsigned int records_per_pattern = 16;
constexpr std::uint64_t random_seed = 0x6D656D74;  // "memt"
constexpr std::uint64_t mib = std::uint64_t{1} << 20;
constexpr std::size_t ranges_shown = 8;

struct NamedPattern {
    std::string name;
    kernels::PatternSpec spec;
};

// Address decoding and every bit at 0 and 1 first (they matter most when time runs short), then
// the walking patterns.
std::vector<NamedPattern> patterns() {
    std::vector<NamedPattern> list{
        {"address", {kernels::MemoryPattern::address, 0, 0}},
        {"address complement", {kernels::MemoryPattern::address_complement, 0, 0}},
        {"random", {kernels::MemoryPattern::random, 0, random_seed}},
    };
    for (std::uint32_t rotation = 0; rotation < 32; ++rotation) {
        list.push_back({fmt::format("walking ones {}", rotation), {kernels::MemoryPattern::walking_ones, rotation, 0}});
        list.push_back(
            {fmt::format("walking zeros {}", rotation), {kernels::MemoryPattern::walking_zeros, rotation, 0}});
    }
    return list;
}

// Another check's allocation can land between cudaMemGetInfo and ours: halve and try again.
gpu::DeviceArray<std::uint32_t> allocate_test_buffer(std::uint64_t bytes) {
    while (true) {
        try {
            return gpu::DeviceArray<std::uint32_t>(bytes / 4);
        } catch (const gpu::CudaError& error) {
            if (error.error() != cudaErrorMemoryAllocation || bytes <= 256 * mib) throw;
            bytes = (bytes / 2) & ~(mib - 1);
        }
    }
}

MemtestOutcome run_memtest(const CheckContext& context, int device) {
    const gpu::Stream stream;
    std::optional<gpu::DeviceWork> gpu_work(device);
    gpu::DeviceArray<unsigned long long> mismatches(1);
    gpu::DeviceArray<unsigned int> recorded(1);
    gpu::DeviceArray<kernels::MemoryMismatch> records(records_per_pattern);
    gpu::PinnedArray<unsigned long long> mismatches_host(1);
    gpu::PinnedArray<unsigned int> recorded_host(1);
    gpu::PinnedArray<kernels::MemoryMismatch> records_host(records_per_pattern);
    cudaEvent_t started = nullptr;
    cudaEvent_t stopped = nullptr;
    gpu::check(cudaEventCreate(&started), "cudaEventCreate");
    gpu::check(cudaEventCreate(&stopped), "cudaEventCreate");
    struct DestroyEvents {
        cudaEvent_t& first;
        cudaEvent_t& second;
        ~DestroyEvents() {
            cudaEventDestroy(first);
            cudaEventDestroy(second);
        }
    } destroy{started, stopped};

    const std::vector<NamedPattern> planned = patterns();
    MemtestOutcome outcome;
    outcome.patterns_planned = planned.size();
    // Alone on the GPU from the free-memory reading on: nothing else allocates under the lock, and
    // the bandwidth is the test's own.
    gpu::alone_on_device(gpu_work, [&] {
        size_t free_bytes = 0;
        size_t total_bytes = 0;
        gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        outcome.free_bytes = free_bytes;
        const gpu::DeviceArray<std::uint32_t> buffer = allocate_test_buffer(memtest_bytes(free_bytes));
        outcome.bytes = buffer.bytes();
        outcome.device_address = reinterpret_cast<std::uint64_t>(buffer.data());
        const Clock::time_point start = Clock::now();
        std::uint64_t tested_bytes = 0;  // written and verified, over every pattern so far
        for (const NamedPattern& pattern : planned) {
            if (std::chrono::duration<double>(Clock::now() - start).count() >= context.options.stress_seconds) break;
            gpu::check(cudaEventRecord(started, stream.get()), "cudaEventRecord");
            gpu::check(static_cast<cudaError_t>(
                           kernels::fill_pattern(buffer.data(), buffer.size(), pattern.spec, stream.get())),
                       "memtest fill kernel");
            gpu::check(static_cast<cudaError_t>(
                           kernels::verify_pattern(buffer.data(), buffer.size(), pattern.spec, mismatches.data(),
                                                   recorded.data(), records.data(), records_per_pattern, stream.get())),
                       "memtest verify kernel");
            gpu::check(cudaEventRecord(stopped, stream.get()), "cudaEventRecord");
            gpu::check(cudaMemcpyAsync(mismatches_host.data(), mismatches.data(), mismatches.bytes(),
                                       cudaMemcpyDeviceToHost, stream.get()),
                       "cudaMemcpyAsync");
            gpu::check(cudaMemcpyAsync(recorded_host.data(), recorded.data(), recorded.bytes(), cudaMemcpyDeviceToHost,
                                       stream.get()),
                       "cudaMemcpyAsync");
            gpu::check(cudaMemcpyAsync(records_host.data(), records.data(), records.bytes(), cudaMemcpyDeviceToHost,
                                       stream.get()),
                       "cudaMemcpyAsync");
            stream.synchronize();
            float milliseconds = 0;
            gpu::check(cudaEventElapsedTime(&milliseconds, started, stopped), "cudaEventElapsedTime");
            outcome.gpu_seconds += milliseconds / 1000.0;
            outcome.mismatched_words += *mismatches_host.data();
            // The progress line: this pattern's rate (written and read back) and the bytes tested so far.
            tested_bytes += outcome.bytes;
            report_progress(context, ProgressFigure{std::chrono::duration<double>(Clock::now() - start).count(),
                                                    context.options.stress_seconds,
                                                    milliseconds > 0 ? 2.0 * static_cast<double>(outcome.bytes) /
                                                                           (milliseconds * 1e-3) / 1e9
                                                                     : 0.0,
                                                    "GB/s", format_bytes(tested_bytes) + " tested"});
            outcome.patterns_run.push_back(
                MemtestPattern{pattern.name, milliseconds / 1000.0, *mismatches_host.data()});
            const unsigned int kept = std::min(*recorded_host.data(), records_per_pattern);
            for (unsigned int i = 0; i < kept; ++i) {
                const kernels::MemoryMismatch& record = records_host.data()[i];
                outcome.recorded.push_back(
                    MemtestMismatch{record.index * 4, record.expected, record.actual, pattern.name});
            }
        }
    });
    return outcome;
}

// "address, address complement, random, walking ones and zeros in 32 rotations": the run, short.
std::string patterns_text(const std::vector<MemtestPattern>& run) {
    std::vector<std::string> named;
    std::size_t walking = 0;
    for (const MemtestPattern& pattern : run) {
        const std::string& name = pattern.name;
        if (name.rfind("walking", 0) == 0) ++walking;
        else named.push_back(name);
    }
    if (walking > 0) named.push_back(fmt::format("{} walking ones/zeros rotations", walking));
    return fmt::format("{}", fmt::join(named, ", "));
}

}  // namespace

std::uint64_t memtest_bytes(std::uint64_t free_bytes) {
    return std::min(free_bytes / 2, memtest_max_bytes) & ~(mib - 1);
}

std::vector<MismatchRange> group_mismatches(std::vector<MemtestMismatch> mismatches) {
    // Stable: a word seen by several patterns lists them in the order they ran.
    std::stable_sort(mismatches.begin(), mismatches.end(),
                     [](const MemtestMismatch& a, const MemtestMismatch& b) { return a.offset < b.offset; });
    std::vector<MismatchRange> ranges;
    for (const MemtestMismatch& mismatch : mismatches) {
        if (ranges.empty() || mismatch.offset > ranges.back().last_offset + 4) {
            ranges.push_back(MismatchRange{mismatch.offset, mismatch.offset, 0, 0, {}});
            ranges.back().words = 1;
        } else if (mismatch.offset != ranges.back().last_offset) {
            ranges.back().last_offset = mismatch.offset;
            ++ranges.back().words;
        }
        MismatchRange& range = ranges.back();
        range.flipped_bits |= mismatch.expected ^ mismatch.actual;
        if (std::find(range.patterns.begin(), range.patterns.end(), mismatch.pattern) == range.patterns.end())
            range.patterns.push_back(mismatch.pattern);
    }
    return ranges;
}

void judge_memtest(const MemtestOutcome& outcome, ResultBuilder& result) {
    const double bandwidth = outcome.gpu_seconds > 0
                                 ? 2.0 * static_cast<double>(outcome.bytes) *
                                       static_cast<double>(outcome.patterns_run.size()) / outcome.gpu_seconds / 1e9
                                 : 0.0;
    result.metric(bandwidth_figure, bandwidth);
    result.metric(tested_figure, static_cast<double>(outcome.bytes));
    result.metric(patterns_figure, static_cast<double>(outcome.patterns_run.size()));
    result.evidence("tested",
                    fmt::format("{} at device address 0x{:x} ({} free when the test began; it takes half, at most {})",
                                format_bytes(outcome.bytes), outcome.device_address, format_bytes(outcome.free_bytes),
                                format_bytes(memtest_max_bytes)),
                    static_cast<double>(outcome.bytes), Unit::bytes);
    result.evidence("patterns", fmt::format("{} of {}: {}", outcome.patterns_run.size(), outcome.patterns_planned,
                                            patterns_text(outcome.patterns_run)));
    result.evidence("method",
                    "held the GPU alone; each pattern written then read back by kernels that regenerate every word; "
                    "bandwidth counts "
                    "the bytes written and read over the kernels' GPU time (CUDA events)");
    // Per pattern as numbers: bytes written and read, the rate, the words that differed.
    Series per_pattern{"per_pattern",
                       {},
                       {{"bytes", "bytes", {}}, {"bandwidth", "GB/s", {}}, {"mismatched_words", "count", {}}}};
    for (const MemtestPattern& pattern : outcome.patterns_run) {
        const double moved = 2.0 * static_cast<double>(outcome.bytes);
        per_pattern.labels.push_back(pattern.name);
        per_pattern.columns[0].values.push_back(moved);
        per_pattern.columns[1].values.push_back(
            pattern.gpu_seconds > 0 ? std::optional(moved / pattern.gpu_seconds / 1e9) : std::nullopt);
        per_pattern.columns[2].values.push_back(static_cast<double>(pattern.mismatched_words));
    }
    result.series(std::move(per_pattern));
    if (outcome.patterns_run.size() < outcome.patterns_planned)
        result.evidence("stopped", fmt::format("after {} of {} patterns, when --duration had passed",
                                               outcome.patterns_run.size(), outcome.patterns_planned));
    if (outcome.mismatched_words > 0) {
        const std::vector<MismatchRange> ranges = group_mismatches(outcome.recorded);
        std::vector<std::string> shown;
        for (std::size_t i = 0; i < ranges.size() && i < ranges_shown; ++i) {
            const MismatchRange& range = ranges[i];
            shown.push_back(
                fmt::format("offset 0x{:x}{} ({} word(s), bits 0x{:08x} flipped, in {})", range.first_offset,
                            range.last_offset != range.first_offset ? fmt::format("-0x{:x}", range.last_offset + 3)
                                                                    : "",
                            range.words, range.flipped_bits, fmt::join(range.patterns, ", ")));
        }
        for (const MismatchRange& range : ranges)
            result.evidence("mismatch_range", fmt::format("0x{:x}-0x{:x}: {} word(s), bits 0x{:08x}, {}",
                                                          range.first_offset, range.last_offset + 3, range.words,
                                                          range.flipped_bits, fmt::join(range.patterns, ", ")));
        result.add(Code::gpu_memory_pattern_mismatch,
                   fmt::format("{} word read(s) differed from what was written over {} patterns; recorded: {}{}",
                               outcome.mismatched_words, outcome.patterns_run.size(), fmt::join(shown, "; "),
                               ranges.size() > ranges_shown
                                   ? fmt::format(" and {} more range(s)", ranges.size() - ranges_shown)
                                   : ""));
    }
    const double share = outcome.free_bytes > 0
                             ? 100.0 * static_cast<double>(outcome.bytes) / static_cast<double>(outcome.free_bytes)
                             : 0.0;
    result.summary(
        fmt::format("{} ({:.0f}% of free) written and verified with {} patterns, every word as written; {:.0f} GB/s",
                    format_bytes(outcome.bytes), share, outcome.patterns_run.size(), bandwidth));
}

std::unique_ptr<Check> make_gpu_memtest_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "gpu.memtest",
                  .title = "GPU memory test (--level full)",
                  .description = "Address, random and walking-ones/zeros patterns written and verified over half the "
                                 "free GPU memory (at most 64 GiB)",
                  .scope = Scope::device,
                  .min_level = Level::full,
                  .depends_on = {"cuda.devices"},
                  .raises = {Code::cuda_call_failed, Code::gpu_out_of_memory, Code::gpu_memory_pattern_mismatch},
                  .answers = "at `--level full`: address, random and walking ones/zeros patterns written and verified "
                             "on the GPU "
                             "over half the free memory (at most 64 GiB); bytes tested, GB/s, and any mismatched "
                             "address ranges "
                             "with the bits that flipped",
                  .burn_in = true},
        [](CheckContext& context, ResultBuilder& result) {
            gpu::run_gpu_check(context, result,
                               [&](int device) { judge_memtest(run_memtest(context, device), result); });
        });
}

const CheckRegistration gpu_memtest_registration{1900, make_gpu_memtest_check};

}  // namespace cudacheck
