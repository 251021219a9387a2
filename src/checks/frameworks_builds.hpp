// frameworks.builds: whether each Python framework found here (PyTorch, JAX, CuPy, TensorFlow and
// the torch extensions) runs on this driver and these GPUs with the libraries its process loads,
// judged from its files (probes/frameworks_probe.hpp); the pure judge, for unit tests.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "cuda/framework_builds.hpp"
#include "probes/python/frameworks_probe.hpp"
#include "report/report.hpp"
#include "report/result_builder.hpp"

#include <chrono>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace cudacheck {

struct FrameworkJudgeInput {
    const PythonFacts& python;
    std::optional<CudaVersion> driver_cuda = {};  // the highest CUDA the driver supports; empty without a driver
    std::string driver_version = {};              // "580.159.04"; "" when unknown
    std::vector<DeviceInfo> devices = {};         // the GPUs CUDA shows (compute capabilities)
    bool gpu_present = false;                // an NVIDIA GPU is in the machine, visible or not
    // For the fit of each installed build against cudacheck's table (cuda/framework_builds.hpp):
    std::optional<MajorMinor> glibc = {};    // gnu_get_libc_version(); nullopt: unknown
    Machine machine = Machine::x86_64;       // uname's machine
    std::chrono::sys_days today = {};        // for the table's age in the evidence
};

// How an installed build fits here against the other builds of its own release in the table (its
// CUDA variants: torch 2.11.0's cu130, cu128, cu126; JAX's cuda13 and cuda12 plugins; CuPy's
// cupy-cuda13x and cupy-cuda12x). The build to have is the first of the release, in the table's
// order (newest CUDA first), that runs natively (SASS) on every GPU given, else the first that
// runs at all (through PTX JIT). Within one release, so that a newer release added to the table
// does not turn a fitting install into a finding: that is an upgrade, not a wrong build.
struct ReleaseFit {
    const FrameworkBuildRow* recommended = nullptr;  // nullptr: no build of the release runs here
    BuildCheck installed_check;                       // check_build of the installed row
    BuildCheck recommended_check;
    bool installed_native = false;    // the installed build runs natively on every GPU
    bool recommended_native = false;  // the recommended one does
    std::vector<GpuArch> ptx_only;    // the GPUs the installed build runs on only through PTX
    // Better only where it makes a difference to running: the installed build does not run here,
    // or needs PTX JIT where the recommended one has SASS for every GPU. A newer CUDA variant of a
    // build that runs natively is no reason to reinstall (other packages may be built for its CUDA).
    [[nodiscard]] bool better_than(const FrameworkBuildRow& installed) const {
        return recommended != nullptr && recommended != &installed &&
               (!installed_check.runs || (recommended_native && !installed_native));
    }
    // Why the recommended build is the better one, in one line ("" when it is the installed one).
    std::string why;
};
// `rows`: the table (framework_build_table()) or, in tests, rows given by hand; only those of the
// installed row's framework, machine and release are considered.
[[nodiscard]] ReleaseFit fit_within_release(const FrameworkBuildRow& installed, std::span<const FrameworkBuildRow> rows,
                                            const MachineFacts& machine, MajorMinor python);

void judge_frameworks(const FrameworkJudgeInput& input, ResultBuilder& result);

}  // namespace cudacheck
