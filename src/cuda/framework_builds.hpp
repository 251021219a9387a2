// Which published build of PyTorch, JAX, CuPy and TensorFlow fits a machine, decided before anything
// is installed. One table (framework_builds.cpp) holds the builds the projects published: for each,
// the CUDA it was built with, the GPU code it carries (SASS and PTX architectures, or "compiled at
// run time" for CuPy), the Pythons and the glibc its wheels need, and the command that installs it;
// every group of rows names the project's own file it was read from. The chooser is pure: machine
// facts in (the driver's CUDA version, each GPU's compute capability, each interpreter's Python, glibc,
// the machine), advice out. Nothing here runs pip or touches the network.
//
// The rules (NVIDIA's CUDA Compatibility guide, docs.nvidia.com/deploy/cuda-compatibility; the CUDA
// C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility"):
// - a build made with CUDA X.Y runs on any driver of CUDA major X or newer (minor-version
//   compatibility: 13.x needs driver >= 580, 12.x >= 525.60.13, 11.x >= 450.80.02);
// - its SASS for sm_XY runs on a GPU of major X and minor >= Y;
// - its PTX for compute_XY is JIT-compiled for any GPU of compute capability >= X.Y, but only by a
//   driver whose CUDA version is at least the toolkit's that made the PTX (minor-version
//   compatibility does not cover PTX: cudaErrorUnsupportedPtxVersion);
// - a driver runs a GPU only if it is at least as new as the first CUDA release that knows its
//   architecture (sm_120 needs CUDA 12.8, driver >= 570.26).
#pragma once

#include "cuda/arch_coverage.hpp"
#include "cuda/cuda_facts.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class Framework { pytorch, jax, cupy, tensorflow };
[[nodiscard]] std::string_view to_string(Framework framework);  // "PyTorch", "JAX", "CuPy", "TensorFlow"
// The framework named as to_string names it ("PyTorch", the probes' FrameworkBuild::framework);
// nullopt for any other name (an extension such as "torchvision").
[[nodiscard]] std::optional<Framework> framework_named(std::string_view name);

// A two-part version: Python 3.12, glibc 2.28.
struct MajorMinor {
    int major = 0;
    int minor = 0;
    [[nodiscard]] std::string to_string() const;  // "3.12"
    // "3.12", "3.12.3", "2.39"; nullopt unless it starts with two numbers joined by a dot.
    [[nodiscard]] static std::optional<MajorMinor> parse(std::string_view text);
    auto operator<=>(const MajorMinor&) const = default;
};

enum class Machine { x86_64, aarch64 };
[[nodiscard]] std::string_view to_string(Machine machine);
// "x86_64", "amd64", "aarch64", "arm64"; nullopt for anything else.
[[nodiscard]] std::optional<Machine> parse_machine(std::string_view text);

// How a build carries its GPU code.
enum class GpuCodeKind {
    compiled,  // SASS and PTX compiled in (PyTorch, JAX, TensorFlow)
    runtime,   // kernels compiled on the machine by NVRTC (CuPy): any GPU its CUDA major supports
};

// One published build, as its project describes it. Strings are the published values.
struct FrameworkBuildRow {
    Framework framework = Framework::pytorch;
    std::string_view version;  // the release the row describes: "2.11.0", "0.11.0", "14.2.0"
    std::string_view variant;  // the name the project gives the CUDA build: "cu130", "cuda13", "cupy-cuda13x",
                               // "and-cuda"
    Machine machine = Machine::x86_64;
    CudaVersion cuda;  // the toolkit it was built with (its PTX needs a driver of at least this)
    GpuCodeKind code = GpuCodeKind::compiled;
    std::string_view sass;  // compute capabilities of its SASS, "75,80,86,90,100,120"
    std::string_view ptx;   // those of its PTX, "120"; empty for none
    MajorMinor python_min;
    MajorMinor python_max;
    MajorMinor glibc;      // the manylinux floor of its wheels: manylinux_2_28 -> 2.28
    // PyTorch only: this variant is the release's PyPI wheel (a plain `pip install torch==X`; its
    // METADATA pins that CUDA's wheels). The others name their CUDA build in the distribution or extra.
    bool pypi_default = false;
    std::string_view install;   // the exact command
    std::string_view source;    // where the facts were read (a URL at a tag or commit)

    [[nodiscard]] EmbeddedTargets targets() const;  // sass and ptx parsed
    [[nodiscard]] std::string name() const;         // "PyTorch 2.11.0+cu130", "JAX 0.11.0 (cuda13)"
};

// The whole table, newest release first within each framework, and within a release the newest CUDA
// first.
[[nodiscard]] const std::vector<FrameworkBuildRow>& framework_build_table();
// The exact command that installs a row's build ("pip install torch==2.11.0 --index-url
// https://download.pytorch.org/whl/cu128").
[[nodiscard]] std::string install_command(const FrameworkBuildRow& row);
// The day the table was last checked against the projects' files ("2026-12-05").
[[nodiscard]] std::string_view framework_table_date();
// How old the table is on `today`, for the advice: "table of framework builds as of 2026-12-05
// (12 days old)"; past 180 days it adds "update cudacheck for newer releases".
[[nodiscard]] std::string describe_table_age(std::chrono::sys_days today);

struct MachineFacts {
    std::optional<CudaVersion> driver_cuda;  // the driver's CUDA version; nullopt: no driver answered
    std::vector<GpuArch> gpus;               // every visible GPU's compute capability (or --arch)
    std::vector<MajorMinor> pythons;         // one per interpreter found
    std::optional<MajorMinor> glibc;         // nullopt: no glibc (musl) or unknown
    Machine machine = Machine::x86_64;
};

// How one GPU runs a build's code.
struct GpuRun {
    GpuArch gpu;
    ImageKind kind = ImageKind::none;
    GpuArch target;  // the SASS or PTX used; for runtime-compiled code, the GPU itself
};

struct BuildAdvice {
    Framework framework = Framework::pytorch;
    MajorMinor python;
    // The newest build that runs here; nullptr when none does.
    const FrameworkBuildRow* build = nullptr;
    std::vector<GpuRun> runs;  // per GPU, for `build`
    std::string command;       // the exact install command for `build`
    std::string why;  // one line: "driver CUDA 12.8 >= 12.8; sm_120 in the build's list; Python 3.12 supported"
    // Newer builds passed over, one short reason each: "2.11.0+cu130: needs driver >= 580 (CUDA 13.0)".
    std::vector<std::string> passed_over;
    // When none runs here: what is wrong in one line, the newest build that would run with another
    // driver (nullptr when a driver would not help), and the driver to install for it.
    std::string problem;
    const FrameworkBuildRow* with_newer_driver = nullptr;
    std::string driver_to_install;  // "580 (CUDA 13.0)"
    [[nodiscard]] bool fits() const { return build != nullptr; }
};

// Per interpreter (in the order given), per framework (PyTorch, JAX, CuPy, TensorFlow): the advice.
// Empty without an interpreter: every build depends on the Python that installs it.
[[nodiscard]] std::vector<BuildAdvice> advise_builds(const MachineFacts& machine);
// The advice for one framework and one Python.
[[nodiscard]] BuildAdvice advise_build(const MachineFacts& machine, Framework framework, MajorMinor python);

// Whether one build runs here (the parts advise_build checks), for a build already chosen.
struct BuildCheck {
    bool runs = false;
    std::vector<GpuRun> runs_on;
    std::string reason;  // when it does not run: the first thing that stops it, one line
    std::string why;  // when it runs: the one-line why
    bool python_unsupported = false;  // the interpreter's Python is outside the build's range
    bool gpu_unsupported = false;  // a GPU has no code in the build
    bool driver_is_the_obstacle = false;  // only a newer driver stands in the way
    std::optional<CudaVersion> driver_needed;  // then: the CUDA version the driver must support
    std::string driver_to_install;  // and the driver that brings it: "580 (CUDA 13.0)"
};
[[nodiscard]] BuildCheck check_build(const FrameworkBuildRow& row, const MachineFacts& machine, MajorMinor python);
// Whether a build that runs here has SASS for every GPU (no PTX JIT).
[[nodiscard]] bool runs_natively(const BuildCheck& check);
// Of two variants of one release that both run here, whether `candidate` is the better advice than
// `chosen` (the rule advise_build and frameworks.builds share): SASS for every GPU before PTX JIT,
// then PyPI's own build before the others; between two others, the one earlier in the table (the
// newer CUDA) stays.
[[nodiscard]] bool preferred_variant(const FrameworkBuildRow& candidate, const BuildCheck& candidate_check,
                                     const FrameworkBuildRow& chosen, const BuildCheck& chosen_check);

// The installed build as cudacheck's probes read it (probes/python/build_info.hpp): the framework,
// its version ("2.11.0+cu130", "0.11.2", "14.2.0") and the distribution that carries the CUDA build
// ("torch", "jax-cuda13-plugin", "cupy-cuda13x", "tensorflow").
struct InstalledBuild {
    Framework framework = Framework::pytorch;
    std::string version;
    std::string distribution;
    MajorMinor python;
};

enum class InstalledVerdict {
    best_fit,  // the build the advice would choose (the same release series and CUDA variant)
    runs_older,  // it runs here, but a newer build also does
    does_not_run,  // driver, GPU, Python or glibc rule it out
    unknown,  // not in the table (a CPU build, a release the table does not know)
};
[[nodiscard]] std::string_view to_string(InstalledVerdict verdict);  // "best fit", "does not run here", ...

struct InstalledJudgement {
    InstalledVerdict verdict = InstalledVerdict::unknown;
    const FrameworkBuildRow* installed = nullptr;  // the table's row for the installed build
    BuildAdvice best;  // what the advice would install here
    std::string message;  // one line: what is the case
    std::string fix;  // what to change; empty for best_fit
};
[[nodiscard]] InstalledJudgement judge_installed(const MachineFacts& machine, const InstalledBuild& installed);

}  // namespace cudacheck
