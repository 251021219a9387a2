#include "probes/visible_devices.hpp"

#include "core/system.hpp"

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
            const bool repeated = std::any_of(spec.entries.begin(), spec.entries.end(), [&](const VisibleEntry& earlier) {
                return earlier.kind == VisibleEntryKind::ordinal && earlier.ordinal == ordinal;
            });
            if (repeated) return stop(entry, "repeats an earlier ordinal"), spec;
            parsed.ordinal = ordinal;
        }
        spec.entries.push_back(std::move(parsed));
    }
    return spec;
}

}  // namespace cudacheck
