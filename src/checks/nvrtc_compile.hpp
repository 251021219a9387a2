// nvrtc.compile: what its GPU part measures, and the pure judge of it (unit tests drive it without
// a GPU).
#pragma once

#include "cuda/cuda_facts.hpp"
#include "engine/check.hpp"

#include <cstddef>
#include <cuda.h>   // CUresult only
#include <nvrtc.h>  // nvrtcResult only
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// The host's value of element i of the saxpy NVRTC compiles: the result must equal it bit for bit.
[[nodiscard]] float expected_saxpy_element(std::size_t i);

// A driver API call that failed while loading or launching the compiled image.
struct DriverCallFailure {
    CUresult status = CUDA_SUCCESS;
    std::string what;  // the call and the CUresult named
    std::string remediation;
};

// What the GPU part of nvrtc.compile found after NVRTC's version, filled as it goes: an NVRTC or
// GPU error that stops it leaves the later fields unset, and the judge reports what was measured
// before it.
struct NvrtcOutcome {
    int nvrtc_major = 0;  // nvrtcVersion
    int nvrtc_minor = 0;
    int major = 0;  // the device's compute capability
    int minor = 0;
    std::optional<std::vector<int>> architectures;  // nvrtcGetSupportedArchs
    // nvrtcCompileProgram, once it returned, and what a failure left behind.
    std::optional<nvrtcResult> compile_status;
    std::string compile_error;  // nvrtcGetErrorString of a failed compile
    std::string log;            // the program's log of a failed compile
    std::string nvrtc_dir;      // the directory NVRTC was loaded from
    bool builtins_beside = false;  // libnvrtc-builtins of NVRTC's version is in nvrtc_dir
    double compile_ms = 0.0;
    std::optional<std::string> builtins_path;  // the libnvrtc-builtins loaded by the compile
    std::optional<std::size_t> image_bytes;    // the CUBIN or PTX NVRTC produced
    std::optional<double> module_load_ms;      // cuModuleLoadData (the driver's JIT for PTX)
    std::optional<DriverCallFailure> driver_failure;
    std::optional<CudaVersion> driver;  // cudaDriverGetVersion, asked only when the driver rejected the PTX's version
    std::vector<float> out;  // the kernel's result, once copied back
};

void judge_nvrtc(const NvrtcOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
