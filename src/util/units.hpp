// Human-readable numbers for messages and tables.
#pragma once

#include <cstdint>
#include <string>

namespace cudacheck {

// 150323855360 -> "140.0 GiB"; binary units, one decimal.
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);
// 1980000 kHz -> "1980 MHz".
[[nodiscard]] std::string format_khz_as_mhz(int khz);

}  // namespace cudacheck
