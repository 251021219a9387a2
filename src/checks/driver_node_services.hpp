// driver.node_services: what the node must run for CUDA before cuInit (Fabric Manager on NVSwitch
// systems, the nvidia-uvm module and device file, a /dev/nvidia<N> for every GPU). The judge is pure.
#pragma once

#include "probes/host_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/node_services.hpp"
#include "report/result_builder.hpp"

namespace cudacheck {

void judge_node_services(const KernelModuleFacts& kernel, const HostInfo& host, const NodeServicesFacts& node,
                         ResultBuilder& result);

}  // namespace cudacheck
