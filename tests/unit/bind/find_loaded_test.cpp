// DynamicLibrary::find_loaded (bind/dynamic_library.hpp): a library already in the process, by soname.
#include "bind/dynamic_library.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cudacheck {
namespace {

using test::contains;

TEST(DynamicLibraryFindLoaded, finds_a_library_by_soname_only_when_already_loaded) {
    const DynamicLibrary libc = DynamicLibrary::find_loaded("libc.so.6");  // every process has it
    ASSERT_TRUE(libc.ok()) << libc.error();
    EXPECT_TRUE(contains(libc.loaded_path(), "libc")) << libc.loaded_path();
    EXPECT_EQ(libc.loaded_path().front(), '/');
    const DynamicLibrary absent = DynamicLibrary::find_loaded("libcudacheck-never-loaded.so.1");
    EXPECT_FALSE(absent.ok());
    EXPECT_TRUE(absent.loaded_path().empty());
}

}  // namespace
}  // namespace cudacheck
