// `cudacheck env` (cli/env_command.cpp): the toolkit chosen, the compiler, architecture, ninja and
// profile lines planned from hand-built facts; the script as bash and fish read it, values with
// spaces and quotes; and the binary end to end: a hostile environment still gives a valid script,
// and evaluating its output leaves a shell in which toolkit.build passes.
#include "cli/env_command.hpp"

#include "support/env_script.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace cudacheck {
namespace {

using test::comments;
using test::contains;
using Variables = std::map<std::string, std::string, std::less<>>;

ToolkitCompilerLimits toolkit(std::string root, std::string version, std::vector<std::string> missing = {}) {
    ToolkitCompilerLimits limits;
    limits.root = std::move(root);
    limits.version = std::move(version);
    limits.host_config = limits.root + "/include/crt/host_config.h";
    limits.missing_files = std::move(missing);
    limits.gcc_newest = 15;
    limits.nvcc_pick.accepted = true;
    limits.torch_pick.accepted = true;
    return limits;
}

HostCompiler compiler(std::string name, int major) {
    return HostCompiler{name, "PATH", "/usr/bin/" + name, "", HostCompilerVersion{HostCompilerKind::gcc, major, 1, 0},
                        {}};
}

DeviceInfo gpu(int ordinal, int major, int minor) {
    DeviceInfo device;
    device.ordinal = ordinal;
    device.name = "GPU";
    device.cc_major = major;
    device.cc_minor = minor;
    return device;
}

// A machine with CUDA 13.0 at /opt/none/cuda-13.0 (builds take it), gcc 13 accepted, ninja, one H200.
struct Machine {
    BuildSetup setup;
    std::vector<TorchBuildTarget> torch;
    std::vector<DeviceInfo> devices{gpu(0, 9, 0)};
    std::optional<CudaVersion> driver{CudaVersion{13, 0}};
    LoaderSearch loader;

    Machine() {
        setup.choice = {"/opt/none/cuda-13.0", "CUDA_HOME"};
        setup.choice_exists = true;
        setup.toolkits = {toolkit("/opt/none/cuda-13.0", "13.0.88")};
        setup.compilers = {compiler("g++", 13)};
        setup.toolkits[0].compilers = {CompilerAcceptance{true, {}, {}}};
        setup.nvcc_host_compiler =
            HostCompilerPick{"gcc",          "nvcc's default (gcc on PATH)",
                             "/usr/bin/gcc", HostCompilerVersion{HostCompilerKind::gcc, 13, 3, 0},
                             "gcc 13.3.0",   ""};
        setup.ninja = "/usr/bin/ninja";
    }

    EnvScript plan(const Environment& environment, Profile profile = Profile::none) const {
        return plan_environment(EnvInputs{setup, torch, devices, driver, loader}, environment, profile);
    }
};

TorchBuildTarget torch_for(std::string cuda) {
    TorchBuildTarget torch;
    torch.subject = "/opt/venv: PyTorch";
    torch.prefix = "/opt/venv";
    torch.interpreter = "/opt/venv/bin/python3";
    torch.version = "2.11.0+cu" + cuda;
    torch.cuda = std::move(cuda);
    return torch;
}

// NAME -> value of each `set` line; "<unset>" for each name an unset line names.
std::map<std::string, std::string> assignments(const EnvScript& script) {
    std::map<std::string, std::string> values;
    for (const ShellLine& line : script.lines) {
        if (line.kind == ShellLine::Kind::set) values[line.name] = line.values.front();
        if (line.kind == ShellLine::Kind::prepend) values[line.name] = fmt::format("{}:$", fmt::join(line.values, ":"));
        if (line.kind == ShellLine::Kind::unset)
            for (const std::string& name : line.values) values[name] = "<unset>";
    }
    return values;
}

const Environment& plain = test::plain_shell();

TEST(EnvToolkit, prefers_complete_then_pytorchs_major_then_what_the_driver_runs_then_newest) {
    Machine machine;
    machine.setup.toolkits = {toolkit("/usr/local/cuda-12.4", "12.4.1"), toolkit("/usr/local/cuda-12.8", "12.8.93"),
                              toolkit("/usr/local/cuda-13.0", "13.0.88"),
                              toolkit("/usr/local/cuda-13.1", "13.1.0", {"/usr/local/cuda-13.1/bin/nvcc"})};
    const auto chosen = [&] {
        const ToolkitCompilerLimits* limits = environment_toolkit(
            EnvInputs{machine.setup, machine.torch, machine.devices, machine.driver, machine.loader});
        return limits == nullptr ? std::string("none") : limits->root;
    };
    EXPECT_EQ(chosen(), "/usr/local/cuda-13.0") << "the incomplete 13.1 is passed over";
    machine.driver = std::nullopt;
    EXPECT_EQ(chosen(), "/usr/local/cuda-13.0");
    machine.torch = {torch_for("12.8")};
    EXPECT_EQ(chosen(), "/usr/local/cuda-12.8") << "PyTorch's CUDA major";
    machine.driver = CudaVersion{12, 6};
    EXPECT_EQ(chosen(), "/usr/local/cuda-12.4") << "not newer than the driver";
    machine.setup.toolkits = {toolkit("/tmp/not-a-toolkit", "", {"/tmp/not-a-toolkit/bin/nvcc"})};
    EXPECT_EQ(chosen(), "none") << "a directory CUDA_HOME names that holds nothing is no toolkit";
}

TEST(EnvToolkit, says_when_no_toolkit_has_pytorchs_major) {
    Machine machine;
    machine.torch = {torch_for("12.8")};
    const EnvScript script = machine.plan(plain);
    EXPECT_EQ(assignments(script).at("CUDA_HOME"), "/opt/none/cuda-13.0");
    EXPECT_TRUE(contains(comments(script), "no complete CUDA 12 toolkit is installed")) << comments(script);
    EXPECT_TRUE(contains(comments(script), "cuda-toolkit-12-8"));
}

TEST(EnvToolkit, path_gets_the_toolkits_bin_first_unless_it_is_first) {
    Machine machine;
    EnvScript script = machine.plan(plain);
    EXPECT_TRUE(script.toolkit_installed);
    EXPECT_EQ(assignments(script).at("PATH"), "/opt/none/cuda-13.0/bin:$");
    script = machine.plan(Environment(Variables{{"PATH", "/opt/none/cuda-13.0/bin:/usr/bin"}}));
    EXPECT_EQ(assignments(script).count("PATH"), 0u);
    EXPECT_TRUE(contains(comments(script), "already first"));
}

TEST(EnvToolkit, keeps_the_name_builds_use_and_fixes_a_cuda_path_elsewhere) {
    test::TempDir tree;
    tree.make_dir("cuda-13.0/bin");
    tree.symlink(tree.path() + "/cuda-13.0", "cuda");
    Machine machine;
    machine.setup.choice = {tree.path() + "/cuda", "CUDA_HOME"};
    machine.setup.toolkits = {toolkit(tree.path() + "/cuda-13.0", "13.0.88")};
    const auto values =
        assignments(machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUDA_PATH", "/opt/cuda-11.8"}})));
    EXPECT_EQ(values.at("CUDA_HOME"), tree.path() + "/cuda");
    EXPECT_EQ(values.at("CUDA_PATH"), tree.path() + "/cuda");
    EXPECT_EQ(assignments(machine.plan(plain)).count("CUDA_PATH"), 0u) << "an unset CUDA_PATH stays unset";
}

TEST(EnvToolkit, ld_library_path_only_where_the_loader_takes_another_libcudart) {
    test::TempDir tree;
    tree.write("cuda-13.0/lib64/libcudart.so.13", "");
    tree.write("other/libcudart.so.13", "");
    Machine machine;
    machine.setup.toolkits = {toolkit(tree.path() + "/cuda-13.0", "13.0.88")};
    machine.setup.choice = {tree.path() + "/cuda-13.0", "CUDA_HOME"};
    // The loader finds none: this toolkit's directory goes first.
    EnvScript script = machine.plan(plain);
    EXPECT_EQ(assignments(script).at("LD_LIBRARY_PATH"), tree.path() + "/cuda-13.0/lib64:$");
    // Another copy first on LD_LIBRARY_PATH: still needed.
    machine.loader.ld_library_path = {tree.path() + "/other"};
    script = machine.plan(plain);
    EXPECT_EQ(assignments(script).at("LD_LIBRARY_PATH"), tree.path() + "/cuda-13.0/lib64:$");
    EXPECT_TRUE(contains(comments(script), tree.path() + "/other/libcudart.so.13")) << comments(script);
    // The loader finds this toolkit's (as ld.so.cache does for NVIDIA's packages): nothing to set.
    machine.loader.ld_library_path = {tree.path() + "/cuda-13.0/lib64"};
    script = machine.plan(plain);
    EXPECT_EQ(assignments(script).count("LD_LIBRARY_PATH"), 0u);
    EXPECT_TRUE(contains(comments(script), "the loader finds this toolkit's libcudart.so.13 already"));
}

TEST(EnvCompiler, a_rejected_nvcc_compiler_gets_the_newest_accepted_one) {
    Machine machine;
    machine.setup.compilers = {compiler("g++", 16), compiler("g++-13", 13), compiler("g++-12", 12)};
    machine.setup.toolkits[0].compilers = {CompilerAcceptance{false, "-- unsupported GNU version!", {}},
                                           CompilerAcceptance{true, {}, {}}, CompilerAcceptance{true, {}, {}}};
    machine.setup.nvcc_host_compiler.version = HostCompilerVersion{HostCompilerKind::gcc, 16, 1, 0};
    machine.setup.toolkits[0].nvcc_pick =
        CompilerAcceptance{false, "-- unsupported GNU version! gcc versions later than 15 are not supported!", {}};
    const EnvScript script = machine.plan(plain);
    const auto values = assignments(script);
    EXPECT_EQ(values.at("NVCC_CCBIN"), "g++-13");
    EXPECT_EQ(values.at("CC"), "gcc-13");
    EXPECT_EQ(values.at("CXX"), "g++-13");
    EXPECT_TRUE(contains(comments(script), "gcc versions later than 15")) << comments(script);

    // Judged by the chosen toolkit: one that accepts gcc 16 needs nothing.
    machine.setup.toolkits[0].nvcc_pick.accepted = true;
    EXPECT_EQ(assignments(machine.plan(plain)).count("NVCC_CCBIN"), 0u);
}

TEST(EnvCompiler, a_rejected_cc_is_replaced_and_none_accepted_is_said) {
    Machine machine;
    machine.setup.compilers = {compiler("g++", 13), compiler("gcc-16", 16)};
    machine.setup.toolkits[0].compilers = {CompilerAcceptance{true, {}, {}},
                                           CompilerAcceptance{false, "-- unsupported GNU version!", {}}};
    machine.setup.torch_host_compiler = HostCompilerPick{"gcc-16",
                                                         "CC (PyTorch passes -ccbin $CC)",
                                                         "/usr/bin/gcc-16",
                                                         HostCompilerVersion{HostCompilerKind::gcc, 16, 1, 0},
                                                         "",
                                                         ""};
    machine.setup.toolkits[0].torch_pick = CompilerAcceptance{false, "-- unsupported GNU version!", {}};
    auto values = assignments(machine.plan(plain));
    EXPECT_EQ(values.at("CC"), "gcc");
    EXPECT_EQ(values.at("CXX"), "g++");
    EXPECT_EQ(values.count("NVCC_CCBIN"), 0u) << "nvcc's own pick is accepted";

    machine.setup.toolkits[0].compilers = {CompilerAcceptance{false, "x", {}}, CompilerAcceptance{false, "x", {}}};
    const EnvScript script = machine.plan(plain);
    EXPECT_EQ(assignments(script).count("CC"), 0u);
    EXPECT_TRUE(contains(comments(script), "install gcc 15 or older")) << comments(script);

    // PATH empty: nvcc finds no gcc, and nothing on PATH is a compiler to name.
    machine.setup.compilers.clear();
    machine.setup.toolkits[0].compilers.clear();
    machine.setup.torch_host_compiler.reset();
    machine.setup.nvcc_host_compiler =
        HostCompilerPick{"gcc", "nvcc's default (gcc on PATH)", "", std::nullopt, "", "is not on PATH"};
    const EnvScript empty_path = machine.plan(Environment(Variables{{"PATH", ""}}));
    EXPECT_TRUE(contains(comments(empty_path), "gcc (nvcc's default (gcc on PATH)): is not on PATH"))
        << comments(empty_path);
    EXPECT_TRUE(contains(comments(empty_path), "no gcc or clang on PATH")) << comments(empty_path);
    EXPECT_EQ(assignments(empty_path).count("NVCC_CCBIN"), 0u);
}

TEST(EnvArchitectures, the_gpus_for_pytorch_cmake_and_nccl) {
    Machine machine;
    machine.devices = {gpu(0, 9, 0), gpu(1, 8, 0), gpu(2, 9, 0)};
    auto values = assignments(machine.plan(plain));
    EXPECT_EQ(values.at("TORCH_CUDA_ARCH_LIST"), "8.0;9.0");
    EXPECT_EQ(values.at("CUDAARCHS"), "80;90");
    EXPECT_EQ(values.at("NVCC_GENCODE"), "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90");

    // Only what the installed torch builds for, and what the toolkit's nvcc compiles for.
    TorchBuildTarget torch = torch_for("13.0");
    torch.arch_tables = TorchArchTables{{}, {"7.5", "9.0"}};
    machine.torch = {torch};
    machine.setup.nvcc_architectures = {"compute_75", "compute_90"};
    const EnvScript script = machine.plan(plain);
    values = assignments(script);
    EXPECT_EQ(values.at("TORCH_CUDA_ARCH_LIST"), "9.0");
    EXPECT_EQ(values.at("CUDAARCHS"), "90");
    EXPECT_TRUE(contains(comments(script), "does not compile for compute capability 8.0")) << comments(script);

    machine.devices.clear();
    const EnvScript none = machine.plan(plain);
    EXPECT_EQ(assignments(none).count("TORCH_CUDA_ARCH_LIST"), 0u);
    EXPECT_EQ(assignments(none).count("CUDAARCHS"), 0u);
    EXPECT_TRUE(contains(comments(none), "no GPU is visible"));
}

TEST(EnvArchitectures, without_a_gpu_pytorchs_builds_get_the_architectures_torch_carries) {
    Machine machine;
    machine.devices.clear();
    TorchBuildTarget torch = torch_for("13.0");
    torch.gpu_targets = {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
    torch.arch_tables = TorchArchTables{{}, {"7.5", "8.0", "8.6", "9.0", "10.0"}};
    torch.default_arch_list.raises_without_gpu = true;  // `arch_list[-1] += '+PTX'` on an empty list
    machine.torch = {torch};
    machine.setup.nvcc_architectures = {"compute_75", "compute_80", "compute_90", "compute_100", "compute_120"};
    // 8.6: nvcc here does not compile for it; 12.0: this cpp_extension.py does not accept it.
    const EnvScript script = machine.plan(plain);
    EXPECT_EQ(assignments(script).at("TORCH_CUDA_ARCH_LIST"), "7.5;8.0;9.0;10.0");
    EXPECT_TRUE(contains(comments(script), "stops every extension build without a GPU")) << comments(script);
    EXPECT_EQ(assignments(script).count("CUDAARCHS"), 0u) << "CMake takes its own default without a GPU";
    // "native" means the visible GPUs: as unset.
    EXPECT_EQ(assignments(machine.plan(Environment(Variables{{"TORCH_CUDA_ARCH_LIST", "native"}})))
                  .at("TORCH_CUDA_ARCH_LIST"),
              "7.5;8.0;9.0;10.0");
    // A list the shell has already is left as it is.
    EXPECT_EQ(assignments(machine.plan(Environment(Variables{{"TORCH_CUDA_ARCH_LIST", "8.0"}})))
                  .count("TORCH_CUDA_ARCH_LIST"),
              0u);
    // A torch whose builder does not stop without a GPU needs none.
    machine.torch.front().default_arch_list.raises_without_gpu = false;
    EXPECT_EQ(assignments(machine.plan(plain)).count("TORCH_CUDA_ARCH_LIST"), 0u);
    // Its binary's targets unknown: a comment names what to set, and nothing is set.
    machine.torch.front().default_arch_list.raises_without_gpu = true;
    machine.torch.front().gpu_targets.clear();
    const EnvScript unknown = machine.plan(plain);
    EXPECT_EQ(assignments(unknown).count("TORCH_CUDA_ARCH_LIST"), 0u);
    EXPECT_TRUE(contains(comments(unknown), "unless TORCH_CUDA_ARCH_LIST names the GPUs the build is for"))
        << comments(unknown);
}

TEST(EnvNinja, an_environments_ninja_goes_on_path_else_pip) {
    Machine machine;
    machine.setup.ninja.clear();
    EXPECT_EQ(assignments(machine.plan(plain)).at("PATH"), "/opt/none/cuda-13.0/bin:$")
        << "without PyTorch ninja is not asked for";
    machine.torch = {torch_for("13.0")};
    EnvScript script = machine.plan(plain);
    EXPECT_TRUE(contains(comments(script), "/opt/venv/bin/python3 -m pip install ninja")) << comments(script);
    machine.torch.front().ninja_in_environment = true;
    script = machine.plan(Environment(Variables{{"PATH", "/opt/none/cuda-13.0/bin:/usr/bin"}}));
    EXPECT_EQ(assignments(script).at("PATH"), "/opt/none/cuda-13.0/bin:/opt/venv/bin:$")
        << "the toolkit's bin stays first";
}

TEST(EnvProfile, no_profile_sets_no_profile_variable) {
    const auto values =
        assignments(Machine().plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUDA_LAUNCH_BLOCKING", "1"}})));
    for (const char* name : {"CUDA_LAUNCH_BLOCKING", "CUDA_VISIBLE_DEVICES", "CUBLAS_WORKSPACE_CONFIG"})
        EXPECT_EQ(values.count(name), 0u) << name;
}

TEST(EnvProfile, dev_blocks_launches_on_one_gpu) {
    Machine machine;
    machine.devices = {gpu(0, 9, 0), gpu(1, 9, 0)};
    auto values = assignments(machine.plan(plain, Profile::dev));
    EXPECT_EQ(values.at("CUDA_LAUNCH_BLOCKING"), "1");
    EXPECT_EQ(values.at("CUDA_VISIBLE_DEVICES"), "0");
    // The first of the GPUs chosen, not the machine's device 0.
    values = assignments(
        machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUDA_VISIBLE_DEVICES", "2,3"}}), Profile::dev));
    EXPECT_EQ(values.at("CUDA_VISIBLE_DEVICES"), "2");
    values = assignments(
        machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUDA_VISIBLE_DEVICES", "GPU-8e6c2a1f,1"}}),
                     Profile::dev));
    EXPECT_EQ(values.at("CUDA_VISIBLE_DEVICES"), "GPU-8e6c2a1f");
    // One already: kept.
    values = assignments(
        machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUDA_VISIBLE_DEVICES", "1"}}), Profile::dev));
    EXPECT_EQ(values.count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(EnvProfile, prod_unsets_the_debugging_variables_set) {
    const EnvScript script = Machine().plan(Environment(Variables{{"PATH", "/usr/bin"},
                                                                  {"CUDA_LAUNCH_BLOCKING", "1"},
                                                                  {"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "1"},
                                                                  {"CUBLAS_LOGINFO_DBG", "1"}}),
                                            Profile::prod);
    const auto values = assignments(script);
    for (const char* name : {"CUDA_LAUNCH_BLOCKING", "CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "CUBLAS_LOGINFO_DBG"})
        EXPECT_EQ(values.at(name), "<unset>") << name;
    EXPECT_EQ(values.count("CUDA_CACHE_DISABLE"), 0u) << "only those set";
    EXPECT_EQ(values.count("CUDA_VISIBLE_DEVICES"), 0u) << "prod keeps every GPU";
    for (const auto& [name, value] : assignments(Machine().plan(plain, Profile::prod)))
        EXPECT_NE(value, "<unset>") << name << ": nothing set, nothing unset";
}

TEST(EnvProfile, ci_is_deterministic_asynchronous_and_on_one_gpu) {
    Machine machine;
    auto values = assignments(
        machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUDA_LAUNCH_BLOCKING", "1"}}), Profile::ci));
    EXPECT_EQ(values.at("CUBLAS_WORKSPACE_CONFIG"), ":4096:8");
    EXPECT_EQ(values.at("PYTHONHASHSEED"), "0");
    EXPECT_EQ(values.at("CUDA_LAUNCH_BLOCKING"), "<unset>");
    EXPECT_EQ(values.at("CUDA_VISIBLE_DEVICES"), "0");
    // A deterministic setting of the user's own stays; an invalid one is replaced.
    values = assignments(
        machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUBLAS_WORKSPACE_CONFIG", ":16:8"}}), Profile::ci));
    EXPECT_EQ(values.count("CUBLAS_WORKSPACE_CONFIG"), 0u);
    values = assignments(
        machine.plan(Environment(Variables{{"PATH", "/usr/bin"}, {"CUBLAS_WORKSPACE_CONFIG", "4096:8"}}), Profile::ci));
    EXPECT_EQ(values.at("CUBLAS_WORKSPACE_CONFIG"), ":4096:8");
}

TEST(EnvProfile, without_a_toolkit_the_profile_lines_still_come) {
    Machine machine;
    machine.setup.toolkits.clear();
    machine.setup.choice_exists = false;
    const EnvScript script = machine.plan(plain, Profile::dev);
    EXPECT_FALSE(script.toolkit_installed);
    EXPECT_EQ(assignments(script).count("CUDA_HOME"), 0u);
    EXPECT_EQ(assignments(script).at("CUDA_LAUNCH_BLOCKING"), "1");
    EXPECT_TRUE(contains(comments(script), "no CUDA toolkit is installed"));
}

TEST(EnvRender, bash_and_fish_lines) {
    EnvScript script;
    script.lines = {ShellLine{ShellLine::Kind::comment, {}, {}, "a note\nrm -rf ~"},
                    ShellLine{ShellLine::Kind::set, "CUDA_HOME", {"/usr/local/cuda"}, {}},
                    ShellLine{ShellLine::Kind::prepend, "PATH", {"/usr/local/cuda/bin", "/opt/venv/bin"}, {}},
                    ShellLine{ShellLine::Kind::unset, {}, {"CUDA_LAUNCH_BLOCKING", "CUDA_CACHE_DISABLE"}, {}}};
    EXPECT_EQ(render_script(script, Shell::bash),
              "# a note\\nrm -rf ~\n"
              "export CUDA_HOME='/usr/local/cuda'\n"
              "export PATH='/usr/local/cuda/bin:/opt/venv/bin'\"${PATH:+:$PATH}\"\n"
              "unset CUDA_LAUNCH_BLOCKING CUDA_CACHE_DISABLE\n");
    EXPECT_EQ(render_script(script, Shell::fish),
              "# a note\\nrm -rf ~\n"
              "set -gx CUDA_HOME '/usr/local/cuda'\n"
              "set -gx PATH '/usr/local/cuda/bin' '/opt/venv/bin' $PATH\n"
              "set -e CUDA_LAUNCH_BLOCKING\n"
              "set -e CUDA_CACHE_DISABLE\n");
    EXPECT_EQ(default_shell(Environment(Variables{{"SHELL", "/usr/bin/fish"}})), Shell::fish);
    EXPECT_EQ(default_shell(Environment(Variables{{"SHELL", "/bin/zsh"}})), Shell::bash);
    EXPECT_EQ(default_shell(Environment()), Shell::bash);
}

// Runs `script` in `shell` (an interpreter's path) with exactly `environment`; stdout and stderr.
sys::CommandResult run_shell(const std::string& shell, const std::string& script,
                             const std::vector<std::string>& environment) {
    return sys::run_command({shell, "-c", script}, std::chrono::seconds(120), &environment);
}

// The test's own environment, with `overrides` (a value of test::unset_marker removes the name).
std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides) {
    std::map<std::string, std::string> variables;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        if (const std::size_t equals = text.find('='); equals != std::string::npos)
            variables[text.substr(0, equals)] = text.substr(equals + 1);
    }
    for (const auto& [name, value] : overrides) {
        if (value == test::unset_marker) variables.erase(name);
        else variables[name] = value;
    }
    std::vector<std::string> entries;
    for (const auto& [name, value] : variables) entries.push_back(name + "=" + value);
    return entries;
}

TEST(EnvRender, values_with_spaces_quotes_and_backslashes_survive_each_shell) {
    const std::string hostile = "/opt/my cuda/it's \\n $HOME `id` \"x\"";
    EnvScript script;
    script.lines = {ShellLine{ShellLine::Kind::set, "CUDA_HOME", {hostile}, {}},
                    ShellLine{ShellLine::Kind::prepend, "PATH", {hostile + "/bin"}, {}}};
    const sys::CommandResult bash =
        run_shell("/bin/bash", render_script(script, Shell::bash) + "printf '%s|%s' \"$CUDA_HOME\" \"$PATH\"",
                  {"PATH=/usr/bin:/bin"});
    EXPECT_EQ(bash.exit_status, 0) << bash.output;
    EXPECT_EQ(bash.output, hostile + "|" + hostile + "/bin:/usr/bin:/bin");
    // An empty PATH gains no empty entry (the current directory).
    const sys::CommandResult empty =
        run_shell("/bin/bash", render_script(script, Shell::bash) + "printf '%s' \"$PATH\"", {"PATH="});
    EXPECT_EQ(empty.output, hostile + "/bin");

    const std::string fish = sys::find_in_path("fish", "/usr/bin:/bin:/usr/local/bin");
    if (fish.empty()) GTEST_SKIP() << "no fish here: its lines were compared as text only";
    const sys::CommandResult fished =
        run_shell(fish, render_script(script, Shell::fish) + "printf '%s|%s' \"$CUDA_HOME\" \"$PATH\"",
                  {"PATH=/usr/bin:/bin", "HOME=/tmp"});
    EXPECT_EQ(fished.exit_status, 0) << fished.output;
    // A path variable in double quotes is its list joined with ':' (fish 3).
    EXPECT_EQ(fished.output, hostile + "|" + hostile + "/bin:/usr/bin:/bin");
}

// The PATH of this process without the directories that hold nvcc (the toolkit's bin, wrappers).
std::string path_without_nvcc() {
    std::vector<std::string> kept;
    for (const std::string& dir :
         sys::split(std::getenv("PATH") != nullptr ? std::getenv("PATH") : "/usr/bin:/bin", ':'))
        if (!dir.empty() && !sys::is_executable_file(dir + "/nvcc")) kept.push_back(dir);
    return fmt::format("{}", fmt::join(kept, ":"));
}

TEST(EnvCommand, a_hostile_environment_gives_a_valid_script) {
    const std::map<std::string, std::string> hostile{{"PATH", ""},
                                                     {"CUDA_HOME", "/nonexistent/it's here"},
                                                     {"LD_LIBRARY_PATH", ""}};
    for (const char* profile : {"dev", "prod", "ci"}) {
        SCOPED_TRACE(profile);
        const sys::CommandResult run =
            run_shell("/bin/bash",
                      fmt::format("{} env --shell bash --profile {} 2>/dev/null", CUDACHECK_BINARY, profile),
                      environment_with(hostile));
        ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
        EXPECT_EQ(run.exit_status, sys::is_executable_file("/usr/local/cuda/bin/nvcc") ? 0 : 1) << run.output;
        EXPECT_TRUE(!run.output.empty() && run.output.back() == '\n') << "whole lines";
        // bash parses it, and evaluating it fails nowhere.
        const sys::CommandResult check = run_shell("/bin/bash", "set -e; eval \"$SCRIPT\"; printf '%s' \"$CUDA_HOME\"",
                                                   environment_with({{"PATH", ""}, {"SCRIPT", run.output}}));
        EXPECT_EQ(check.exit_status, 0) << check.output << "\n" << run.output;
        // With a toolkit installed CUDA_HOME names it; without, the profile's lines still came.
        if (run.exit_status == 0) EXPECT_FALSE(contains(check.output, "/nonexistent")) << run.output;
        else EXPECT_TRUE(contains(run.output, "no CUDA toolkit is installed")) << run.output;
    }
}

TEST(EnvCommand, usage_errors_exit_2) {
    for (const std::vector<std::string>& arguments : {std::vector<std::string>{"env", "--profile", "staging"},
                                                      std::vector<std::string>{"env", "--shell", "tcsh"}}) {
        const test::BinaryRun run = test::run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << run.output;
        EXPECT_EQ(test::line_count(run.output), 1u) << run.output;
    }
    const test::BinaryRun help = test::run_cudacheck({"env", "--help"});
    EXPECT_EQ(help.exit_status, 0);
    EXPECT_TRUE(contains(help.output, "1 no CUDA toolkit is installed")) << help.output;
}

std::string build_status(const std::string& json_text) {
    const nlohmann::json report = nlohmann::json::parse(json_text, nullptr, false);
    if (report.is_discarded()) return "unparsable: " + json_text;
    const nlohmann::json* check = test::find_check(report, "toolkit.build");
    return check == nullptr ? "missing" : check->at("status").get<std::string>();
}

// The acceptance test: in a shell where toolkit.build does not pass (CUDA_HOME names no
// toolkit, no nvcc on PATH), evaluating `cudacheck env --profile dev` makes it pass.
TEST(EnvCommand, eval_of_the_dev_profile_makes_toolkit_build_pass) {
    if (!sys::is_executable_file("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const std::vector<std::string> broken =
        environment_with({{"CUDA_HOME", "/nonexistent"}, {"PATH", path_without_nvcc()}});
    const std::string check = fmt::format("{} --only toolkit.build --format json 2>/dev/null", CUDACHECK_BINARY);
    const sys::CommandResult before = run_shell("/bin/bash", check, broken);
    EXPECT_NE(build_status(before.output), "pass") << "the broken shell must not pass already: " << before.output;

    const sys::CommandResult after =
        run_shell("/bin/bash",
                  fmt::format("eval \"$({} env --profile dev --shell bash)\" && {}", CUDACHECK_BINARY, check), broken);
    EXPECT_EQ(build_status(after.output), "pass") << after.output;
    EXPECT_EQ(after.exit_status, 0) << after.output;

    // The same under fish, where it is installed.
    const std::string fish = sys::find_in_path("fish", "/usr/bin:/bin:/usr/local/bin");
    if (fish.empty()) return;
    const sys::CommandResult fished =
        run_shell(fish, fmt::format("{} env --profile dev --shell fish | source; and {}", CUDACHECK_BINARY, check),
                  broken);
    EXPECT_EQ(build_status(fished.output), "pass") << fished.output;
}

}  // namespace
}  // namespace cudacheck
