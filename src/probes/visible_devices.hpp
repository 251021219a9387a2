// CUDA_VISIBLE_DEVICES as CUDA reads it: a comma list of ordinals, GPU UUIDs (or unique prefixes,
// "GPU-…") and MIG identifiers ("MIG-…"); reading stops at the first invalid entry and the devices
// listed before it stay visible (CUDA C Programming Guide, "CUDA Environment Variables").
#pragma once

#include "report/report.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class VisibleEntryKind { ordinal, gpu_uuid, mig_uuid };

struct VisibleEntry {
    VisibleEntryKind kind = VisibleEntryKind::ordinal;
    std::string text;
    int ordinal = -1;  // for ordinals
};

struct VisibleDevicesSpec {
    bool set = false;          // the variable exists
    std::string raw;           // its value
    std::vector<VisibleEntry> entries;  // the entries CUDA honours, in order
    std::string invalid_entry;          // where reading stopped, empty if all valid
    std::string invalid_reason;
    [[nodiscard]] bool hides_all() const { return set && entries.empty(); }
};

[[nodiscard]] VisibleDevicesSpec parse_cuda_visible_devices(std::optional<std::string_view> value);

// The GPUs a CUDA program would see, in CUDA's numbering, predicted from NVML's list (PCI bus
// order) without initialising CUDA, for --level quick. CUDA numbers GPUs fastest first unless
// CUDA_DEVICE_ORDER=PCI_BUS_ID; among GPUs of one model the driver breaks the tie by bus id, so
// both orders agree there (seen on the 2 x H200 machine: CUDA device 0 is nvidia-smi's GPU 0).
// Not certain, and then not applied, for GPUs of different models numbered fastest first, and for
// MIG identifiers (NVML's list holds the physical GPUs only).
struct PredictedCudaView {
    bool certain = false;
    std::vector<DeviceInfo> devices;  // CUDA ordinals renumbered; NVML's index stays in nvml_index
    std::string uncertain_reason;     // when not certain
};
[[nodiscard]] PredictedCudaView predict_cuda_view(const std::vector<DeviceInfo>& nvml_devices,
                                                  const VisibleDevicesSpec& visible,
                                                  std::optional<std::string_view> device_order);

}  // namespace cudacheck
