// `cudacheck inspect`: which GPUs the code embedded in files can run on. The files are read by
// cuda/gpu_code.hpp; this judges each file against each target (a GPU found on this machine or
// an --arch given by the user) with the rules of cuda/arch_coverage.hpp, and the renderers print it.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "cuda/gpu_code.hpp"
#include "report/result.hpp"
#include "util/json_read.hpp"
#include "util/python_packaging.hpp"

#include <cstdint>
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

// A Python distribution: a wheel, or one installed in a site-packages directory
// (package_inspection.hpp reads and judges them).
// The one answer per distribution, worst first.
enum class PackageVerdict {
    unreadable,       // the archive or its metadata cannot be read (exit 2)
    not_installable,  // pip would refuse it on this interpreter
    cannot_run,       // a library has no code for a target, or needs a newer driver
    runs_through_ptx, // runs, but some library only through the driver's PTX JIT (slow first start)
    runs_natively,    // SASS for every target in every library with GPU code
    no_gpu_code,      // no library with GPU code (pure Python, or CUDA's host-side libraries)
    not_judged,       // GPU code listed, but no GPU found and no --arch given
};
[[nodiscard]] std::string_view to_string(PackageVerdict verdict);

// The interpreter a wheel would be installed on, as far as files tell (no interpreter is run).
struct PackageInterpreter {
    packaging::Interpreter tags;       // Python version, machine, glibc
    std::string python_full_version;   // "3.12.3", or "3.12" when only that is known
    std::string label;                 // "/opt/torch/.venv (Python 3.12.3)"
};

struct PackageContext {
    std::vector<InspectTarget> targets;
    std::optional<CudaVersion> driver_cuda;
    std::optional<PackageInterpreter> interpreter;  // none: installability is not judged
};

// A shared library of the distribution that carries GPU code (or could not be read).
struct PackageLibrary {
    InspectedFile file;  // path: the member's path in the wheel, or the file on disk
    std::uint64_t size = 0;
    std::uint64_t bytes_inflated = 0;  // wheels: what reading its headers cost (the zip member's counters)
};

struct InspectedPackage {
    std::string path;   // the wheel, or the .dist-info directory
    bool wheel = true;  // false: an installed distribution
    std::string name;
    std::string version;
    std::vector<std::string> tags;  // a wheel's tags ("cp312-cp312-manylinux_2_28_x86_64")
    std::string requires_python;
    std::optional<packaging::WheelFit> fit;  // wheels, when an interpreter is known
    std::string not_installable;            // why pip would refuse it, one line; "" when it would not
    packaging::CudaRequirements cuda;       // the CUDA major its NVIDIA pins need
    std::optional<Finding> driver_finding;  // CC805: that major is newer than the driver's CUDA
    std::vector<PackageLibrary> libraries;  // with GPU code, or unreadable
    std::size_t shared_libraries = 0;       // ELF shared libraries looked at
    std::vector<PackageVerdict> per_target;  // one per context target (the GPU code's answer alone)
    PackageVerdict verdict = PackageVerdict::no_gpu_code;
    std::string why;                      // one line
    std::optional<Finding> finding;       // CC804, CC805, or the library's CC503/CC511, for the verdict
    std::optional<Finding> input_error;   // CC806 (a damaged archive) or CC801
    double duration_ms = 0;
};

struct InspectReport {
    std::string tool_version;
    std::vector<std::string> argv;
    std::vector<InspectTarget> targets;
    std::string targets_from;  // "--arch", "the GPUs of this machine", or empty when there is none
    std::string note;          // why there is no verdict, when there is none
    std::optional<CudaVersion> driver_cuda;
    std::vector<InspectedFile> files;
    std::vector<InspectedPackage> packages;  // wheels, and the distributions of site-packages directories
    std::string interpreter;                 // what the wheels' installability was judged for; "" when not
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
inline constexpr std::string_view inspect_json_schema_version = "1.1.0";  // 1.1.0: interpreter, packages
[[nodiscard]] ordered_json to_json(const InspectReport& report);

}  // namespace cudacheck
