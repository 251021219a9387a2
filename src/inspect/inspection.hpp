// `cudacheck inspect`: which GPUs the code embedded in files can run on. The files are read by
// cuda/gpu_code.hpp; this judges each file against each target (a GPU found on this machine or
// an --arch given by the user) with the rules of cuda/arch_coverage.hpp, and the renderers print it.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "cuda/gpu_code.hpp"
#include "report/result.hpp"
#include "util/json_read.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// A GPU the files should run on: a compute capability, and the device when one was found here.
struct InspectTarget {
    int cc_major = 0;
    int cc_minor = 0;
    std::optional<int> device;  // CUDA ordinal
    std::string device_name;    // empty for --arch
    [[nodiscard]] GpuArch arch() const { return {cc_major * 10 + cc_minor, ArchVariant::generic}; }
    [[nodiscard]] std::string label() const;  // "sm_90 (GPU 0, NVIDIA H200)" or "sm_86 (--arch)"
};

struct TargetVerdict {
    Status status = Status::pass;  // pass (runs), fail (cannot), skip (the file has no loadable GPU code)
    ImageVerdict image;
    std::optional<PtxIsa> ptx_isa;              // of the PTX the driver would JIT-compile
    std::optional<CudaVersion> ptx_needs_cuda;  // the driver CUDA version that ISA needs
    // With several fatbinaries (one per module), those with no image for the target: a library may
    // carry kernels it launches only on some architectures, so this alone is not a failure.
    std::size_t fatbins_without_image = 0;
    std::string message;
    std::optional<Finding> finding;  // CC503 or CC511 when the status is fail
};

struct InspectedFile {
    std::string path;
    GpuCodeScan scan;
    std::optional<Finding> input_error;  // CC801-CC803: the file is unreadable, unrecognised or malformed
    std::vector<TargetVerdict> verdicts;  // one per target, in the report's target order
};

struct InspectReport {
    std::string tool_version;
    std::vector<std::string> argv;
    std::vector<InspectTarget> targets;
    std::string targets_from;  // "--arch", "the GPUs of this machine", or empty when there is none
    std::string note;          // why there is no verdict, when there is none
    std::optional<CudaVersion> driver_cuda;
    std::vector<InspectedFile> files;
    double duration_ms = 0.0;
    int exit_code = 0;
};

[[nodiscard]] TargetVerdict judge_target(const GpuCodeScan& scan, const InspectTarget& target,
                                         std::optional<CudaVersion> driver_cuda);
// Reads (cuda/gpu_code.hpp) and judges one file against every target.
[[nodiscard]] InspectedFile inspect_and_judge(const std::string& path, const std::vector<InspectTarget>& targets,
                                              std::optional<CudaVersion> driver_cuda);
// 2 when a file could not be read, else 1 when a file cannot run on a target, else 0.
[[nodiscard]] int inspect_exit_code(const std::vector<InspectedFile>& files);

// The `cudacheck inspect` JSON document (inspection_json.cpp), versioned like the report
// (report/report_json.hpp).
inline constexpr std::string_view inspect_json_schema_version = "1.0.0";
[[nodiscard]] ordered_json to_json(const InspectReport& report);

}  // namespace cudacheck
