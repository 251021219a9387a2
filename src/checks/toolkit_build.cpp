// toolkit.build: whether building CUDA code would work here, and the exact setting when it would
// not. The prediction and its rules are build/build_prediction's; this check gathers its
// facts from the run's probes and reports it.
#include "checks/toolkit_build.hpp"

#include "checks/checks.hpp"
#include "cuda/arch_coverage.hpp"
#include "cuda/cuda_facts.hpp"
#include "engine/report_builder.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace cudacheck {

namespace {

constexpr MetricFamily gather_time{"toolkit_build_gather", "gather_time", Unit::ms,
                                   "Time toolkit.build took to read the build setup."};

}  // namespace

void judge_build(const BuildJudgeInput& input, ResultBuilder& result) {
    BuildPrediction prediction = predict_builds(input);
    for (Evidence& item : prediction.evidence) result.evidence(std::move(item));
    if (prediction.skip) {
        result.skip(*prediction.skip);
        return;
    }
    for (BuildProblem& problem : prediction.problems) {
        // The finding's message is the headline of the prediction's account; the whole account,
        // with the error a build would stop with, is evidence under the code and subject.
        std::string message = sys::lead(problem.message, sys::max_headline);
        if (message != problem.message)
            result.evidence(problem.subject ? fmt::format("{} {}", code_string(problem.code), *problem.subject)
                                            : code_string(problem.code),
                            problem.message);
        Finding finding = make_finding(problem.code, std::move(message), std::move(problem.remediation));
        finding.subject = problem.subject;
        result.add(std::move(finding));
    }
    result.metric(gather_time, input.setup.gather_ms);
    if (prediction.summary.size() > sys::max_headline) result.evidence("summary", prediction.summary);
    result.summary(sys::clip(prediction.summary, sys::max_headline));
}

BuildJudgeInput build_judge_input(Probes& probes, const Environment& environment) {
    BuildJudgeInput input{.setup = probes.build_setup(), .toolkits = probes.toolkits()};
    input.torch_cuda_arch_list = environment.get("TORCH_CUDA_ARCH_LIST");
    if (probes.initialises_cuda()) (void)probes.driver();
    else (void)probes.nvml();
    input.devices = report_devices(probes, environment);
    for (const EnvironmentFacts& environment_facts : probes.python().environments)
        for (const FrameworkFacts& framework : environment_facts.frameworks) {
            const FrameworkBuild& build = framework.build;
            if (build.framework != "PyTorch" || build.accelerator != Accelerator::cuda || !build.cuda) continue;
            TorchBuildTarget torch{.subject = framework_subject(environment_facts, framework),
                                   .prefix = environment_facts.environment.prefix,
                                   .interpreter = environment_facts.environment.interpreter,
                                   .version = build.version,
                                   .cuda = *build.cuda};
            InstalledTorchArchTables tables = read_installed_torch_arch_tables(build.files);
            torch.arch_tables = std::move(tables.tables);
            torch.arch_tables_problem = std::move(tables.problem);
            torch.default_arch_list = tables.default_list;
            for (const std::string& target : framework_gpu_targets(framework))
                if (target.starts_with("sm_")) torch.gpu_targets.push_back(target);
            torch.ninja_in_environment = sys::is_executable_file(torch.prefix + "/bin/ninja");
            input.torch.push_back(std::move(torch));
        }
    return input;
}

std::unique_ptr<Check> make_toolkit_build_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "toolkit.build",
                  .title = "CUDA builds",
                  .description = "Whether building CUDA code would work: the toolkit a build takes, its files, the "
                                 "host compiler against the toolkit's own "
                                 "limits, ninja, PyTorch's CUDA and TORCH_CUDA_ARCH_LIST, and what a CMake CUDA "
                                 "project takes (CUDACXX, CUDAHOSTCXX, CUDAARCHS)",
                  .min_level = Level::standard,
                  .prepare = [](Probes& probes) { probes.prefetch([&probes] { (void)probes.build_setup(); }); },
                  .raises = {Code::build_toolkit_missing, Code::build_toolkit_incomplete,
                             Code::host_compiler_unsupported, Code::host_compiler_missing,
                             Code::build_cuda_major_mismatch, Code::build_cuda_minor_mismatch, Code::ninja_missing,
                             Code::torch_arch_list_invalid, Code::torch_arch_list_misses_gpu,
                             Code::nvcc_arch_unsupported, Code::cmake_architectures_invalid,
                             Code::cmake_architectures_miss_gpu, Code::cmake_native_without_gpu,
                             Code::nvcc_built_nothing, Code::build_tmpdir_unusable, Code::host_compiler_unusable,
                             Code::torch_arch_list_unset_without_gpu},
                  .answers = "whether a CUDA build would work, before it runs: the toolkit a build takes (`CUDA_HOME`, "
                             "`CUDA_PATH`, nvcc on `PATH`, "
                             "`/usr/local/cuda`, as PyTorch looks) and its development files, the host compiler nvcc "
                             "would run judged by that "
                             "toolkit's own `crt/host_config.h` (and whether it is a compiler at all), `TMPDIR` where "
                             "nvcc writes its intermediate "
                             "files, options in `NVCC_PREPEND_FLAGS`/`NVCC_APPEND_FLAGS` that make nvcc stop before it "
                             "builds, ninja, nvcc's CUDA "
                             "against PyTorch's, and `TORCH_CUDA_ARCH_LIST` as PyTorch reads it "
                             "against the GPUs; the same for a CMake project with CUDA enabled, by CMake's rules "
                             "(`CUDACXX`, else nvcc on `PATH`; "
                             "`CUDAHOSTCXX`; `CUDAARCHS`, else nvcc's default architecture); each problem with the "
                             "exact setting"},
        [](CheckContext& context, ResultBuilder& result) {
            judge_build(build_judge_input(context.probes, context.environment), result);
        });
}

const CheckRegistration toolkit_build_registration{610, make_toolkit_build_check};

}  // namespace cudacheck
