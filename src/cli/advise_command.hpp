// `cudacheck advise`: before anything is installed, which build of PyTorch, JAX, CuPy and
// TensorFlow fits this machine, per interpreter, with the command that installs it and why; and
// whether what is installed is that build (cuda/framework_builds.hpp decides, render/advice prints).
#pragma once

#include "cuda/framework_builds.hpp"
#include "probes/python/python_environments.hpp"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cudacheck {

struct AdviseCommandOptions {
    std::vector<std::string> arch;        // --arch: GPUs to advise for instead of this machine's
    std::string driver_cuda;              // --driver-cuda 12.8: as if the driver were of this CUDA version
    std::vector<std::string> python;      // --python: environments (besides those found)
    std::vector<std::string> python_version;  // --python-version 3.12: an interpreter not installed yet
    std::vector<std::string> framework;   // --framework torch,jax: only these
    std::string format = "table";
    std::string color = "auto";
};

CLI::App* setup_advise(CLI::App& app, AdviseCommandOptions& options);
[[nodiscard]] int run_advise(const AdviseCommandOptions& options, const std::vector<std::string>& argv);

}  // namespace cudacheck
