// probes/build_setup: what a CUDA build would use here. The host-compiler limits are read from
// real include/crt/host_config.h files of eight CUDA releases (fetched from NVIDIA's wheels by
// tools/install-deps.sh into tests/fixtures/downloaded/) and held to NVIDIA's published limits;
// the compilers' own predefined macros decide their version, as they decide it for nvcc.
#include "probes/build/build_setup.hpp"
#include "support/fixtures.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;

std::optional<std::string> downloaded_host_config(const std::string& version) {
    for (const char* prefix : {"nvidia/cuda_nvcc", "nvidia/cu13"}) {
        const std::string path =
            test::fixture_path("downloaded/host_config/" + version + "/" + prefix + "/include/crt/host_config.h");
        if (std::filesystem::exists(path)) return test::read_text(path);
    }
    return std::nullopt;
}

// NVIDIA's limits per release (the CUDA Installation Guide for Linux, "Supported host compilers",
// of each release): the newest gcc and clang majors its nvcc accepts.
struct PublishedLimit {
    const char* version;
    int gcc;
    int clang;
};
constexpr PublishedLimit published_limits[] = {
    {"11.8.89", 11, 14}, {"12.1.105", 12, 15}, {"12.4.131", 13, 17}, {"12.6.85", 13, 18},
    {"12.8.93", 14, 19}, {"12.9.86", 14, 19},  {"13.0.88", 15, 20},
};

TEST(BuildSetup, real_host_config_files_give_nvidias_published_limits) {
    int read = 0;
    for (const PublishedLimit& limit : published_limits) {
        const std::optional<std::string> header = downloaded_host_config(limit.version);
        if (!header) continue;
        ++read;
        EXPECT_EQ(newest_accepted_major(*header, HostCompilerKind::gcc, "x86_64"), limit.gcc) << limit.version;
        EXPECT_EQ(newest_accepted_major(*header, HostCompilerKind::clang, "x86_64"), limit.clang) << limit.version;
        const CompilerAcceptance newer =
            judge_host_compiler(*header, {HostCompilerKind::gcc, limit.gcc + 1, 1, 0}, "x86_64", false);
        EXPECT_FALSE(newer.accepted) << limit.version;
        EXPECT_TRUE(contains(newer.error, "unsupported GNU version! gcc versions later than " +
                                              std::to_string(limit.gcc) + " are not supported!"))
            << limit.version << ": " << newer.error;
        EXPECT_TRUE(judge_host_compiler(*header, {HostCompilerKind::gcc, limit.gcc + 1, 1, 0}, "x86_64", /*allow=*/true)
                        .accepted)
            << limit.version << ": -allow-unsupported-compiler defines __NV_NO_HOST_COMPILER_CHECK";
        EXPECT_TRUE(contains(
            judge_host_compiler(*header, {HostCompilerKind::clang, limit.clang + 1, 0, 0}, "x86_64", false).error,
            "unsupported clang version!"))
            << limit.version;
    }
    if (read == 0) GTEST_SKIP() << "no downloaded host_config.h (tools/install-deps.sh fetches them from PyPI)";
    EXPECT_EQ(read, static_cast<int>(std::size(published_limits))) << "some releases were not fetched";
}

TEST(BuildSetup, a_newer_release_reads_too) {
    const std::optional<std::string> header = downloaded_host_config("13.1.80");
    if (!header) GTEST_SKIP() << "no downloaded host_config.h of 13.1";
    const std::optional<int> gcc = newest_accepted_major(*header, HostCompilerKind::gcc, "x86_64");
    ASSERT_TRUE(gcc.has_value());
    EXPECT_GE(*gcc, 15) << "13.1 accepts at least what 13.0 does";
}

TEST(BuildSetup, predefined_macros_are_what_the_compiler_says) {
    const MacroValues macros = parse_predefined_macros(
        "#define __GNUC__ 12\n#define __GNUC_MINOR__ 2\n#define __GNUC_PATCHLEVEL__ 0\n#define __cplusplus "
        "201703L\n#define __linux__ 1\n"
        "#define __VERSION__ \"12.2.0\"\n#define __has_include(STR) __has_include__(STR)\n#define __unix\n#define "
        "__SIZE_MAX__ 0xffffffffffffffffUL\n");
    EXPECT_EQ(macros.at("__GNUC__"), 12);
    EXPECT_EQ(macros.at("__cplusplus"), 201703);
    EXPECT_EQ(macros.at("__unix"), 1);
    EXPECT_FALSE(macros.contains("__VERSION__")) << "not an integer";
    EXPECT_FALSE(macros.contains("__has_include")) << "function-like";
    const std::optional<HostCompilerVersion> gcc = version_from_macros(macros);
    ASSERT_TRUE(gcc.has_value());
    EXPECT_EQ(gcc->kind, HostCompilerKind::gcc);
    EXPECT_EQ(gcc->major, 12);
    EXPECT_EQ(gcc->minor, 2);
    // clang also claims GNU 4.2.1: its own macros decide.
    const std::optional<HostCompilerVersion> clang = version_from_macros(
        parse_predefined_macros("#define __GNUC__ 4\n#define __clang_major__ 18\n#define __clang_minor__ 1\n"));
    ASSERT_TRUE(clang.has_value());
    EXPECT_EQ(clang->kind, HostCompilerKind::clang);
    EXPECT_EQ(clang->major, 18);
    EXPECT_FALSE(version_from_macros(parse_predefined_macros("#define __INTEL_LLVM_COMPILER 20250000\n")).has_value());
}

TEST(BuildSetup, the_local_gcc_reports_the_same_version_both_ways) {
    Environment environment = Environment::from_process();
    if (sys::find_in_path("gcc", environment.get("PATH").value_or("")).empty()) GTEST_SKIP() << "no gcc on PATH";
    const std::vector<HostCompiler> compilers = collect_host_compilers(environment);
    const auto gcc =
        std::find_if(compilers.begin(), compilers.end(), [](const HostCompiler& c) { return c.name == "gcc"; });
    ASSERT_NE(gcc, compilers.end());
    ASSERT_TRUE(gcc->version.has_value()) << gcc->version_line;
    ToolkitFacts none;
    const BuildSetup setup = collect_build_setup(environment, none);
    ASSERT_TRUE(setup.nvcc_host_compiler.version.has_value()) << setup.nvcc_host_compiler.failure;
    EXPECT_EQ(setup.nvcc_host_compiler.version->major, gcc->version->major) << "-dM and --version agree";
    EXPECT_EQ(setup.nvcc_host_compiler.version->minor, gcc->version->minor);
}

TEST(BuildSetup, nvcc_flags_in_the_environment_choose_the_compiler) {
    Environment environment;
    environment.set("NVCC_PREPEND_FLAGS", "  -ccbin /opt/gcc-12/bin/g++  -O2 ");
    environment.set("NVCC_APPEND_FLAGS", "-allow-unsupported-compiler");
    NvccFlagSettings settings = nvcc_flag_settings(environment);
    EXPECT_EQ(settings.ccbin, "/opt/gcc-12/bin/g++");
    EXPECT_EQ(settings.ccbin_variable, "NVCC_PREPEND_FLAGS");
    EXPECT_TRUE(settings.allow_unsupported_compiler);
    environment.set("NVCC_APPEND_FLAGS", "--compiler-bindir=/usr/bin/clang++");
    settings = nvcc_flag_settings(environment);
    EXPECT_EQ(settings.ccbin, "/usr/bin/clang++") << "the appended flags come last: the last -ccbin wins";
    EXPECT_FALSE(settings.allow_unsupported_compiler);
}

// A crafted toolkit and compilers (scripts answering as gcc 16 and gcc 13 do), gathered for real.
TEST(BuildSetup, gathers_a_crafted_toolkit_and_its_compilers) {
    const std::optional<std::string> header = downloaded_host_config("13.0.88");
    if (!header) GTEST_SKIP() << "no downloaded host_config.h of 13.0";
    test::TempDir dir;
    const std::string toolkit = dir.path() + "/cuda-13.0";
    (void)dir.write("cuda-13.0/bin/nvcc",
                    "#!/bin/sh\nif [ \"$1\" = --list-gpu-arch ]; then printf "
                    "'compute_75\\ncompute_80\\ncompute_90\\n'; exit 0; fi\ncat '" +
                        test::fixture_path("nvcc/nvcc-13.0.txt") + "'\n",
                    0755);
    (void)dir.write("cuda-13.0/include/cuda_runtime.h", "");
    (void)dir.write("cuda-13.0/include/crt/host_config.h", *header);
    (void)dir.write("cuda-13.0/lib64/libcudart.so", "");
    (void)dir.write("cuda-13.0/lib64/libcudart_static.a", "");
    const auto compiler = [&](const std::string& name, int major) {
        (void)dir.write("bin/" + name,
                        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'gcc (GCC) " + std::to_string(major) +
                            ".1.0'; echo 'Copyright (C) 2025 Free Software Foundation, Inc.'; exit 0; fi\nprintf "
                            "'#define __GNUC__ " +
                            std::to_string(major) + "\\n#define __GNUC_MINOR__ 1\\n#define __GNUC_PATCHLEVEL__ 0\\n'\n",
                        0755);
    };
    compiler("gcc", 16);
    compiler("g++", 16);
    compiler("g++-13", 13);
    (void)dir.write("bin/ninja", "#!/bin/sh\necho 1.13.1\n", 0755);
    Environment environment;
    environment.set("PATH", dir.path() + "/bin:" + toolkit + "/bin");
    ToolkitFacts toolkits;
    const BuildSetup setup = collect_build_setup(environment, toolkits, dir.path());
    EXPECT_EQ(setup.choice.root, toolkit);
    EXPECT_TRUE(setup.choice_exists);
    EXPECT_TRUE(setup.files.missing.empty());
    ASSERT_TRUE(setup.nvcc_version.has_value()) << setup.nvcc_failure;
    EXPECT_EQ(setup.nvcc_version->full, "13.0.88");
    EXPECT_EQ(setup.nvcc_architectures, (std::vector<std::string>{"compute_75", "compute_80", "compute_90"}));
    EXPECT_EQ(setup.ninja, dir.path() + "/bin/ninja");
    EXPECT_EQ(setup.ninja_version, "1.13.1");
    EXPECT_EQ(setup.nvcc_host_compiler.path, dir.path() + "/bin/gcc");
    ASSERT_TRUE(setup.nvcc_host_compiler.version.has_value()) << setup.nvcc_host_compiler.failure;
    EXPECT_EQ(setup.nvcc_host_compiler.version->major, 16);
    ASSERT_EQ(setup.toolkits.size(), 1U);
    const ToolkitCompilerLimits& limits = setup.toolkits.front();
    EXPECT_EQ(limits.gcc_newest, 15);
    EXPECT_FALSE(limits.nvcc_pick.accepted);
    EXPECT_TRUE(contains(limits.nvcc_pick.error, "gcc versions later than 15 are not supported"));
    ASSERT_EQ(limits.compilers.size(), setup.compilers.size());
    bool thirteen_accepted = false;
    for (std::size_t i = 0; i < setup.compilers.size(); ++i)
        if (setup.compilers[i].name == "g++-13") thirteen_accepted = limits.compilers[i].accepted;
    EXPECT_TRUE(thirteen_accepted);
    // CC set: PyTorch's -ccbin $CC is asked too; a missing one is named.
    environment.set("CC", "gcc-99");
    const BuildSetup with_cc = collect_build_setup(environment, toolkits, dir.path());
    ASSERT_TRUE(with_cc.torch_host_compiler.has_value());
    EXPECT_TRUE(with_cc.torch_host_compiler->path.empty());
    EXPECT_EQ(with_cc.torch_host_compiler->failure, "gcc-99 is not on PATH");
}

TEST(BuildSetup, a_missing_cuda_home_is_not_gathered_from) {
    test::TempDir dir;
    Environment environment;
    environment.set("PATH", "/nonexistent");
    environment.set("CUDA_HOME", dir.path() + "/gone");
    const BuildSetup setup = collect_build_setup(environment, ToolkitFacts{}, dir.path());
    EXPECT_EQ(setup.choice.rule, "CUDA_HOME");
    EXPECT_FALSE(setup.choice_exists);
    EXPECT_TRUE(setup.toolkits.empty());
    EXPECT_TRUE(setup.choice_without_variables.root.empty());
    EXPECT_FALSE(setup.nvcc_host_compiler.failure.empty()) << "no gcc on this PATH";
}

// CMake's variables gathered for real: CUDACXX naming another toolkit than PyTorch's
// rule gives is asked and judged on its own, and CUDAHOSTCXX is asked as nvcc's picks are.
TEST(BuildSetup, gathers_what_a_cmake_project_would_use) {
    const std::optional<std::string> thirteen = downloaded_host_config("13.0.88");
    const std::optional<std::string> twelve = downloaded_host_config("12.4.131");
    if (!thirteen || !twelve) GTEST_SKIP() << "no downloaded host_config.h of 13.0 and 12.4";
    test::TempDir dir;
    const auto toolkit = [&](const std::string& name, const std::string& version_fixture, const std::string& header) {
        (void)dir.write(name + "/bin/nvcc",
                        "#!/bin/sh\nif [ \"$1\" = --list-gpu-arch ]; then printf 'compute_50\\ncompute_90\\n'; exit 0; "
                        "fi\ncat '" +
                            test::fixture_path(version_fixture) + "'\n",
                        0755);
        (void)dir.write(name + "/include/cuda_runtime.h", "");
        (void)dir.write(name + "/include/crt/host_config.h", header);
        (void)dir.write(name + "/lib64/libcudart.so", "");
        (void)dir.write(name + "/lib64/libcudart_static.a", "");
    };
    toolkit("cuda-13.0", "nvcc/nvcc-13.0.txt", *thirteen);
    toolkit("cuda-12.4", "nvcc/nvcc-12.4.txt", *twelve);
    for (const auto& [name, major] : {std::pair{"gcc", 14}, std::pair{"g++-13", 13}})
        (void)dir.write(std::string("bin/") + name,
                        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'gcc (GCC) " + std::to_string(major) +
                            ".1.0'; echo 'Copyright (C) 2025 Free Software Foundation, Inc.'; exit 0; fi\nprintf "
                            "'#define __GNUC__ " +
                            std::to_string(major) + "\\n#define __GNUC_MINOR__ 1\\n#define __GNUC_PATCHLEVEL__ 0\\n'\n",
                        0755);
    Environment environment;
    environment.set("PATH", dir.path() + "/bin:" + dir.path() + "/cuda-13.0/bin");
    environment.set("CUDACXX", dir.path() + "/cuda-12.4/bin/nvcc");
    environment.set("CUDAHOSTCXX", "g++-13");
    environment.set("CUDAARCHS", "90");
    const BuildSetup setup = collect_build_setup(environment, ToolkitFacts{}, dir.path());
    const CMakeCudaSetup& cmake = setup.cmake;
    EXPECT_EQ(cmake.compiler.rule, "CUDACXX");
    EXPECT_EQ(cmake.toolkit_root, sys::real_path(dir.path() + "/cuda-12.4"));
    EXPECT_FALSE(cmake.same_toolkit) << "PyTorch's rule takes the nvcc on PATH, 13.0";
    EXPECT_EQ(cmake.compiler_without_cudacxx.path, dir.path() + "/cuda-13.0/bin/nvcc");
    ASSERT_TRUE(cmake.nvcc.version.has_value()) << cmake.nvcc.failure;
    EXPECT_EQ(cmake.nvcc.version->full, "12.4.131");
    EXPECT_EQ(cmake.nvcc.architectures, (std::vector<std::string>{"compute_50", "compute_90"}));
    EXPECT_EQ(cmake.architectures, "90");
    ASSERT_TRUE(cmake.toolkit.has_value());
    const ToolkitCompilerLimits& limits = setup.toolkits.at(*cmake.toolkit);
    EXPECT_EQ(limits.version, "12.4.131");
    EXPECT_EQ(limits.gcc_newest, 13);
    ASSERT_TRUE(cmake.host_compiler.has_value());
    EXPECT_EQ(cmake.host_compiler->path, dir.path() + "/bin/g++-13");
    EXPECT_TRUE(limits.cmake_pick.accepted) << "12.4 takes gcc 13 (CUDAHOSTCXX)";
    EXPECT_FALSE(limits.nvcc_pick.accepted) << "but not nvcc's own gcc 14";
    EXPECT_TRUE(setup.toolkits.front().nvcc_pick.accepted) << "which 13.0 takes";
}

}  // namespace
}  // namespace cudacheck
