#include "probes/probes.hpp"

namespace cudacheck {

Probes::Probes(const Environment& environment, ProbeSettings settings)
    : settings_(std::move(settings)),
      host_([&environment, root = settings_.root] { return collect_host_info(environment, root); }),
      kernel_module_([root = settings_.root] { return collect_kernel_module(root); }),
      driver_([this] { return settings_.collect_driver ? settings_.collect_driver(settings_.initialise_cuda) : collect_driver(settings_.initialise_cuda); }),
      initialised_driver_([this] { return settings_.collect_driver ? settings_.collect_driver(true) : collect_driver(true); }),
      nvml_([] { return collect_nvml(); }),
      toolkits_([&environment, root = settings_.root] { return collect_toolkits(environment, root); }) {}

}  // namespace cudacheck
