// What a CUDA build would do here, predicted from the build facts (probes/build/): the problems
// that would stop it (each with whom it stops: a plain nvcc build, PyTorch's extension builds, a
// CMake project), the evidence, and the -gencode flags PyTorch would pass. toolkit.build reports
// the prediction, toolkit.compile holds real builds to it, `cudacheck env` plans from the same
// facts (build/environment_plan.hpp). Pure: facts in, prediction out.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "probes/build/build_setup.hpp"
#include "probes/build/torch_arch_list.hpp"
#include "probes/toolkit_probe.hpp"
#include "report/catalog.hpp"
#include "report/report.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck {

// A PyTorch with a CUDA build, in one environment.
struct TorchBuildTarget {
    std::string subject = {};      // "<prefix>: PyTorch", the framework's subject in the report
    std::string prefix = {};       // the environment's
    std::string interpreter = {};  // its python, for `-m pip install ninja`
    std::string version = {};      // "2.11.0+cu130"
    std::string cuda = {};         // torch.version.cuda: "13.0"
    std::optional<TorchArchTables> arch_tables = {};  // from its torch/utils/cpp_extension.py
    std::string arch_tables_problem = {};             // why they could not be read
    TorchDefaultArchList default_arch_list = {};      // what it does without TORCH_CUDA_ARCH_LIST
    std::vector<std::string> gpu_targets = {};  // its binary's SASS targets, as torch.cuda.get_arch_list(): "sm_90"
    bool ninja_in_environment = false;  // <prefix>/bin/ninja exists
};

struct BuildJudgeInput {
    const BuildSetup& setup;
    const ToolkitFacts& toolkits;
    std::vector<TorchBuildTarget> torch = {};
    std::vector<DeviceInfo> devices = {};  // the GPUs CUDA shows
    std::optional<std::string> torch_cuda_arch_list = {};  // TORCH_CUDA_ARCH_LIST
};

// Which builds a problem stops: a plain nvcc build (a .cu file), a CMake project, PyTorch's
// just-in-time extension builds (cpp_extension.load, load_inline) and its setup.py/pip builds.
struct BuildProblem {
    Code code = {};
    std::string message = {};
    std::string remediation = {};
    std::optional<std::string> subject = {};
    bool stops_nvcc = false;
    bool stops_torch_jit = false;
    bool stops_torch_setup = false;
    bool kernels_fail = false;  // the build succeeds but its kernels do not run on a GPU here
    bool stops_cmake =
        false;  // a CMake project with CUDA enabled (CUDACXX, CUDAHOSTCXX, CUDAARCHS: probes/build/cmake_cuda)
};

struct BuildPrediction {
    std::vector<BuildProblem> problems = {};
    std::vector<Evidence> evidence = {};
    std::string summary = {};
    std::optional<std::string> skip = {};  // nothing to build with: why
    // torch.utils.cpp_extension's -gencode flags per PyTorch subject (TORCH_CUDA_ARCH_LIST or the
    // visible GPUs), for toolkit.compile's cpp_extension.load.
    std::vector<std::pair<std::string, std::vector<std::string>>> torch_arch_flags = {};
};

// What builds would do with these facts.
[[nodiscard]] BuildPrediction predict_builds(const BuildJudgeInput& input);

// "13.0" from "13.0.88" (a toolkit's version, torch.version.cuda); nullopt without major.minor.
[[nodiscard]] std::optional<CudaVersion> cuda_release_of(std::string_view text);
// The installed compiler `toolkit` accepts that a fix should name: the newest gcc, else the newest
// clang, found on PATH (run by its plain name); nullptr when it accepts none. toolkit.build's fixes
// and `cudacheck env` name it.
[[nodiscard]] const HostCompiler* accepted_alternative(const BuildSetup& setup, const ToolkitCompilerLimits& toolkit);
// How to get a compiler `toolkit` accepts: "install gcc 15 or older (`sudo apt install g++-15`)",
// from the newest major its host_config.h accepts.
[[nodiscard]] std::string install_hint(const ToolkitCompilerLimits& toolkit, HostCompilerKind kind);
// "gcc 13.3.0", or "version unknown".
[[nodiscard]] std::string compiler_text(const std::optional<HostCompilerVersion>& version);
// The C compiler beside a C++ one and back: g++-13 <-> gcc-13, clang++-18 <-> clang-18.
[[nodiscard]] std::string c_name_of(std::string name);
[[nodiscard]] std::string cxx_name_of(std::string name);

}  // namespace cudacheck
