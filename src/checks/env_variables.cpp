// env.variables: the environment variables that change how CUDA programs find the toolkit and
// libraries, which GPUs they see, and how they run.
#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string_view>

namespace cudacheck {

namespace {

// ":SIZE:COUNT" once or more, each a decimal number: what the pattern (:\d+:\d+)+ matched. Scanned
// by hand: std::regex matched it by recursion, one level per character, and a 35 KB value ended
// the process with SIGSEGV.
bool is_workspace_config(std::string_view value) {
    if (value.empty()) return false;
    std::size_t at = 0;
    while (at < value.size())
        for (int part = 0; part < 2; ++part) {
            if (at >= value.size() || value[at] != ':') return false;
            const std::size_t digits = ++at;
            while (at < value.size() && value[at] >= '0' && value[at] <= '9') ++at;
            if (at == digits) return false;
        }
    return true;
}

// Library name prefixes worth naming when a LD_LIBRARY_PATH directory holds them.
constexpr std::array cuda_library_prefixes{"libcuda.so",  "libcudart.so",   "libcublas.so", "libcublasLt.so",
                                           "libcufft.so", "libcurand.so",   "libcudnn.so",  "libnvrtc.so",
                                           "libnccl.so",  "libnvidia-ml.so"};

void judge_toolkit_variables(const Environment& environment, const ToolkitFacts& toolkits, ResultBuilder& result) {
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
        const auto value = environment.get(variable);
        if (!value || value->empty()) continue;
        result.evidence(variable, *value);
        if (!sys::is_directory(*value)) {
            result.add(Code::cuda_home_missing,
                       fmt::format("{}={} does not exist", variable, sys::clip_path(*value, 90)));
            continue;
        }
        if (toolkits.path_nvcc.empty()) continue;
        const std::string home_root = sys::real_path(*value);
        const std::string& nvcc_root = toolkits.path_nvcc_root;
        if (!nvcc_root.empty() && home_root != nvcc_root) {
            const Toolkit* home = toolkits.toolkit_at(home_root);
            const Toolkit* path = toolkits.toolkit_at(nvcc_root);
            result.add(Code::cuda_home_differs_from_nvcc,
                       fmt::format("{}={} ({}) but the nvcc on PATH is {} ({})", variable, sys::clip_path(*value, 32),
                                   home != nullptr && !home->version.empty() ? home->version : "version unknown",
                                   sys::clip_path(toolkits.path_nvcc, 32),
                                   path != nullptr && !path->version.empty() ? path->version : "version unknown"),
                       fmt::format("Make them agree: `export {}={}` or `export PATH={}/bin:$PATH`.", variable,
                                   nvcc_root, home_root));
        }
    }
}

void judge_library_path(const Environment& environment, ResultBuilder& result) {
    const auto value = environment.get("LD_LIBRARY_PATH");
    if (!value || value->empty()) return;
    for (const std::string& dir : sys::split(*value, ':')) {
        if (dir.empty()) continue;
        if (!sys::is_directory(dir)) {
            result.evidence("LD_LIBRARY_PATH", dir + " (absent)");
            continue;
        }
        std::vector<std::string> found;
        for (const std::string& name : sys::list_directory(dir))
            for (const char* prefix : cuda_library_prefixes)
                if (name == prefix || sys::starts_with(name, std::string(prefix) + ".")) {
                    found.push_back(name);
                    break;
                }
        result.evidence("LD_LIBRARY_PATH", found.empty() ? dir : fmt::format("{} ({})", dir, fmt::join(found, " ")));
        const bool stubs = dir.find("/stubs") != std::string::npos &&
                           std::any_of(found.begin(), found.end(),
                                       [](const std::string& name) { return sys::starts_with(name, "libcuda.so"); });
        if (stubs)
            result.add(Code::stub_dir_on_ld_library_path,
                       fmt::format("LD_LIBRARY_PATH contains the stub directory {}", sys::clip_path(dir, 72)),
                       fmt::format("Remove {} from LD_LIBRARY_PATH; link against it with -L or LIBRARY_PATH only.",
                                   dir));
    }
}

void judge_visible_devices(const Environment& environment, ResultBuilder& result) {
    const VisibleDevicesSpec spec = parse_cuda_visible_devices(environment.get("CUDA_VISIBLE_DEVICES"));
    if (!spec.set) return;
    result.evidence("CUDA_VISIBLE_DEVICES", fmt::format("'{}'", spec.raw));
    if (!spec.invalid_entry.empty() && !spec.entries.empty()) {
        // Why the entry is invalid is evidence: the headline keeps what CUDA will see.
        result.evidence("invalid_entry", fmt::format("'{}' {}", spec.invalid_entry, spec.invalid_reason));
        result.add(Code::cuda_visible_devices_invalid,
                   sys::clip(fmt::format("CUDA_VISIBLE_DEVICES='{}': entry '{}' is invalid; CUDA sees only the {} "
                                         "device(s) before it",
                                         sys::clip(spec.raw, 24), sys::clip(spec.invalid_entry, 16),
                                         spec.entries.size()),
                             sys::max_headline));
    } else if (spec.hides_all())
        result.add(Code::cuda_visible_devices_empty,
                   spec.raw.empty() ? "CUDA_VISIBLE_DEVICES is set to the empty string: CUDA programs see no GPU"
                                    : sys::clip(fmt::format("CUDA_VISIBLE_DEVICES='{}' ({}): CUDA programs see no GPU",
                                                            sys::clip(spec.raw, 24), spec.invalid_reason),
                                                sys::max_headline));
}

void judge_behaviour_variables(const Environment& environment, Profile profile, ResultBuilder& result) {
    const auto value_of = [&](const char* name) { return environment.get(name); };
    const auto note = [&](const char* name) {
        if (auto value = value_of(name)) result.evidence(name, *value);
        return value_of(name);
    };
    if (auto order = note("CUDA_DEVICE_ORDER"); order && *order != "FASTEST_FIRST" && *order != "PCI_BUS_ID")
        result.add(Code::cuda_device_order_invalid,
                   fmt::format("CUDA_DEVICE_ORDER='{}' is not FASTEST_FIRST or PCI_BUS_ID", sys::clip(*order, 40)));
    // Synchronous launches make an error surface at the launch that caused it (CUDA C++ Programming
    // Guide, "CUDA Environment Variables"): what a debugging shell wants, and only that one.
    if (auto blocking = note("CUDA_LAUNCH_BLOCKING"); blocking && *blocking == "1") {
        if (profile == Profile::dev)
            result.evidence("CUDA_LAUNCH_BLOCKING_profile",
                            "right under --profile dev: errors surface at the launch that caused them");
        else result.add(Code::cuda_launch_blocking, "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for completion");
    }
    if (auto loading = note("CUDA_MODULE_LOADING"); loading && *loading != "LAZY" && *loading != "EAGER")
        result.add(Code::cuda_module_loading_invalid,
                   fmt::format("CUDA_MODULE_LOADING='{}' is not LAZY or EAGER", sys::clip(*loading, 40)));
    // cuBLAS: ":SIZE:COUNT" repeated, SIZE in KiB (cuBLAS documentation, "Results reproducibility").
    const auto config = note("CUBLAS_WORKSPACE_CONFIG");
    if (config && !is_workspace_config(*config))
        result.add(Code::cublas_workspace_config_invalid,
                   fmt::format("CUBLAS_WORKSPACE_CONFIG='{}' is not of the form :SIZE:COUNT", sys::clip(*config, 40)));
    // Without it cuBLAS may choose a different reduction order from run to run on one GPU (same source).
    if (profile == Profile::ci && !config)
        result.add(Code::ci_determinism_unset,
                   "--profile ci: CUBLAS_WORKSPACE_CONFIG is unset, so cuBLAS results may differ from run to run");
    if (auto injection = note("CUDA_INJECTION64_PATH"); injection && !injection->empty())
        result.add(Code::cuda_injection_path,
                   fmt::format("CUDA_INJECTION64_PATH={} is injected into every CUDA process",
                               sys::clip_path(*injection, 60)));
    if (auto coredump = note("CUDA_ENABLE_COREDUMP_ON_EXCEPTION"); coredump && *coredump == "1")
        result.add(Code::cuda_coredump_on_exception,
                   "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1: a GPU exception writes a core dump");
    for (const char* legacy : {"CUDA_PROFILE", "CUDA_AUTO_BOOST"})
        if (auto setting = note(legacy))
            result.add(Code::cuda_legacy_profiler, fmt::format("{}={} is set", legacy, sys::clip(*setting, 60)),
                       fmt::format("`unset {}`.", legacy));
    if (auto cache = note("CUDA_CACHE_DISABLE"); cache && *cache == "1")
        result.add(Code::cuda_cache_disabled, "CUDA_CACHE_DISABLE=1: embedded PTX is recompiled at every start");
    for (const char* informational :
         {"CUDA_CACHE_PATH", "CUDA_CACHE_MAXSIZE", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
          "CUDNN_LOGLEVEL_DBG", "CUBLAS_LOGINFO_DBG", "NCCL_DEBUG", "TORCH_CUDA_ARCH_LIST"})
        note(informational);
    // What a build uses: nvcc's own variables and CMake's (CUDACXX, CUDAHOSTCXX, CUDAARCHS), which
    // toolkit.build judges against the toolkit they lead to.
    for (const char* build :
         {"NVCC_CCBIN", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "CUDACXX", "CUDAHOSTCXX", "CUDAARCHS"})
        note(build);
}

}  // namespace

void judge_environment(const Environment& environment, const ToolkitFacts& toolkits, Profile profile,
                       ResultBuilder& result) {
    if (profile != Profile::none) result.evidence("profile", std::string(to_string(profile)));
    judge_toolkit_variables(environment, toolkits, result);
    if (auto path = environment.get("PATH")) {
        std::vector<std::string> cuda_bins;
        for (const std::string& dir : sys::split(*path, ':'))
            if (!dir.empty() && sys::is_executable_file(dir + "/nvcc")) cuda_bins.push_back(dir);
        result.evidence("PATH_cuda_bin",
                        cuda_bins.empty() ? "no directory with nvcc" : fmt::format("{}", fmt::join(cuda_bins, ":")));
    }
    judge_library_path(environment, result);
    judge_visible_devices(environment, result);
    judge_behaviour_variables(environment, profile, result);
    // Variables that change what `import torch` loads (CPython's sys.path rules):
    // frameworks.builds follows them and names the copy each puts first.
    for (const char* python :
         {"PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "PYTHONPLATLIBDIR"})
        if (const auto value = environment.get(python))
            result.evidence(python, fmt::format("'{}' (changes what `import` loads)", *value));
    std::size_t cuda_variables = 0;
    for (const auto& [name, value] : environment.all())
        if (sys::starts_with(name, "CUDA") || sys::starts_with(name, "CUBLAS") || sys::starts_with(name, "CUDNN"))
            ++cuda_variables;
    result.summary(
        fmt::format("{} CUDA-related variable(s) set; none changes how CUDA behaves in a harmful way", cuda_variables));
}

std::unique_ptr<Check> make_env_variables_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{
            .id = "env.variables",
            .title = "Environment",
            .description =
                "CUDA_HOME, PATH, LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES and variables that change CUDA's behaviour",
            .raises = {Code::cuda_home_missing, Code::cuda_home_differs_from_nvcc, Code::stub_dir_on_ld_library_path,
                       Code::cuda_visible_devices_empty, Code::cuda_visible_devices_invalid, Code::cuda_launch_blocking,
                       Code::cublas_workspace_config_invalid, Code::cuda_injection_path,
                       Code::cuda_coredump_on_exception, Code::cuda_legacy_profiler, Code::cuda_cache_disabled,
                       Code::cuda_module_loading_invalid, Code::cuda_device_order_invalid, Code::ci_determinism_unset},
            .answers =
                "`CUDA_HOME`/`CUDA_PATH` vs the nvcc on `PATH`, `LD_LIBRARY_PATH` (stub directories, which CUDA "
                "libraries each entry holds), `CUDA_VISIBLE_DEVICES` as CUDA parses it, and variables that change "
                "CUDA's behaviour (`CUDA_LAUNCH_BLOCKING`, `CUBLAS_WORKSPACE_CONFIG`, `CUDA_INJECTION64_PATH`, ...)"},
        [](CheckContext& context, ResultBuilder& result) {
            judge_environment(context.environment, context.probes.toolkits(), context.options.profile, result);
        });
}

const CheckRegistration env_variables_registration{200, make_env_variables_check};

}  // namespace cudacheck
