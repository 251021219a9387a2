#include "util/units.hpp"

#include <array>
#include <fmt/format.h>

namespace cudacheck {

std::string format_bytes(std::uint64_t bytes) {
    constexpr std::array<const char*, 5> units{"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < units.size()) {
        value /= 1024.0;
        ++unit;
    }
    if (unit == 0) return fmt::format("{} B", bytes);
    return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string format_khz_as_mhz(int khz) { return fmt::format("{} MHz", khz / 1000); }

}  // namespace cudacheck
