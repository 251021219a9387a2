// What toolkit.compile asks nvcc to build, and how it reads nvcc's answer: pure functions over the
// build facts (probes/build/build_setup) and the GPUs, so that the check itself only writes files,
// runs programs and judges. Facts in, plan out.
#pragma once

#include "probes/build/build_setup.hpp"
#include "report/catalog.hpp"
#include "report/report.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// The one-kernel nvcc build: with which nvcc, for which architectures, or why not at all.
struct NvccBuildPlan {
    std::string nvcc = {};     // the nvcc builds take; empty: there is none to run
    std::string not_run = {};  // why it is not run though there is one (it would hang: toolkit.build says so)
    std::vector<std::string> gencode = {};  // gencode_for the GPUs
    std::vector<int> sass = {};             // the architectures those flags give SASS for, as 90
    int ptx = 0;                            // and PTX for
};
[[nodiscard]] NvccBuildPlan plan_nvcc_build(const BuildSetup& setup, const std::vector<DeviceInfo>& devices);

// The -gencode flags for these GPUs: SASS for each distinct compute capability and PTX for the
// newest; for no GPU, the oldest architecture nvcc lists (or sm_75).
[[nodiscard]] std::vector<std::string> gencode_for(const std::vector<DeviceInfo>& devices,
                                                   const std::vector<std::string>& nvcc_architectures);

// The one line of a compiler's output that says what went wrong first ("...: error: ...",
// "#error -- unsupported GNU version! ...", "nvcc fatal : ..."), and the code it maps to.
struct CompileError {
    Code code = Code::compile_failed;
    std::string line = {};
};
// Lines about nvcc's temporary files (tmpxft_*: "Could not open output file", "No space left on
// device") map to build_tmpdir_unusable, "Host compiler targets unsupported OS" to
// host_compiler_unusable, so that the fix names the setting rather than the code.
[[nodiscard]] CompileError classify_compile_error(std::string_view output);

}  // namespace cudacheck
