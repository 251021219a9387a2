// probes/host_compilers: reading gcc's and clang's `--version` as their vendors print it, the
// versioned names in a PATH directory, and the compilers of this machine.
#include "probes/build/host_compilers.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

constexpr const char* gnu_copyright =
    "\nCopyright (C) 2022 Free Software Foundation, Inc.\nThis is free software; see the source for copying "
    "conditions.\n";

void expect_version(const std::string& output, HostCompilerKind kind, int major, int minor, int patch) {
    const std::optional<HostCompilerVersion> version = parse_compiler_version(output);
    ASSERT_TRUE(version.has_value()) << output;
    EXPECT_EQ(version->kind, kind) << output;
    EXPECT_EQ(version->major, major) << output;
    EXPECT_EQ(version->minor, minor) << output;
    EXPECT_EQ(version->patch, patch) << output;
}

TEST(HostCompilers, reads_gcc_as_distributions_build_it) {
    expect_version(std::string("g++ (Debian 12.2.0-14+deb12u1) 12.2.0") + gnu_copyright, HostCompilerKind::gcc, 12, 2,
                   0);
    expect_version(std::string("gcc (GCC) 11.4.1 20231218 (Red Hat 11.4.1-3)") + gnu_copyright, HostCompilerKind::gcc,
                   11, 4, 1);
    expect_version(std::string("g++-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0") + gnu_copyright, HostCompilerKind::gcc, 13, 2,
                   0);
    expect_version(std::string("x86_64-conda-linux-gnu-c++ (conda-forge gcc 14.2.0-1) 14.2.0") + gnu_copyright,
                   HostCompilerKind::gcc, 14, 2, 0);
}

TEST(HostCompilers, reads_clang_whatever_its_vendor) {
    expect_version("Ubuntu clang version 18.1.3 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n", HostCompilerKind::clang, 18,
                   1, 3);
    expect_version("clang version 20.1.8\nTarget: x86_64-unknown-linux-gnu\n", HostCompilerKind::clang, 20, 1, 8);
    expect_version("Debian clang version 14.0.6\n", HostCompilerKind::clang, 14, 0, 6);
}

TEST(HostCompilers, anything_else_is_no_version) {
    EXPECT_FALSE(parse_compiler_version("Intel(R) oneAPI DPC++/C++ Compiler 2024.0.2 (2024.0.2.20231213)\n"));
    EXPECT_FALSE(parse_compiler_version("nvc++ 24.5-0 64-bit target on x86-64 Linux -tp znver3\n"));
    EXPECT_FALSE(parse_compiler_version("g++ (Debian 12.2.0-14) 12.2.0\n"))
        << "without GCC's copyright line it is not known to be gcc";
    EXPECT_FALSE(parse_compiler_version(""));
    EXPECT_FALSE(parse_compiler_version(std::string("gcc (GCC) x.y") + gnu_copyright));
}

TEST(HostCompilers, versioned_names_are_found_and_plain_ones_left) {
    EXPECT_EQ(versioned_compiler_names({"g++", "g++-13", "gcc-12", "clang++-18", "clang-format-14",
                                        "x86_64-linux-gnu-g++-12", "g++-13.bak", "gcc-ar-12", "ld"}),
              (std::vector<std::string>{"clang++-18", "g++-13", "gcc-12", "x86_64-linux-gnu-g++-12"}));
}

TEST(HostCompilers, finds_the_variables_compilers_and_the_ones_on_path) {
    test::TempDir dir;
    const std::string script = dir.write("bin/g++-99",
                                         "#!/bin/sh\necho 'g++-99 (Test 99.1.0) 99.1.0'\necho 'Copyright (C) 2099 Free "
                                         "Software Foundation, Inc.'\n",
                                         0755);
    Environment environment;
    environment.set("PATH", dir.path() + "/bin");
    environment.set("CXX", script + " -m64");
    environment.set("NVCC_CCBIN", "/nonexistent/cl");
    const std::vector<HostCompiler> compilers = collect_host_compilers(environment);
    const auto by = [&](std::string_view source, std::string_view name) -> const HostCompiler* {
        for (const HostCompiler& compiler : compilers)
            if (compiler.source == source && compiler.name == name) return &compiler;
        return nullptr;
    };
    const HostCompiler* cxx = by("CXX", script + " -m64");
    ASSERT_NE(cxx, nullptr);
    ASSERT_TRUE(cxx->version.has_value()) << cxx->version_line << cxx->failure;
    EXPECT_EQ(cxx->version->major, 99);
    const HostCompiler* on_path = by("PATH", "g++-99");
    ASSERT_NE(on_path, nullptr);
    EXPECT_EQ(on_path->version_line, "g++-99 (Test 99.1.0) 99.1.0");
    const HostCompiler* missing = by("NVCC_CCBIN", "/nonexistent/cl");
    ASSERT_NE(missing, nullptr);
    EXPECT_EQ(missing->failure, "/nonexistent/cl does not exist");
}

}  // namespace
}  // namespace cudacheck
