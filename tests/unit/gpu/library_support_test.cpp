// gpu/library_support.cpp: advice on the copies of a library that does not load; binding libcuda.
#include "gpu/library_support.hpp"
#include "bind/dynamic_library.hpp"
#include "bind/symbols.hpp"
#include "cuda/library_families.hpp"
#include "probes/library_locator.hpp"
#include "report/catalog.hpp"
#include "report/result_builder.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
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
         {"libcublas.so.13", "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13", "", "13.1.0.3",
          "nvidia-cublas", LibraryOrigin::pip_wheel}});
    const gpu::CopiesAdvice advice =
        gpu::advise_on_copies(facts, "cuBLAS", "libcublas.so.13", "the libcublas-13-0 package");
    EXPECT_EQ(advice.copies.size(), 2u);
    EXPECT_TRUE(
        contains(advice.remediation, "export LD_LIBRARY_PATH=/venv/lib/python3.12/site-packages/nvidia/cu13/lib:"))
        << advice.remediation;
    EXPECT_TRUE(contains(advice.remediation, "ldconfig")) << advice.remediation;
}

TEST(LibraryCopies, asks_for_the_right_major_when_only_others_exist_and_ignores_other_libraries) {
    const LibraryFacts facts = cublas_copies(
        {{"libcublas.so.12", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", "", "12.4.5.8", "", LibraryOrigin::system}});
    const gpu::CopiesAdvice advice =
        gpu::advise_on_copies(facts, "cuBLAS", "libcublas.so.13", "the libcublas-13-0 package");
    EXPECT_TRUE(contains(advice.remediation, "Only libcublas.so.12")) << advice.remediation;
    EXPECT_TRUE(contains(advice.remediation, "install the libcublas-13-0 package")) << advice.remediation;
    const gpu::CopiesAdvice none = gpu::advise_on_copies(facts, "cuFFT", "libcufft.so.12", "the libcufft-13-0 package");
    EXPECT_TRUE(none.copies.empty());
    EXPECT_TRUE(none.remediation.empty());
}

// --- binding the driver API --------------------------------------------------------------------

struct DriverModuleApi {
    int (*module_load_data)(void**, const void*) = nullptr;
    int (*get_error_name)(int, const char**) = nullptr;
};
constexpr LibrarySymbol<DriverModuleApi> driver_module_symbols[] = {
    required_symbol<&DriverModuleApi::module_load_data>("cuModuleLoadData"),
    required_symbol<&DriverModuleApi::get_error_name>("cuGetErrorName"),
};

TEST(BindLibcuda, a_missing_driver_entry_point_is_libcuda_symbol_missing) {
    // The fake libcuda answers the device queries but has no module API, like a damaged driver.
    const DynamicLibrary libcuda = DynamicLibrary::open(CUDACHECK_FAKE_DRIVER);
    ASSERT_TRUE(libcuda.ok()) << libcuda.error();
    DriverModuleApi api;
    ResultBuilder builder;
    EXPECT_FALSE(
        gpu::report_missing_libcuda_symbols(libcuda, bind_symbols(libcuda, driver_module_symbols, api), builder));
    const CheckResult result = std::move(builder).finish("nvrtc.compile", std::nullopt);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].code, code_string(Code::libcuda_symbol_missing));
    EXPECT_NE(result.findings[0].message.find("lacks cuModuleLoadData"), std::string::npos)
        << result.findings[0].message;
    EXPECT_EQ(result.findings[0].message.find("cuGetErrorName"), std::string::npos) << result.findings[0].message;
}

}  // namespace
}  // namespace cudacheck
