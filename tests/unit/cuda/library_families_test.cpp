// The table of CUDA libraries (cuda/library_families.cpp): sonames, install hints, their checks.
#include "cuda/library_families.hpp"
#include "engine/registry.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {
namespace {

TEST(LibraryFamilies, sonames_follow_cuda_facts_section_5) {
    const LibraryFamily& cusparse = *find_library_family("cuSPARSE");
    EXPECT_EQ(cusparse.cuda_majors_of("libcusparse.so.12"), (std::vector<int>{12, 13}));
    EXPECT_EQ(find_library_family("cuFFT")->cuda_majors_of("libcufft.so.11"), (std::vector<int>{12}));
    EXPECT_EQ(find_library_family("nvJitLink")->distinct_sonames(),
              (std::vector<std::string_view>{"libnvJitLink.so.13", "libnvJitLink.so.12"}));
    EXPECT_EQ(find_library_family("nvJitLink")->soname_for(13), "libnvJitLink.so.13");
    EXPECT_EQ(find_library_family("nvJitLink")->soname_for(11), "");
    EXPECT_EQ(find_library_family("cuBLAS")->soname_for(14), "") << "not guessed beyond the table";
    int sublibraries = 0;
    for (const LibraryFamily& family : library_families()) sublibraries += family.cudnn_sublibrary ? 1 : 0;
    EXPECT_EQ(sublibraries, 7);
}

TEST(LibraryFamilies, install_hints_name_the_package_and_the_wheel_of_the_cuda_major) {
    EXPECT_EQ(cuda_library::cublas.install_hint(13),
              "the libcublas-13-0 package (NVIDIA's repository) or `pip install nvidia-cublas`");
    EXPECT_EQ(cuda_library::cublas.install_hint(12),
              "the libcublas-12-0 package (NVIDIA's repository) or `pip install nvidia-cublas-cu12`");
    EXPECT_EQ(cuda_library::cudnn.install_hint(13), "the libcudnn9-cuda-13 package or `pip install nvidia-cudnn-cu13`");
    EXPECT_EQ(cuda_library::nvrtc.install_hint(12),
              "the cuda-nvrtc-12-0 package or `pip install nvidia-cuda-nvrtc-cu12`");
    EXPECT_EQ(find_library_family("cuSPARSE")->install_hint(13), "") << "no package named for a library no check opens";
}

TEST(LibraryFamilies, every_check_named_in_the_table_is_registered) {
    const Registry registry(builtin_checks());
    std::size_t named = 0;
    for (const LibraryFamily& family : library_families()) {
        if (family.check.empty()) continue;
        ++named;
        EXPECT_NE(registry.find(std::string(family.check)), nullptr) << family.name << " names " << family.check;
    }
    EXPECT_GE(named, 6u);
}

}  // namespace
}  // namespace cudacheck
