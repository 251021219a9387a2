#include "probes/nvml/nvml_topology.hpp"

#include "probes/driver_probe.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cudacheck {

namespace {

using namespace nvml;

// Active NVLinks of `device` leading to `peer`: those whose far end is the peer itself or, on
// NVSwitch systems (HGX), a switch (a far end that is none of NVML's GPUs); direct links win.
std::optional<int> active_nvlinks(const NvmlApi& api, nvmlDevice_t device, const std::string& peer_bus_id,
                                  const NvmlFacts& nvml) {
    if (api.device_get_nvlink_state == nullptr || api.device_get_nvlink_remote_pci == nullptr) return std::nullopt;
    int direct = 0;
    int through_switches = 0;
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
        int state = 0;
        if (api.device_get_nvlink_state(device, link, &state) != NVML_SUCCESS || state != NVML_FEATURE_ENABLED)
            continue;
        nvmlPciInfo_t remote{};
        if (api.device_get_nvlink_remote_pci(device, link, &remote) != NVML_SUCCESS) continue;
        const std::string remote_bus_id = normalize_pci_bus_id(remote.busId);
        if (remote_bus_id == peer_bus_id) ++direct;
        else if (std::none_of(nvml.devices.begin(), nvml.devices.end(),
                              [&](const DeviceInfo& gpu) { return gpu.pci_bus_id == remote_bus_id; }))
            ++through_switches;
    }
    return direct > 0 ? direct : through_switches;
}

}  // namespace

std::vector<std::vector<std::optional<NvmlPeerLink>>> collect_nvml_peer_links(
    const NvmlFacts& nvml, const std::vector<std::string>& pci_bus_ids) {
    std::vector<std::vector<std::optional<NvmlPeerLink>>> links(pci_bus_ids.size(),
                                                                std::vector<std::optional<NvmlPeerLink>>(
                                                                    pci_bus_ids.size()));
    if (!nvml.initialised()) return links;
    const NvmlApi& api = nvml.api;
    std::vector<nvmlDevice_t> handles(pci_bus_ids.size(), nullptr);
    for (std::size_t i = 0; i < pci_bus_ids.size(); ++i)
        handles[i] = nvml_handle_of_pci_bus_id(api, nvml.devices, pci_bus_ids[i]);
    for (std::size_t i = 0; i < handles.size(); ++i)
        for (std::size_t j = 0; j < handles.size(); ++j) {
            if (i == j || handles[i] == nullptr || handles[j] == nullptr) continue;
            NvmlPeerLink link;
            int status = 0;
            if (api.device_get_p2p_status != nullptr &&
                api.device_get_p2p_status(handles[i], handles[j], NVML_P2P_CAPS_INDEX_NVLINK, &status) == NVML_SUCCESS)
                link.nvlink = status == NVML_P2P_STATUS_OK;
            if (api.device_get_p2p_status != nullptr &&
                api.device_get_p2p_status(handles[i], handles[j], NVML_P2P_CAPS_INDEX_READ, &status) == NVML_SUCCESS) {
                link.p2p_read = status == NVML_P2P_STATUS_OK;
                if (status != NVML_P2P_STATUS_OK) link.p2p_read_status = status;
            }
            if (link.nvlink.value_or(false))
                link.active_nvlinks = active_nvlinks(api, handles[i], pci_bus_ids[j], nvml);
            int level = 0;
            if (api.device_get_topology_common_ancestor != nullptr &&
                api.device_get_topology_common_ancestor(handles[i], handles[j], &level) == NVML_SUCCESS)
                link.pcie_path = static_cast<PciePath>(level);
            const auto generation_i = nvml_query<unsigned int>(api.device_get_pcie_max_generation, handles[i]);
            const auto generation_j = nvml_query<unsigned int>(api.device_get_pcie_max_generation, handles[j]);
            if (generation_i && generation_j) link.pcie_generation = std::min(*generation_i, *generation_j);
            const auto width_i = nvml_query<unsigned int>(api.device_get_pcie_max_width, handles[i]);
            const auto width_j = nvml_query<unsigned int>(api.device_get_pcie_max_width, handles[j]);
            if (width_i && width_j) link.pcie_width = std::min(*width_i, *width_j);
            links[i][j] = link;
        }
    return links;
}

std::string describe_pcie_path(PciePath path) {
    switch (path) {
        case PciePath::same_board: return "same board";
        case PciePath::single_switch: return "PIX (one PCIe switch)";
        case PciePath::multiple_switches: return "PXB (several PCIe switches)";
        case PciePath::host_bridge: return "PHB (through the host bridge)";
        case PciePath::numa_node: return "NODE (between host bridges of one CPU)";
        case PciePath::system: return "SYS (across CPU sockets)";
    }
    return fmt::format("PCIe topology level {}", static_cast<int>(path));
}

std::string describe_link(const std::optional<NvmlPeerLink>& link) {
    if (!link || (!link->nvlink && !link->pcie_path)) return "unknown (NVML did not answer)";
    if (link->nvlink.value_or(false))
        return link->active_nvlinks && *link->active_nvlinks > 0
                   ? fmt::format("NVLink ({} links)", *link->active_nvlinks)
                   : "NVLink";
    std::string text = "PCIe";
    if (link->pcie_generation && link->pcie_width)
        text += fmt::format(" gen{} x{}", *link->pcie_generation, *link->pcie_width);
    if (link->pcie_path) text += ", " + describe_pcie_path(*link->pcie_path);
    return text;
}

std::optional<double> link_rate_gbps(const NvmlPeerLink& link) {
    if (link.nvlink.value_or(false)) {
        if (!link.active_nvlinks || *link.active_nvlinks <= 0) return std::nullopt;
        return 20.0 * *link.active_nvlinks;
    }
    if (!link.nvlink || !link.pcie_generation || !link.pcie_width || *link.pcie_width == 0) return std::nullopt;
    static constexpr double per_lane[] = {0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
    const unsigned int generation = *link.pcie_generation;
    if (generation < 1 || generation > std::size(per_lane)) return std::nullopt;
    return per_lane[generation - 1] * *link.pcie_width;
}

}  // namespace cudacheck
