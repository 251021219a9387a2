#include "gpu/cuda_runtime.hpp"

#include "core/build_info.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"
#include "core/waiting.hpp"
#include "probes/probes.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <fmt/format.h>

namespace cudacheck::gpu {

CudaError::CudaError(cudaError_t error, std::string call)
    : std::runtime_error(fmt::format("{} failed: {} ({})", call, cudaGetErrorName(error), cudaGetErrorString(error))),
      error_(error),
      call_(std::move(call)) {}

void check(cudaError_t error, const std::string& call) {
    if (error != cudaSuccess) {
        (void)cudaGetLastError();  // clear a non-sticky error so later checks start clean
        throw CudaError(error, call);
    }
}

std::string allocation_call(std::size_t bytes) { return "cudaMalloc(" + format_bytes(bytes) + ")"; }

namespace {

std::shared_mutex& device_mutex(int device) {
    static std::mutex registry_mutex;
    static std::map<int, std::unique_ptr<std::shared_mutex>> mutexes;
    const std::lock_guard<std::mutex> guard(registry_mutex);
    std::unique_ptr<std::shared_mutex>& slot = mutexes[device];
    if (!slot) slot = std::make_unique<std::shared_mutex>();
    return *slot;
}

// Re-acquires the caller's shared lock however the timing ends.
class Reacquire {
public:
    Reacquire(std::optional<DeviceWork>& held, int device) : held_(held), device_(device) {}
    Reacquire(const Reacquire&) = delete;
    Reacquire& operator=(const Reacquire&) = delete;
    ~Reacquire() {
        try {
            held_.emplace(device_);
        } catch (...) {
            // Only a failing lock could get here; the caller then continues without the lock.
        }
    }

private:
    std::optional<DeviceWork>& held_;
    int device_;
};

}  // namespace

DeviceWork::DeviceWork(int device) : device_(device), lock_(device_mutex(device), std::defer_lock) { lock_reporting_wait(lock_); }

std::vector<float> time_on_stream(const Stream& stream, std::optional<DeviceWork>& held, int warmups, int runs,
                                  const std::function<void()>& work) {
    int device = 0;
    if (held) device = held->device();
    else check(cudaGetDevice(&device), "cudaGetDevice");
    held.reset();
    const Reacquire reacquire(held, device);  // declared before the exclusive lock: released after it
    std::unique_lock<std::shared_mutex> alone(device_mutex(device), std::defer_lock);
    lock_reporting_wait(alone);
    const trace::Span timed("timed alone on the GPU");
    // Work other checks queued before releasing their shared locks may still be running.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    for (int i = 0; i < warmups; ++i) work();
    std::vector<cudaEvent_t> events(static_cast<std::size_t>(runs) + 1, nullptr);
    std::vector<float> samples;
    try {
        for (cudaEvent_t& event : events) check(cudaEventCreate(&event), "cudaEventCreate");
        check(cudaEventRecord(events[0], stream.get()), "cudaEventRecord");
        for (int i = 0; i < runs; ++i) {
            work();
            check(cudaEventRecord(events[static_cast<std::size_t>(i) + 1], stream.get()), "cudaEventRecord");
        }
        check(cudaEventSynchronize(events.back()), "cudaEventSynchronize");
        for (int i = 0; i < runs; ++i) {
            float milliseconds = 0;
            check(cudaEventElapsedTime(&milliseconds, events[static_cast<std::size_t>(i)], events[static_cast<std::size_t>(i) + 1]),
                  "cudaEventElapsedTime");
            samples.push_back(milliseconds);
        }
    } catch (...) {
        for (cudaEvent_t event : events)
            if (event != nullptr) cudaEventDestroy(event);
        throw;
    }
    for (cudaEvent_t event : events) cudaEventDestroy(event);
    return samples;
}

double median(std::vector<float> samples) {
    if (samples.empty()) return 0.0;
    std::sort(samples.begin(), samples.end());
    const std::size_t middle = samples.size() / 2;
    return samples.size() % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2.0;
}

std::string remediation_for(cudaError_t error) {
    switch (error) {
        case cudaErrorInsufficientDriver:
            return fmt::format("The driver is older than the CUDA {} runtime cudacheck uses: update the NVIDIA driver (see cuda.pairing).",
                               build_info::cuda_toolkit);
        case cudaErrorCallRequiresNewerDriver:
            return "The CUDA runtime needs a function this driver does not provide: update the NVIDIA driver (see cuda.pairing for the minimum).";
        case cudaErrorStubLibrary:
            return "A stub libcuda was loaded: remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH (see driver.libcuda).";
        case cudaErrorNoKernelImageForDevice:
            return fmt::format("cudacheck was built for CUDA architectures {} which do not cover this GPU: rebuild with "
                               "-DCMAKE_CUDA_ARCHITECTURES=<major><minor> (e.g. 90 for Hopper), i.e. nvcc "
                               "-gencode arch=compute_XY,code=sm_XY plus PTX for the newest.",
                               build_info::cuda_architectures);
        case cudaErrorUnsupportedPtxVersion:
            return "The embedded PTX is newer than this driver can compile: update the driver, or build with SASS for this GPU.";
        case cudaErrorDevicesUnavailable:
            return "The GPU is in Exclusive Process or Prohibited compute mode, and busy: cuda.devices names the process holding it "
                   "(`nvidia-smi -q -d COMPUTE`); free it or ask the administrator.";
        case cudaErrorMemoryAllocation:
            return "Free GPU memory (other processes: `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`), or run when the GPU is idle.";
        case cudaErrorInvalidDevice:
            return "The device ordinal is not visible: check CUDA_VISIBLE_DEVICES and --devices.";
        default:
            return {};
    }
}

namespace {

// "; other processes on it at start: pid 4242 python3 (120.0 GiB)", from NVML's snapshot.
std::string other_processes_text(const CheckContext& context, int device) {
    const std::vector<DeviceInfo>& devices = context.probes.driver().devices;
    if (device < 0 || static_cast<std::size_t>(device) >= devices.size()) return {};
    const NvmlDeviceUsage* usage = context.probes.nvml().usage_of_pci_bus_id(devices[static_cast<std::size_t>(device)].pci_bus_id);
    if (usage == nullptr || !usage->processes || usage->processes->empty()) return {};
    return "; other processes on it at start: " + describe_processes(*usage->processes);
}

}  // namespace

void run_gpu_check(const CheckContext& context, ResultBuilder& result, const std::function<void(int device)>& body) {
    const int device = context.device.value_or(0);
    try {
        {
            const trace::Span span("cudaSetDevice (creates the context on first use)");
            check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
        }
        body(device);
    } catch (const CudaError& error) {
        if (error.error() == cudaErrorMemoryAllocation) {
            size_t free_bytes = 0;
            size_t total_bytes = 0;
            cudaMemGetInfo(&free_bytes, &total_bytes);
            result.add(Code::gpu_out_of_memory,
                       fmt::format("{}: only {} of {} free on device {}{}", error.what(), format_bytes(free_bytes), format_bytes(total_bytes), device,
                                   other_processes_text(context, device)),
                       remediation_for(error.error()));
        } else if (error.error() == cudaErrorNoKernelImageForDevice) {
            result.add(Code::no_kernel_image, error.what(), remediation_for(error.error()));
        } else {
            result.add(Code::cuda_call_failed, error.what(), remediation_for(error.error()));
        }
    }
}

}  // namespace cudacheck::gpu
