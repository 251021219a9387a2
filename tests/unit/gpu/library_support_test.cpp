// gpu/library_support.cpp: advice on the copies of a library that does not load.
#include "cuda/library_families.hpp"
#include "gpu/library_support.hpp"
#include "probes/library_locator.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;

// A library that cannot be loaded: what the copies elsewhere mean for the fix (CC505)

LibraryFacts cublas_copies(std::vector<LibraryCopy> copies) {
    LibraryFacts facts;
    LibraryLocation location;
    location.family = find_library_family("cuBLAS");
    location.copies = std::move(copies);
    facts.libraries.push_back(location);
    return facts;
}

TEST(LibraryCopies, names_the_directory_to_add_when_a_copy_of_the_soname_exists) {
    const LibraryFacts facts = cublas_copies(
        {{"libcublas.so.12", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", "", "12.4.5.8", "", LibraryOrigin::system},
         {"libcublas.so.13", "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13", "", "13.1.0.3", "nvidia-cublas", LibraryOrigin::pip_wheel}});
    const gpu::CopiesAdvice advice = gpu::advise_on_copies(facts, "cuBLAS", "libcublas.so.13", "the libcublas-13-0 package");
    EXPECT_EQ(advice.copies.size(), 2u);
    EXPECT_TRUE(contains(advice.remediation, "export LD_LIBRARY_PATH=/venv/lib/python3.12/site-packages/nvidia/cu13/lib:")) << advice.remediation;
    EXPECT_TRUE(contains(advice.remediation, "ldconfig")) << advice.remediation;
}

TEST(LibraryCopies, asks_for_the_right_major_when_only_others_exist_and_ignores_other_libraries) {
    const LibraryFacts facts = cublas_copies({{"libcublas.so.12", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", "", "12.4.5.8", "", LibraryOrigin::system}});
    const gpu::CopiesAdvice advice = gpu::advise_on_copies(facts, "cuBLAS", "libcublas.so.13", "the libcublas-13-0 package");
    EXPECT_TRUE(contains(advice.remediation, "Only libcublas.so.12")) << advice.remediation;
    EXPECT_TRUE(contains(advice.remediation, "install the libcublas-13-0 package")) << advice.remediation;
    const gpu::CopiesAdvice none = gpu::advise_on_copies(facts, "cuFFT", "libcufft.so.12", "the libcufft-13-0 package");
    EXPECT_TRUE(none.copies.empty());
    EXPECT_TRUE(none.remediation.empty());
}

}  // namespace
}  // namespace cudacheck
