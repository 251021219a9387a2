// Owned (bind/owned.hpp): a library handle destroyed exactly once, by value or by address.
#include "bind/owned.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace cudacheck {
namespace {

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
    {
        const Owned<int, int (*)(int*)> program(0, destroy_through_pointer);
    }  // a handle of 0 is still owned (cuFFT plans start at 0)
    EXPECT_EQ(destroyed, std::vector<int>{0});
}

}  // namespace
}  // namespace cudacheck
