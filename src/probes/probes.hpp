// The facts checks share, each gathered at most once per run and only when a check asks for it.
// Safe to use from several threads: host checks run concurrently.
#pragma once

#include "probes/build/build_setup.hpp"
#include "probes/cuda_libraries.hpp"
#include "probes/developer_tools.hpp"
#include "probes/driver_probe.hpp"
#include "probes/host_probe.hpp"
#include "probes/kernel_log.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/library_locator.hpp"
#include "probes/nvml/gpu_sharing.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "probes/nvml/nvml_probe.hpp"
#include "probes/process_limits.hpp"
#include "probes/python/frameworks_probe.hpp"
#include "probes/toolkit_probe.hpp"
#include "util/environment.hpp"

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace cudacheck {

// A value computed on first use. If the computation throws, the next caller tries again.
template <typename T>
class Lazy {
public:
    explicit Lazy(std::function<T()> compute) : compute_(std::move(compute)) {}
    const T& get() {
        std::call_once(once_, [this] {
            value_ = std::make_unique<T>(compute_());
            ready_.store(value_.get(), std::memory_order_release);
        });
        return *value_;
    }
    // The value if something already computed it; never computes.
    const T* peek() const { return ready_.load(std::memory_order_acquire); }

private:
    std::function<T()> compute_;
    std::once_flag once_;
    std::unique_ptr<T> value_;
    std::atomic<const T*> ready_{nullptr};
};

// Where probes look. Tests point `root` at a crafted directory tree.
struct ProbeSettings {
    std::string root;  // prefix for /proc, /sys, /dev, /etc and /usr/local paths; "" is the real system
    // cuInit costs ~180 ms on an H200: `--level quick` does not initialise CUDA and lists devices
    // through NVML instead.
    bool initialise_cuda = true;
    // Whether probes may start programs (`nvcc --version`, journalctl): `--level quick` reads files
    // and asks NVML only, and what only a program could tell is left to `--level standard`.
    bool start_programs = true;
    // How driver facts are gathered; tests substitute devices without a driver. Empty: collect_driver().
    std::function<DriverFacts(bool initialise)> collect_driver;
    // How prefetch_driver() creates a primary context; tests substitute one. Empty: the driver's
    // (none for substituted devices).
    std::function<void(int ordinal)> create_context;
    // `--python`: interpreters or environment roots to look at besides those found.
    std::vector<std::string> python = {};
    // Where the GPU code of the frameworks' binaries is cached; "" for none. Unset: cache_directory().
    std::optional<std::string> cache_directory = {};
};

class Probes {
public:
    Probes(const Environment& environment, ProbeSettings settings = {});

    [[nodiscard]] const HostInfo& host() { return host_.get(); }
    [[nodiscard]] const KernelModuleFacts& kernel_module() { return kernel_module_.get(); }
    // The NVIDIA driver's lines of the kernel log since boot (<root>/dev/kmsg, or the file
    // CUDACHECK_KERNEL_LOG names).
    [[nodiscard]] const KernelLogReading& kernel_log() { return kernel_log_.get(); }
    [[nodiscard]] const ProcessLimits& limits() { return limits_.get(); }
    // RmProfilingAdminOnly and perf_event_paranoid: whether profilers may read GPU counters and
    // sample the CPU.
    [[nodiscard]] const ProfilingPermissions& profiling_permissions() { return profiling_permissions_.get(); }
    // libcuda as the run's level allows: initialised unless --level quick.
    [[nodiscard]] const DriverFacts& driver() { return driver_.get(); }
    // libcuda initialised whatever the level: for work that needs CUDA itself.
    [[nodiscard]] const DriverFacts& initialised_driver() {
        return settings_.initialise_cuda ? driver_.get() : initialised_driver_.get();
    }
    [[nodiscard]] const NvmlFacts& nvml() { return nvml_.get(); }
    // Each GPU's health through NVML, read once for device.health and driver.kernel_log (which joins
    // the Xids with the recovery action); empty when NVML did not initialise.
    [[nodiscard]] const std::vector<NvmlDeviceHealth>& nvml_health() { return nvml_health_.get(); }
    // Who else uses the GPUs, through the run's NVML (asked after each check that timed GPU work).
    [[nodiscard]] const GpuSharingProbe& gpu_sharing() { return gpu_sharing_.get(); }
    [[nodiscard]] bool initialises_cuda() const { return settings_.initialise_cuda; }
    // ProbeSettings::root: where the probes read the machine ("" for the real one).
    [[nodiscard]] const std::string& root() const { return settings_.root; }
    // A CUDA library for the runtime cudacheck was built with, opened on first use; after a
    // prefetch_driver(), not before cuInit has returned (or 500 ms have passed): opened beside it,
    // the libraries slowed cuInit (collect_driver says by how much).
    [[nodiscard]] const LoadedLibrary& library(const LibraryFamily& family) {
        return libraries_[index_of(family)]->get();
    }
    [[nodiscard]] const LoadedLibrary* library_if_loaded(const LibraryFamily& family) const {
        return libraries_[index_of(family)]->peek();
    }
    // Starts, in the background, querying NVML, then initialising the driver (cuInit), then creating
    // the primary contexts of `devices` (all when empty), one after another: the longest steps
    // before any GPU check can start (on the 2 x H200 machine ~45 ms, ~130 ms plus ~100 per GPU,
    // and ~60-100 ms per GPU), overlapping the host checks. Call before prefetch_libraries.
    void prefetch_driver(std::vector<int> devices);
    // Waits until prefetch_driver() has created `ordinal`'s primary context (or is past it, or gave
    // up); returns at once without a prefetch. Call before a device's first CUDA call: the runtime
    // would otherwise create that context itself, side by side with the one being prefetched, and
    // the driver would finish both only when the later is done.
    void wait_for_context(int ordinal);
    // Starts opening libraries in the background: cuBLASLt and cuDNN are hundreds of megabytes,
    // and loading them overlaps context creation and the host checks instead of following them.
    // Each load waits for cuInit, as library() does.
    void prefetch_libraries(std::initializer_list<const LibraryFamily*> families);
    // Runs `task` in the background (a check's own preparation); joined when the probes go.
    void prefetch(std::function<void()> task);
    // The devices prefetch_driver() prepares (empty: all), for preparations that need a context.
    [[nodiscard]] const std::vector<int>& prefetched_devices() const { return prefetched_devices_; }
    [[nodiscard]] const ToolkitFacts& toolkits() { return toolkits_.get(); }
    // What a CUDA build would use: the toolkit, its files, the host compilers, ninja (files and
    // `--version` outputs only).
    [[nodiscard]] const BuildSetup& build_setup() { return build_setup_.get(); }
    // This process's loader search (LD_LIBRARY_PATH, ld.so.cache, default directories).
    [[nodiscard]] const LoaderSearch& loader_search() { return loader_search_.get(); }
    // Where each CUDA library resolves for a C/C++ program, and every copy; nothing is loaded.
    [[nodiscard]] const LibraryFacts& library_locations() { return library_locations_.get(); }
    // The Python environments, their frameworks and what each loads; files only.
    [[nodiscard]] const PythonFacts& python() { return python_.get(); }
    [[nodiscard]] const PythonFacts* python_if_collected() const { return python_.peek(); }

    // For the report: what was gathered, without gathering anything new.
    [[nodiscard]] const DriverFacts* driver_if_collected() const {
        const DriverFacts* initialised = initialised_driver_.peek();
        return initialised != nullptr ? initialised : driver_.peek();
    }
    [[nodiscard]] const NvmlFacts* nvml_if_collected() const { return nvml_.peek(); }
    [[nodiscard]] const ToolkitFacts* toolkits_if_collected() const { return toolkits_.peek(); }
    [[nodiscard]] const BuildSetup* build_setup_if_collected() const { return build_setup_.peek(); }
    [[nodiscard]] const LibraryFacts* library_locations_if_collected() const { return library_locations_.peek(); }
    [[nodiscard]] const KernelModuleFacts* kernel_module_if_collected() const { return kernel_module_.peek(); }

private:
    DriverFacts collect_driver_facts(bool initialise);
    ProbeSettings settings_;
    Lazy<HostInfo> host_;
    Lazy<KernelModuleFacts> kernel_module_;
    Lazy<KernelLogReading> kernel_log_;
    Lazy<ProcessLimits> limits_;
    Lazy<ProfilingPermissions> profiling_permissions_;
    Lazy<DriverFacts> driver_;
    Lazy<DriverFacts> initialised_driver_;
    Lazy<NvmlFacts> nvml_;
    Lazy<std::vector<NvmlDeviceHealth>> nvml_health_;
    Lazy<GpuSharingProbe> gpu_sharing_;
    Lazy<ToolkitFacts> toolkits_;
    Lazy<BuildSetup> build_setup_;
    Lazy<LibraryFacts> library_locations_;
    // This process's loader search (ld.so.cache parsed once), for the library loads.
    Lazy<LoaderSearch> loader_search_;
    Lazy<PythonFacts> python_;
    std::array<std::unique_ptr<Lazy<LoadedLibrary>>, library_family_table.size()> libraries_;  // indexed like the table
    // Set once cuInit has returned (collect_driver says why): the CUDA libraries' loads wait for it.
    void let_libraries_open();
    std::once_flag libraries_may_open_once_;
    std::promise<void> libraries_may_open_;
    std::shared_future<void> libraries_may_open_future_ = libraries_may_open_.get_future().share();
    bool driver_prefetched_ = false;
    std::vector<int> prefetched_devices_;
    std::mutex contexts_mutex_;
    std::condition_variable contexts_changed_;
    std::set<int> contexts_created_;  // by prefetch_driver, so far
    bool contexts_done_ = false;  // prefetch_driver created all it will
    std::vector<std::future<void>> prefetches_;  // joined on destruction
};

// Driver package version: the kernel module's, else the one in libcuda's file name.
[[nodiscard]] std::string driver_package_version(const KernelModuleFacts* kernel_module, const DriverFacts* driver);

}  // namespace cudacheck
