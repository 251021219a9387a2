// The one way libraries opened at run time are bound (bind/symbols.hpp), their handles owned
// (bind/owned.hpp) and their failures reported (bind/library_failure.hpp, gpu/library_support.hpp),
// against libraries every test machine has: the C library and the fake libcuda.
#include "bind/library_failure.hpp"
#include "bind/owned.hpp"
#include "bind/symbols.hpp"
#include "cuda/library_families.hpp"
#include "engine/registry.hpp"
#include "gpu/library_support.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace cudacheck {
namespace {

// Spelled out: decltype(&::strlen) would carry glibc's attributes into the template argument.
using Length = std::size_t (*)(const char*);
struct CApi {
    Length length = nullptr;
    int (*compare)(const char*, const char*) = nullptr;
    Length renamed = nullptr;
    Length absent_optional = nullptr;
    Length absent_first = nullptr;
    Length absent_second = nullptr;
};

constexpr LibrarySymbol<CApi> c_symbols[] = {
    required_symbol<&CApi::absent_first>("cudacheck_absent_one"),
    required_symbol<&CApi::length>("strlen"),
    optional_symbol<&CApi::absent_optional>("cudacheck_absent_optional"),
    optional_symbol<&CApi::renamed>("cudacheck_new_name_of_strlen", "strlen"),
    required_symbol<&CApi::compare>("strcmp"),
    required_symbol<&CApi::absent_second>("cudacheck_absent_two"),
};

TEST(BindSymbols, names_every_missing_required_symbol_in_table_order_and_fills_the_rest) {
    const DynamicLibrary libc = DynamicLibrary::open("libc.so.6");
    ASSERT_TRUE(libc.ok()) << libc.error();
    CApi api;
    const std::vector<std::string> missing = bind_symbols(libc, c_symbols, api);
    EXPECT_EQ(missing, (std::vector<std::string>{"cudacheck_absent_one", "cudacheck_absent_two"}));
    ASSERT_NE(api.length, nullptr);
    EXPECT_EQ(api.length("four"), 4u);
    ASSERT_NE(api.compare, nullptr);
    EXPECT_EQ(api.compare("a", "a"), 0);
    EXPECT_EQ(api.absent_optional, nullptr);
    EXPECT_EQ(api.absent_first, nullptr);
}

TEST(BindSymbols, takes_the_fallback_name_when_the_newer_one_is_absent) {
    const DynamicLibrary libc = DynamicLibrary::open("libc.so.6");
    CApi api;
    (void)bind_symbols(libc, c_symbols, api);
    ASSERT_NE(api.renamed, nullptr);
    EXPECT_EQ(api.renamed("abc"), 3u);
}

TEST(BindSymbols, names_every_required_symbol_of_a_library_that_did_not_load) {
    const DynamicLibrary none = DynamicLibrary::open("libcudacheck-absent-for-test.so.1");
    CApi api;
    EXPECT_EQ(bind_symbols(none, c_symbols, api).size(), 4u);
    EXPECT_EQ(api.length, nullptr);
}

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
    EXPECT_FALSE(gpu::bind_libcuda(libcuda, driver_module_symbols, api, builder));
    const CheckResult result = std::move(builder).finish("nvrtc.compile", std::nullopt);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].code, code_string(Code::libcuda_symbol_missing));
    EXPECT_NE(result.findings[0].message.find("lacks cuModuleLoadData"), std::string::npos) << result.findings[0].message;
    EXPECT_EQ(result.findings[0].message.find("cuGetErrorName"), std::string::npos) << result.findings[0].message;
}

std::vector<int> destroyed;
int destroy_value(int handle) {
    destroyed.push_back(handle);
    return 0;
}
int destroy_through_pointer(int* handle) {
    destroyed.push_back(*handle);
    *handle = 0;
    return 0;
}

TEST(Owned, destroys_its_handle_once_however_it_was_moved) {
    destroyed.clear();
    {
        Owned<int, int (*)(int)> first(7, destroy_value);
        Owned<int, int (*)(int)> second(std::move(first));
        EXPECT_FALSE(first.owns());
        EXPECT_EQ(second.get(), 7);
        Owned<int, int (*)(int)> third;
        third = std::move(second);
        EXPECT_TRUE(destroyed.empty());
    }
    EXPECT_EQ(destroyed, std::vector<int>{7});
}

TEST(Owned, passes_the_handle_by_address_to_a_destroy_that_takes_a_pointer) {
    destroyed.clear();
    { const Owned<int, int (*)(int*)> program(0, destroy_through_pointer); }  // a handle of 0 is still owned (cuFFT plans start at 0)
    EXPECT_EQ(destroyed, std::vector<int>{0});
}

struct Tagged {
    using Status = int;
    static std::string remediation(Status status) { return "do " + std::to_string(status); }
};

TEST(LibraryFailure, names_the_call_and_the_status_and_keeps_the_status_for_the_remediation) {
    const LibraryFailure<Tagged> failure(3, "libCall(n=4)", describe_status("LIB_FAILED", 3));
    EXPECT_STREQ(failure.what(), "libCall(n=4) failed: LIB_FAILED (3)");
    EXPECT_EQ(failure.status(), 3);
    ResultBuilder builder;
    gpu::report_failure(builder, Code::library_call_failed, failure);
    const CheckResult result = std::move(builder).finish("x.y", std::nullopt);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].code, code_string(Code::library_call_failed));
    EXPECT_EQ(result.findings[0].remediation, "do 3");
}

TEST(LibraryFamilies, install_hints_name_the_package_and_the_wheel_of_the_cuda_major) {
    EXPECT_EQ(cuda_library::cublas.install_hint(13), "the libcublas-13-0 package (NVIDIA's repository) or `pip install nvidia-cublas`");
    EXPECT_EQ(cuda_library::cublas.install_hint(12), "the libcublas-12-0 package (NVIDIA's repository) or `pip install nvidia-cublas-cu12`");
    EXPECT_EQ(cuda_library::cudnn.install_hint(13), "the libcudnn9-cuda-13 package or `pip install nvidia-cudnn-cu13`");
    EXPECT_EQ(cuda_library::nvrtc.install_hint(12), "the cuda-nvrtc-12-0 package or `pip install nvidia-cuda-nvrtc-cu12`");
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
