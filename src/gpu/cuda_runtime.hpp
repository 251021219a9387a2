// Host-side helpers for checks that run GPU work through the CUDA runtime (linked statically):
// move-only owners of device and pinned memory, streams and events; CUDA errors as exceptions
// that run_gpu_check() turns into findings; and event timing with a median.
#pragma once

#include "engine/check.hpp"
#include "util/actions.hpp"

#include <cuda_runtime_api.h>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck::gpu {

// A CUDA runtime call failed. `call` names it ("cudaMalloc(1.0 GiB)").
class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t error, std::string call);
    [[nodiscard]] cudaError_t error() const { return error_; }
    [[nodiscard]] const std::string& call() const { return call_; }

private:
    cudaError_t error_;
    std::string call_;
};

// A step outside the checks' own code (util/actions.hpp: a GPU's context, a library handle) killed
// or hung an earlier check process of this run, so it is not taken again; run_gpu_check() turns it
// into step_crashed or step_timed_out.
class StepRefused : public std::runtime_error {
public:
    StepRefused(const actions::Action& action, const actions::Failure& failure);
    [[nodiscard]] const actions::Failure& failure() const { return failure_; }

private:
    actions::Failure failure_;
};
// Throws StepRefused when `action` failed earlier in this run.
void refuse_if_failed(const actions::Action& action);
// The step of creating `device`'s context (Probes::prefetch_driver takes it for every device).
[[nodiscard]] actions::Action context_step(int device);

// Throws CudaError unless `error` is cudaSuccess.
void check(cudaError_t error, const std::string& call);
// "cudaMalloc(1.0 GiB)": names an allocation in error messages.
[[nodiscard]] std::string allocation_call(std::size_t bytes);

enum class Memory { device, pinned };  // cudaMalloc, or page-locked host memory (see PinnedBlock)

// Page-locked host memory: mapped and touched by this process, then registered with the driver
// (cudaHostRegister). cudaMallocHost faults in, zeroes and pins the pages inside the driver, and
// other threads' driver calls wait meanwhile: on the H200 machine two 64 MiB buffers took 77-98 ms
// and held cublasCreate beside them from 3 to 33-42 ms and the first products of cuBLAS from
// 143-200 to 180-195 ms; registering pages already touched held up neither (bench/cublas_costs.cpp
// `first-use parallel ... run pinned|registered`, docs/performance.md "Third pass"). Where the
// driver refuses to register memory, cudaMallocHost serves instead.
struct PinnedBlock {
    void* data = nullptr;
    std::size_t mapped = 0;  // > 0: an mmap of this length, registered; 0: from cudaMallocHost
};
// Throws CudaError naming `bytes` when neither way gives the memory.
[[nodiscard]] PinnedBlock allocate_pinned(std::size_t bytes);
void free_pinned(const PinnedBlock& block) noexcept;

// `count` elements of T in device or pinned host memory; pinned memory is what real transfers use,
// and what bandwidth figures need.
template <typename T, Memory kind>
class CudaArray {
public:
    explicit CudaArray(std::size_t count) : count_(count) {
        if constexpr (kind == Memory::device) {
            check(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()), allocation_call(bytes()));
        } else {
            pinned_ = allocate_pinned(bytes());
            data_ = static_cast<T*>(pinned_.data);
        }
    }
    CudaArray(CudaArray&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(other.count_), pinned_(other.pinned_) {}
    CudaArray(const CudaArray&) = delete;
    CudaArray& operator=(const CudaArray&) = delete;
    CudaArray& operator=(CudaArray&&) = delete;
    ~CudaArray() {
        if (data_ == nullptr) return;
        if constexpr (kind == Memory::device) cudaFree(data_);
        else free_pinned(pinned_);
    }
    [[nodiscard]] T* data() const { return data_; }
    [[nodiscard]] std::size_t size() const { return count_; }
    [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
    PinnedBlock pinned_;  // Memory::pinned only
};

template <typename T>
using DeviceArray = CudaArray<T, Memory::device>;
template <typename T>
using PinnedArray = CudaArray<T, Memory::pinned>;

// A CUDA event of the device current at its creation, destroyed with its owner.
class Event {
public:
    Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
    Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
    Event& operator=(Event&&) = delete;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        if (event_ != nullptr) cudaEventDestroy(event_);
    }
    [[nodiscard]] cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() { cudaStreamDestroy(stream_); }
    [[nodiscard]] cudaStream_t get() const { return stream_; }
    void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

private:
    cudaStream_t stream_ = nullptr;
};

// Keeps timed GPU sections alone on their device while checks run concurrently. A check holds a
// DeviceWork (a shared lock) while it enqueues and waits for untimed GPU work, and drops it for
// CPU-side work (references, compilation, statistics); time_on_stream() trades it for the
// exclusive lock, so nothing else runs on the GPU while events are timing.
class DeviceWork {
public:
    explicit DeviceWork(int device);
    DeviceWork(const DeviceWork&) = delete;
    DeviceWork& operator=(const DeviceWork&) = delete;
    [[nodiscard]] int device() const { return device_; }

private:
    int device_;
    std::shared_lock<std::shared_mutex> lock_;
};

// Times `runs` executions of `work` (each enqueued on `stream`) with CUDA events, after `warmups`
// untimed ones, alone on the device: `held` (the caller's DeviceWork) is released, the exclusive
// lock taken for the timing, and `held` re-acquired before returning. Returns each run's
// milliseconds (take the median).
[[nodiscard]] std::vector<float> time_on_stream(const Stream& stream, std::optional<DeviceWork>& held, int warmups,
                                                int runs, const std::function<void()>& work);
// Runs `work` alone on the device, for as long as it takes (a stress test, a memory test): `held` is
// released, the exclusive lock taken, the device synchronised (work queued by other checks ends
// first), and `held` re-acquired before returning. time_on_stream() is this plus CUDA events.
void alone_on_device(std::optional<DeviceWork>& held, const std::function<void()>& work);
[[nodiscard]] double median(std::vector<float> samples);

// At most `wanted` bytes, and no more than 1/`share` of the free memory of the fullest of
// `devices`, in whole MiB: a buffer size for work that runs beside every other check of those
// GPUs. Leaves the current device set to the last of `devices`.
[[nodiscard]] std::size_t bytes_fitting(const std::vector<int>& devices, std::size_t wanted, std::size_t share);

// DeviceWork on several devices at once (shared locks, taken in ordinal order), for untimed work of
// a check that spans devices (cuda.p2p, nccl.allreduce).
class DevicesWork {
public:
    explicit DevicesWork(std::vector<int> devices);
    DevicesWork(const DevicesWork&) = delete;
    DevicesWork& operator=(const DevicesWork&) = delete;
    [[nodiscard]] const std::vector<int>& devices() const { return devices_; }

private:
    std::vector<int> devices_;  // ascending, no duplicates
    std::vector<std::unique_ptr<DeviceWork>> locks_;
};

// A stream and the device it belongs to, for timing across devices.
struct DeviceStream {
    int device;
    const Stream* stream;
};

// time_on_stream() for work that spans devices: `held` is released, the exclusive locks of all its
// devices are taken all at once or not at all (std::lock's method: no deadlock with other checks,
// and no GPU held idle while another is awaited), every device synchronised, and
// each run bracketed by events on every stream in `streams`. A run lasts as long as its slowest
// stream (a collective ends when its last rank does). `held` is re-acquired before returning, and
// the current device is left as it was.
[[nodiscard]] std::vector<float> time_on_devices(const std::vector<DeviceStream>& streams,
                                                 std::optional<DevicesWork>& held, int warmups, int runs,
                                                 const std::function<void()>& work);

// Runs a check's GPU body on its device: selects the device, and turns a CudaError into a
// finding (out of memory with free/total, no kernel image with the fix, anything else by name).
void run_gpu_check(const CheckContext& context, ResultBuilder& result, const std::function<void(int device)>& body);

// What to do about a CUDA runtime error, specific to the code (35 insufficient driver, 209 no
// kernel image, ...); empty when the catalog's generic text is all there is to say.
[[nodiscard]] std::string remediation_for(cudaError_t error);

}  // namespace cudacheck::gpu
