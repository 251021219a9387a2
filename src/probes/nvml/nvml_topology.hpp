// How two GPUs are connected, as NVML reports it: NVLink or not (nvmlDeviceGetP2PStatus with the
// NVLink index), how many active NVLinks lead towards the peer, the PCIe path between them
// (nvmlDeviceGetTopologyCommonAncestor, what `nvidia-smi topo -m` prints as PIX/PXB/PHB/NODE/SYS),
// whether NVML considers peer reads possible, and the PCIe links of both GPUs. cuda.p2p judges
// peer access and copy bandwidth by it. Every field is optional: a driver or GPU that does not
// answer leaves it unknown.
#pragma once

#include "probes/nvml/nvml_probe.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// nvmlGpuTopologyLevel_t (nvml.h): the closest common ancestor of two GPUs on the PCIe tree.
enum class PciePath {
    same_board = 0,
    single_switch = 10,
    multiple_switches = 20,
    host_bridge = 30,
    numa_node = 40,
    system = 50
};

struct NvmlPeerLink {
    std::optional<bool> nvlink;          // NVML_P2P_CAPS_INDEX_NVLINK answers NVML_P2P_STATUS_OK
    std::optional<int> active_nvlinks;  // active links of the source GPU to the peer, directly or through NVSwitches
    std::optional<PciePath> pcie_path;
    std::optional<bool> p2p_read;  // NVML_P2P_CAPS_INDEX_READ answers NVML_P2P_STATUS_OK
    std::optional<int> p2p_read_status;  // nvmlGpuP2PStatus_t when it is not OK (e.g. 4: disabled by registry key)
    // The narrower of the two GPUs' maximum PCIe links (nvmlDeviceGetMaxPcieLinkGeneration/Width:
    // the most the GPU and its slot allow).
    std::optional<unsigned int> pcie_generation;
    std::optional<unsigned int> pcie_width;
    bool operator==(const NvmlPeerLink&) const = default;
};

// The links between every ordered pair of the GPUs with these PCI bus ids ("00000000:18:00.0"):
// links[i][j] from GPU i towards GPU j; nullopt on the diagonal, for GPUs NVML does not list, and
// everywhere when NVML did not initialise.
[[nodiscard]] std::vector<std::vector<std::optional<NvmlPeerLink>>> collect_nvml_peer_links(
    const NvmlFacts& nvml, const std::vector<std::string>& pci_bus_ids);

// "PIX (one PCIe switch)", "SYS (across CPU sockets)": nvidia-smi's abbreviation and its meaning.
[[nodiscard]] std::string describe_pcie_path(PciePath path);
// "NVLink (18 links)", "PCIe gen4 x16, PHB (through the host bridge)", "unknown (NVML did not answer)".
[[nodiscard]] std::string describe_link(const std::optional<NvmlPeerLink>& link);
// What a copy over the link should reach, per direction, in GB/s: 20 GB/s per active NVLink (NVLink
// 1.0's rate, the slowest generation: later ones carry 25 or 50), or the PCIe link's rate
// (per lane: gen1 0.25, gen2 0.5, gen3 0.985, gen4 1.969, gen5 3.938, gen6 7.563 GB/s). A floor
// for judging, not a peak; nullopt when NVML did not say enough.
[[nodiscard]] std::optional<double> link_rate_gbps(const NvmlPeerLink& link);

}  // namespace cudacheck
