// cuFFT's and cuRAND's bindings: their status names and remediations, and the encoded library
// version both report (bind/cufft.hpp, bind/curand.hpp, bind/library_version.hpp).
#include "bind/cufft.hpp"
#include "bind/curand.hpp"
#include "bind/library_version.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cudacheck {
namespace {

using test::contains;

// --- status names ----------------------------------------------------------------------------

TEST(CufftResultName, names_each_status_of_the_header) {
    EXPECT_EQ(cufft_result_name(CUFFT_SUCCESS), "CUFFT_SUCCESS");
    EXPECT_EQ(cufft_result_name(CUFFT_ALLOC_FAILED), "CUFFT_ALLOC_FAILED");
    EXPECT_EQ(cufft_result_name(CUFFT_INVALID_SIZE), "CUFFT_INVALID_SIZE");
    EXPECT_EQ(cufft_result_name(CUFFT_NVSHMEM_FAILURE), "CUFFT_NVSHMEM_FAILURE");
    EXPECT_EQ(describe_status(CUFFT_ALLOC_FAILED), "CUFFT_ALLOC_FAILED (2)");
    // Every value below MAX_CUFFT_ERROR that the header defines has its own name.
    std::set<std::string_view> names;
    int known = 0;
    for (int value = 0; value < MAX_CUFFT_ERROR; ++value) {
        const std::string_view name = cufft_result_name(static_cast<cufftResult>(value));
        if (name == "unknown cufftResult") continue;
        ++known;
        EXPECT_TRUE(name.starts_with("CUFFT_")) << value;
        names.insert(name);
    }
    EXPECT_EQ(known, 18);
    EXPECT_EQ(names.size(), 18u) << "no two values share a name";
}

TEST(CufftResultName, says_unknown_for_values_outside_the_header) {
    EXPECT_EQ(cufft_result_name(static_cast<cufftResult>(0xA)), "unknown cufftResult");
    EXPECT_EQ(describe_status(static_cast<cufftResult>(77)), "unknown cufftResult (77)");
}

TEST(CurandStatusName, names_each_status_of_the_header) {
    EXPECT_EQ(curand_status_name(CURAND_STATUS_SUCCESS), "CURAND_STATUS_SUCCESS");
    EXPECT_EQ(curand_status_name(CURAND_STATUS_LAUNCH_FAILURE), "CURAND_STATUS_LAUNCH_FAILURE");
    EXPECT_EQ(curand_status_name(CURAND_STATUS_INTERNAL_ERROR), "CURAND_STATUS_INTERNAL_ERROR");
    EXPECT_EQ(describe_status(CURAND_STATUS_ALLOCATION_FAILED), "CURAND_STATUS_ALLOCATION_FAILED (102)");
    EXPECT_EQ(curand_status_name(static_cast<curandStatus_t>(150)), "unknown curandStatus_t");
}

TEST(LibraryRemediation, is_specific_to_the_status) {
    EXPECT_TRUE(contains(remediation_for(CUFFT_ALLOC_FAILED), "GPU memory"));
    EXPECT_TRUE(contains(remediation_for(CUFFT_NVJITLINK_FAILURE), "nvJitLink"));
    EXPECT_TRUE(contains(remediation_for(CURAND_STATUS_VERSION_MISMATCH), "version"));
    EXPECT_NE(remediation_for(CURAND_STATUS_ALLOCATION_FAILED), remediation_for(CURAND_STATUS_LAUNCH_FAILURE));
}

// --- versions --------------------------------------------------------------------------------

TEST(EncodedLibraryVersion, decodes_thousands_hundreds_and_units) {
    EXPECT_EQ(decode_library_version(10502).text(), "10.5.2");
    EXPECT_EQ(decode_library_version(12000).text(), "12.0.0");
    EXPECT_EQ(decode_library_version(10400).text(), "10.4.0");
    // The headers' own encodings agree.
    const LibraryVersion cufft = decode_library_version(CUFFT_VERSION);
    EXPECT_EQ(cufft.major, CUFFT_VER_MAJOR);
    EXPECT_EQ(cufft.minor, CUFFT_VER_MINOR);
    EXPECT_EQ(cufft.patch, CUFFT_VER_PATCH);
    const LibraryVersion curand = decode_library_version(CURAND_VERSION);
    EXPECT_EQ(curand.major, CURAND_VER_MAJOR);
    EXPECT_EQ(curand.minor, CURAND_VER_MINOR);
    EXPECT_EQ(curand.patch, CURAND_VER_PATCH);
}

TEST(EncodedLibraryVersion, soname_major_reads_the_number_after_so) {
    EXPECT_EQ(soname_major("libcufft.so.12"), 12);
    EXPECT_EQ(soname_major("libcurand.so.10"), 10);
    EXPECT_EQ(soname_major("libcufft.so.11.2.1.3"), 11);
    EXPECT_EQ(soname_major("libcufft.so"), -1);
    EXPECT_EQ(soname_major("libcufft.so.x"), -1);
}

TEST(EncodedLibraryVersion, describe_notes_a_major_that_differs_from_the_soname) {
    EXPECT_EQ(describe_version(12000, "libcufft.so.12"), "12.0.0 (major 12, as libcufft.so.12 implies)");
    EXPECT_EQ(describe_version(11300, "libcufft.so.12"), "11.3.0 (major 11, but libcufft.so.12 implies 12)");
}

}  // namespace
}  // namespace cudacheck
