// toolkit.compile (--level full, or --only toolkit.compile): the compile flow for real,
// with the nvcc and host compiler a build would use. A one-kernel program is compiled with
// -gencode for each visible GPU (SASS) and PTX for the newest, its intermediates kept (PTX,
// cubin, fatbinary), linked, run on each GPU and its output verified, and its GPU code read back
// as `cudacheck inspect` reads it. With a CUDA build of PyTorch, PyTorch itself builds, imports and
// runs a one-kernel extension (torch.utils.cpp_extension.load: a binding .cpp and a kernel .cu) in a
// temporary directory, started when the check starts.
// Both outcomes are held to toolkit.build's prediction (predict_builds); what nvcc is asked to
// build, and how its errors read, is build/compile_plan's.
#pragma once

#include "build/compile_plan.hpp"
#include "checks/toolkit_build.hpp"
#include "cuda/arch_coverage.hpp"
#include "report/result_builder.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One intermediate or output of the compilation.
struct CompileStage {
    std::string kind;  // "PTX", "cubin", "fatbinary", "host object", "executable"
    std::string file;  // its name in the kept directory
    std::uint64_t bytes = 0;
};

struct CompiledRun {
    bool attempted = false;
    std::string skipped = {};  // why it did not run ("no GPU is visible: ...")
    bool started = false;
    bool timed_out = false;
    int exit_status = -1;
    std::string output = {};  // "device 0 ok 0" lines, or the CUDA error
};

struct ExtensionBuild {
    bool attempted = false;
    std::string skipped = {};
    std::string subject = {};  // the PyTorch it used
    bool started = false;
    bool timed_out = false;
    std::string stage = {};    // where it stopped: "import", "build", "run", "done"
    bool ran = false;          // a GPU was there to run it on
    bool correct = false;
    std::string error = {};    // PyTorch's exception, first lines
    double seconds = 0.0;
    std::string output_tail = {};  // when no result line came
    std::string interpreter = {};  // the python that ran it, for a message when it is killed
    // What PyTorch built, read back (a build can report success without building): the
    // module's file, and why it carries no GPU code ("" when it carries some).
    // A success without a GPU to run on is only believed with it.
    std::string module_file = {};
    std::string module_problem = {};
    // The TORCH_CUDA_ARCH_LIST the script set because PyTorch saw no GPU and none was set ("7.5");
    // empty when PyTorch chose (the visible GPUs) or the user's was taken.
    std::string arch_list = {};
};

struct CompileOutcome {
    std::string nvcc = {};
    std::vector<std::string> command = {};
    std::string not_run = {};  // why nvcc was not run though there is one (it hangs: toolkit.build says so)
    bool started = false;
    bool timed_out = false;
    int time_limit_s = 90;
    int exit_status = -1;
    std::string output = {};  // nvcc's
    double compile_ms = 0.0;
    std::vector<CompileStage> stages = {};
    // What nvcc was asked to build but did not, read back from the kept files and the executable
    // ("no sm_75 cubin", "probe is not an executable"); empty when all of it is there.
    std::vector<std::string> missing_code = {};
    std::vector<std::pair<std::string, std::string>> nvcc_flag_variables = {};  // NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS
                                                                                // when set
    TemporaryDirectory temporary = {};  // where nvcc writes its intermediate files (and this check its directory)
    std::string host_compiler = {};  // the one nvcc runs, for a message when nvcc is killed
    std::optional<EmbeddedTargets> embedded = {};  // read back from the executable
    std::string inspect_problem = {};
    std::vector<DeviceInfo> devices = {};
    CompiledRun run = {};
    ExtensionBuild extension = {};
};

// What nvcc was asked to build and did not (NVCC_APPEND_FLAGS can make it "succeed" without
// building): each of `sass` as a cubin of that
// architecture among the kept files, PTX for `ptx` with the kernel `kernel` as an entry, and the
// executable with that SASS and PTX embedded. Empty when all of it is there.
[[nodiscard]] std::vector<std::string> missing_code(const std::string& keep_directory, const std::string& executable,
                                                    const std::vector<int>& sass, int ptx, std::string_view kernel);

// The result line of the extension script ("CUDACHECK_EXTENSION {json}").
[[nodiscard]] std::optional<ExtensionBuild> parse_extension_result(std::string_view output);

void judge_compile(const CompileOutcome& outcome, const BuildPrediction& prediction, ResultBuilder& result);

}  // namespace cudacheck
