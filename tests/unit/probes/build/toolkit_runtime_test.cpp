// probes/build/toolkit_runtime: a toolkit's libcudart.so.<major>, and the copy the loader takes,
// on a tree made here.
#include "probes/build/toolkit_runtime.hpp"

#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(ToolkitRuntime, the_toolkits_cudart_and_the_loaders) {
    test::TempDir tree;
    tree.write("cuda-13.0/lib64/libcudart.so.13.0.96", "");
    tree.symlink("libcudart.so.13.0.96", "cuda-13.0/lib64/libcudart.so.13");
    tree.write("other/libcudart.so.13", "");
    LoaderSearch loader;
    ToolkitRuntime runtime = toolkit_runtime(tree.path() + "/cuda-13.0", 13, loader);
    EXPECT_EQ(runtime.library_directory, tree.path() + "/cuda-13.0/lib64");
    EXPECT_EQ(runtime.soname, "libcudart.so.13");
    EXPECT_EQ(runtime.real_path, tree.path() + "/cuda-13.0/lib64/libcudart.so.13.0.96");
    EXPECT_FALSE(runtime.found.found()) << "no LD_LIBRARY_PATH, no cache, no default directory";
    loader.ld_library_path = {tree.path() + "/other"};
    runtime = toolkit_runtime(tree.path() + "/cuda-13.0", 13, loader);
    EXPECT_EQ(runtime.found.path, tree.path() + "/other/libcudart.so.13");
    loader.ld_library_path = {tree.path() + "/cuda-13.0/lib64"};
    EXPECT_EQ(toolkit_runtime(tree.path() + "/cuda-13.0", 13, loader).found.real_path, runtime.real_path);
}

TEST(ToolkitRuntime, what_is_not_there_stays_empty) {
    test::TempDir tree;
    tree.make_dir("cuda-12.8/lib64");
    const LoaderSearch loader;
    ToolkitRuntime runtime = toolkit_runtime(tree.path() + "/cuda-12.8", 12, loader);
    EXPECT_EQ(runtime.soname, "libcudart.so.12");
    EXPECT_TRUE(runtime.real_path.empty()) << "the directory has no libcudart.so.12";
    runtime = toolkit_runtime(tree.path() + "/cuda-12.8", std::nullopt, loader);
    EXPECT_TRUE(runtime.soname.empty()) << "no major, no soname";
    runtime = toolkit_runtime(tree.path() + "/none", 12, loader);
    EXPECT_EQ(runtime.library_directory, tree.path() + "/none/lib64")
        << "lib64 unless only lib exists, as development_files says";
    EXPECT_TRUE(runtime.real_path.empty());
}

}  // namespace
}  // namespace cudacheck
