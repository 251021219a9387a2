#include "probes/probes.hpp"

namespace cudacheck {

Probes::Probes(const Environment& environment, ProbeSettings settings)
    : host_([&environment, root = settings.root] { return collect_host_info(environment, root); }),
      kernel_module_([root = settings.root] { return collect_kernel_module(root); }),
      driver_(settings.collect_driver ? settings.collect_driver : std::function<DriverFacts()>(&collect_driver)),
      toolkits_([&environment, root = settings.root] { return collect_toolkits(environment, root); }) {}

}  // namespace cudacheck
