// util/units: byte counts and clock rates as the reports print them.
#include "util/units.hpp"

#include <gtest/gtest.h>

namespace {

using namespace cudacheck;

// ---------------------------------------------------------------------------------------------
// util/units

TEST(FormatBytes, uses_gib_with_one_decimal_when_h200_memory) { EXPECT_EQ(format_bytes(150323855360ULL), "140.0 GiB"); }

TEST(FormatBytes, uses_plain_bytes_when_below_one_kib) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1023), "1023 B");
}

TEST(FormatBytes, switches_unit_when_reaching_1024) {
    EXPECT_EQ(format_bytes(1024), "1.0 KiB");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(1ULL << 40), "1.0 TiB");
}

TEST(FormatBytes, stays_in_tib_when_beyond_largest_unit) { EXPECT_EQ(format_bytes(1ULL << 50), "1024.0 TiB"); }

TEST(FormatKhz, gives_whole_mhz_when_h200_clocks) {
    EXPECT_EQ(format_khz_as_mhz(1980000), "1980 MHz");
    EXPECT_EQ(format_khz_as_mhz(3201000), "3201 MHz");
}

}  // namespace
