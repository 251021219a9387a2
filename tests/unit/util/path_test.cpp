// util/path: one directory_of for every caller (there were three, which disagreed on a path
// without a slash).
#include "util/path.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(DirectoryOf, is_what_precedes_the_last_slash) {
    EXPECT_EQ(sys::directory_of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), "/usr/lib/x86_64-linux-gnu");
    EXPECT_EQ(sys::directory_of("lib64/stubs/libcuda.so"), "lib64/stubs");
}

TEST(DirectoryOf, is_root_or_dot_when_the_path_has_no_directory_part) {
    EXPECT_EQ(sys::directory_of("/libcuda.so.1"), "/");
    EXPECT_EQ(sys::directory_of("libcuda.so.1"), ".");
}

TEST(FileNameOf, is_what_follows_the_last_slash) {
    EXPECT_EQ(sys::file_name_of("/usr/local/cuda/lib64/stubs"), "stubs");
    EXPECT_EQ(sys::file_name_of("libcudnn.so.9"), "libcudnn.so.9");
}

}  // namespace
}  // namespace cudacheck
