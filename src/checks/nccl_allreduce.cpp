// nccl.allreduce: NCCL (libnccl.so.2, opened at run time: building needs no nccl.h) over every
// selected GPU in this one process (ncclCommInitAll), a float sum all-reduce of random data
// compared on every GPU with a float64 CPU reference, its algorithm and bus bandwidth as nccl-tests
// define them, and the NCCL version. A machine without NCCL skips the check: plenty of CUDA work
// never uses it.
//
// NVLink multicast stays off: NCCL's NVLS algorithms create NVLink multicast objects
// (cuMulticastCreate) on NVSwitch systems, which reserve fabric resources a health check has no
// business taking (and which the machines this project is tested on forbid). This process sets
// NCCL_NVLS_ENABLE=0, overwriting any value, before NCCL initialises, and cudacheck never calls
// cuMulticastCreate itself.
//
// Level full, not standard: ncclCommInitAll takes hundreds of milliseconds with two GPUs and
// seconds with eight, and libnccl.so.2 is a 200 MiB library to load: either alone is a large share
// of the one second the default run aims at (docs/performance.md).
#include "checks/nccl_allreduce.hpp"
#include "bind/nccl.hpp"
#include "bind/owned.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"
#include "util/units.hpp"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace cudacheck {

namespace {

constexpr MetricFamily bus_bandwidth_family{"nccl_allreduce_bus_bandwidth", "bus_bandwidth", Unit::gb_per_s,
                                            "NCCL all-reduce bus bandwidth over all GPUs (nccl-tests' busbw)."};
constexpr MetricFamily algorithm_bandwidth_family{"nccl_allreduce_algorithm_bandwidth", "algorithm_bandwidth",
                                                  Unit::gb_per_s,
                                                  "NCCL all-reduce algorithm bandwidth over all GPUs (bytes / time)."};
constexpr MetricFamily comm_init_family{"nccl_comm_init", "comm_init_time", Unit::ms,
                                        "Time NCCL took to create its communicator."};

std::string last_error(const NcclApi& api) {
    const char* text = api.get_last_error != nullptr ? api.get_last_error(nullptr) : nullptr;
    return text != nullptr && *text != '\0' ? fmt::format("; NCCL says: {}", text) : "";
}

void nccl_check(const NcclApi& api, ncclResult_t result, const std::string& call) {
    if (result != 0)
        throw NcclError(result, call,
                        fmt::format("{} ({}){}", nccl_result_name(result),
                                    api.get_error_string != nullptr ? api.get_error_string(result) : "",
                                    last_error(api)));
}

using Communicator = Owned<ncclComm_t, decltype(NcclApi::comm_destroy)>;

struct AllReduceSizes {
    std::size_t bytes;  // per GPU
    int warmups;
    int runs;
};

AllReduceSizes sizes_for(Level level) {
    if (level == Level::full) return {std::size_t{256} << 20, 2, 10};
    return {std::size_t{64} << 20, 1, 5};
}

std::uint64_t seed_of(int device) { return 0xA11 + static_cast<std::uint64_t>(device); }

// The elements compared with the CPU reference: the first 2^20, the last 2^16, and every 997th in
// between. NCCL splits a buffer into chunks of 128 KiB and more per channel, so the stride lands in
// every chunk, while the reference stays cheap for 64 M elements on several GPUs.
bool sampled(std::size_t index, std::size_t count) {
    return index < (std::size_t{1} << 20) || index + (std::size_t{1} << 16) >= count || index % 997 == 0;
}

struct GpuBuffers {
    explicit GpuBuffers(std::size_t count) : send(count), receive(count) {}
    gpu::Stream stream;
    gpu::DeviceArray<float> send;
    gpu::DeviceArray<float> receive;
};

void measure_allreduce(CheckContext& context, const NcclApi& api, AllReduceOutcome& outcome) {
    const std::vector<int>& devices = context.devices;
    const int ranks = static_cast<int>(devices.size());
    const AllReduceSizes sizes = sizes_for(context.options.level);
    const std::size_t bytes = gpu::bytes_fitting(devices, sizes.bytes, 8);
    const std::size_t count = std::max<std::size_t>(bytes / sizeof(float), 1);
    outcome.devices = devices;
    outcome.count = count;
    outcome.warmups = sizes.warmups;
    outcome.runs = sizes.runs;

    std::vector<std::unique_ptr<GpuBuffers>> buffers;
    std::vector<gpu::DeviceStream> streams;
    {
        const gpu::DevicesWork gpu_work(devices);
        for (int device : devices) {
            gpu::check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
            buffers.push_back(std::make_unique<GpuBuffers>(count));
            GpuBuffers& own = *buffers.back();
            gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(own.send.data(), kernels::Element::f32, count,
                                                                      seed_of(device), own.stream.get())),
                       "fill kernel");
            gpu::check(cudaMemsetAsync(own.receive.data(), 0xFF, own.receive.bytes(), own.stream.get()),
                       "cudaMemsetAsync");
            streams.push_back(gpu::DeviceStream{device, &own.stream});
        }
        for (const auto& own : buffers) own->stream.synchronize();
    }

    std::vector<ncclComm_t> comms(devices.size(), nullptr);
    const auto init_start = std::chrono::steady_clock::now();
    const ncclResult_t initialised = api.comm_init_all(comms.data(), ranks, devices.data());
    // Destroyed however the check ends, including those a failed ncclCommInitAll left created.
    std::vector<Communicator> communicators;
    for (ncclComm_t comm : comms)
        if (comm != nullptr) communicators.emplace_back(comm, api.comm_destroy);
    nccl_check(api, initialised, fmt::format("ncclCommInitAll({} GPUs)", ranks));
    outcome.init_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_start).count();

    std::optional<gpu::DevicesWork> gpu_work(devices);
    outcome.times_ms = gpu::time_on_devices(streams, gpu_work, sizes.warmups, sizes.runs, [&] {
        nccl_check(api, api.group_start(), "ncclGroupStart");
        for (std::size_t i = 0; i < devices.size(); ++i)
            nccl_check(api,
                       api.all_reduce(buffers[i]->send.data(), buffers[i]->receive.data(), count, nccl_float32,
                                      nccl_sum, comms[i], buffers[i]->stream.get()),
                       fmt::format("ncclAllReduce(device {})", devices[i]));
        nccl_check(api, api.group_end(), "ncclGroupEnd");
    });
    for (const auto& own : buffers) own->stream.synchronize();
    gpu_work.reset();

    // Every GPU must hold the sum of every GPU's data.
    std::vector<float> back(count);
    for (std::size_t i = 0; i < devices.size(); ++i) {
        gpu::check(cudaSetDevice(devices[i]), fmt::format("cudaSetDevice({})", devices[i]));
        gpu::check(cudaMemcpy(back.data(), buffers[i]->receive.data(), buffers[i]->receive.bytes(),
                              cudaMemcpyDeviceToHost),
                   "cudaMemcpy(device to host)");
        gpu::AccuracyAccumulator accuracy;
        for (std::size_t index = 0; index < count; ++index) {
            if (!sampled(index, count)) continue;
            double reference = 0.0;
            for (int device : devices) reference += kernels::uniform_value(seed_of(device), index);
            accuracy.add(back[index], reference);
        }
        outcome.accuracy.push_back({devices[i], accuracy.result()});
    }
    outcome.complete = true;
}

void set_nvls_off() {
    const char* value = std::getenv("NCCL_NVLS_ENABLE");
    if (value == nullptr || std::string_view(value) != "0") ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/1);
}

}  // namespace

void judge_allreduce(const AllReduceOutcome& outcome, ResultBuilder& result) {
    const int ranks = static_cast<int>(outcome.devices.size());
    bool correct = true;
    double worst = 0.0;
    for (const AllReduceAccuracy& measured : outcome.accuracy) {
        worst = std::max(worst, measured.accuracy.relative_error);
        if (measured.accuracy.within(allreduce_tolerance)) continue;
        correct = false;
        result.add_for_device(measured.device, Code::wrong_result,
                              fmt::format("NCCL all-reduce (float sum over {} GPUs) on device {}: relative error {}",
                                          ranks, measured.device,
                                          gpu::describe(measured.accuracy, allreduce_tolerance)));
    }
    if (!outcome.complete) return;  // the failure that stopped the measurement is its own finding

    const std::size_t bytes = outcome.count * sizeof(float);
    const double milliseconds = gpu::median(outcome.times_ms);
    const double algorithm_bandwidth = static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
    const double bus_bandwidth = nccl_allreduce_bus_bandwidth(algorithm_bandwidth, ranks);
    result.metric(bus_bandwidth_family, bus_bandwidth);
    result.metric(algorithm_bandwidth_family, algorithm_bandwidth);
    result.metric(comm_init_family, outcome.init_ms);
    result.evidence("method", fmt::format("ncclCommInitAll over devices {}; ncclAllReduce of {} floats ({}) per GPU, "
                                          "out of place, one group call; "
                                          "CUDA events on every GPU's stream, the slowest per run, median of {} runs "
                                          "after {} warm-up(s); "
                                          "on every GPU, the first 2^20, the last 2^16 and every 997th element "
                                          "compared with a float64 reference",
                                          fmt::join(outcome.devices, ","), outcome.count, format_bytes(bytes),
                                          outcome.runs, outcome.warmups));
    if (correct) {
        // The headline: what ran and its rates; the error against float64 and the set-up time are evidence.
        result.evidence("accuracy", fmt::format("relative error {:.1e} against float64 on every GPU", worst));
        result.evidence("init", fmt::format("ncclCommInitAll {:.0f} ms", outcome.init_ms));
        result.summary(
            fmt::format("NCCL {}, {} GPUs: float sum all-reduce of {} correct on every GPU; bus {:.1f} GB/s, algorithm "
                        "{:.1f} GB/s",
                        outcome.version, ranks, format_bytes(bytes), bus_bandwidth, algorithm_bandwidth));
    }
}

double nccl_allreduce_bus_bandwidth(double algorithm_bandwidth, int ranks) {
    if (ranks <= 0) return 0.0;
    return algorithm_bandwidth * 2.0 * (ranks - 1) / ranks;
}

void run_nccl_allreduce(CheckContext& context, ResultBuilder& result, std::string_view soname) {
    if (!require_two_devices(context, result)) return;
    const DynamicLibrary library = DynamicLibrary::open(soname);
    if (!library.ok()) {
        result.evidence("nccl_error", library.error());
        result.skip(
            fmt::format("NCCL is not installed: {} cannot be loaded ({}); to check it, install the nvidia-nccl-cu{} "
                        "wheel "
                        "(`pip install nvidia-nccl-cu{}`, then put its lib directory on LD_LIBRARY_PATH) or the "
                        "libnccl2 package from "
                        "NVIDIA's CUDA repository (`sudo apt-get install libnccl2`)",
                        soname, library.error(), CUDART_VERSION / 1000, CUDART_VERSION / 1000));
        return;
    }
    result.evidence("nccl_path", library.loaded_path());
    NcclApi api;
    const std::vector<std::string> missing = bind_symbols(library, nccl_symbols, api);
    if (!missing.empty()) {
        result.add(Code::library_symbol_missing,
                   fmt::format("{} ({}) lacks {}", soname, library.loaded_path(), fmt::join(missing, ", ")),
                   "Install an NCCL 2.x built for this CUDA major (the nvidia-nccl-cu13 wheel or the libnccl2 "
                   "package); the file loaded is damaged or not NCCL.");
        return;
    }
    int version = 0;
    bool version_known = false;
    try {
        nccl_check(api, api.get_version(&version), "ncclGetVersion");
        version_known = true;
        result.evidence("nccl_version", nccl_version_text(version));
        set_nvls_off();
        result.evidence("NCCL_NVLS_ENABLE", "0 (set by cudacheck: NVLink multicast stays off)");
        gpu::run_gpu_check(context, result, [&](int) {
            measure_then_judge<AllReduceOutcome>(
                [&](AllReduceOutcome& outcome) {
                    outcome.version = nccl_version_text(version);
                    measure_allreduce(context, api, outcome);
                },
                [&](const AllReduceOutcome& outcome) { judge_allreduce(outcome, result); });
        });
    } catch (const NcclError& error) {
        // Wherever NCCL failed, before the GPU work or in it, it is NCCL's finding (run_gpu_check
        // reports only CUDA's errors; anything else would be reported as a cudacheck bug).
        result.add(Code::nccl_call_failed,
                   version_known ? fmt::format("NCCL {}: {}", nccl_version_text(version), error.what()) : error.what());
    }
}

std::unique_ptr<Check> make_nccl_allreduce_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "nccl.allreduce",
                  .title = "NCCL all-reduce",
                  .description = "NCCL communicators over all GPUs in one process, a float sum all-reduce verified on "
                                 "every GPU; bus bandwidth and NCCL version",
                  .scope = Scope::multi_device,
                  .min_level = Level::full,
                  .depends_on = {"cuda.devices"},
                  // Before any check starts threads of its own: setenv races with getenv elsewhere.
                  .prepare = [](Probes&) { set_nvls_off(); },
                  .raises = {Code::cuda_call_failed, Code::gpu_out_of_memory, Code::wrong_result,
                             Code::library_symbol_missing, Code::nccl_call_failed},
                  .answers = "with 2+ GPUs, at `--level full`: NCCL (`libnccl.so.2`, skipped when absent) "
                             "communicators over all "
                             "GPUs, a float sum all-reduce verified on every GPU, bus bandwidth, NCCL version; NVLink "
                             "multicast "
                             "kept off (`NCCL_NVLS_ENABLE=0`)"},
        [](CheckContext& context, ResultBuilder& result) {
            run_nccl_allreduce(context, result, cuda_library::nccl.soname_for(CUDART_VERSION / 1000));
        });
}

const CheckRegistration nccl_allreduce_registration{2100, make_nccl_allreduce_check};

}  // namespace cudacheck
