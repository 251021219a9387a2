// The table of CUDA libraries (cuda/library_families.cpp): the sonames of each CUDA major.
#include "cuda/library_families.hpp"

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
    EXPECT_EQ(find_library_family("nvJitLink")->distinct_sonames(), (std::vector<std::string_view>{"libnvJitLink.so.13", "libnvJitLink.so.12"}));
    EXPECT_EQ(find_library_family("nvJitLink")->soname_for(13), "libnvJitLink.so.13");
    EXPECT_EQ(find_library_family("nvJitLink")->soname_for(11), "");
    EXPECT_EQ(find_library_family("cuBLAS")->soname_for(14), "") << "not guessed beyond the table";
    int sublibraries = 0;
    for (const LibraryFamily& family : library_families()) sublibraries += family.cudnn_sublibrary ? 1 : 0;
    EXPECT_EQ(sublibraries, 7);
}

}  // namespace
}  // namespace cudacheck
