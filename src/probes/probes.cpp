#include "probes/probes.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: libraries must match the runtime cudacheck uses

namespace cudacheck {

Probes::Probes(const Environment& environment, ProbeSettings settings)
    : settings_(std::move(settings)),
      host_([&environment, root = settings_.root] { return collect_host_info(environment, root); }),
      kernel_module_([root = settings_.root] { return collect_kernel_module(root); }),
      kernel_log_([this, &environment] {
          return read_kernel_log(KernelLogSettings{.root = settings_.root,
                                                   .path = environment.get("CUDACHECK_KERNEL_LOG").value_or(""),
                                                   .container = host().container,
                                                   .journal = settings_.start_programs});
      }),
      limits_([root = settings_.root] { return collect_process_limits(root); }),
      profiling_permissions_([root = settings_.root] { return collect_profiling_permissions(root); }),
      driver_([this] { return collect_driver_facts(settings_.initialise_cuda); }),
      initialised_driver_([this] { return collect_driver_facts(true); }),
      nvml_([] { return collect_nvml(); }),
      nvml_health_([this] {
          return collect_nvml_health(nvml(), NvmlHealthSettings{.root = settings_.root,
                                                                .in_container = !host().container.empty()});
      }),
      gpu_sharing_([this] { return GpuSharingProbe(nvml()); }),
      toolkits_(
          [this, &environment] { return collect_toolkits(environment, settings_.root, settings_.start_programs); }),
      build_setup_([this, &environment] { return collect_build_setup(environment, toolkits(), settings_.root); }),
      library_locations_([&environment, root = settings_.root] { return locate_libraries(environment, root); }),
      loader_search_([&environment] { return cudacheck::loader_search(environment); }),
      python_([this, &environment] {
          return collect_python_facts(environment, settings_.python, settings_.root,
                                      settings_.cache_directory.value_or(cache_directory(environment)));
      }) {
    for (const LibraryFamily& family : library_family_table)
        libraries_[index_of(family)] = std::make_unique<Lazy<LoadedLibrary>>([this, &environment, &family] {
                // After cuInit (collect_driver says why), but no more than 500 ms after: a cuInit that
                // takes longer, or hangs, holds up no library check. Every load waits here, whoever asks
                // first: cublas.gemm's preparation once opened cuBLAS beside cuInit this way.
            if (driver_prefetched_) libraries_may_open_future_.wait_for(std::chrono::milliseconds(500));
            return load_cuda_library(family, CUDART_VERSION / 1000, environment, &loader_search_.get());
        });
}

DriverFacts Probes::collect_driver_facts(bool initialise) {
    // cuInit does not wait for NVML: on one H200, cuInit first with NVML beside it took the default
    // run from 804 to 626 ms (median of 9 each, alternating; cuInit then returns in ~12 ms and the
    // context follows, where after NVML cuInit took ~220 ms). docs/performance.md, "Start-up".
    DriverFacts facts = settings_.collect_driver ? settings_.collect_driver(initialise)
                                                 : collect_driver(initialise, [this] { let_libraries_open(); });
    let_libraries_open();
    return facts;
}

void Probes::let_libraries_open() {
    std::call_once(libraries_may_open_once_, [this] { libraries_may_open_.set_value(); });
}

void Probes::prefetch(std::function<void()> task) {
    prefetches_.push_back(std::async(std::launch::async, std::move(task)));
}

void Probes::prefetch_driver(std::vector<int> devices) {
    driver_prefetched_ = true;
    prefetched_devices_ = devices;
    prefetches_.push_back(std::async(std::launch::async, [this, devices = std::move(devices)] {
        // However this ends (no driver, no device, an exception), waiting checks go on.
        struct Done {
            Probes& probes;
            ~Done() {
                const std::lock_guard<std::mutex> lock(probes.contexts_mutex_);
                probes.contexts_done_ = true;
                probes.contexts_changed_.notify_all();
            }
        } done{*this};
        // Substituted devices have no contexts, unless the test substitutes their creation too.
        if (settings_.collect_driver && !settings_.create_context) return (void)driver();
        create_primary_contexts(
            driver(), devices,
            [this](int ordinal) {
                const std::lock_guard<std::mutex> lock(contexts_mutex_);
                contexts_created_.insert(ordinal);
                contexts_changed_.notify_all();
            },
            settings_.create_context);
    }));
    // Ready before the first timed section ends (binding its NVML functions took ~20 ms there); on
    // its own thread, so that an NVML that hangs holds up no context.
    prefetches_.push_back(std::async(std::launch::async, [this] { (void)gpu_sharing(); }));
}

void Probes::wait_for_context(int ordinal) {
    if (!driver_prefetched_) return;
    std::unique_lock<std::mutex> lock(contexts_mutex_);
    contexts_changed_.wait(lock, [&] { return contexts_done_ || contexts_created_.count(ordinal) > 0; });
}

void Probes::prefetch_libraries(std::initializer_list<const LibraryFamily*> families) {
    for (const LibraryFamily* family : families)
        prefetches_.push_back(std::async(std::launch::async, [this, family] { (void)library(*family); }));
}

std::string driver_package_version(const KernelModuleFacts* kernel_module, const DriverFacts* driver) {
    if (kernel_module != nullptr && kernel_module->module) return kernel_module->module->version;
    if (driver != nullptr) return driver->library_file_version;
    return {};
}

}  // namespace cudacheck
