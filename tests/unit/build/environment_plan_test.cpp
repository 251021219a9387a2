// build/environment_plan: `cudacheck env`'s plan from facts alone. The file system's answers come
// in EnvFileFacts, made up here (paths under /nonexistent that no real_path could resolve), so
// every decision that reads them is shown to come from the facts, not from this machine.
#include "build/environment_plan.hpp"

#include "support/env_script.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::comments;
using test::contains;
using Variables = std::map<std::string, std::string, std::less<>>;

ToolkitCompilerLimits toolkit(std::string root, std::string version) {
    ToolkitCompilerLimits limits;
    limits.root = std::move(root);
    limits.version = std::move(version);
    limits.host_config = limits.root + "/include/crt/host_config.h";
    limits.nvcc_pick.accepted = true;
    limits.torch_pick.accepted = true;
    return limits;
}

// Builds take /nonexistent/cuda (CUDA_HOME), a link to the installed /nonexistent/cuda-13.0.
struct Facts {
    BuildSetup setup;
    std::vector<TorchBuildTarget> torch;
    std::vector<DeviceInfo> devices;
    LoaderSearch loader;
    EnvFileFacts files;

    Facts() {
        setup.choice = {"/nonexistent/cuda", "CUDA_HOME"};
        setup.choice_exists = true;
        setup.toolkits = {toolkit("/nonexistent/cuda-13.0", "13.0.88")};
        setup.nvcc_host_compiler =
            HostCompilerPick{"gcc",          "nvcc's default (gcc on PATH)",
                             "/usr/bin/gcc", HostCompilerVersion{HostCompilerKind::gcc, 13, 3, 0},
                             "gcc 13.3.0",   ""};
        setup.ninja = "/usr/bin/ninja";
        files.real_paths = {{"/nonexistent/cuda", "/nonexistent/cuda-13.0"},
                            {"/nonexistent/cuda-13.0", "/nonexistent/cuda-13.0"}};
    }
    [[nodiscard]] EnvInputs inputs() const { return EnvInputs{setup, torch, devices, CudaVersion{13, 0}, loader}; }
    [[nodiscard]] EnvScript plan(const Environment& environment) const {
        return plan_environment(inputs(), files, environment, Profile::none);
    }
};

std::string value_of(const EnvScript& script, const std::string& name) {
    for (const ShellLine& line : script.lines)
        if ((line.kind == ShellLine::Kind::set || line.kind == ShellLine::Kind::prepend) && line.name == name) {
            std::string joined;
            for (const std::string& value : line.values) joined += (joined.empty() ? "" : ":") + value;
            return joined;
        }
    return "<none>";
}

const Environment& plain = test::plain_shell();

TEST(EnvironmentPlan, names_the_toolkit_as_builds_do_when_the_real_paths_say_it_is_the_same) {
    Facts facts;
    const ToolkitCompilerLimits& installed = facts.setup.toolkits.front();
    EXPECT_EQ(environment_toolkit_root(facts.inputs(), installed, facts.files.real_paths), "/nonexistent/cuda");
    EXPECT_EQ(value_of(facts.plan(plain), "CUDA_HOME"), "/nonexistent/cuda");
    // The same link, but the facts say it leads elsewhere: the toolkit's own root.
    facts.files.real_paths["/nonexistent/cuda"] = "/nonexistent/cuda-12.8";
    EXPECT_EQ(environment_toolkit_root(facts.inputs(), installed, facts.files.real_paths), "/nonexistent/cuda-13.0");
    EXPECT_EQ(value_of(facts.plan(plain), "CUDA_HOME"), "/nonexistent/cuda-13.0");
    // No fact about it: not the same directory.
    facts.files.real_paths.clear();
    EXPECT_EQ(environment_toolkit_root(facts.inputs(), installed, facts.files.real_paths), "/nonexistent/cuda-13.0");
}

TEST(EnvironmentPlan, asks_for_the_real_paths_it_compares_each_once) {
    Facts facts;
    facts.setup.choice_without_variables = {"/nonexistent/usr-local-cuda", "/usr/local/cuda"};
    const Environment environment(
        Variables{{"PATH", "/nonexistent/cuda/bin:/usr/bin"}, {"CUDA_PATH", "/nonexistent/cuda"}});
    const std::vector<std::string> paths = environment_paths_compared(facts.inputs(), environment);
    const std::vector<std::string> expected{"/nonexistent/cuda-13.0",      "/nonexistent/cuda-13.0/bin",
                                            "/nonexistent/cuda",           "/nonexistent/cuda/bin",
                                            "/nonexistent/usr-local-cuda", "/nonexistent/usr-local-cuda/bin"};
    EXPECT_EQ(paths, expected) << "CUDA_PATH and PATH's first entry are among those already asked";
    const std::vector<std::string> more =
        environment_paths_compared(facts.inputs(),
                                   Environment(Variables{{"PATH", "/opt/x/bin:/usr/bin"}, {"CUDA_PATH", "/opt/y"}}));
    EXPECT_NE(std::find(more.begin(), more.end(), "/opt/x/bin"), more.end());
    EXPECT_NE(std::find(more.begin(), more.end(), "/opt/y"), more.end());
}

TEST(EnvironmentPlan, path_is_already_first_by_the_real_path_of_its_first_entry) {
    Facts facts;
    const Environment linked(Variables{{"PATH", "/nonexistent/link-to-bin:/usr/bin"}});
    EXPECT_EQ(value_of(facts.plan(linked), "PATH"), "/nonexistent/cuda/bin");
    facts.files.real_paths["/nonexistent/link-to-bin"] = "/nonexistent/cuda-13.0/bin";
    facts.files.real_paths["/nonexistent/cuda/bin"] = "/nonexistent/cuda-13.0/bin";
    const EnvScript script = facts.plan(linked);
    EXPECT_EQ(value_of(script, "PATH"), "<none>");
    EXPECT_TRUE(contains(comments(script), "PATH: /nonexistent/cuda/bin is already first")) << comments(script);
}

TEST(EnvironmentPlan, ld_library_path_follows_the_runtime_facts) {
    Facts facts;
    ToolkitRuntime& runtime = facts.files.runtime;
    runtime.library_directory = "/nonexistent/cuda/lib64";
    runtime.soname = "libcudart.so.13";
    // The toolkit has no libcudart.so.13: said, nothing set.
    EnvScript script = facts.plan(plain);
    EXPECT_EQ(value_of(script, "LD_LIBRARY_PATH"), "<none>");
    EXPECT_TRUE(contains(comments(script), "LD_LIBRARY_PATH: /nonexistent/cuda/lib64 has no libcudart.so.13"))
        << comments(script);
    // It has one and the loader finds none: its directory first.
    runtime.real_path = "/nonexistent/cuda-13.0/lib64/libcudart.so.13.0.96";
    script = facts.plan(plain);
    EXPECT_EQ(value_of(script, "LD_LIBRARY_PATH"), "/nonexistent/cuda/lib64");
    EXPECT_TRUE(contains(comments(script), "the loader finds no libcudart.so.13")) << comments(script);
    // The loader takes another copy: still first, the other named.
    runtime.found = Resolution{"libcudart.so.13", "ld.so.cache", "/nonexistent/other/libcudart.so.13",
                               "/nonexistent/other/libcudart.so.13.0.0"};
    script = facts.plan(plain);
    EXPECT_EQ(value_of(script, "LD_LIBRARY_PATH"), "/nonexistent/cuda/lib64");
    EXPECT_TRUE(contains(comments(script), "the loader would take /nonexistent/other/libcudart.so.13 (ld.so.cache)"))
        << comments(script);
    // The loader takes this one: nothing to set.
    runtime.found.real_path = runtime.real_path;
    script = facts.plan(plain);
    EXPECT_EQ(value_of(script, "LD_LIBRARY_PATH"), "<none>");
    EXPECT_TRUE(contains(comments(script), "unchanged, the loader finds this toolkit's libcudart.so.13 already"))
        << comments(script);
    // No soname known (the toolkit's version is not): no LD_LIBRARY_PATH line at all.
    runtime.soname.clear();
    EXPECT_FALSE(contains(comments(facts.plan(plain)), "LD_LIBRARY_PATH"));
}

TEST(EnvironmentPlan, no_toolkit_means_exit_1_and_no_cuda_home) {
    Facts facts;
    facts.setup.toolkits.clear();
    facts.setup.choice = {};
    facts.setup.choice_exists = false;
    const EnvScript script = facts.plan(plain);
    EXPECT_FALSE(script.toolkit_installed);
    EXPECT_EQ(value_of(script, "CUDA_HOME"), "<none>");
}

}  // namespace
}  // namespace cudacheck
