// toolkit.build: will a CUDA build work here, and if not, what exactly to set. The
// prediction is build/build_prediction's, from the build setup (probes/build/build_setup: the
// toolkit a build takes, its files, nvcc's version and architectures, the host compilers and each
// toolkit's own host_config.h, ninja) and, per Python environment with a CUDA build of PyTorch,
// what torch.utils.cpp_extension would do with them: nothing is compiled. toolkit.compile runs the
// real builds and holds them to this prediction.
#pragma once

#include "build/build_prediction.hpp"
#include "report/result_builder.hpp"

namespace cudacheck {

class Probes;
class Environment;

void judge_build(const BuildJudgeInput& input, ResultBuilder& result);

// The input from the run's probes (the build setup, the Python environments, the devices).
[[nodiscard]] BuildJudgeInput build_judge_input(Probes& probes, const Environment& environment);

}  // namespace cudacheck
