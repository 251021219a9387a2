// Facts about CUDA releases, architectures and error codes that cudacheck judges against.
// Every table cites its public source (NVIDIA documentation and headers) where it is defined.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudacheck {

// CUDA version as the driver and runtime APIs encode it: 1000*major + 10*minor (12.4 -> 12040).
struct CudaVersion {
    int major = 0;
    int minor = 0;
    [[nodiscard]] static CudaVersion from_encoded(int encoded) { return {encoded / 1000, (encoded % 1000) / 10}; }
    [[nodiscard]] int encoded() const { return major * 1000 + minor * 10; }
    [[nodiscard]] std::string to_string() const;
    // "13.0" (nvcc's release); nullopt unless two numbers that fit an int, joined by a dot.
    [[nodiscard]] static std::optional<CudaVersion> parse(std::string_view text);
    auto operator<=>(const CudaVersion&) const = default;
};

// Minimum Linux driver for the full feature set of a toolkit release (CUDA release notes, Table 3).
// Empty for releases not in the table.
[[nodiscard]] std::optional<std::string_view> minimum_driver_for(CudaVersion cuda);
// The lowest driver any release of a CUDA major runs on through minor-version compatibility
// (docs.nvidia.com/deploy/cuda-compatibility): 11 -> 450.80.02, 12 -> 525.60.13, 13 -> 580.
[[nodiscard]] std::optional<std::string_view> family_minimum_driver(int cuda_major);

// PTX from CUDA `ptx` needs a driver of at least that CUDA version to be JIT-compiled: minor
// version compatibility lets a 13.1 program run on a 13.0 driver, but not its PTX (CUDA
// Compatibility guide, "Minor Version Compatibility" limitations; CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
[[nodiscard]] bool driver_can_jit(CudaVersion ptx, CudaVersion driver);

// The first CUDA release whose driver JIT-compiles PTX of this ISA version (PTX ISA reference,
// "Release History"; cuda-python's cuda.bindings.utils): 7.8 -> 11.8, 8.5 -> 12.5, 8.6 -> 12.7, 9.0 -> 13.0.
// Empty for an ISA outside this table (before 6.0, or newer than cudacheck).
[[nodiscard]] std::optional<CudaVersion> minimum_cuda_for_ptx_isa(int isa_major, int isa_minor);

// Architecture name for a compute capability ("Hopper" for 9.0); "unknown" when not in the table.
[[nodiscard]] std::string_view architecture_name(int cc_major, int cc_minor);
// FP32 lanes per SM (cuda-samples helper_cuda.h _ConvertSMVer2Cores); empty when unknown.
[[nodiscard]] std::optional<int> fp32_lanes_per_sm(int cc_major, int cc_minor);
// Lowest compute capability a CUDA major can build for (nvcc release notes): 11 -> 3.5, 12 -> 5.0, 13 -> 7.5.
[[nodiscard]] std::optional<std::pair<int, int>> minimum_compute_capability(int cuda_major);
// The last CUDA major that supports a compute capability, when it is dropped in a newer one.
[[nodiscard]] std::optional<int> last_cuda_major_supporting(int cc_major, int cc_minor);
// The architecture nvcc compiles for when a command names none (-arch's default in the nvcc
// documentation, "--gpu-architecture"): sm_30 in CUDA 9 and 10, sm_52 in 11 and 12, sm_75 in 13
// (with its PTX). CMake takes it as CMAKE_CUDA_ARCHITECTURES' default. nullopt for other majors.
[[nodiscard]] std::optional<int> nvcc_default_architecture(int cuda_major);
// The first CUDA release whose nvcc compiles for compute capability major.minor (the CUDA Toolkit
// release notes: 8.6 in 11.1, 8.7 in 11.5, 8.9 and 9.0 in 11.8, 10.0 and 12.0 in 12.8, 10.3 and
// 12.1 in 12.9, 11.0 in 13.0); nullopt for one it does not know.
[[nodiscard]] std::optional<CudaVersion> first_cuda_compiling_for(int cc_major, int cc_minor);

// Dense peaks in TFLOP/s from NVIDIA's datasheets (leads, not truths: clocks vary), by the exact
// name the driver reports; empty for other GPUs (variants such as "H200 NVL" or "H100 PCIe" have
// other clocks and power limits, so a name match must be exact).
struct DatasheetPeaks {
    double fp32 = 0;
    double tf32 = 0;
    double fp16 = 0;
    double bf16 = 0;
};
[[nodiscard]] std::optional<DatasheetPeaks> datasheet_peaks(std::string_view device_name);

}  // namespace cudacheck
