// The whole outcome of one run: immutable data that renderers turn into text. The exit code and the
// JSON summary are computed here, from the same fields, so they can never disagree.
#pragma once

#include "report/result.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// Documented in README.md and `cudacheck --help`; scripts depend on them.
enum ExitCode : int {
    exit_ok = 0,            // nothing failed (warnings allowed unless --strict)
    exit_check_failed = 1,  // a check failed, errored or timed out; a warning under --strict;
                            // or every selected check was skipped (nothing was verified)
    exit_usage = 2,         // bad command line or input
    exit_internal = 3,      // cudacheck itself broke
    // Interrupted by a signal: 128 + its number, the shell's convention (130 SIGINT, 143 SIGTERM).
    exit_interrupted_base = 128,
};

struct HostInfo {
    std::string hostname;
    std::string os_pretty_name;  // "Ubuntu 24.04.3 LTS"
    std::string kernel_release;
    std::string architecture;  // "x86_64"
    std::string libc_version;  // "glibc 2.39"
    std::string cpu_model;
    int logical_cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::string container;  // "docker", "podman", "kubernetes", ... or empty
    std::string wsl;        // "WSL2", "WSL1" or empty
    // The Kubernetes node: NODE_NAME, which manifests set from the downward API's
    // spec.nodeName (in a pod, hostname is the pod's name); empty when unset. Schema 1.9.0.
    std::string node_name;
};

// Versions in one place, each empty when unknown.
struct VersionInfo {
    std::string driver;               // kernel module / libcuda package version, "580.159.04"
    std::string driver_cuda;          // highest CUDA the driver supports, "13.0"
    std::string runtime;              // the CUDA runtime cudacheck was built with, "13.0"
    std::string nvcc;                 // nvcc on PATH (or the toolkit found), "13.0.88"
};

// One GPU as the driver API describes it (works even when the runtime cannot start).
struct DeviceInfo {
    int ordinal = 0;  // CUDA ordinal (after CUDA_VISIBLE_DEVICES renumbering)
    std::string name;
    std::string uuid;        // "GPU-2a36941f-..."
    std::string pci_bus_id;  // "00000000:00:06.0"
    int cc_major = 0;
    int cc_minor = 0;
    std::string architecture;  // "Hopper"
    std::uint64_t total_memory_bytes = 0;
    int multiprocessors = 0;
    int sm_clock_khz = 0;      // peak
    int memory_clock_khz = 0;  // peak
    int memory_bus_width_bits = 0;
    int l2_cache_bytes = 0;
    bool ecc_enabled = false;
    std::string compute_mode;  // "default", "exclusive_process", "prohibited"
    bool integrated = false;
    bool tcc_driver = false;
    std::optional<double> theoretical_bandwidth_gbps;  // from memory clock and bus width
    std::optional<double> fp32_peak_tflops;            // from SMs, FP32 lanes per SM and SM clock
    std::string source;  // "driver_api" (cuInit + cuDeviceGet*) or "nvml" (--level quick)
    // From NVML, matched by PCI bus id: its index (PCI order, as nvidia-smi numbers GPUs) and the
    // whole framebuffer as nvidia-smi reports it (CUDA's total_memory_bytes excludes reserved memory).
    std::optional<int> nvml_index;
    std::optional<std::uint64_t> framebuffer_bytes;
    bool operator==(const DeviceInfo&) const = default;
};

// The `frameworks` section: each Python environment found and the frameworks in it, with what
// each was built for, the CUDA libraries its process loads and which GPU code runs on each GPU
// (probes/frameworks_probe.hpp gathers the facts; the verdicts are the frameworks.builds
// findings whose subject names the framework).
struct FrameworkLibraryInfo {
    std::string name = {};     // the library table's name, "cuDNN"
    std::string soname = {};   // "libcudnn.so.9"
    std::string path = {};     // as the loader opens it
    std::string version = {};  // "9.19.0.56"; "" when unknown
    std::string origin = {};   // "pip_wheel", "system", "toolkit", ...
    std::string package = {};  // the wheel, "nvidia-cudnn-cu13"; "" when none
    std::string rule = {};     // "DT_RPATH of libtorch_cuda.so", "LD_LIBRARY_PATH entry /x", ...
    bool operator==(const FrameworkLibraryInfo&) const = default;
};
struct FrameworkGpuInfo {
    int device = 0;
    std::string runs = {};  // "native", "ptx_jit", "none", "nvrtc" (compiled at run time), "unknown"
    std::string how = {};   // "sm_90 SASS", "compute_90 PTX", "NVRTC 13 compiles for sm_90", ...
    bool operator==(const FrameworkGpuInfo&) const = default;
};
struct FrameworkInfo {
    std::string subject = {};  // "<environment prefix>: <framework>", as findings name it
    std::string framework = {};     // "PyTorch"
    std::string distribution = {};  // "torch", "jax-cuda13-plugin"
    std::string version = {};       // "2.11.0+cu130"
    std::string accelerator = {};   // "cuda", "rocm", "cpu", "unknown"
    std::string cuda = {};          // the CUDA it was built for, "13.0"; "" when none
    std::vector<std::string> gpu_code = {};  // targets its binary embeds: "sm_90", "compute_120"
    std::vector<FrameworkLibraryInfo> libraries = {};
    std::vector<std::string> unresolved = {};  // CUDA sonames it needs that resolve nowhere
    std::vector<FrameworkGpuInfo> gpus = {};
    std::vector<std::string> files = {};  // read to learn its build
    std::string status = "pass";     // its worst finding's; "pass" when none
    std::vector<std::string> codes = {};  // of its findings
    std::string imported_from = {};  // the file `import` loads (its __file__); "" when it fails or is not known
                                     // (schema 1.8.0)
    bool operator==(const FrameworkInfo&) const = default;
};
// One entry of the sys.path an environment's interpreter builds here, and why it is there.
struct PythonPathEntryInfo {
    std::string path = {};
    std::string origin = {};  // "current directory", "PYTHONPATH", "standard library", "user site-packages", ".pth
                              // file", ...
    bool operator==(const PythonPathEntryInfo&) const = default;
};
// What `import <module>` loads for one framework module.
struct PythonImportInfo {
    std::string module = {};  // "torch"
    std::string kind = {};    // "package", "module", "namespace package", "editable install", "not found"
    std::string file = {};    // its __file__; "" for a namespace package or none
    std::string origin = {};  // the origin of the sys.path entry it came from; "" when none
    bool operator==(const PythonImportInfo&) const = default;
};
struct PythonEnvironmentInfo {
    std::string prefix = {};  // sys.prefix
    std::string kind = {};  // "virtual environment", "conda environment", "pyenv installation", "system Python", ...
    std::string interpreter = {};
    std::string python_version = {};
    bool bare_python3 = false;  // the environment a bare `python3` uses
    std::vector<std::string> found_by = {};
    std::vector<FrameworkInfo> frameworks = {};
    // The interpreter's modelled sys.path and the framework modules it imports (schema 1.8.0;
    // empty when the path could not be modelled or the report is older).
    std::vector<PythonPathEntryInfo> sys_path = {};
    std::vector<PythonImportInfo> imports = {};
    bool operator==(const PythonEnvironmentInfo&) const = default;
};

struct Summary {
    // Counts indexed by Status (pass, skip, warn, fail, timeout, error).
    std::array<int, 6> counts{};
    Status overall = Status::pass;
    [[nodiscard]] int count(Status status) const { return counts[static_cast<int>(status)]; }
};

// What `--redact` replaced before the report was written (the values themselves are gone).
struct Redaction {
    // What was found and replaced: "hostname", "user_name", "home_directory", "device_ids",
    // "serial_numbers", "environment_values"; in that order, only those that occurred.
    std::vector<std::string> kinds;
    // Names of the variables whose values were replaced (never the values).
    std::vector<std::string> environment_variables;
    int replacements = 0;  // occurrences replaced, over every string of the report
    bool operator==(const Redaction&) const = default;
};

// The `build` section: what a CUDA build here would use, as toolkit.build read it.
struct BuildCompilerInfo {
    std::string name = {};  // "g++-13", or a variable's value
    std::string source = {};  // "PATH", "CC", "CXX", "NVCC_CCBIN"
    std::string path = {};  // "" when not found
    std::string version = {};  // "gcc 13.3.0", "clang 18.1.3"; "" when unknown
    std::optional<bool> accepted = {};  // by the build toolkit's host_config.h; none when it could not be judged
    std::string error = {};  // the #error it reaches, when rejected
    bool operator==(const BuildCompilerInfo&) const = default;
};
struct BuildToolkitInfo {
    std::string root = {};
    std::string version = {};
    bool build_toolkit = false;  // the one builds take
    std::optional<int> gcc_newest = {};  // the newest gcc major its host_config.h accepts
    std::optional<int> clang_newest = {};
    bool operator==(const BuildToolkitInfo&) const = default;
};
struct BuildInfo {
    std::string toolkit = {};  // the toolkit builds take; "" when none
    std::string toolkit_rule = {};  // "CUDA_HOME", "nvcc on PATH (/usr/local/cuda-13.0/bin/nvcc)", ...
    std::string nvcc_version = {};  // its nvcc's, "13.0.88"
    std::vector<std::string> nvcc_architectures = {};  // `nvcc --list-gpu-arch`
    std::vector<std::string> missing_files = {};
    std::string host_compiler = {};  // what nvcc runs: a path, or the name when not found
    std::string host_compiler_rule = {};  // "nvcc's default (gcc on PATH)", "NVCC_CCBIN", ...
    std::string host_compiler_version = {};
    std::optional<bool> host_compiler_accepted = {};
    std::string ninja = {};  // on PATH; "" when none
    std::vector<BuildToolkitInfo> toolkits = {};
    std::vector<BuildCompilerInfo> compilers = {};
    bool operator==(const BuildInfo&) const = default;
};

// The `libraries` section (schema 1.10.0): each CUDA library libraries.resolution found, every
// copy of it installed in the places it searched, and the copy the loader gives a C/C++ program
// (no RPATH/RUNPATH) for each soname, by which rule. Programs read this; the check's evidence
// says the same for people and may be reworded.
struct LibraryCopyInfo {
    std::string soname = {};  // the soname it provides, "libcudnn.so.9"
    std::string path = {};  // the soname's link where there is one, else the file
    std::string real_path = {};  // symbolic links resolved; copies are distinct by it
    std::string version = {};  // "9.19.0.56"; "" when unknown
    std::string origin = {};  // who installed it: "system", "toolkit", "pip_wheel", "conda", "wsl", "stub",
                              // "ld_library_path", "other"
    std::string package = {};  // the wheel as pip names it, "nvidia-cudnn-cu13"; "" when none or not known
    bool operator==(const LibraryCopyInfo&) const = default;
};
// The file the loader opens for one soname.
struct LibraryResolutionInfo {
    std::string soname = {};
    std::string path = {};  // as the loader opens it
    std::string real_path = {};  // symbolic links resolved
    std::string rule = {};  // "LD_LIBRARY_PATH entry /x", "ld.so.cache", "default directory /usr/lib"
    // Of the copy at real_path: version ("" when unknown), origin ("other" when the file is no copy
    // found where copies were looked for) and wheel.
    std::string version = {};
    std::string origin = {};
    std::string package = {};
    bool operator==(const LibraryResolutionInfo&) const = default;
};
struct LibraryInfo {
    std::string name = {};  // the library table's name, "cuDNN"
    std::vector<std::string> sonames = {};  // every soname it goes by, newest CUDA first
    std::vector<LibraryResolutionInfo> resolved = {};  // its sonames that resolve, in the order of `sonames`
    std::vector<LibraryCopyInfo> copies = {};  // every copy found, stubs included; the loader's picks are among them
                                               // when found
    bool operator==(const LibraryInfo&) const = default;
};
struct LibrariesInfo {
    std::vector<LibraryInfo> found = {};  // the libraries with a copy or a resolving soname
    std::string ld_so_cache = {};  // "649 entries in /etc/ld.so.cache", or why none was read
    int directories_searched = 0;
    // The real paths of the CUDA library files cudacheck's own processes had mapped when the
    // report was written (the copies its checks used), sorted.
    std::vector<std::string> loaded_by_cudacheck = {};
    bool operator==(const LibrariesInfo&) const = default;
};

struct Report {
    std::string tool_version;
    std::string timestamp_utc;  // ISO 8601, "2026-11-30T01:40:00Z"
    std::vector<std::string> argv;
    std::string level;
    bool strict = false;
    HostInfo host;
    VersionInfo versions;
    std::vector<DeviceInfo> devices;
    std::vector<CheckResult> checks;
    // Set when a check looked at the Python environments (frameworks.builds); empty otherwise.
    std::optional<std::vector<PythonEnvironmentInfo>> frameworks;
    // Set when toolkit.build (or toolkit.compile) looked at the build setup; empty otherwise.
    std::optional<BuildInfo> build;
    // Set when libraries.resolution ran (schema 1.10.0); a report of an older schema never has it.
    std::optional<LibrariesInfo> libraries;
    Summary summary;
    int exit_code = exit_ok;
    double duration_ms = 0.0;
    std::optional<Redaction> redaction;  // set when --redact was given
};

// Combines statuses: the worst wins, but skip only when every result was skipped.
[[nodiscard]] Summary summarize(const std::vector<CheckResult>& results);
[[nodiscard]] int exit_code_for(const Summary& summary, bool strict);

}  // namespace cudacheck
