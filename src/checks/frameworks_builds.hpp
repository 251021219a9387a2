// frameworks.builds: whether each Python framework found here (PyTorch, JAX, CuPy, TensorFlow and
// the torch extensions) runs on this driver and these GPUs with the libraries its process loads,
// judged from its files (probes/frameworks_probe.hpp); the pure judge, for unit tests.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "probes/python/frameworks_probe.hpp"
#include "report/report.hpp"
#include "report/result_builder.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudacheck {

struct FrameworkJudgeInput {
    const PythonFacts& python;
    std::optional<CudaVersion> driver_cuda = {};  // the highest CUDA the driver supports; empty without a driver
    std::string driver_version = {};              // "580.159.04"; "" when unknown
    std::vector<DeviceInfo> devices = {};         // the GPUs CUDA shows (compute capabilities)
    bool gpu_present = false;                // an NVIDIA GPU is in the machine, visible or not
};

// PyTorch's CUDA variants and the compute capabilities each is built for (torch/cuda/__init__.py,
// PYTORCH_RELEASES_CODE_CC, in 2.11: docs/examples/h200/frameworks/torch-cuda-cc-table.txt).
struct PytorchVariant {
    CudaVersion cuda;
    std::set<int> code_ccs;  // 10 * major + minor
};
[[nodiscard]] const std::vector<PytorchVariant>& pytorch_variants();
// The newest variant the driver runs (same or older major) whose code runs on every GPU given;
// nullopt when none does.
[[nodiscard]] std::optional<PytorchVariant> pytorch_variant_for(std::optional<CudaVersion> driver_cuda,
                                                                const std::vector<DeviceInfo>& devices);

void judge_frameworks(const FrameworkJudgeInput& input, ResultBuilder& result);

}  // namespace cudacheck
