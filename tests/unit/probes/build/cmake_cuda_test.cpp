// CMake's rules for a CUDA project (probes/cmake_cuda) on crafted trees: which nvcc CUDACXX or
// CMake's search gives, the toolkit above it, and the CMAKE_CUDA_ARCHITECTURES values CMake takes.
// tests/unit/checks/toolkit_build_cmake_test.cpp holds the whole prediction to the real cmake.
#include "probes/build/cmake_cuda.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

struct Tree {
    test::TempDir dir;
    std::string nvcc(const std::string& relative) const { return dir.write(relative + "/nvcc", "#!/bin/sh\n", 0755); }
};

TEST(CMakeCuda, cudacxx_is_taken_as_it_is_and_a_missing_one_named) {
    Tree tree;
    const std::string nvcc = tree.nvcc("cuda-12.4/bin");
    Environment environment;
    environment.set("PATH", tree.dir.path() + "/cuda-12.4/bin");
    environment.set("CUDACXX", nvcc + " -ccbin g++-12");
    CMakeCudaCompiler compiler = cmake_cuda_compiler(environment);
    EXPECT_EQ(compiler.path, nvcc) << "the first word is the program";
    EXPECT_EQ(compiler.rule, "CUDACXX");
    environment.set("CUDACXX", "nvcc");
    EXPECT_EQ(cmake_cuda_compiler(environment).path, nvcc) << "a name is looked up on PATH";
    environment.set("CUDACXX", tree.dir.path() + "/gone/bin/nvcc");
    compiler = cmake_cuda_compiler(environment);
    EXPECT_TRUE(compiler.path.empty());
    EXPECT_EQ(compiler.failure, "CUDACXX=" + tree.dir.path() + "/gone/bin/nvcc does not exist");
    environment.set("CUDACXX", "");
    EXPECT_EQ(cmake_cuda_compiler(environment).rule, "nvcc on PATH") << "an empty CUDACXX counts as unset";
}

TEST(CMakeCuda, without_cudacxx_cmakes_variables_then_path_then_cuda_path) {
    Tree tree;
    const std::string prefixed = tree.nvcc("prefix/bin");
    const std::string listed = tree.nvcc("programs");
    const std::string on_path = tree.nvcc("path");
    const std::string cuda_path = tree.nvcc("cuda/bin");
    Environment environment;
    environment.set("CMAKE_PREFIX_PATH", tree.dir.path() + "/nothing:" + tree.dir.path() + "/prefix");
    environment.set("CMAKE_PROGRAM_PATH", tree.dir.path() + "/programs");
    environment.set("PATH", tree.dir.path() + "/path");
    environment.set("CUDA_PATH", tree.dir.path() + "/cuda");
    CMakeCudaCompiler compiler = cmake_cuda_compiler(environment);
    EXPECT_EQ(compiler.path, prefixed);
    EXPECT_EQ(compiler.rule, "CMAKE_PREFIX_PATH");
    environment.unset("CMAKE_PREFIX_PATH");
    EXPECT_EQ(cmake_cuda_compiler(environment).path, listed);
    environment.unset("CMAKE_PROGRAM_PATH");
    EXPECT_EQ(cmake_cuda_compiler(environment).path, on_path);
    environment.set("PATH", "/nonexistent");
    compiler = cmake_cuda_compiler(environment);
    EXPECT_EQ(compiler.path, cuda_path) << "$CUDA_PATH/bin is the last fall-back";
    EXPECT_EQ(compiler.rule, "CUDA_PATH");
    environment.unset("CUDA_PATH");
    compiler = cmake_cuda_compiler(environment);
    EXPECT_TRUE(compiler.path.empty()) << "/usr/local/cuda is not CMake's to look in";
    EXPECT_EQ(compiler.failure, "CUDACXX is unset and no nvcc is on PATH or in $CUDA_PATH/bin");
}

TEST(CMakeCuda, the_toolkit_is_above_nvccs_bin_with_links_resolved) {
    Tree tree;
    (void)tree.nvcc("cuda-13.0/bin");
    (void)tree.dir.symlink(tree.dir.path() + "/cuda-13.0", "cuda");
    EXPECT_EQ(toolkit_root_of_nvcc(tree.dir.path() + "/cuda/bin/nvcc"), sys::real_path(tree.dir.path() + "/cuda-13.0"));
    EXPECT_EQ(toolkit_root_of_nvcc(tree.dir.path() + "/missing/bin/nvcc"), "");
}

TEST(CMakeCuda, architectures_values_as_cmakes_pattern_takes_them) {
    EXPECT_EQ(cmake_architectures_kind("native"), CMakeArchitecturesKind::native);
    EXPECT_EQ(cmake_architectures_kind("all"), CMakeArchitecturesKind::all);
    EXPECT_EQ(cmake_architectures_kind("all-major"), CMakeArchitecturesKind::all_major);
    for (const char* list : {"90", "75;90", "90a-real", "75-real;120-virtual", "100f", "80;"})
        EXPECT_EQ(cmake_architectures_kind(list), CMakeArchitecturesKind::list) << list;
    for (const char* refused : {"sm_90", "9.0", "8.6+PTX", "Hopper", "90-real-virtual", "native;90", "all;75", " 90"})
        EXPECT_EQ(cmake_architectures_kind(refused), CMakeArchitecturesKind::invalid) << refused;
}

}  // namespace
}  // namespace cudacheck
