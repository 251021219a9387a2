// The memory patterns of kernels/memtest.cuh: the arithmetic the memtest kernels run, on the host.
#include "kernels/memtest.cuh"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <set>

namespace cudacheck {
namespace {

using kernels::MemoryPattern;
using kernels::pattern_word;
using kernels::PatternSpec;

TEST(MemtestPatterns, walking_ones_set_exactly_one_bit_that_walks_with_index_and_rotation) {
    constexpr std::uint64_t base = 0x7f1200000000ULL;
    for (std::uint32_t rotation : {0u, 5u, 31u})
        for (std::uint64_t index = 0; index < 100; ++index) {
            const std::uint32_t ones = pattern_word({MemoryPattern::walking_ones, rotation, 0}, base, index);
            EXPECT_EQ(std::popcount(ones), 1);
            EXPECT_EQ(ones, 1u << ((index + rotation) % 32));
            EXPECT_EQ(pattern_word({MemoryPattern::walking_zeros, rotation, 0}, base, index), ~ones);
        }
    // Over the 32 rotations every word holds every bit once.
    std::uint32_t seen = 0;
    for (std::uint32_t rotation = 0; rotation < 32; ++rotation)
        seen |= pattern_word({MemoryPattern::walking_ones, rotation, 0}, base, 7);
    EXPECT_EQ(seen, 0xFFFFFFFFu);
}

TEST(MemtestPatterns, address_pattern_is_the_folded_address_and_unique_within_a_buffer) {
    constexpr std::uint64_t base = 0x7f1200000000ULL;
    const PatternSpec address{MemoryPattern::address, 0, 0};
    const std::uint64_t at_1000 = base + 4000;
    EXPECT_EQ(pattern_word(address, base, 1000), static_cast<std::uint32_t>(at_1000 ^ (at_1000 >> 32)));
    EXPECT_EQ(pattern_word({MemoryPattern::address_complement, 0, 0}, base, 1000), ~pattern_word(address, base, 1000));
    std::set<std::uint32_t> values;
    for (std::uint64_t index = 0; index < (1u << 20); ++index) values.insert(pattern_word(address, base, index));
    EXPECT_EQ(values.size(), 1u << 20) << "no two words of a 4 MiB buffer share a value";
}

TEST(MemtestPatterns, random_pattern_is_reproducible_seed_dependent_and_balanced) {
    const PatternSpec one{MemoryPattern::random, 0, 42};
    const PatternSpec other{MemoryPattern::random, 0, 43};
    std::uint64_t bits = 0;
    std::uint64_t same = 0;
    constexpr std::uint64_t words = 100000;
    for (std::uint64_t index = 0; index < words; ++index) {
        EXPECT_EQ(pattern_word(one, 0, index), pattern_word(one, 0x1000, index)) << "independent of the address";
        bits += static_cast<std::uint64_t>(std::popcount(pattern_word(one, 0, index)));
        same += pattern_word(one, 0, index) == pattern_word(other, 0, index);
    }
    // 3.2 million fair bits: mean 16 per word, standard error of the mean ~0.009.
    EXPECT_NEAR(static_cast<double>(bits) / words, 16.0, 0.06);
    EXPECT_LT(same, 20u) << "2.3 equal words expected by chance in 100000";
}

}  // namespace
}  // namespace cudacheck
