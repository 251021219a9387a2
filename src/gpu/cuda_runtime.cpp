#include "gpu/cuda_runtime.hpp"

#include "probes/probes.hpp"
#include "util/build_info.hpp"
#include "util/timed_windows.hpp"
#include "util/trace.hpp"
#include "util/units.hpp"
#include "util/waiting.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <sys/mman.h>
#include <unistd.h>

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

PinnedBlock allocate_pinned(std::size_t bytes) {
    PinnedBlock block;
    const long page = sysconf(_SC_PAGESIZE);
    const std::size_t page_bytes = page > 0 ? static_cast<std::size_t>(page) : 4096;
    const std::size_t length = std::max<std::size_t>(1, (bytes + page_bytes - 1) / page_bytes) * page_bytes;
    void* mapped = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped != MAP_FAILED) {
        std::memset(mapped, 0, length);  // the page faults and zeroing, here rather than inside the driver
        if (cudaHostRegister(mapped, length, cudaHostRegisterDefault) == cudaSuccess) {
            block.data = mapped;
            block.mapped = length;
            return block;
        }
        (void)cudaGetLastError();  // refused (a platform without it): not an error of the check
        munmap(mapped, length);
    }
    check(cudaMallocHost(&block.data, bytes), "cudaMallocHost(" + format_bytes(bytes) + ")");
    return block;
}

void free_pinned(const PinnedBlock& block) noexcept {
    if (block.data == nullptr) return;
    if (block.mapped == 0) {
        cudaFreeHost(block.data);
        return;
    }
    cudaHostUnregister(block.data);
    munmap(block.data, block.mapped);
}

namespace {

std::shared_mutex& device_mutex(int device) {
    static std::mutex registry_mutex;
    static std::map<int, std::unique_ptr<std::shared_mutex>> mutexes;
    const std::lock_guard<std::mutex> guard(registry_mutex);
    std::unique_ptr<std::shared_mutex>& slot = mutexes[device];
    if (!slot) slot = std::make_unique<std::shared_mutex>();
    return *slot;
}

// Re-acquires the caller's shared lock(s) however the timing ends: `Held` is DeviceWork (of one
// device) or DevicesWork (of several), built again from `devices`.
template <typename Held, typename Devices>
class Reacquire {
public:
    Reacquire(std::optional<Held>& held, Devices devices) : held_(held), devices_(std::move(devices)) {}
    Reacquire(const Reacquire&) = delete;
    Reacquire& operator=(const Reacquire&) = delete;
    ~Reacquire() {
        try {
            held_.emplace(devices_);
        } catch (...) {
            // Only a failing lock could get here; the caller then continues without the lock.
        }
    }

private:
    std::optional<Held>& held_;
    Devices devices_;
};

}  // namespace

DeviceWork::DeviceWork(int device) : device_(device), lock_(device_mutex(device), std::defer_lock) {
    lock_reporting_wait(lock_);
}

namespace {

// Makes `device` current for a scope and restores the caller's device after.
class CurrentDevice {
public:
    CurrentDevice() { check(cudaGetDevice(&previous_), "cudaGetDevice"); }
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;
    ~CurrentDevice() { cudaSetDevice(previous_); }
    void use(int device) const { check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device)); }

private:
    int previous_ = 0;
};

// The timing itself, once the devices are held alone: warm-ups, then `runs` runs each bracketed by
// an event on every stream; per run, the longest stream's milliseconds.
std::vector<float> time_with_events(const std::vector<DeviceStream>& streams, int warmups, int runs,
                                    const std::function<void()>& work) {
    const CurrentDevice current;
    for (int i = 0; i < warmups; ++i) work();
    const std::size_t per_stream = static_cast<std::size_t>(runs) + 1;
    std::vector<Event> events;
    events.reserve(streams.size() * per_stream);
    const auto event = [&](std::size_t stream, std::size_t index) { return events[stream * per_stream + index].get(); };
    const auto record = [&](std::size_t index) {
        for (std::size_t s = 0; s < streams.size(); ++s) {
            current.use(streams[s].device);
            check(cudaEventRecord(event(s, index), streams[s].stream->get()), "cudaEventRecord");
        }
    };
    std::vector<float> samples(static_cast<std::size_t>(runs), 0.0f);
    for (std::size_t s = 0; s < streams.size(); ++s) {
        current.use(streams[s].device);  // an event belongs to the device current when it is created
        for (std::size_t index = 0; index < per_stream; ++index) events.emplace_back();
    }
    record(0);
    for (int i = 0; i < runs; ++i) {
        work();
        record(static_cast<std::size_t>(i) + 1);
    }
    for (std::size_t s = 0; s < streams.size(); ++s) {
        check(cudaEventSynchronize(event(s, per_stream - 1)), "cudaEventSynchronize");
        for (std::size_t i = 0; i < samples.size(); ++i) {
            float milliseconds = 0;
            check(cudaEventElapsedTime(&milliseconds, event(s, i), event(s, i + 1)), "cudaEventElapsedTime");
            samples[i] = std::max(samples[i], milliseconds);
        }
    }
    return samples;
}

}  // namespace

void alone_on_device(std::optional<DeviceWork>& held, const std::function<void()>& work) {
    int device = 0;
    if (held) device = held->device();
    else check(cudaGetDevice(&device), "cudaGetDevice");
    held.reset();
    const Reacquire<DeviceWork, int> reacquire(held, device);  // declared before the exclusive lock: released after it
    // Alone among cudacheck's checks; whether another process used the GPU meanwhile, the engine
    // asks NVML as the window closes: declared before the exclusive lock, after it is released.
    std::optional<TimedWindow> window;
    std::unique_lock<std::shared_mutex> alone(device_mutex(device), std::defer_lock);
    lock_reporting_wait(alone);
    const trace::Span timed("timed alone on the GPU");
    // Work other checks queued before releasing their shared locks may still be running.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    window.emplace(std::vector<int>{device});
    work();
    window->stop();
}

std::vector<float> time_on_stream(const Stream& stream, std::optional<DeviceWork>& held, int warmups, int runs,
                                  const std::function<void()>& work) {
    int device = 0;
    if (held) device = held->device();
    else check(cudaGetDevice(&device), "cudaGetDevice");
    std::vector<float> samples;
    alone_on_device(held, [&] { samples = time_with_events({DeviceStream{device, &stream}}, warmups, runs, work); });
    return samples;
}

DevicesWork::DevicesWork(std::vector<int> devices) : devices_(std::move(devices)) {
    std::sort(devices_.begin(), devices_.end());
    devices_.erase(std::unique(devices_.begin(), devices_.end()), devices_.end());
    for (int device : devices_) locks_.push_back(std::make_unique<DeviceWork>(device));
}

std::vector<float> time_on_devices(const std::vector<DeviceStream>& streams, std::optional<DevicesWork>& held,
                                   int warmups, int runs, const std::function<void()>& work) {
    std::vector<int> devices;
    if (held) devices = held->devices();
    for (const DeviceStream& stream : streams) devices.push_back(stream.device);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    held.reset();
    const Reacquire<DevicesWork, std::vector<int>> reacquire(held, devices);  // declared before the exclusive locks:
                                                                              // released after them
    // All of them or none: holding one GPU alone while waiting for the next leaves it idle (seen on
    // the 2 x H200 machine: cuda.p2p held GPU 0 for 120 ms waiting for GPU 1). Block on one, try the
    // others; if one refuses, release all and block on that one (std::lock's method: no deadlock).
    std::optional<TimedWindow> window;  // closed after the exclusive locks are released (see alone_on_device)
    std::vector<std::unique_lock<std::shared_mutex>> alone;
    for (int device : devices) alone.emplace_back(device_mutex(device), std::defer_lock);
    for (std::size_t first = 0;;) {
        lock_reporting_wait(alone[first]);
        std::size_t refused = alone.size();
        for (std::size_t i = 0; i < alone.size() && refused == alone.size(); ++i)
            if (i != first && !alone[i].try_lock()) refused = i;
        if (refused == alone.size()) break;
        for (auto& lock : alone)
            if (lock.owns_lock()) lock.unlock();
        first = refused;
    }
    const trace::Span timed("timed alone on the GPUs");
    {
        const CurrentDevice current;
        for (int device : devices) {
            current.use(device);
            check(cudaDeviceSynchronize(), fmt::format("cudaDeviceSynchronize(device {})", device));
        }
    }
    window.emplace(devices);
    std::vector<float> samples = time_with_events(streams, warmups, runs, work);
    window->stop();
    return samples;
}

std::size_t bytes_fitting(const std::vector<int>& devices, std::size_t wanted, std::size_t share) {
    std::size_t bytes = wanted;
    for (int device : devices) {
        check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
        size_t free_bytes = 0;
        size_t total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
        bytes = std::min(bytes, (free_bytes / share) & ~((std::size_t{1} << 20) - 1));
    }
    return bytes;
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
            return fmt::format(
                "The driver is older than the CUDA {} runtime cudacheck uses: update the NVIDIA driver (see "
                "cuda.pairing).",
                build_info::cuda_toolkit);
        case cudaErrorCallRequiresNewerDriver:
            return "The CUDA runtime needs a function this driver does not provide: update the NVIDIA driver (see "
                   "cuda.pairing for the minimum).";
        case cudaErrorStubLibrary:
            return "A stub libcuda was loaded: remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH (see "
                   "driver.libcuda).";
        case cudaErrorNoKernelImageForDevice:
            return fmt::format(
                "cudacheck was built for CUDA architectures {} which do not cover this GPU: rebuild with "
                "-DCMAKE_CUDA_ARCHITECTURES=<major><minor> (e.g. 90 for Hopper), i.e. nvcc "
                "-gencode arch=compute_XY,code=sm_XY plus PTX for the newest.",
                build_info::cuda_architectures);
        case cudaErrorUnsupportedPtxVersion:
            return "The embedded PTX is newer than this driver can compile: update the driver, or build with SASS for "
                   "this GPU.";
        case cudaErrorDevicesUnavailable:
            return "The GPU is in Exclusive Process or Prohibited compute mode, and busy: cuda.devices names the "
                   "process holding it "
                   "(`nvidia-smi -q -d COMPUTE`); free it or ask the administrator.";
        case cudaErrorMemoryAllocation:
            return "Free GPU memory (other processes: `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`), "
                   "or run when the GPU is idle.";
        case cudaErrorInvalidDevice:
            return "The device ordinal is not visible: check CUDA_VISIBLE_DEVICES and --devices.";
        default: return {};
    }
}

namespace {

// "; other processes on it at start: pid 4242 python3 (120.0 GiB)", from NVML's snapshot.
std::string other_processes_text(const CheckContext& context, int device) {
    const std::vector<DeviceInfo>& devices = context.probes.driver().devices;
    if (device < 0 || static_cast<std::size_t>(device) >= devices.size()) return {};
    const NvmlDeviceUsage* usage =
        context.probes.nvml().usage_of_pci_bus_id(devices[static_cast<std::size_t>(device)].pci_bus_id);
    if (usage == nullptr || !usage->processes || usage->processes->empty()) return {};
    return "; other processes on it at start: " + describe_processes(*usage->processes);
}

}  // namespace

StepRefused::StepRefused(const actions::Action& action, const actions::Failure& failure)
    : std::runtime_error(
          fmt::format("{} {} earlier in this run, so it was not tried again", actions::describe(action), failure.how)),
      failure_(failure) {}

void refuse_if_failed(const actions::Action& action) {
    if (const actions::Failure* failure = actions::failed(action)) throw StepRefused(action, *failure);
}

actions::Action context_step(int device) { return actions::Action{actions::Kind::context, std::to_string(device)}; }

void run_gpu_check(const CheckContext& context, ResultBuilder& result, const std::function<void(int device)>& body) {
    // A multi-device check starts on its first device and moves between them itself.
    const int device = context.device ? *context.device : context.devices.empty() ? 0 : context.devices.front();
    try {
        {
            const trace::Span span("cudaSetDevice (creates the context on first use)");
            // The contexts are being created one after another (Probes::prefetch_driver): wait
            // for this check's rather than create it side by side.
            context.probes.wait_for_context(device);
            for (int other : context.devices) context.probes.wait_for_context(other);
            refuse_if_failed(context_step(device));
            for (int other : context.devices) refuse_if_failed(context_step(other));
            check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
        }
        body(device);
    } catch (const StepRefused& refused) {
        result.add(refused.failure().timed_out ? Code::step_timed_out : Code::step_crashed, refused.what());
    } catch (const CudaError& error) {
        if (error.error() == cudaErrorMemoryAllocation) {
            int current = device;
            cudaGetDevice(&current);  // the device the allocation failed on
            size_t free_bytes = 0;
            size_t total_bytes = 0;
            cudaMemGetInfo(&free_bytes, &total_bytes);
            result.add(Code::gpu_out_of_memory,
                       fmt::format("{}: only {} of {} free on device {}{}", error.what(), format_bytes(free_bytes),
                                   format_bytes(total_bytes), current, other_processes_text(context, current)),
                       remediation_for(error.error()));
        } else if (error.error() == cudaErrorNoKernelImageForDevice) {
            result.add(Code::no_kernel_image, error.what(), remediation_for(error.error()));
        } else {
            result.add(Code::cuda_call_failed, error.what(), remediation_for(error.error()));
        }
    }
}

}  // namespace cudacheck::gpu
