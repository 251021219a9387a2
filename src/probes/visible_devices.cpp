#include "probes/visible_devices.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <charconv>

namespace cudacheck {

VisibleDevicesSpec parse_cuda_visible_devices(std::optional<std::string_view> value) {
    VisibleDevicesSpec spec;
    if (!value) return spec;
    spec.set = true;
    spec.raw = std::string(*value);
    if (value->empty()) return spec;
    const auto stop = [&](const std::string& entry, std::string reason) {
        spec.invalid_entry = entry.empty() ? "(empty entry)" : entry;
        spec.invalid_reason = std::move(reason);
    };
    for (const std::string& entry : sys::split(*value, ',')) {
        if (entry.empty()) return stop(entry, "empty entry between commas"), spec;
        if (entry != sys::trim(entry)) return stop(entry, "contains spaces"), spec;
        VisibleEntry parsed;
        parsed.text = entry;
        if (sys::starts_with(entry, "GPU-")) {
            parsed.kind = VisibleEntryKind::gpu_uuid;
            if (entry.size() == 4) return stop(entry, "GPU- needs a UUID or prefix after it"), spec;
        } else if (sys::starts_with(entry, "MIG-")) {
            parsed.kind = VisibleEntryKind::mig_uuid;
            if (entry.size() == 4) return stop(entry, "MIG- needs an identifier after it"), spec;
        } else {
            int ordinal = -1;
            const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), ordinal);
            if (error != std::errc{} || end != entry.data() + entry.size() || ordinal < 0)
                return stop(entry, "not an ordinal, GPU UUID or MIG identifier"), spec;
            const bool repeated =
                std::any_of(spec.entries.begin(), spec.entries.end(), [&](const VisibleEntry& earlier) {
                    return earlier.kind == VisibleEntryKind::ordinal && earlier.ordinal == ordinal;
                });
            if (repeated) return stop(entry, "repeats an earlier ordinal"), spec;
            parsed.ordinal = ordinal;
        }
        spec.entries.push_back(std::move(parsed));
    }
    return spec;
}

PredictedCudaView predict_cuda_view(const std::vector<DeviceInfo>& nvml_devices, const VisibleDevicesSpec& visible,
                                    std::optional<std::string_view> device_order) {
    PredictedCudaView view;
    const bool bus_order = device_order && *device_order == "PCI_BUS_ID";
    const bool one_model = std::all_of(nvml_devices.begin(), nvml_devices.end(), [&](const DeviceInfo& device) {
        return device.name == nvml_devices.front().name;
    });
    if (!bus_order && !one_model) {
        view.uncertain_reason = "GPUs of different models are numbered fastest first, which only CUDA itself knows";
        return view;
    }
    std::vector<const DeviceInfo*> chosen;
    if (!visible.set) {
        for (const DeviceInfo& device : nvml_devices) chosen.push_back(&device);
    }
    // As CUDA reads the list: the entries before the first one that names no GPU stay visible.
    for (const VisibleEntry& entry : visible.set ? visible.entries : std::vector<VisibleEntry>{}) {
        const DeviceInfo* match = nullptr;
        if (entry.kind == VisibleEntryKind::mig_uuid) {
            view.uncertain_reason = "MIG instances are not in NVML's list of GPUs";
            return view;
        }
        if (entry.kind == VisibleEntryKind::ordinal) {
            if (entry.ordinal < static_cast<int>(nvml_devices.size()))
                match = &nvml_devices[static_cast<std::size_t>(entry.ordinal)];
        } else {
            int matches = 0;
            for (const DeviceInfo& device : nvml_devices)
                if (sys::starts_with(device.uuid, entry.text)) ++matches, match = &device;
            if (matches != 1) match = nullptr;  // none, or a prefix that is not unique
        }
        if (match == nullptr || std::find(chosen.begin(), chosen.end(), match) != chosen.end()) break;
        chosen.push_back(match);
    }
    view.certain = true;
    for (const DeviceInfo* device : chosen) {
        DeviceInfo renumbered = *device;
        renumbered.nvml_index = device->nvml_index.value_or(device->ordinal);
        renumbered.ordinal = static_cast<int>(view.devices.size());
        view.devices.push_back(std::move(renumbered));
    }
    return view;
}

}  // namespace cudacheck
