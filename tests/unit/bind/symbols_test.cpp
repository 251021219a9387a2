// Binding a library's symbol table (bind/symbols.hpp), against the C library every machine has.
#include "bind/symbols.hpp"
#include "bind/dynamic_library.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
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

}  // namespace
}  // namespace cudacheck
