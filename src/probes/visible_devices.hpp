// CUDA_VISIBLE_DEVICES as CUDA reads it: a comma list of ordinals, GPU UUIDs (or unique prefixes,
// "GPU-…") and MIG identifiers ("MIG-…"); reading stops at the first invalid entry and the devices
// listed before it stay visible (CUDA C Programming Guide, "CUDA Environment Variables").
#pragma once

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

}  // namespace cudacheck
