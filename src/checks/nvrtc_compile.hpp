// nvrtc.compile: what its GPU part measures, and the pure judge of it (unit tests drive it without
// a GPU).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace cudacheck {

struct NvrtcTarget {
    bool possible = false;  // false: NVRTC supports no architecture this GPU can run
    bool cubin = false;     // true: SASS for exactly this GPU; false: PTX the driver JIT-compiles
    int architecture = 0;   // 90 for sm_90 / compute_90
    std::string option;     // "--gpu-architecture=sm_90"
    std::string verdict;    // one line for the evidence
};

// sm_XY (CUBIN) when NVRTC lists the device's XY; otherwise PTX for the newest listed
// architecture not above the device (PTX for compute_AB runs on any GPU of CC >= A.B through the
// driver's JIT); otherwise not possible (the GPU is older than every architecture NVRTC knows).
[[nodiscard]] NvrtcTarget choose_nvrtc_target(std::span<const int> supported_architectures, int major, int minor);

// "libnvrtc-builtins.so.13.0": the companion library NVRTC <major>.<minor> loads at compile time.
[[nodiscard]] std::string nvrtc_builtins_soname(int major, int minor);

// The first `max_lines` non-empty lines of a compiler log, joined with " | ".
[[nodiscard]] std::string first_log_lines(std::string_view log, std::size_t max_lines);

}  // namespace cudacheck
