// What a CUDA build would do here, from the build facts (probes/build/): the toolkit a build takes
// and its files, the host compiler each client's nvcc runs against that toolkit's own limits,
// ninja, the CUDA versions and architectures PyTorch's extension builds take, and what a CMake
// project with CUDA enabled takes. The rules are those of the tools themselves:
// torch.utils.cpp_extension's _find_cuda_home (probes/build/build_toolkit), the host compiler
// nvcc's (-ccbin, NVCC_CCBIN, gcc on PATH; PyTorch adds -ccbin $CC), the limits each toolkit's own
// include/crt/host_config.h, ninja and TORCH_CUDA_ARCH_LIST as cpp_extension reads them, and the
// CUDA versions as its _check_cuda_version compares them (a major mismatch raises, a minor one
// warns); and, for a CMake project with CUDA enabled, CMake's own rules (probes/build/cmake_cuda:
// CUDACXX, CUDAHOSTCXX, CUDAARCHS, and what CMake does when they are unset). Facts in, prediction
// out: nothing here reads a file or runs a program.
#include "build/build_prediction.hpp"

#include "cuda/arch_coverage.hpp"
#include "cuda/cuda_facts.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

namespace cudacheck {

namespace {

std::string limits_text(const ToolkitCompilerLimits& toolkit) {
    if (!toolkit.unreadable.empty()) return toolkit.unreadable;
    if (toolkit.host_config.empty()) return "no include/crt/host_config.h";
    return fmt::format("host_config.h accepts gcc up to {}, clang up to {}",
                       toolkit.gcc_newest ? std::to_string(*toolkit.gcc_newest) : "?",
                       toolkit.clang_newest ? std::to_string(*toolkit.clang_newest) : "?");
}

// The installed toolkit a fix should point builds at: complete, of `major` when given, newest.
const ToolkitCompilerLimits* best_toolkit(const BuildSetup& setup, std::optional<int> major,
                                          const std::string& except = {}) {
    const ToolkitCompilerLimits* best = nullptr;
    std::optional<CudaVersion> best_version;
    for (const ToolkitCompilerLimits& toolkit : setup.toolkits) {
        if (!toolkit.missing_files.empty() || toolkit.root == except) continue;
        const std::optional<CudaVersion> version = cuda_release_of(toolkit.version);
        if (major && (!version || version->major != *major)) continue;
        if (best == nullptr || (version && (!best_version || *version > *best_version)))
            best = &toolkit, best_version = version;
    }
    return best;
}

std::string export_toolkit(const std::string& root) {
    return fmt::format("`export CUDA_HOME={} PATH={}/bin:$PATH`", root, root);
}

// "9.0" for a device, as TORCH_CUDA_ARCH_LIST writes it.
std::string arch_entry(int major, int minor) { return fmt::format("{}.{}", major, minor); }

// Whether -gencode flags' code= targets give a kernel image for the device.
bool flags_cover(const std::vector<std::string>& flags, const DeviceInfo& device) {
    EmbeddedTargets targets;
    for (const std::string& flag : flags) {
        const std::size_t code =
            flag.rfind(",code=") == std::string::npos ? std::string::npos : flag.rfind(",code=") + 1;
        if (code == std::string::npos) continue;
        const std::string target = flag.substr(code + 5);
        const std::optional<GpuArch> arch = parse_gpu_arch(target);
        if (!arch) continue;
        (target.starts_with("sm_") ? targets.sass : targets.ptx).push_back(*arch);
    }
    return kernel_image_for(targets, device.cc_major, device.cc_minor).kind != ImageKind::none;
}

// The compute_XY of each -gencode flag.
std::vector<int> virtual_architectures(const std::vector<std::string>& flags) {
    std::set<int> numbers;
    for (const std::string& flag : flags) {
        const std::size_t arch = flag.find("arch=compute_");
        if (arch == std::string::npos) continue;
        if (const std::optional<GpuArch> parsed =
                parse_gpu_arch(flag.substr(arch + 5, flag.find(',', arch) - arch - 5)))
            numbers.insert(parsed->number);
    }
    return {numbers.begin(), numbers.end()};
}

// Whether `nvcc --list-gpu-arch` (its `architectures`) names compute_<number>.
bool nvcc_knows(const std::vector<std::string>& architectures, int number) {
    if (architectures.empty()) return true;  // not known: nothing to say
    return std::find(architectures.begin(), architectures.end(), fmt::format("compute_{}", number)) !=
           architectures.end();
}

// What nvcc's -arch=all (all_major: -arch=all-major) embeds, from its `--list-gpu-arch`: SASS for
// every architecture (all-major: the oldest and each X.0), PTX for the newest of those (measured
// with nvcc 13.0's --dryrun: all-major is sm_75, 80, 90, 100, 110, 120 and compute_120).
EmbeddedTargets nvcc_all_targets(const std::vector<std::string>& architectures, bool major_only) {
    std::set<int> numbers;
    for (const std::string& name : architectures)
        if (const std::optional<GpuArch> arch = parse_gpu_arch(name); arch && arch->variant == ArchVariant::generic)
            numbers.insert(arch->number);
    EmbeddedTargets targets;
    for (const int number : numbers)
        if (!major_only || number == *numbers.begin() || number % 10 == 0) targets.sass.push_back(GpuArch{number});
    if (!targets.sass.empty()) targets.ptx.push_back(targets.sass.back());
    return targets;
}

std::string needs_toolkit_text(int number) {
    if (const std::optional<CudaVersion> first = first_cuda_compiling_for(number / 10, number % 10))
        return fmt::format("CUDA {} or newer compiles for it", first->to_string());
    return "a newer toolkit may compile for it";
}

class Predictor {
public:
    explicit Predictor(const BuildJudgeInput& input) : input_(input), setup_(input.setup) {}

    BuildPrediction run() {
        const bool usable = toolkit();
        toolkit_problems_ = prediction_.problems.size();
        if (prediction_.skip) return std::move(prediction_);
        if (usable) {
            // Not toolkit problems (which a CMake project of the same toolkit shares): each says whom it stops.
            temporary_directory();
            nvcc_mode_flags();
            host_compiler();
            gpu_architectures();
            for (const TorchBuildTarget& torch : input_.torch) torch_build(torch);
        }
        cmake_project();
        summarize(usable);
        return std::move(prediction_);
    }

private:
    const BuildJudgeInput& input_;
    const BuildSetup& setup_;
    BuildPrediction prediction_;
    const ToolkitCompilerLimits* chosen_ = nullptr;
    bool nvcc_compiler_ok_ = false;
    bool nvcc_runs_ = false;
    // Which problems came from the build toolkit, nvcc's host compiler and the GPUs' architectures:
    // a CMake project that uses the same marks them instead of repeating them.
    std::size_t toolkit_problems_ = 0;
    std::pair<std::size_t, std::size_t> nvcc_pick_problems_ = {0, 0};
    std::pair<std::size_t, std::size_t> gpu_arch_problems_ = {0, 0};
    bool cmake_judged_ = false;

    // Who runs a host compiler: a plain nvcc command, PyTorch's extension builds (-ccbin $CC), or a
    // CMake project (-ccbin=$CUDAHOSTCXX, else nvcc's own choice).
    enum class Client { nvcc, torch, cmake };

    void evidence(std::string key, std::string value) {
        prediction_.evidence.push_back({std::move(key), std::move(value)});
    }
    void problem(BuildProblem problem) { prediction_.problems.push_back(std::move(problem)); }

    std::optional<int> torch_major() const {
        for (const TorchBuildTarget& torch : input_.torch)
            if (const std::optional<CudaVersion> version = cuda_release_of(torch.cuda)) return version->major;
        return std::nullopt;
    }

    // The toolkit and its files; false when there is nothing to judge further.
    bool toolkit() {
        const BuildToolkitChoice& choice = setup_.choice;
        for (const ToolkitCompilerLimits& toolkit : setup_.toolkits)
            evidence("toolkit_limits", fmt::format("{} {}: {}", toolkit.root,
                                                   toolkit.version.empty() ? "(version unknown)" : toolkit.version,
                                                   limits_text(toolkit)));
        if (choice.root.empty()) {
            const ToolkitCompilerLimits* installed = best_toolkit(setup_, torch_major());
            if (installed == nullptr) installed = best_toolkit(setup_, std::nullopt);
            if (installed == nullptr && !setup_.toolkits.empty()) installed = &setup_.toolkits.front();
            if (installed == nullptr) {
                prediction_.skip = "no CUDA toolkit is installed (toolkit.nvcc reports it): nothing can be built";
                return false;
            }
            problem({Code::build_toolkit_missing,
                     fmt::format("builds find no CUDA toolkit (CUDA_HOME and CUDA_PATH unset, no nvcc on PATH, no "
                                 "/usr/local/cuda) although {} "
                                 "is installed: PyTorch extension builds stop with \"CUDA_HOME environment variable is "
                                 "not set\"",
                                 installed->root),
                     fmt::format("Point builds at it: {}.", export_toolkit(installed->root)), std::nullopt, true, true,
                     true});
            return false;
        }
        evidence("build_toolkit", fmt::format("{} (by {})", choice.root, choice.rule));
        if (!setup_.choice_exists) {
            std::string fix;
            const BuildToolkitChoice& without = setup_.choice_without_variables;
            if ((choice.rule == "CUDA_HOME" || choice.rule == "CUDA_PATH") && setup_.choice_without_variables_exists)
                fix = fmt::format(
                    "`unset CUDA_HOME CUDA_PATH` (builds then take {} by {}), or point it at an installed toolkit",
                    without.root, without.rule);
            else if (const ToolkitCompilerLimits* installed = best_toolkit(setup_, torch_major()); installed != nullptr)
                fix = fmt::format("Point it at an installed toolkit: {}", export_toolkit(installed->root));
            else fix = "Point it at an installed toolkit, or unset it";
            problem(
                {Code::build_toolkit_missing,
                 fmt::format("{}={} does not exist: builds run {}/bin/nvcc and take headers and libraries from there",
                             choice.rule, choice.root, choice.root),
                 fix + ".", std::nullopt, true, true, true});
            return false;
        }
        chosen_ = &setup_.toolkits.front();
        const DevelopmentFiles& files = setup_.files;
        if (!files.missing.empty()) {
            // nvcc and the headers stop every build; the shared runtime only PyTorch's link, the static one nvcc's own.
            const bool core = files.nvcc.empty() || files.runtime_header.empty() || files.host_config.empty();
            const bool shared = files.cudart_shared.empty();
            const bool static_runtime = files.cudart_static.empty();
            const std::optional<CudaVersion> version = cuda_release_of(chosen_->version);
            const std::string packages =
                version ? fmt::format("`sudo apt install cuda-nvcc-{0}-{1} cuda-cudart-dev-{0}-{1}`", version->major,
                                      version->minor)
                        : "the toolkit's nvcc and cudart development packages";
            std::string fix = fmt::format("Install the development files: {}", packages);
            if (const ToolkitCompilerLimits* complete = best_toolkit(setup_, torch_major(), chosen_->root);
                complete != nullptr)
                fix += fmt::format(", or build with the complete toolkit {}: {}", complete->root,
                                   export_toolkit(complete->root));
            problem(
                {Code::build_toolkit_incomplete,
                 fmt::format("the toolkit builds take ({}) lacks {}{}", choice.root, fmt::join(files.missing, ", "),
                             shared && !core ? " (`-lcudart`, which PyTorch extensions link, needs libcudart.so)" : ""),
                 fix + ".", std::nullopt, core || static_runtime, core || shared, core || shared});
            if (files.nvcc.empty()) return false;
        }
        if (!setup_.nvcc_failure.empty()) {
            problem({Code::build_toolkit_incomplete, fmt::format("{} --version {}", files.nvcc, setup_.nvcc_failure),
                     "Reinstall the toolkit's nvcc package, or point CUDA_HOME at a working toolkit.", std::nullopt,
                     true, true, true});
            return false;
        }
        nvcc_runs_ = true;
        if (setup_.nvcc_version) evidence("build_nvcc", fmt::format("{} {}", files.nvcc, setup_.nvcc_version->full));
        if (!setup_.nvcc_architectures.empty())
            evidence("nvcc_architectures", fmt::format("{}", fmt::join(setup_.nvcc_architectures, " ")));
        return true;
    }

    // Where nvcc writes its intermediate files: TMPDIR, else /tmp. Every client runs
    // nvcc, so a directory it cannot write stops them all.
    void temporary_directory() {
        const TemporaryDirectory& temporary = setup_.temporary;
        const std::string where =
            temporary.source == "TMPDIR" ? fmt::format("TMPDIR={}", sys::printable(temporary.path)) : temporary.source;
        if (temporary.problem.empty()) {
            evidence("temporary_directory", fmt::format("{}: writable", where));
            return;
        }
        BuildProblem unusable{Code::build_tmpdir_unusable,
                              fmt::format("nvcc writes its intermediate files to {}, but {}: every nvcc build stops "
                                          "there (\"nvcc fatal : Could not open "
                                          "output file '{}/tmpxft_...'\")",
                                          where, temporary.problem, sys::printable(temporary.path)),
                              temporary.source == "TMPDIR"
                                  ? std::string("Point TMPDIR at a writable directory with room (`mkdir -p $HOME/tmp "
                                                "&& export TMPDIR=$HOME/tmp`), or "
                                                "`unset TMPDIR` (nvcc then uses /tmp).")
                                  : std::string("Make /tmp a writable directory with room, or point TMPDIR at one: "
                                                "`mkdir -p $HOME/tmp && export "
                                                "TMPDIR=$HOME/tmp`."),
                              std::nullopt,
                              true,
                              true,
                              true};
        unusable.stops_cmake = true;
        problem(std::move(unusable));
    }

    // NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS options that make nvcc stop before it builds, exit 0
    // all the same (the nvcc documentation, "NVCC Environment Variables": nvcc injects
    // them into every command line).
    void nvcc_mode_flags() {
        for (const auto& [variable, value] : setup_.nvcc_flags.variables) {
            evidence("nvcc_flags", fmt::format("{}={}", variable, sys::printable(value)));
            std::vector<const NvccModeFlag*> flags;
            for (const NvccModeFlag& flag : setup_.nvcc_flags.mode_flags)
                if (flag.variable == variable) flags.push_back(&flag);
            if (flags.empty()) continue;
            const bool every = std::any_of(flags.begin(), flags.end(),
                                           [](const NvccModeFlag* flag) { return flag->stops_every_build; });
            std::vector<std::string> described;
            for (const NvccModeFlag* flag : flags) described.push_back(fmt::format("{} ({})", flag->word, flag->what));
            BuildProblem stopped{Code::nvcc_built_nothing,
                                 fmt::format("{}=\"{}\" holds {}, which nvcc adds to every command line: {} exits 0 "
                                             "without the program it was "
                                             "asked for, so a build script sees success and has nothing",
                                             variable, sys::printable(value), fmt::join(described, ", "),
                                             every ? "every nvcc build (PyTorch's and CMake's too)"
                                                   : "a plain `nvcc -o program file.cu` build"),
                                 fmt::format("Remove {} from {} (`unset {}` when nothing else in it is needed).",
                                             flags.front()->word, variable, variable),
                                 std::nullopt,
                                 true,
                                 every,
                                 every};
            stopped.stops_cmake = every;
            problem(std::move(stopped));
        }
    }

    // How a pick was named, as a person would set it: "NVCC_CCBIN=/bin/true", "-ccbin g++-99 in
    // NVCC_APPEND_FLAGS", "gcc on PATH".
    static std::string pick_setting(const HostCompilerPick& pick) {
        const std::string program = sys::printable(pick.program);
        if (pick.rule == "NVCC_CCBIN" || pick.rule == "CUDAHOSTCXX") return fmt::format("{}={}", pick.rule, program);
        if (pick.rule.starts_with("CC "))
            return fmt::format("CC={} (PyTorch extension builds pass -ccbin $CC)", program);
        if (pick.rule.starts_with("-ccbin in ")) return fmt::format("-ccbin {} from {}", program, pick.rule.substr(10));
        return fmt::format("{} on PATH", program);
    }

    // The variable a fix changes for a client's host compiler.
    std::string pick_variable(const HostCompilerPick& pick, Client client) const {
        if (client == Client::torch) return "CC";
        // nvcc takes the last -ccbin: one in NVCC_APPEND_FLAGS comes after CMake's -ccbin=$CUDAHOSTCXX.
        if (client == Client::cmake && pick.rule != "-ccbin in NVCC_APPEND_FLAGS") return "CUDAHOSTCXX";
        return pick.rule.starts_with("-ccbin") ? setup_.nvcc_flags.ccbin_variable : "NVCC_CCBIN";
    }

    std::string alternative_fix(const ToolkitCompilerLimits& toolkit, HostCompilerKind kind,
                                const std::string& variable) const {
        const HostCompiler* alternative = accepted_alternative(setup_, toolkit);
        if (alternative == nullptr)
            return fmt::format("No installed compiler is accepted: {}.", install_hint(toolkit, kind));
        const std::string cxx = cxx_name_of(alternative->name);
        const std::string version = compiler_text(alternative->version);
        if (variable == "CC")
            return fmt::format("Use one it accepts: `export CC={} CXX={}` ({}).", c_name_of(alternative->name), cxx,
                               version);
        // CMake reads CUDAHOSTCXX once, at a build directory's first configure (CMake's documentation, "CUDAHOSTCXX").
        if (variable == "CUDAHOSTCXX")
            return fmt::format(
                "Use one it accepts: `export CUDAHOSTCXX={}` ({}) and configure a new build directory, or pass "
                "`-DCMAKE_CUDA_HOST_COMPILER={}`.",
                cxx, version, cxx);
        if (variable != "NVCC_CCBIN")
            return fmt::format("Use one it accepts: change the -ccbin in {} to {} ({}).", variable, cxx, version);
        return fmt::format(
            "Use one it accepts: `export NVCC_CCBIN={}` ({}), or pass `-ccbin {}` (CMake: "
            "`-DCMAKE_CUDA_HOST_COMPILER={}`).",
            cxx, version, cxx, cxx);
    }

    // A problem that stops the builds of one client: a plain nvcc build also stops PyTorch's unless
    // PyTorch passes its own -ccbin $CC; a CMake project's stops only CMake.
    BuildProblem stopping(Client client, Code code, std::string message, std::string remediation,
                          const std::optional<std::string>& subject) const {
        const bool torch = client == Client::torch || (client == Client::nvcc && !setup_.torch_host_compiler);
        BuildProblem built{code, std::move(message), std::move(remediation), subject, client == Client::nvcc, torch,
                           torch};
        built.stops_cmake = client == Client::cmake;
        return built;
    }

    // Judges the host compiler a client's nvcc runs, by `toolkit`'s host_config.h; false when it stops builds.
    bool judge_pick(const HostCompilerPick& pick, const CompilerAcceptance& acceptance,
                    const ToolkitCompilerLimits& toolkit, Client client, const std::optional<std::string>& subject) {
        const bool from_variable = pick.rule.find("default") == std::string::npos;
        const std::string variable = pick_variable(pick, client);
        const char* key = client == Client::torch   ? "torch_host_compiler"
                          : client == Client::cmake ? "cmake_host_compiler"
                                                    : "host_compiler";
        const char* runner = client == Client::cmake ? "CMake's nvcc" : "nvcc";
        if (pick.path.empty()) {
            // CMakeDetermineCUDACompiler.cmake checks that CUDAHOSTCXX exists before it runs nvcc.
            const std::string stop =
                pick.rule == "CUDAHOSTCXX"
                    ? ": CMake stops with \"Could not find compiler set in environment variable CUDAHOSTCXX\""
                    : "";
            problem(stopping(client, Code::host_compiler_missing,
                             fmt::format("{} would run {} ({}), which {}{}", runner, pick.program, pick.rule,
                                         pick.failure, stop),
                             from_variable
                                 ? fmt::format("Point {} at an installed compiler, or unset it. {}", variable,
                                               alternative_fix(toolkit, HostCompilerKind::gcc, variable))
                                 : "Install a host compiler: `sudo apt install g++` (`sudo dnf install gcc-c++`).",
                             subject));
            return false;
        }
        if (!pick.unusable.empty()) {
            // Not a compiler at all: nvcc stops when it asks it for its properties, or waits on it.
            const std::string fix =
                pick.rule.find("default") != std::string::npos
                    ? fmt::format(
                          "Remove {} from PATH or put the directory of a real gcc first on PATH; or name one: {}",
                          pick.path, alternative_fix(toolkit, HostCompilerKind::gcc, variable))
                    : fmt::format("Point {} at a real C++ compiler, or unset it. {}", variable,
                                  alternative_fix(toolkit, HostCompilerKind::gcc, variable));
            problem(stopping(client, Code::host_compiler_unusable,
                             fmt::format("{} would run {} as its host compiler{}, but {}", runner, pick_setting(pick),
                                         pick.path == pick.program ? std::string()
                                                                   : fmt::format(" ({})", sys::printable(pick.path)),
                                         pick.unusable),
                             fix, subject));
            return false;
        }
        if (!pick.version) {
            evidence(key, fmt::format("{} ({}): {}; not judged", pick.path, pick.rule,
                                      pick.failure.empty() ? pick.version_line : pick.failure));
            return true;
        }
        if (!acceptance.unreadable.empty()) {
            evidence(key, fmt::format("{} ({}, {}): host_config.h not judged ({})", pick.path,
                                      compiler_text(pick.version), pick.rule, acceptance.unreadable));
            return true;
        }
        evidence(key, fmt::format("{} ({}, {}): {} by {}", pick.path, compiler_text(pick.version), pick.rule,
                                  acceptance.accepted ? "accepted" : "rejected", toolkit.host_config));
        if (acceptance.accepted) return true;
        const std::optional<CudaVersion> release = cuda_release_of(toolkit.version);
        problem(stopping(client, Code::host_compiler_unsupported,
                         fmt::format("nvcc {} rejects {} ({}, {}): host_config.h stops it with \"#error {}\"{}",
                                     release ? release->to_string() : "", pick.path, compiler_text(pick.version),
                                     pick.rule, acceptance.error,
                                     client == Client::cmake
                                         ? ", and CMake's configure with it (the CUDA compiler identification fails)"
                                         : ""),
                         alternative_fix(toolkit, pick.version->kind, variable), subject));
        return false;
    }

    void host_compiler() {
        const std::size_t first = prediction_.problems.size();
        nvcc_compiler_ok_ =
            judge_pick(setup_.nvcc_host_compiler, chosen_->nvcc_pick, *chosen_, Client::nvcc, std::nullopt);
        nvcc_pick_problems_ = {first, prediction_.problems.size()};
        for (std::size_t i = 0; i < setup_.compilers.size(); ++i) {
            const HostCompiler& compiler = setup_.compilers[i];
            std::string verdict = compiler.failure;
            if (verdict.empty() && i < chosen_->compilers.size()) {
                const CompilerAcceptance& acceptance = chosen_->compilers[i];
                verdict = !acceptance.unreadable.empty() ? "not judged (" + acceptance.unreadable + ")"
                          : acceptance.accepted          ? "accepted"
                                                         : "rejected: #error " + acceptance.error;
            }
            evidence("compiler", fmt::format("{} ({}) {}: {}, {}", compiler.name, compiler.source,
                                             compiler.path.empty() ? "-" : compiler.path,
                                             compiler_text(compiler.version), verdict));
        }
    }

    // Each visible GPU against what nvcc compiles for (`-arch=native`, or -arch=sm_XY for it).
    void gpu_architectures() {
        gpu_arch_problems_.first = prediction_.problems.size();
        std::set<int> reported;
        for (const DeviceInfo& device : input_.devices) {
            const int number = device.cc_major * 10 + device.cc_minor;
            if (nvcc_knows(setup_.nvcc_architectures, number) || !reported.insert(number).second) continue;
            problem({Code::nvcc_arch_unsupported,
                     fmt::format("nvcc {} does not compile for GPU {} ({}, compute capability {}.{}): a build for it "
                                 "stops with \"nvcc fatal : "
                                 "Unsupported gpu architecture 'compute_{}'\"",
                                 setup_.nvcc_version ? setup_.nvcc_version->full : "", device.ordinal, device.name,
                                 device.cc_major, device.cc_minor, number),
                     fmt::format("Build with a toolkit that supports it: {}.", needs_toolkit_text(number)),
                     std::nullopt, true, true, true});
        }
        gpu_arch_problems_.second = prediction_.problems.size();
    }

    // The TORCH_CUDA_ARCH_LIST value a fix gives: the GPUs here, as torch names them.
    std::string arch_list_for_gpus(const TorchBuildTarget& torch) const {
        std::set<std::pair<int, int>> capabilities;
        for (const DeviceInfo& device : input_.devices) capabilities.insert({device.cc_major, device.cc_minor});
        std::vector<std::string> entries;
        for (const auto& [major, minor] : capabilities) {
            const std::string entry = arch_entry(major, minor);
            if (!torch.arch_tables ||
                std::find(torch.arch_tables->supported.begin(), torch.arch_tables->supported.end(), entry) !=
                    torch.arch_tables->supported.end())
                entries.push_back(entry);
        }
        return fmt::format("{}", fmt::join(entries, ";"));
    }

    // cpp_extension's default without TORCH_CUDA_ARCH_LIST: each visible GPU's capability, clamped
    // to the newest SASS torch itself carries, the last one +PTX.
    std::vector<std::string> default_arch_flags(const TorchBuildTarget& torch) const {
        int newest = 0;
        for (const std::string& target : torch.gpu_targets)
            if (const std::optional<GpuArch> arch = parse_gpu_arch(target); arch && target.starts_with("sm_"))
                newest = std::max(newest, arch->number);
        std::set<std::pair<int, int>> capabilities;
        for (const DeviceInfo& device : input_.devices) {
            std::pair<int, int> capability{device.cc_major, device.cc_minor};
            if (newest > 0) capability = std::min(capability, std::pair{newest / 10, newest % 10});
            capabilities.insert(capability);
        }
        std::vector<std::string> flags;
        std::size_t index = 0;
        for (const auto& [major, minor] : capabilities) {
            const int number = major * 10 + minor;
            flags.push_back(fmt::format("-gencode=arch=compute_{},code=sm_{}", number, number));
            if (++index == capabilities.size())
                flags.push_back(fmt::format("-gencode=arch=compute_{},code=compute_{}", number, number));
        }
        std::sort(flags.begin(), flags.end());
        return flags;
    }

    void torch_build(const TorchBuildTarget& torch) {
        const std::optional<std::string> subject = torch.subject;
        torch_library_headers(torch, subject);
        // The compiler PyTorch gives nvcc, and the one it compiles the extension's C++ with.
        if (setup_.torch_host_compiler)
            judge_pick(*setup_.torch_host_compiler, chosen_->torch_pick, *chosen_, Client::torch, subject);
        if (setup_.torch_cxx.path.empty())
            problem({Code::host_compiler_missing,
                     fmt::format("PyTorch compiles an extension's C++ files with {} ({}), which is not found",
                                 setup_.torch_cxx.program, setup_.torch_cxx.rule),
                     "Install a C++ compiler (`sudo apt install g++`), or point CXX at one.", subject, false, true,
                     true});
        if (setup_.ninja.empty())
            problem(
                {Code::ninja_missing,
                 "no ninja on PATH: PyTorch's just-in-time extension builds stop with \"Ninja is required to load C++ "
                 "extensions (pip install ninja "
                 "to get it)\"",
                 torch.ninja_in_environment
                     ? fmt::format("The environment has it: activate it, or `export PATH={}/bin:$PATH`.", torch.prefix)
                     : fmt::format("`{} -m pip install ninja`{}.",
                                   torch.interpreter.empty() ? "python3" : torch.interpreter,
                                   torch.interpreter.empty()
                                       ? ""
                                       : fmt::format(", then activate the environment or `export PATH={}/bin:$PATH`",
                                                     torch.prefix)),
                 subject, false, true, false});
        else evidence("ninja", fmt::format("{} {}", setup_.ninja, setup_.ninja_version));
        // CUDA versions, as _check_cuda_version compares `release X.Y` with torch.version.cuda.
        const std::optional<CudaVersion> torch_cuda = cuda_release_of(torch.cuda);
        const std::optional<CudaVersion> nvcc =
            setup_.nvcc_version ? cuda_release_of(setup_.nvcc_version->release) : std::nullopt;
        if (torch_cuda && nvcc && torch_cuda->major != nvcc->major) {
            const ToolkitCompilerLimits* matching = best_toolkit(setup_, torch_cuda->major);
            problem({Code::build_cuda_major_mismatch,
                     fmt::format("nvcc {} ({}) and PyTorch {} (CUDA {}) differ in CUDA major version: setup.py and pip "
                                 "builds of extensions stop with "
                                 "\"The detected CUDA version ({}) mismatches the version that was used to compile "
                                 "PyTorch ({})\"",
                                 nvcc->to_string(), setup_.files.nvcc, torch.version, torch.cuda, nvcc->to_string(),
                                 torch.cuda),
                     matching != nullptr
                         ? fmt::format("Build with the CUDA {} toolkit installed at {}: {}.", torch_cuda->major,
                                       matching->root, export_toolkit(matching->root))
                         : fmt::format("Install a CUDA {0}.x toolkit (e.g. `sudo apt install cuda-toolkit-{0}-{1}`) "
                                       "and point CUDA_HOME at it, or "
                                       "install the PyTorch build for CUDA {2}.",
                                       torch_cuda->major, torch_cuda->minor, nvcc->to_string()),
                     subject, false, false, true});
        } else if (torch_cuda && nvcc && torch_cuda->minor != nvcc->minor) {
            const ToolkitCompilerLimits* exact = nullptr;
            for (const ToolkitCompilerLimits& toolkit : setup_.toolkits)
                if (cuda_release_of(toolkit.version) == torch_cuda && toolkit.missing_files.empty()) exact = &toolkit;
            problem({Code::build_cuda_minor_mismatch,
                     fmt::format("nvcc {} and PyTorch {} (CUDA {}) differ in CUDA minor version: extension builds warn "
                                 "\"The detected CUDA version "
                                 "({}) has a minor version mismatch with the version that was used to compile PyTorch "
                                 "({})\" and go on",
                                 nvcc->to_string(), torch.version, torch.cuda, nvcc->to_string(), torch.cuda),
                     exact != nullptr
                         ? fmt::format("Usually nothing; to match exactly: {}.", export_toolkit(exact->root))
                         : std::string("Usually nothing to do."),
                     subject});
        } else if (torch_cuda && nvcc) {
            evidence("torch_cuda",
                     fmt::format("{}: CUDA {}, nvcc {}: same release", torch.subject, torch.cuda, nvcc->to_string()));
        }
        torch_architectures(torch, subject);
    }

    // The cuBLAS, cuSPARSE and cuSOLVER headers PyTorch's ATen/cuda/CUDAContext.h includes
    // (probes/build/build_toolkit.hpp lists them): without them an extension that includes it stops
    // at the first one, whatever nvcc and cudart are there. Only PyTorch's builds need them.
    void torch_library_headers(const TorchBuildTarget& torch, const std::optional<std::string>& subject) {
        if (setup_.missing_torch_headers.empty()) return;
        std::vector<std::string> names;
        for (const std::string& path : setup_.missing_torch_headers)
            names.push_back(path.substr(path.find_last_of('/') + 1));
        const std::optional<CudaVersion> version = cuda_release_of(chosen_->version);
        const std::string apt = version
                                    ? fmt::format(
                                          "`sudo apt install libcublas-dev-{0}-{1} libcusparse-dev-{0}-{1} "
                                          "libcusolver-dev-{0}-{1}`",
                                          version->major, version->minor)
                                    : std::string("the toolkit's cuBLAS, cuSPARSE and cuSOLVER development packages");
        const std::string fix = fmt::format(
            "Install the libraries' development headers: {}, or the pip wheels nvidia-cublas, nvidia-cusparse and "
            "nvidia-cusolver of this CUDA (-cu12 names for CUDA 12) with their include/ directories in CPATH, or "
            "point CUDA_HOME at a complete toolkit",
            apt);
        problem({Code::build_toolkit_incomplete,
                 fmt::format("the toolkit builds take ({}) lacks {}, which PyTorch {}'s ATen/cuda/CUDAContext.h "
                             "includes: every extension that includes it (most do, for the current CUDA stream) "
                             "stops with \"fatal error: {}: No such file or directory\"",
                             setup_.choice.root, fmt::join(setup_.missing_torch_headers, ", "), torch.version,
                             names.front()),
                 fix + ".", subject, false, true, true});
    }

    // No GPU visible to CUDA (none, or CUDA_VISIBLE_DEVICES hides them all) and no list to build
    // for: torch.utils.cpp_extension._get_cuda_arch_flags takes the list from
    // torch.cuda.device_count(), gets an empty one, and `arch_list[-1] += '+PTX'` raises
    // "IndexError: list index out of range" (torch/utils/cpp_extension.py; probes/build/torch_arch_list.hpp
    // quotes the code). Every CUDA source of an extension goes through it: load/load_inline and
    // setup.py/pip builds (BuildExtension's unix_cuda_flags) alike, so `pip install flash-attn` in a
    // `docker build` stops there. A warning, not a failure: only builds made on this machine stop,
    // and a machine meant to build for GPUs elsewhere needs the list anyway.
    void no_gpu_for_default_list(const TorchBuildTarget& torch, const std::optional<std::string>& subject,
                                 bool native) {
        const std::string setting =
            native ? std::string("TORCH_CUDA_ARCH_LIST=native") : std::string("TORCH_CUDA_ARCH_LIST unset");
        if (torch.default_arch_list.raises_without_gpu == false) {
            evidence("torch_arch_flags", fmt::format("{}: no GPU visible and {}: this PyTorch's cpp_extension.py "
                                                     "has no `arch_list[-1] += '+PTX'`, not judged",
                                                     torch.subject, setting));
            return;
        }
        std::string supported;
        if (torch.arch_tables) {
            std::vector<std::string> plain;  // the entries without the arch-specific "a" forms
            for (const std::string& entry : torch.arch_tables->supported)
                if (!entry.ends_with('a')) plain.push_back(entry);
            supported = fmt::format("; PyTorch {} accepts {}", torch.version, fmt::join(plain, " "));
        }
        problem({Code::torch_arch_list_unset_without_gpu,
                 fmt::format("no GPU is visible to CUDA and {}: PyTorch {} builds an extension's CUDA code for the "
                             "visible GPUs, finds none, and every extension build here (pip/setup.py, "
                             "cpp_extension.load) stops in _get_cuda_arch_flags with \"IndexError: list index out "
                             "of range\"{}",
                             setting, torch.version,
                             torch.default_arch_list.raises_without_gpu
                                 ? std::string()
                                 : std::string(" (its cpp_extension.py was not read: as PyTorch 2.15.0's does)")),
                 fmt::format("Set it to the GPUs the build is for: `export TORCH_CUDA_ARCH_LIST=\"9.0\"` for an "
                             "H100/H200 (\"8.0\" A100, \"8.9\" L4/L40S, \"10.0\" B200, several with ';', the "
                             "last with +PTX to run on newer GPUs too){}; in a Dockerfile, `ENV "
                             "TORCH_CUDA_ARCH_LIST=...` before the build.",
                             supported),
                 subject, false, true, true});
    }

    void torch_architectures(const TorchBuildTarget& torch, const std::optional<std::string>& subject) {
        std::vector<std::string> flags;
        std::string source;
        // "native" asks, where this torch knows the word, for the visible GPUs, as an unset list does.
        const bool native = input_.torch_cuda_arch_list == "native" && torch.default_arch_list.accepts_native;
        if (input_.torch_cuda_arch_list && !input_.torch_cuda_arch_list->empty() && !native) {
            if (!torch.arch_tables) {
                evidence("torch_arch_list", fmt::format("{}: TORCH_CUDA_ARCH_LIST={} not judged ({})", torch.subject,
                                                        *input_.torch_cuda_arch_list, torch.arch_tables_problem));
                return;
            }
            const TorchArchList parsed = parse_torch_cuda_arch_list(*input_.torch_cuda_arch_list, *torch.arch_tables);
            if (parsed.error) {
                const std::string value = arch_list_for_gpus(torch);
                problem({Code::torch_arch_list_invalid,
                         fmt::format("TORCH_CUDA_ARCH_LIST=\"{}\": PyTorch {} stops extension builds with \"{}\"",
                                     *input_.torch_cuda_arch_list, torch.version, *parsed.error),
                         value.empty()
                             ? std::string("`unset TORCH_CUDA_ARCH_LIST` (PyTorch then builds for the visible GPUs).")
                             : fmt::format("`export TORCH_CUDA_ARCH_LIST=\"{}\"` (the GPUs here), or unset it.", value),
                         subject, false, true, true});
                return;
            }
            flags = parsed.gencode_flags;
            source = fmt::format("TORCH_CUDA_ARCH_LIST=\"{}\"", *input_.torch_cuda_arch_list);
        } else {
            if (input_.devices.empty()) {
                no_gpu_for_default_list(torch, subject, native);
                return;
            }
            flags = default_arch_flags(torch);
            source = native ? "the visible GPUs (TORCH_CUDA_ARCH_LIST=native)"
                            : "the visible GPUs (TORCH_CUDA_ARCH_LIST unset)";
        }
        prediction_.torch_arch_flags.emplace_back(torch.subject, flags);
        evidence("torch_arch_flags", fmt::format("{}: {} from {}", torch.subject, fmt::join(flags, " "), source));
        for (const int number : virtual_architectures(flags)) {
            if (nvcc_knows(setup_.nvcc_architectures, number)) continue;
            problem({Code::nvcc_arch_unsupported,
                     fmt::format("{} gives compute_{}, which nvcc {} does not compile for: PyTorch extension builds "
                                 "stop with \"nvcc fatal : "
                                 "Unsupported gpu architecture 'compute_{}'\"",
                                 source, number, setup_.nvcc_version ? setup_.nvcc_version->full : "", number),
                     fmt::format("Leave {}.{} out of TORCH_CUDA_ARCH_LIST, or build with a newer toolkit ({}).",
                                 number / 10, number % 10, needs_toolkit_text(number)),
                     subject, false, true, true});
        }
        for (const DeviceInfo& device : input_.devices) {
            if (flags_cover(flags, device)) continue;
            const std::string value = arch_list_for_gpus(torch);
            problem({Code::torch_arch_list_misses_gpu,
                     fmt::format("{} builds no code for GPU {} ({}, sm_{}{}): the extension builds, but its kernels "
                                 "fail there with \"no kernel "
                                 "image is available for execution on the device\"",
                                 source, device.ordinal, device.name, device.cc_major, device.cc_minor),
                     value.empty() ? std::string("`unset TORCH_CUDA_ARCH_LIST`.")
                                   : fmt::format("`export TORCH_CUDA_ARCH_LIST=\"{}\"`, or unset it.", value),
                     subject, false, false, false, true});
        }
    }

    // A CMake project with CUDA enabled (probes/build/cmake_cuda has CMake's rules): the nvcc, host
    // compiler and architectures it takes, judged as a plain nvcc build's are. A cause it shares
    // with those (the same toolkit, the same host compiler) stays one finding, marked as stopping
    // CMake too; what differs is a finding of its own that names the CMake variable.
    void cmake_project() {
        const CMakeCudaSetup& cmake = setup_.cmake;
        const bool variables = cmake.compiler.rule == "CUDACXX" || cmake.host_compiler || cmake.architectures;
        if (cmake.cmake.empty() && !variables) return;  // no CMake here, and nothing set for one
        cmake_judged_ = true;
        evidence("cmake",
                 cmake.cmake.empty() ? std::string("no cmake on PATH (CMake variables are set)") : cmake.cmake);
        if (const ToolkitCompilerLimits* toolkit = cmake_toolkit()) {
            cmake_host_compiler(*toolkit);
            cmake_architectures();
        }
        std::vector<std::string> stops;
        for (const BuildProblem& problem : prediction_.problems)
            if (problem.stops_cmake) stops.push_back(code_string(problem.code));
        evidence("cmake_project", stops.empty()
                                      ? std::string("configure and build would succeed")
                                      : fmt::format("configure or build would stop: {}", fmt::join(stops, ", ")));
    }

    void also_stops_cmake(std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end && i < prediction_.problems.size(); ++i)
            if (prediction_.problems[i].stops_nvcc) prediction_.problems[i].stops_cmake = true;
    }

    // CMake's nvcc and its toolkit; nullptr when CMake stops there.
    const ToolkitCompilerLimits* cmake_toolkit() {
        const CMakeCudaSetup& cmake = setup_.cmake;
        const CMakeCudaCompiler& compiler = cmake.compiler;
        if (compiler.path.empty()) {
            evidence("cmake_nvcc", "none: " + compiler.failure);
            problem(cmake_compiler_missing());
            return nullptr;
        }
        evidence("cmake_nvcc", fmt::format("{} (by {}{}), toolkit {}", compiler.path, compiler.rule,
                                           compiler.rule == "CUDACXX" ? "" : "; CUDACXX unset", cmake.toolkit_root));
        if (cmake.same_toolkit) {
            also_stops_cmake(0, toolkit_problems_);
            return nvcc_runs_ ? &setup_.toolkits.front() : nullptr;
        }
        if (!cmake.toolkit || *cmake.toolkit >= setup_.toolkits.size()) return nullptr;
        const ToolkitCompilerLimits& toolkit = setup_.toolkits[*cmake.toolkit];
        // What CMake's configure compiles and links with: nvcc, the headers, and the static runtime
        // (CMAKE_CUDA_RUNTIME_LIBRARY's default, and what CMakeTestCUDACompiler links).
        const DevelopmentFiles& files = cmake.files;
        std::vector<std::string> missing;
        for (const std::string* file : {&files.runtime_header, &files.host_config, &files.cudart_static})
            if (file->empty())
                missing.push_back(file == &files.runtime_header ? "include/cuda_runtime.h"
                                  : file == &files.host_config  ? "include/crt/host_config.h"
                                                                : "lib64/libcudart_static.a");
        const std::string by = compiler.rule == "CUDACXX" ? "CUDACXX" : compiler.rule + "; CUDACXX unset";
        const ToolkitCompilerLimits* complete = best_toolkit(setup_, std::nullopt, toolkit.root);
        const std::string elsewhere =
            complete != nullptr ? fmt::format(", or build with the complete toolkit {}: `export CUDACXX={}/bin/nvcc`",
                                              complete->root, complete->root)
                                : "";
        if (!missing.empty())
            problem(stopping(Client::cmake, Code::build_toolkit_incomplete,
                             fmt::format("the toolkit CMake takes ({}, by {}) lacks {}: CMake's configure stops",
                                         cmake.toolkit_root, by, fmt::join(missing, ", ")),
                             fmt::format("Install its development files{}.", elsewhere), std::nullopt));
        if (!cmake.nvcc.version) {
            problem(stopping(Client::cmake, Code::build_toolkit_incomplete,
                             fmt::format("{} --version {}", compiler.path, cmake.nvcc.failure),
                             fmt::format("Reinstall the toolkit's nvcc{}.", elsewhere), std::nullopt));
            return nullptr;
        }
        evidence("cmake_nvcc_version", fmt::format("{} {}", compiler.path, cmake.nvcc.version->full));
        return &toolkit;
    }

    BuildProblem cmake_compiler_missing() const {
        const CMakeCudaSetup& cmake = setup_.cmake;
        const ToolkitCompilerLimits* installed = best_toolkit(setup_, std::nullopt);
        const std::string point = installed != nullptr ? fmt::format("`export CUDACXX={}/bin/nvcc`", installed->root)
                                                       : std::string("install the CUDA toolkit");
        if (cmake.compiler.rule == "CUDACXX") {
            const CMakeCudaCompiler& without = cmake.compiler_without_cudacxx;
            return stopping(
                Client::cmake, Code::build_toolkit_missing,
                fmt::format("{}: CMake stops with \"Could not find compiler set in environment variable CUDACXX\"",
                            cmake.compiler.failure),
                without.path.empty()
                    ? fmt::format("Point it at an installed nvcc: {}, and configure a new build directory.", point)
                    : fmt::format("`unset CUDACXX` (CMake then takes {} by {}), or point it at an installed nvcc: {}; "
                                  "then configure a new build directory.",
                                  without.path, without.rule, point),
                std::nullopt);
        }
        return stopping(Client::cmake, Code::build_toolkit_missing,
                        fmt::format("CMake finds no nvcc ({}; unlike PyTorch it does not look in /usr/local/cuda): "
                                    "CMake stops with \"The CUDA compiler "
                                    "identification is unknown\"",
                                    cmake.compiler.failure),
                        installed != nullptr
                            ? fmt::format("Name it: {} (or put {}/bin on PATH).", point, installed->root)
                            : "Install the CUDA toolkit.",
                        std::nullopt);
    }

    // The host compiler CMake's nvcc runs: CUDAHOSTCXX (-ccbin=), unless a -ccbin in
    // NVCC_APPEND_FLAGS comes after it, else nvcc's own.
    void cmake_host_compiler(const ToolkitCompilerLimits& toolkit) {
        const CMakeCudaSetup& cmake = setup_.cmake;
        const bool appended = setup_.nvcc_flags.ccbin && setup_.nvcc_flags.ccbin_variable == "NVCC_APPEND_FLAGS";
        // CMake checks that CUDAHOSTCXX exists whatever nvcc would do with it.
        if (cmake.host_compiler && (cmake.host_compiler->path.empty() || !appended)) {
            (void)judge_pick(*cmake.host_compiler, toolkit.cmake_pick, toolkit, Client::cmake, std::nullopt);
            return;
        }
        if (cmake.host_compiler)
            evidence("cmake_host_compiler", fmt::format("CUDAHOSTCXX={} is not what runs: nvcc takes the -ccbin of "
                                                        "NVCC_APPEND_FLAGS, which comes after "
                                                        "CMake's -ccbin=",
                                                        cmake.host_compiler->program));
        if (cmake.same_toolkit) {
            evidence("cmake_host_compiler", "nvcc's own: the host_compiler above");
            also_stops_cmake(nvcc_pick_problems_.first, nvcc_pick_problems_.second);
            return;
        }
        (void)judge_pick(setup_.nvcc_host_compiler, toolkit.nvcc_pick, toolkit, Client::cmake, std::nullopt);
    }

    // The visible GPUs' architectures that CMake's nvcc compiles for, as CUDAARCHS writes them ("80;90").
    std::string cmake_archs_for_gpus() const {
        std::set<int> numbers;
        for (const DeviceInfo& device : input_.devices)
            if (const int number = device.cc_major * 10 + device.cc_minor;
                nvcc_knows(setup_.cmake.nvcc.architectures, number))
                numbers.insert(number);
        return fmt::format("{}", fmt::join(numbers, ";"));
    }

    // CMAKE_CUDA_ARCHITECTURES: CUDAARCHS, else nvcc's default; then whether nvcc compiles for it
    // and whether the code covers the GPUs.
    void cmake_architectures() {
        const CMakeCudaSetup& cmake = setup_.cmake;
        const std::string nvcc = cmake.nvcc.version ? cmake.nvcc.version->full : "";
        EmbeddedTargets targets;
        std::string source;
        if (!cmake.architectures) {
            const std::optional<CudaVersion> release =
                cmake.nvcc.version ? cuda_release_of(cmake.nvcc.version->release) : std::nullopt;
            const std::optional<int> fallback = release ? nvcc_default_architecture(release->major) : std::nullopt;
            if (!fallback) {
                evidence("cmake_architectures",
                         fmt::format("nvcc {}'s default (CUDAARCHS unset), which cudacheck does not know", nvcc));
                return;
            }
            targets = {{GpuArch{*fallback}}, {GpuArch{*fallback}}};
            source = fmt::format("CMAKE_CUDA_ARCHITECTURES={} (nvcc {}'s default; CUDAARCHS unset)", *fallback, nvcc);
        } else {
            source = fmt::format("CUDAARCHS=\"{}\"", *cmake.architectures);
            if (!cmake_architectures_from_variable(targets, source)) return;
        }
        evidence("cmake_architectures", source);
        for (const DeviceInfo& device : input_.devices) cmake_covers(targets, source, device);
    }

    // The targets CUDAARCHS gives; false when CMake stops there.
    bool cmake_architectures_from_variable(EmbeddedTargets& targets, const std::string& source) {
        const CMakeCudaSetup& cmake = setup_.cmake;
        const std::vector<std::string>& known = cmake.nvcc.architectures;
        const std::string& value = *cmake.architectures;
        switch (cmake_architectures_kind(value)) {
            case CMakeArchitecturesKind::invalid: problem(cmake_architectures_invalid_problem(source)); return false;
            case CMakeArchitecturesKind::native:
                if (input_.devices.empty()) {
                    problem(stopping(Client::cmake, Code::cmake_native_without_gpu,
                                     fmt::format("{} and no GPU is visible: CMake stops with \"CUDA_ARCHITECTURES is "
                                                 "set to \"native\", but no GPU "
                                                 "was detected.\"",
                                                 source),
                                     "Name the architectures to build for (`export CUDAARCHS=\"90\"` for compute "
                                     "capability 9.0, or `export "
                                     "CUDAARCHS=all-major`), or configure where the GPUs are visible.",
                                     std::nullopt));
                    return false;
                }
                // CMakeTestCUDACompiler.cmake: the GPUs its program finds, each as <arch>-real.
                for (const DeviceInfo& device : input_.devices)
                    targets.sass.push_back(GpuArch{device.cc_major * 10 + device.cc_minor});
                if (cmake.same_toolkit) also_stops_cmake(gpu_arch_problems_.first, gpu_arch_problems_.second);
                else cmake_arch_known(targets, source);
                return true;
            case CMakeArchitecturesKind::all:
            case CMakeArchitecturesKind::all_major:
                // nvcc's own -arch=all / -arch=all-major (CUDA 11.5 and newer; CMake passes them as they are):
                // SASS for every architecture it lists (all-major: the oldest and each X.0), PTX for the newest.
                if (known.empty()) {
                    evidence("cmake_architectures", source + ": not judged (nvcc --list-gpu-arch did not answer)");
                    return false;
                }
                targets = nvcc_all_targets(known, cmake_architectures_kind(value) == CMakeArchitecturesKind::all_major);
                return true;
            case CMakeArchitecturesKind::list: break;
        }
        targets = parse_cmake_architectures(value);
        cmake_arch_known(targets, source);
        return true;
    }

    // A CC314 for each architecture of `targets` CMake's nvcc does not compile for.
    void cmake_arch_known(const EmbeddedTargets& targets, const std::string& source) {
        std::set<int> numbers;
        for (const std::vector<GpuArch>* kind : {&targets.sass, &targets.ptx})
            for (const GpuArch& arch : *kind) numbers.insert(arch.number);
        for (const int number : numbers) {
            if (nvcc_knows(setup_.cmake.nvcc.architectures, number)) continue;
            const std::optional<int> last = last_cuda_major_supporting(number / 10, number % 10);
            const std::string toolkit =
                last ? fmt::format("CUDA {} is the last that compiles for it", *last) : needs_toolkit_text(number);
            const std::string gpus = cmake_archs_for_gpus();
            problem(stopping(Client::cmake, Code::nvcc_arch_unsupported,
                             fmt::format("{} asks for compute_{}, which nvcc {} does not compile for: CMake stops with "
                                         "\"nvcc fatal : Unsupported gpu "
                                         "architecture 'compute_{}'\"",
                                         source, number,
                                         setup_.cmake.nvcc.version ? setup_.cmake.nvcc.version->full : "", number),
                             fmt::format("Leave {} out: {} and configure a new build directory; or build with a "
                                         "toolkit that compiles for it ({}).",
                                         number,
                                         gpus.empty() ? std::string("`unset CUDAARCHS` (nvcc's default)")
                                                      : fmt::format("`export CUDAARCHS=\"{}\"` (the GPUs here)", gpus),
                                         toolkit),
                             std::nullopt));
        }
    }

    BuildProblem cmake_architectures_invalid_problem(const std::string& source) const {
        // The value CMake's pattern takes for what was meant: "sm_90" or "9.0" -> "90", "8.6+PTX" -> "86".
        std::vector<std::string> entries;
        for (const std::string& entry : sys::split(*setup_.cmake.architectures, ';')) {
            std::string_view text = sys::trim(entry);
            if (text.ends_with("+PTX")) text.remove_suffix(4);
            if (const std::optional<GpuArch> arch = parse_gpu_arch(text)) entries.push_back(arch->suffix());
            else if (!text.empty()) entries.clear(), entries.emplace_back();
        }
        const bool guessed = !entries.empty() && std::none_of(entries.begin(), entries.end(),
                                                              [](const std::string& e) { return e.empty(); });
        return stopping(Client::cmake, Code::cmake_architectures_invalid,
                        fmt::format("{} is not a value CMake takes: CMake stops with \"CMAKE_CUDA_ARCHITECTURES: {} is "
                                    "not one of the following: a "
                                    "semicolon-separated list of integers, each optionally followed by '-real' or "
                                    "'-virtual'; a special value: all, "
                                    "all-major, native\"",
                                    source, *setup_.cmake.architectures),
                        guessed ? fmt::format("Write it as CMake does: `export CUDAARCHS=\"{}\"`, or unset it; then "
                                              "configure a new build directory.",
                                              fmt::join(entries, ";"))
                                : std::string("Write it as CMake does (`export CUDAARCHS=\"90\"` for compute "
                                              "capability 9.0), or unset it; then configure a "
                                              "new build directory."),
                        std::nullopt);
    }

    // Whether the code CMake builds has an image for a GPU (cuda/arch_coverage).
    void cmake_covers(const EmbeddedTargets& targets, const std::string& source, const DeviceInfo& device) {
        const ImageVerdict verdict = kernel_image_for(targets, device.cc_major, device.cc_minor);
        evidence("cmake_gpu_code", fmt::format("GPU {} ({}, sm_{}{}): {}", device.ordinal, device.name, device.cc_major,
                                               device.cc_minor, verdict.describe()));
        if (verdict.kind != ImageKind::none) return;
        const int number = device.cc_major * 10 + device.cc_minor;
        const bool known = nvcc_knows(setup_.cmake.nvcc.architectures, number);
        if (!known && setup_.cmake.same_toolkit) return;  // CC314 above: no architecture setting helps
        BuildProblem missed =
            stopping(Client::cmake, Code::cmake_architectures_miss_gpu,
                     fmt::format("{} builds no code for GPU {} ({}, sm_{}{}): CMake builds the project, but its "
                                 "kernels fail there with "
                                 "\"no kernel image is available for execution on the device\"",
                                 source, device.ordinal, device.name, device.cc_major, device.cc_minor),
                     known ? fmt::format("`export CUDAARCHS=\"{}\"` (the GPUs here) and configure a new build "
                                         "directory, or pass "
                                         "`-DCMAKE_CUDA_ARCHITECTURES={}`.",
                                         cmake_archs_for_gpus(), cmake_archs_for_gpus())
                           : fmt::format("Build with a toolkit that supports it: {}.", needs_toolkit_text(number)),
                     std::nullopt);
        missed.stops_cmake = false;
        missed.kernels_fail = true;
        problem(std::move(missed));
    }

    void summarize(bool build_toolkit_usable) {
        std::vector<std::string> parts;
        if (build_toolkit_usable) {
            parts.push_back(fmt::format("builds take {}{}", sys::clip_path(setup_.choice.root, 32),
                                        setup_.nvcc_version ? " (nvcc " + setup_.nvcc_version->full + ")" : ""));
            const HostCompilerPick& pick = setup_.nvcc_host_compiler;
            if (nvcc_compiler_ok_ && pick.version)
                parts.push_back(fmt::format("{} accepted", compiler_text(pick.version)));
        }
        if (build_toolkit_usable && !input_.torch.empty()) {
            const bool stopped =
                std::any_of(prediction_.problems.begin(), prediction_.problems.end(), [](const BuildProblem& problem) {
                    return problem.stops_torch_jit || problem.stops_torch_setup;
                });
            parts.push_back(stopped ? "PyTorch extensions would fail" : "PyTorch extensions ready");
        }
        if (cmake_judged_) {
            const bool stopped = std::any_of(prediction_.problems.begin(), prediction_.problems.end(),
                                             [](const BuildProblem& problem) { return problem.stops_cmake; });
            parts.push_back(stopped ? "CMake projects would fail" : "CMake projects ready");
        }
        prediction_.summary = fmt::format("{}", fmt::join(parts, "; "));
    }
};

}  // namespace

std::string install_hint(const ToolkitCompilerLimits& toolkit, HostCompilerKind kind) {
    const std::optional<int> newest = kind == HostCompilerKind::clang ? toolkit.clang_newest : toolkit.gcc_newest;
    if (!newest) return "install a gcc the toolkit accepts";
    return kind == HostCompilerKind::clang
               ? fmt::format("install clang {} or older (`sudo apt install clang-{}`)", *newest, *newest)
               : fmt::format("install gcc {} or older (`sudo apt install g++-{}`)", *newest, *newest);
}

std::string compiler_text(const std::optional<HostCompilerVersion>& version) {
    return version ? to_string(*version) : "version unknown";
}

std::optional<CudaVersion> cuda_release_of(std::string_view text) {
    int major = 0;
    int minor = 0;
    if (std::sscanf(std::string(text).c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
    return CudaVersion{major, minor};
}

std::string c_name_of(std::string name) {
    // clang++ first: "clang++-18" holds "g++" too, and would become "clangcc-18".
    if (const std::size_t at = name.find("clang++"); at != std::string::npos) return name.replace(at, 7, "clang");
    if (const std::size_t at = name.find("g++"); at != std::string::npos) return name.replace(at, 3, "gcc");
    return name;
}
std::string cxx_name_of(std::string name) {
    if (name.find("g++") != std::string::npos || name.find("clang++") != std::string::npos) return name;
    if (const std::size_t at = name.find("clang"); at != std::string::npos) return name.replace(at, 5, "clang++");
    if (const std::size_t at = name.find("gcc"); at != std::string::npos) return name.replace(at, 3, "g++");
    return name;
}

const HostCompiler* accepted_alternative(const BuildSetup& setup, const ToolkitCompilerLimits& toolkit) {
    const HostCompiler* best = nullptr;
    for (std::size_t i = 0; i < setup.compilers.size() && i < toolkit.compilers.size(); ++i) {
        const HostCompiler& compiler = setup.compilers[i];
        if (!toolkit.compilers[i].accepted || !compiler.version || compiler.source != "PATH") continue;
        const auto rank = [](const HostCompiler& c) {
            return std::tuple{c.version->kind == HostCompilerKind::gcc, c.version->major, c.version->minor,
                              -static_cast<int>(c.name.size())};
        };
        if (best == nullptr || rank(compiler) > rank(*best)) best = &compiler;
    }
    return best;
}

BuildPrediction predict_builds(const BuildJudgeInput& input) { return Predictor(input).run(); }

}  // namespace cudacheck
