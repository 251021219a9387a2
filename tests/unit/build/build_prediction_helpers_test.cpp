// build/build_prediction's small functions that fixes and `cudacheck env` name compilers and
// versions by.
#include "build/build_prediction.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(BuildPredictionHelpers, cuda_release_of_reads_major_and_minor) {
    EXPECT_EQ(cuda_release_of("13.0.88"), (CudaVersion{13, 0}));
    EXPECT_EQ(cuda_release_of("12.8"), (CudaVersion{12, 8}));
    EXPECT_FALSE(cuda_release_of("13").has_value());
    EXPECT_FALSE(cuda_release_of("").has_value());
}

TEST(BuildPredictionHelpers, the_c_and_cxx_names_of_a_compiler) {
    EXPECT_EQ(c_name_of("g++-13"), "gcc-13");
    EXPECT_EQ(c_name_of("gcc"), "gcc");
    EXPECT_EQ(c_name_of("clang++-18"), "clang-18") << "not clangcc-18: clang++ holds g++";
    EXPECT_EQ(c_name_of("clang++"), "clang");
    EXPECT_EQ(cxx_name_of("gcc-13"), "g++-13");
    EXPECT_EQ(cxx_name_of("clang-18"), "clang++-18");
    EXPECT_EQ(cxx_name_of("g++"), "g++");
    EXPECT_EQ(cxx_name_of("icx"), "icx");
}

HostCompiler compiler(std::string name, HostCompilerKind kind, int major, std::string source = "PATH") {
    return HostCompiler{name, std::move(source), "/usr/bin/" + name, "", HostCompilerVersion{kind, major, 1, 0}, {}};
}

TEST(BuildPredictionHelpers, the_alternative_is_the_newest_accepted_gcc_on_path_then_clang) {
    BuildSetup setup;
    setup.compilers = {compiler("g++-12", HostCompilerKind::gcc, 12), compiler("g++-14", HostCompilerKind::gcc, 14),
                       compiler("clang++-19", HostCompilerKind::clang, 19),
                       compiler("g++-15", HostCompilerKind::gcc, 15, "CXX")};
    ToolkitCompilerLimits toolkit;
    toolkit.compilers = {CompilerAcceptance{true, {}, {}}, CompilerAcceptance{true, {}, {}},
                         CompilerAcceptance{true, {}, {}}, CompilerAcceptance{true, {}, {}}};
    const HostCompiler* chosen = accepted_alternative(setup, toolkit);
    ASSERT_NE(chosen, nullptr);
    EXPECT_EQ(chosen->name, "g++-14") << "gcc before clang; g++-15 is CXX's, not one on PATH";
    toolkit.compilers[1].accepted = false;
    EXPECT_EQ(accepted_alternative(setup, toolkit)->name, "g++-12");
    toolkit.compilers[0].accepted = false;
    EXPECT_EQ(accepted_alternative(setup, toolkit)->name, "clang++-19");
    toolkit.compilers[2].accepted = false;
    EXPECT_EQ(accepted_alternative(setup, toolkit), nullptr);
}

TEST(BuildPredictionHelpers, compiler_text_says_when_the_version_is_unknown) {
    EXPECT_EQ(compiler_text(std::nullopt), "version unknown");
    EXPECT_EQ(compiler_text(HostCompilerVersion{HostCompilerKind::gcc, 13, 3, 0}), "gcc 13.3.0");
}

}  // namespace
}  // namespace cudacheck
