// probes/build_toolkit: the toolkit torch.utils.cpp_extension would build with, and the files a
// build needs from it, on crafted trees and on this machine's /usr/local/cuda.
#include "probes/build/build_toolkit.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(BuildToolkit, follows_torchs_order_of_guesses) {
    test::TempDir dir;
    const std::string nvcc = dir.write("opt/cuda-12.8/bin/nvcc", "#!/bin/sh\n", 0755);
    (void)dir.make_dir("usr/local/cuda");
    Environment environment;
    environment.set("PATH", dir.path() + "/opt/cuda-12.8/bin");
    environment.set("CUDA_HOME", "");  // empty: as unset
    environment.set("CUDA_PATH", "/somewhere");
    EXPECT_EQ(torch_cuda_home(environment, dir.path()).rule, "CUDA_PATH");
    environment.set("CUDA_HOME", "/x/cuda");
    EXPECT_EQ(torch_cuda_home(environment, dir.path()).root, "/x/cuda");
    environment.unset("CUDA_HOME");
    environment.unset("CUDA_PATH");
    const BuildToolkitChoice from_nvcc = torch_cuda_home(environment, dir.path());
    EXPECT_EQ(from_nvcc.root, dir.path() + "/opt/cuda-12.8");
    EXPECT_EQ(from_nvcc.rule, "nvcc on PATH (" + nvcc + ")");
    environment.set("PATH", "/nonexistent");
    EXPECT_EQ(torch_cuda_home(environment, dir.path()).root, dir.path() + "/usr/local/cuda");
    test::TempDir empty;
    EXPECT_EQ(torch_cuda_home(environment, empty.path()).root, "") << "torch: CUDA was not found on the system";
}

TEST(BuildToolkit, nvcc_through_a_link_is_not_resolved) {
    // /usr/bin/nvcc (Debian's nvidia-cuda-toolkit) gives /usr, as os.path.dirname does.
    test::TempDir dir;
    const std::string real = dir.write("opt/cuda/bin/nvcc", "#!/bin/sh\n", 0755);
    (void)dir.symlink(real, "usr/bin/nvcc");
    Environment environment;
    environment.set("PATH", dir.path() + "/usr/bin");
    EXPECT_EQ(torch_cuda_home(environment, dir.path()).root, dir.path() + "/usr");
}

TEST(BuildToolkit, names_each_missing_development_file) {
    test::TempDir dir;
    (void)dir.write("cuda/bin/nvcc", "#!/bin/sh\n", 0755);
    (void)dir.write("cuda/include/cuda_runtime.h", "");
    (void)dir.write("cuda/lib/libcudart.so", "");
    const DevelopmentFiles files = development_files(dir.path() + "/cuda");
    EXPECT_EQ(files.library_directory, dir.path() + "/cuda/lib") << "lib when there is no lib64";
    EXPECT_FALSE(files.cudart_shared.empty());
    EXPECT_EQ(files.missing, (std::vector<std::string>{dir.path() + "/cuda/include/crt/host_config.h",
                                                       dir.path() + "/cuda/lib/libcudart_static.a"}));
}

TEST(BuildToolkit, the_installed_toolkit_has_what_a_build_needs) {
    if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const DevelopmentFiles files = development_files("/usr/local/cuda");
    EXPECT_TRUE(files.missing.empty()) << files.missing.front();
    EXPECT_EQ(files.library_directory, "/usr/local/cuda/lib64");
}

// The headers PyTorch's ATen/cuda/CUDAContext.h includes, on a toolkit of nvcc and cudart alone
// (what the pip nvidia-cuda-nvcc wheel or conda's cuda-nvcc gives): each missing one named, in the
// order CUDAContextLight.h includes them, and found too where CUDA_INC_PATH, CPATH or
// CPLUS_INCLUDE_PATH point (the directories a build's compilers search besides <toolkit>/include).
TEST(BuildToolkit, library_headers_pytorch_includes_are_looked_for_where_its_compilers_look) {
    test::TempDir dir;
    (void)dir.write("cuda/bin/nvcc", "#!/bin/sh\n", 0755);
    (void)dir.write("cuda/include/cuda_runtime.h", "");
    const std::string toolkit = dir.path() + "/cuda";
    Environment environment;
    EXPECT_EQ(missing_torch_library_headers(toolkit, environment),
              (std::vector<std::string>{toolkit + "/include/cusparse.h", toolkit + "/include/cublas_v2.h",
                                        toolkit + "/include/cublasLt.h", toolkit + "/include/cusolverDn.h"}));
    EXPECT_TRUE(development_files(toolkit).missing.size() == 3U) << "nvcc's own files are judged apart";
    (void)dir.write("cuda/include/cublas_v2.h", "");
    (void)dir.write("cuda/include/cublasLt.h", "");
    (void)dir.write("pip/nvidia/cusparse/include/cusparse.h", "");  // a pip wheel's include/
    (void)dir.write("inc/cusolverDn.h", "");
    environment.set("CPATH", "::" + dir.path() + "/elsewhere:" + dir.path() + "/pip/nvidia/cusparse/include");
    EXPECT_EQ(missing_torch_library_headers(toolkit, environment),
              (std::vector<std::string>{toolkit + "/include/cusolverDn.h"}));
    environment.unset("CPATH");
    environment.set("CPLUS_INCLUDE_PATH", dir.path() + "/pip/nvidia/cusparse/include");
    environment.set("CUDA_INC_PATH", dir.path() + "/inc");
    EXPECT_TRUE(missing_torch_library_headers(toolkit, environment).empty());
}

// The host compiler's own search list counts too (a distribution's libcusparse-dev puts cusparse.h
// in /usr/include); gcc's `-E -v` output as gcc 12.2 (Debian 12) prints it, and clang's.
TEST(BuildToolkit, the_host_compilers_own_include_directories_count) {
    const std::string gcc =
        "ignoring nonexistent directory \"/usr/local/include/x86_64-linux-gnu\"\n"
        "#include \"...\" search starts here:\n"
        "#include <...> search starts here:\n"
        " /usr/include/c++/12\n"
        " /usr/lib/gcc/x86_64-linux-gnu/12/include\n"
        " /usr/local/include\n"
        " /usr/include\n"
        "End of search list.\n"
        "COMPILER_PATH=/usr/lib/gcc/x86_64-linux-gnu/12/\n";
    EXPECT_EQ(parse_include_search_list(gcc),
              (std::vector<std::string>{"/usr/include/c++/12", "/usr/lib/gcc/x86_64-linux-gnu/12/include",
                                        "/usr/local/include", "/usr/include"}));
    EXPECT_EQ(parse_include_search_list(
                  "#include <...> search starts here:\n /usr/lib/llvm-14/lib/clang/14.0.6/include\n"
                  " /System/Library/Frameworks (framework directory)\nEnd of search list.\n"),
              std::vector<std::string>{"/usr/lib/llvm-14/lib/clang/14.0.6/include"});
    EXPECT_TRUE(parse_include_search_list("cc1plus: fatal error: /dev/null: No such file\n").empty());

    test::TempDir dir;
    (void)dir.write("cuda/include/cuda_runtime.h", "");
    (void)dir.write("usr/include/cusparse.h", "");
    const std::string toolkit = dir.path() + "/cuda";
    EXPECT_EQ(missing_torch_library_headers(toolkit, Environment{}, {dir.path() + "/usr/include"}),
              (std::vector<std::string>{toolkit + "/include/cublas_v2.h", toolkit + "/include/cublasLt.h",
                                        toolkit + "/include/cusolverDn.h"}));
}

// Held to the compiler: for a toolkit whose include/ has only cublas_v2.h, each header is missing
// in the prediction exactly when this machine's g++, given -I<toolkit>/include as PyTorch's builder
// gives it, cannot find it (it searches its own directories too: /usr/local/include here holds links
// to the toolkit's headers).
TEST(BuildToolkit, a_header_is_missing_exactly_when_the_real_compiler_cannot_find_it) {
    const std::string gxx = sys::find_in_path("g++", "/usr/bin:/bin");
    if (gxx.empty()) GTEST_SKIP() << "no g++";
    test::TempDir dir;
    (void)dir.write("cuda/include/cublas_v2.h", "");
    const std::string toolkit = dir.path() + "/cuda";
    const sys::CommandResult verbose =
        sys::run_command({gxx, "-E", "-v", "-x", "c++", "/dev/null"}, std::chrono::seconds(30));
    ASSERT_EQ(verbose.exit_status, 0) << verbose.output;
    const std::vector<std::string> directories = parse_include_search_list(verbose.output);
    ASSERT_FALSE(directories.empty()) << verbose.output;
    const std::vector<std::string> missing = missing_torch_library_headers(toolkit, Environment{}, directories);
    for (const char* header : torch_cuda_library_headers) {
        SCOPED_TRACE(header);
        const std::string source =
            dir.write(std::string("uses-") + header + ".cpp", std::string("#include <") + header + ">\n");
        const sys::CommandResult compiled =
            sys::run_command({gxx, "-E", "-x", "c++", "-I", toolkit + "/include", source, "-o", "/dev/null"},
                             std::chrono::seconds(30));
        const bool not_found = test::contains(compiled.output, std::string(header) + ": No such file or directory");
        const bool predicted =
            std::find(missing.begin(), missing.end(), toolkit + "/include/" + header) != missing.end();
        EXPECT_EQ(predicted, not_found) << compiled.output;
    }
}

TEST(BuildToolkit, the_installed_toolkit_has_the_headers_pytorch_includes) {
    if (!std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h"))
        GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    EXPECT_EQ(missing_torch_library_headers("/usr/local/cuda", Environment{}), std::vector<std::string>{});
}

}  // namespace
}  // namespace cudacheck
