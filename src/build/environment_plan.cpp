// The plan behind `cudacheck env`: the shell lines that set this machine's CUDA
// environment right, from the build facts toolkit.build predicts from (build/build_prediction),
// the GPUs, the driver's CUDA and what the file system says of the chosen toolkit (EnvFileFacts,
// gathered by the client). Facts in, lines out; render/shell_script writes them for a shell.
#include "build/environment_plan.hpp"

#include "cuda/arch_coverage.hpp"
#include "probes/visible_devices.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

namespace cudacheck {

namespace {

ShellLine comment(std::string text) { return ShellLine{ShellLine::Kind::comment, {}, {}, std::move(text)}; }
ShellLine set(std::string name, std::string value) {
    return ShellLine{ShellLine::Kind::set, std::move(name), {std::move(value)}, {}};
}
ShellLine prepend(std::string name, std::vector<std::string> directories) {
    return ShellLine{ShellLine::Kind::prepend, std::move(name), std::move(directories), {}};
}
ShellLine unset(std::vector<std::string> names) { return ShellLine{ShellLine::Kind::unset, {}, std::move(names), {}}; }

// The CUDA major of the first PyTorch with a CUDA build (as toolkit.build compares them).
std::optional<CudaVersion> torch_cuda(const EnvInputs& inputs, const TorchBuildTarget** which = nullptr) {
    for (const TorchBuildTarget& torch : inputs.torch)
        if (const std::optional<CudaVersion> version = cuda_release_of(torch.cuda)) {
            if (which != nullptr) *which = &torch;
            return version;
        }
    return std::nullopt;
}

// Whether two paths name one directory, by the real paths gathered for the plan.
bool same_directory(const RealPaths& real_paths, const std::string& a, const std::string& b) {
    if (a == b) return true;
    const auto real = [&real_paths](const std::string& path) {
        const auto found = real_paths.find(path);
        return found == real_paths.end() ? std::string() : found->second;
    };
    const std::string real_a = real(a);
    return !real_a.empty() && real_a == real(b);
}

class Planner {
public:
    Planner(const EnvInputs& inputs, const EnvFileFacts& files, const Environment& environment, Profile profile)
        : inputs_(inputs), setup_(inputs.setup), files_(files), environment_(environment), profile_(profile) {}

    EnvScript run() {
        toolkit_ = environment_toolkit(inputs_);
        script_.toolkit_installed = toolkit_ != nullptr;
        if (toolkit_ != nullptr) {
            toolkit_lines();
            host_compiler_lines();
        } else {
            no_toolkit_lines();
        }
        architecture_lines();
        if (toolkit_ == nullptr) ninja_lines({});
        profile_lines();
        return std::move(script_);
    }

private:
    const EnvInputs& inputs_;
    const BuildSetup& setup_;
    const EnvFileFacts& files_;
    const Environment& environment_;
    Profile profile_;
    const ToolkitCompilerLimits* toolkit_ = nullptr;
    std::string root_;  // the toolkit as CUDA_HOME names it
    EnvScript script_;

    void add(ShellLine line) { script_.lines.push_back(std::move(line)); }

    // Why this toolkit, and what it does not give.
    void choice_comments(std::optional<CudaVersion> version) {
        add(comment(fmt::format("toolkit: {} {} ({} installed)", root_,
                                toolkit_->version.empty() ? "(version unknown)" : toolkit_->version,
                                setup_.toolkits.size())));
        const TorchBuildTarget* torch = nullptr;
        if (const std::optional<CudaVersion> wanted = torch_cuda(inputs_, &torch);
            wanted && (!version || version->major != wanted->major))
            add(
                comment(fmt::format("no complete CUDA {0} toolkit is installed, which {1} (CUDA {2}) needs for "
                                    "setup.py and pip builds of extensions: "
                                    "install one (`sudo apt install cuda-toolkit-{0}-{3}`)",
                                    wanted->major, torch->subject, torch->cuda, wanted->minor)));
        if (inputs_.driver_cuda && version && *version > *inputs_.driver_cuda)
            add(
                comment(fmt::format("the driver supports CUDA {} and every installed toolkit is newer: code it builds "
                                    "may not load "
                                    "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION); update the driver",
                                    inputs_.driver_cuda->to_string())));
        if (!toolkit_->missing_files.empty())
            add(comment(fmt::format("no installed toolkit is complete; this one lacks {}",
                                    fmt::join(toolkit_->missing_files, ", "))));
    }

    void toolkit_lines() {
        const std::optional<CudaVersion> version = cuda_release_of(toolkit_->version);
        // Where builds take (or, without CUDA_HOME, would take) this toolkit from, keep the name
        // they use: /usr/local/cuda rather than the directory it links to.
        root_ = environment_toolkit_root(inputs_, *toolkit_, files_.real_paths);
        const std::string& root = root_;
        choice_comments(version);
        add(set("CUDA_HOME", root));
        // PyTorch reads CUDA_HOME first, CUDA_PATH next; a CUDA_PATH left pointing elsewhere
        // misleads other tools (env.variables compares both with the nvcc on PATH).
        if (const auto cuda_path = environment_.get("CUDA_PATH");
            cuda_path && !cuda_path->empty() && !same_directory(files_.real_paths, *cuda_path, root))
            add(set("CUDA_PATH", root));
        path_lines(root);
        library_path_lines();
    }

    void path_lines(const std::string& root) {
        const std::string bin = root + "/bin";
        std::vector<std::string> directories;
        if (bin.find(':') != std::string::npos) {
            add(comment(fmt::format("{} contains ':', which no PATH entry can: run its nvcc by its full path",
                                    sys::printable(bin))));
        } else {
            const std::vector<std::string> entries = sys::split(environment_.get("PATH").value_or(""), ':');
            if (!entries.empty() && same_directory(files_.real_paths, entries.front(), bin))
                add(comment(fmt::format("PATH: {} is already first", bin)));
            else directories.push_back(bin);
        }
        ninja_lines(directories);
    }

    // ninja, which PyTorch's just-in-time extension builds need: an environment's own on PATH, or
    // how to install it. Joins the toolkit's bin in one PATH line (the toolkit's first).
    void ninja_lines(std::vector<std::string> directories) {
        if (!setup_.ninja.empty() || inputs_.torch.empty()) {
            if (!directories.empty()) add(prepend("PATH", std::move(directories)));
            return;
        }
        const auto with_ninja = std::find_if(inputs_.torch.begin(), inputs_.torch.end(),
                                             [](const TorchBuildTarget& torch) { return torch.ninja_in_environment; });
        if (with_ninja != inputs_.torch.end() && with_ninja->prefix.find(':') == std::string::npos) {
            add(comment(
                fmt::format("ninja (PyTorch's extension builds need it): {}'s, not on PATH", with_ninja->prefix)));
            // The toolkit's bin stays first, even where it was first already.
            if (toolkit_ != nullptr && directories.empty() && root_.find(':') == std::string::npos)
                directories.push_back(root_ + "/bin");
            directories.push_back(with_ninja->prefix + "/bin");
        } else {
            const TorchBuildTarget& torch = inputs_.torch.front();
            add(
                comment(fmt::format("no ninja, which PyTorch's extension builds need (\"Ninja is required to load C++ "
                                    "extensions\"): "
                                    "`{} -m pip install ninja`",
                                    torch.interpreter.empty() ? "python3" : torch.interpreter)));
        }
        if (!directories.empty()) add(prepend("PATH", std::move(directories)));
    }

    // NVIDIA's packages register the toolkit's library directory with the loader
    // (/etc/ld.so.conf.d/cuda-*.conf, in ld.so.cache): LD_LIBRARY_PATH is needed only where the
    // loader would take another libcudart, or none.
    void library_path_lines() {
        const ToolkitRuntime& runtime = files_.runtime;
        const std::string& soname = runtime.soname;
        if (soname.empty() || runtime.library_directory.empty()) return;
        if (runtime.real_path.empty()) {
            add(comment(fmt::format("LD_LIBRARY_PATH: {} has no {}", runtime.library_directory, soname)));
            return;
        }
        const Resolution& found = runtime.found;
        if (found.found() && found.real_path == runtime.real_path) {
            add(comment(
                fmt::format("LD_LIBRARY_PATH: unchanged, the loader finds this toolkit's {} already ({}, by {})",
                            soname, found.path, found.rule)));
            return;
        }
        if (runtime.library_directory.find(':') != std::string::npos) {
            add(comment(fmt::format("LD_LIBRARY_PATH: {} contains ':', which no entry can",
                                    sys::printable(runtime.library_directory))));
            return;
        }
        add(comment(
            found.found()
                ? fmt::format("LD_LIBRARY_PATH: the loader would take {} ({}) for {}, not this toolkit's", found.path,
                              found.rule, soname)
                : fmt::format("LD_LIBRARY_PATH: the loader finds no {} (not in ld.so.cache): this toolkit's goes first",
                              soname)));
        add(prepend("LD_LIBRARY_PATH", {runtime.library_directory}));
    }

    // The compiler nvcc runs, and the one PyTorch passes it (-ccbin $CC), judged by this toolkit's
    // host_config.h; where it rejects one, the newest installed compiler it accepts.
    void host_compiler_lines() {
        const HostCompilerPick& pick = setup_.nvcc_host_compiler;
        const CompilerAcceptance& nvcc = toolkit_->nvcc_pick;
        // A program that is no compiler (NVCC_CCBIN=/bin/true: build_setup's `unusable`) fails as
        // surely as a rejected one; "not judged" would hide it.
        const bool nvcc_fails =
            pick.path.empty() || !pick.unusable.empty() || (pick.version && nvcc.unreadable.empty() && !nvcc.accepted);
        bool cc_fails = false;
        if (setup_.torch_host_compiler) {
            const CompilerAcceptance& torch = toolkit_->torch_pick;
            cc_fails = setup_.torch_host_compiler->path.empty() || !setup_.torch_host_compiler->unusable.empty() ||
                       (setup_.torch_host_compiler->version && torch.unreadable.empty() && !torch.accepted);
        }
        const std::string header =
            toolkit_->host_config.empty() ? toolkit_->root + "/include/crt/host_config.h" : toolkit_->host_config;
        if (!nvcc_fails && !cc_fails) {
            add(comment(pick.version && nvcc.unreadable.empty()
                            ? fmt::format("host compiler: {} ({}, {}) accepted by {}", pick.path,
                                          compiler_text(pick.version), pick.rule, header)
                            : fmt::format("host compiler: {} ({}), not judged", pick.path, pick.rule)));
            return;
        }
        const HostCompilerPick& rejected = nvcc_fails ? pick : *setup_.torch_host_compiler;
        const CompilerAcceptance& verdict = nvcc_fails ? nvcc : toolkit_->torch_pick;
        add(comment(rejected.path.empty()
                        ? fmt::format("host compiler: {} ({}): {}", rejected.program, rejected.rule, rejected.failure)
                    : !rejected.unusable.empty()
                        ? fmt::format("host compiler: {} ({}) is no compiler nvcc can use: {}", rejected.path,
                                      rejected.rule, sys::printable(rejected.unusable))
                        : fmt::format("host compiler: {} ({}, {}) is rejected by {}: #error {}", rejected.path,
                                      compiler_text(rejected.version), rejected.rule, header, verdict.error)));
        const HostCompiler* alternative = accepted_alternative(setup_, *toolkit_);
        if (alternative == nullptr) {
            const bool none_on_path =
                std::none_of(setup_.compilers.begin(), setup_.compilers.end(), [](const HostCompiler& compiler) {
                    return compiler.source == "PATH" && !compiler.path.empty();
                });
            if (none_on_path) {
                add(
                    comment("no gcc or clang on PATH: add the directory of one to PATH, or install one (`sudo apt "
                            "install g++`)"));
                return;
            }
            add(comment("no installed compiler is accepted: " + install_hint(*toolkit_, HostCompilerKind::gcc)));
            return;
        }
        const std::string cxx = cxx_name_of(alternative->name);
        add(comment(fmt::format("accepted instead: {} ({})", cxx, compiler_text(alternative->version))));
        if (nvcc_fails) {
            // -ccbin on nvcc's command line (NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS) comes before NVCC_CCBIN.
            if (pick.rule.starts_with("-ccbin"))
                add(comment(fmt::format("change the -ccbin in {} to {}", setup_.nvcc_flags.ccbin_variable, cxx)));
            else add(set("NVCC_CCBIN", cxx));
        }
        add(set("CC", c_name_of(alternative->name)));
        add(set("CXX", cxx));
    }

    void no_toolkit_lines() {
        const TorchBuildTarget* torch = nullptr;
        const std::optional<CudaVersion> wanted = torch_cuda(inputs_, &torch);
        add(
            comment(fmt::format("no CUDA toolkit is installed (none at CUDA_HOME, CUDA_PATH, beside an nvcc on PATH or "
                                "in /usr/local/cuda*): nothing "
                                "CUDA can be compiled; install one{}",
                                wanted ? fmt::format(" for {} (`sudo apt install cuda-toolkit-{}-{}`)", torch->subject,
                                                     wanted->major, wanted->minor)
                                       : std::string(" (https://developer.nvidia.com/cuda-downloads)"))));
    }

    // The GPUs' compute capabilities, for PyTorch (TORCH_CUDA_ARCH_LIST: "9.0"), CMake (CUDAARCHS
    // initialises CMAKE_CUDA_ARCHITECTURES: "90"; CMake documentation, "CUDAARCHS") and NCCL's
    // makefiles (NVCC_GENCODE: "-gencode=arch=compute_90,code=sm_90").
    void architecture_lines() {
        std::set<std::pair<int, int>> capabilities;
        for (const DeviceInfo& device : inputs_.devices)
            if (device.cc_major > 0) capabilities.insert({device.cc_major, device.cc_minor});
        if (capabilities.empty()) {
            const TorchBuildTarget* torch = torch_failing_without_gpu();
            if (torch == nullptr) {
                add(comment(
                    "no GPU is visible: TORCH_CUDA_ARCH_LIST, CUDAARCHS and NVCC_GENCODE are left as they are"));
                return;
            }
            add(comment("no GPU is visible: CUDAARCHS and NVCC_GENCODE are left as they are"));
            torch_list_without_gpu(*torch);
            return;
        }
        std::vector<std::string> found;
        for (const auto& [major, minor] : capabilities) found.push_back(fmt::format("{}.{}", major, minor));
        add(comment(fmt::format("the visible GPUs: compute capability {}", fmt::join(found, ", "))));
        std::vector<std::string> torch_entries;
        std::vector<std::string> cmake_entries;
        std::vector<std::string> gencode;
        for (const auto& [major, minor] : capabilities) {
            const int number = major * 10 + minor;
            if (!nvcc_compiles_for(number)) {
                add(comment(fmt::format("nvcc {} does not compile for compute capability {}.{}: left out",
                                        toolkit_->version, major, minor)));
                continue;
            }
            cmake_entries.push_back(std::to_string(number));
            gencode.push_back(fmt::format("-gencode=arch=compute_{0},code=sm_{0}", number));
            const std::string entry = fmt::format("{}.{}", major, minor);
            const auto unsupported =
                std::find_if(inputs_.torch.begin(), inputs_.torch.end(),
                             [&](const TorchBuildTarget& torch) { return !torch_builds_for(torch, entry); });
            if (unsupported != inputs_.torch.end())
                add(comment(fmt::format("{} does not build for {}: left out of TORCH_CUDA_ARCH_LIST",
                                        unsupported->subject, entry)));
            else torch_entries.push_back(entry);
        }
        if (!torch_entries.empty()) add(set("TORCH_CUDA_ARCH_LIST", fmt::format("{}", fmt::join(torch_entries, ";"))));
        if (!cmake_entries.empty()) {
            add(set("CUDAARCHS", fmt::format("{}", fmt::join(cmake_entries, ";"))));
            add(set("NVCC_GENCODE", fmt::format("{}", fmt::join(gencode, " "))));
        }
    }

    // Without a GPU, PyTorch's extension builds stop in _get_cuda_arch_flags unless TORCH_CUDA_ARCH_LIST
    // names the architectures (toolkit.build's CC318): the list the installed torch carries SASS for
    // (its binary's targets, as torch.cuda.get_arch_list() gives them), those its cpp_extension.py
    // accepts and the toolkit's nvcc compiles for. torch_failing_without_gpu: the torch that needs
    // it; none where the shell has a value already (not `native`, which means the visible GPUs) or
    // no installed torch's cpp_extension.py has that failure.
    const TorchBuildTarget* torch_failing_without_gpu() const {
        const std::optional<std::string> current = environment_.get("TORCH_CUDA_ARCH_LIST");
        if (current && !current->empty() && *current != "native") return nullptr;
        for (const TorchBuildTarget& torch : inputs_.torch)
            if (torch.default_arch_list.raises_without_gpu != false) return &torch;
        return nullptr;
    }
    // What the toolkit's nvcc compiles for (`nvcc --list-gpu-arch`), known for the toolkit builds
    // take: true when it is not known.
    [[nodiscard]] bool nvcc_compiles_for(int number) const {
        const bool known = toolkit_ != nullptr && setup_.choice_exists && !setup_.toolkits.empty() &&
                           &setup_.toolkits.front() == toolkit_ && !setup_.nvcc_architectures.empty();
        return !known || std::find(setup_.nvcc_architectures.begin(), setup_.nvcc_architectures.end(),
                                   fmt::format("compute_{}", number)) != setup_.nvcc_architectures.end();
    }
    // Whether `torch`'s cpp_extension.py accepts the TORCH_CUDA_ARCH_LIST entry ("9.0"); true when its
    // tables were not read.
    [[nodiscard]] static bool torch_builds_for(const TorchBuildTarget& torch, const std::string& entry) {
        return !torch.arch_tables || std::find(torch.arch_tables->supported.begin(), torch.arch_tables->supported.end(),
                                               entry) != torch.arch_tables->supported.end();
    }

    void torch_list_without_gpu(const TorchBuildTarget& torch) {
        std::vector<std::string> entries;
        for (const std::string& target : torch.gpu_targets) {
            const std::optional<GpuArch> arch = parse_gpu_arch(target);
            if (!arch || !target.starts_with("sm_") || arch->variant != ArchVariant::generic) continue;
            const std::string entry = fmt::format("{}.{}", arch->major(), arch->minor());
            if (!torch_builds_for(torch, entry) || !nvcc_compiles_for(arch->number)) continue;
            if (std::find(entries.begin(), entries.end(), entry) == entries.end()) entries.push_back(entry);
        }
        if (entries.empty()) {
            add(
                comment(fmt::format("{}: PyTorch {} stops every extension build without a GPU unless "
                                    "TORCH_CUDA_ARCH_LIST names the GPUs the build is for (\"9.0\" for an H100/H200)",
                                    torch.prefix, torch.version)));
            return;
        }
        add(
            comment(fmt::format("{}: PyTorch {} stops every extension build without a GPU unless "
                                "TORCH_CUDA_ARCH_LIST is set; here, the architectures it carries code for (narrow it "
                                "to the GPUs the build is for)",
                                torch.prefix, torch.version)));
        add(set("TORCH_CUDA_ARCH_LIST", fmt::format("{}", fmt::join(entries, ";"))));
    }

    // One GPU for dev and ci: errors and timings then concern one device, and the others stay free.
    // CUDA_VISIBLE_DEVICES is CUDA's (CUDA C++ Programming Guide, "CUDA Environment Variables").
    void one_gpu() {
        const VisibleDevicesSpec spec = parse_cuda_visible_devices(environment_.get("CUDA_VISIBLE_DEVICES"));
        if (spec.set && spec.entries.size() == 1 && spec.invalid_entry.empty()) {
            add(comment(fmt::format("one GPU: CUDA_VISIBLE_DEVICES='{}' shows one already", sys::printable(spec.raw))));
            return;
        }
        if (spec.entries.size() > 1) {
            // The first of those chosen, not device 0 of the machine, which another job may use.
            add(comment(fmt::format("one GPU: the first of CUDA_VISIBLE_DEVICES='{}'", sys::printable(spec.raw))));
            add(set("CUDA_VISIBLE_DEVICES", spec.entries.front().text));
            return;
        }
        const std::size_t visible = inputs_.devices.size();
        add(comment(
            spec.set ? fmt::format("one GPU: CUDA_VISIBLE_DEVICES='{}' shows none; device 0", sys::printable(spec.raw))
            : visible > 1  ? fmt::format("one GPU: device 0 of the {} visible", visible)
            : visible == 1 ? std::string("one GPU: device 0, the only one visible")
                           : std::string("one GPU: device 0 (none is visible now)")));
        add(set("CUDA_VISIBLE_DEVICES", "0"));
    }

    void unset_those_set(const std::vector<std::string>& names, std::string why) {
        std::vector<std::string> set_ones;
        for (const std::string& name : names)
            if (environment_.is_set(name)) set_ones.push_back(name);
        if (set_ones.empty()) return;
        add(comment(std::move(why)));
        add(unset(std::move(set_ones)));
    }

    void profile_lines() {
        switch (profile_) {
            case Profile::none: return;
            case Profile::dev:
                // Synchronous launches: an error is reported by the launch that caused it, not by a
                // later call (CUDA C++ Programming Guide, "CUDA Environment Variables").
                add(
                    comment("profile dev: every kernel launch waits for its kernel, so an error names the launch that "
                            "caused it"));
                add(set("CUDA_LAUNCH_BLOCKING", "1"));
                one_gpu();
                return;
            case Profile::prod:
                add(comment("profile prod: asynchronous launches and no debugging variables"));
                // The CUDA guide's debugging variables (synchronous launches, core dumps on
                // exceptions, no JIT cache), the libraries' debug logs (cuDNN's and cuBLAS's
                // documentation, "API logging"), the legacy profiler, and PyTorch's debugging
                // switches (its CUDA semantics notes: caching allocator off, device-side assertions).
                unset_those_set({"CUDA_LAUNCH_BLOCKING",
                                 "CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
                                 "CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION",
                                 "CUDA_ENABLE_USER_TRIGGERED_COREDUMP",
                                 "CUDA_ENABLE_LIGHTWEIGHT_COREDUMP",
                                 "CUDA_COREDUMP_FILE",
                                 "CUDA_DEVICE_WAITS_ON_EXCEPTION",
                                 "CUDA_CACHE_DISABLE",
                                 "CUDA_PROFILE",
                                 "CUDNN_LOGLEVEL_DBG",
                                 "CUDNN_LOGINFO_DBG",
                                 "CUDNN_LOGERR_DBG",
                                 "CUDNN_LOGWARN_DBG",
                                 "CUDNN_LOGDEST_DBG",
                                 "CUBLAS_LOGINFO_DBG",
                                 "CUBLAS_LOGDEST_DBG",
                                 "CUBLASLT_LOG_LEVEL",
                                 "CUBLASLT_LOG_MASK",
                                 "PYTORCH_NO_CUDA_MEMORY_CACHING",
                                 "TORCH_USE_CUDA_DSA"},
                                "debugging variables set here, each of which slows production work or writes dumps and "
                                "logs");
                return;
            case Profile::ci:
                add(comment("profile ci: reproducible results on one GPU"));
                // cuBLAS picks one reduction order per run only with a fixed workspace (cuBLAS
                // documentation, "Results reproducibility"); PyTorch's
                // torch.use_deterministic_algorithms(True) raises for cuBLAS calls without it.
                if (const auto config = environment_.get("CUBLAS_WORKSPACE_CONFIG");
                    config && (*config == ":4096:8" || *config == ":16:8"))
                    add(comment(
                        fmt::format("CUBLAS_WORKSPACE_CONFIG='{}' already makes cuBLAS deterministic", *config)));
                else add(set("CUBLAS_WORKSPACE_CONFIG", ":4096:8"));
                // Python's hash randomisation changes set and dict-of-str iteration order from run
                // to run (Python documentation, PYTHONHASHSEED).
                add(set("PYTHONHASHSEED", "0"));
                unset_those_set({"CUDA_LAUNCH_BLOCKING"}, "CI measures what production runs: asynchronous launches");
                one_gpu();
                return;
        }
    }
};

}  // namespace

const ToolkitCompilerLimits* environment_toolkit(const EnvInputs& inputs) {
    const std::optional<CudaVersion> wanted = torch_cuda(inputs);
    const ToolkitCompilerLimits* best = nullptr;
    std::tuple<bool, bool, bool, CudaVersion> best_rank;
    for (const ToolkitCompilerLimits& toolkit : inputs.setup.toolkits) {
        const std::optional<CudaVersion> version = cuda_release_of(toolkit.version);
        const bool complete = toolkit.missing_files.empty();
        // A directory CUDA_HOME names that holds no toolkit is none.
        if (!complete && !version) continue;
        const std::tuple rank{complete, !wanted || (version && version->major == wanted->major),
                              !inputs.driver_cuda || (version && *version <= *inputs.driver_cuda),
                              version.value_or(CudaVersion{})};
        // Ties keep the first: the toolkit builds take now.
        if (best == nullptr || rank > best_rank) best = &toolkit, best_rank = rank;
    }
    return best;
}

std::string environment_toolkit_root(const EnvInputs& inputs, const ToolkitCompilerLimits& toolkit,
                                     const RealPaths& real_paths) {
    const BuildSetup& setup = inputs.setup;
    if (setup.choice_exists && same_directory(real_paths, setup.choice.root, toolkit.root)) return setup.choice.root;
    if (setup.choice_without_variables_exists &&
        same_directory(real_paths, setup.choice_without_variables.root, toolkit.root))
        return setup.choice_without_variables.root;
    return toolkit.root;
}

std::vector<std::string> environment_paths_compared(const EnvInputs& inputs, const Environment& environment) {
    std::vector<std::string> paths;
    const auto add = [&paths](const std::string& path) {
        if (!path.empty() && std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    };
    std::vector<std::string> roots;
    for (const ToolkitCompilerLimits& toolkit : inputs.setup.toolkits) roots.push_back(toolkit.root);
    roots.push_back(inputs.setup.choice.root);
    roots.push_back(inputs.setup.choice_without_variables.root);
    for (const std::string& root : roots)
        if (!root.empty()) add(root), add(root + "/bin");
    if (const auto cuda_path = environment.get("CUDA_PATH")) add(*cuda_path);
    if (const std::vector<std::string> entries = sys::split(environment.get("PATH").value_or(""), ':');
        !entries.empty())
        add(entries.front());
    return paths;
}

EnvScript plan_environment(const EnvInputs& inputs, const EnvFileFacts& files, const Environment& environment,
                           Profile profile) {
    return Planner(inputs, files, environment, profile).run();
}

}  // namespace cudacheck
