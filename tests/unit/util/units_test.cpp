// Unit tests of util/units, fed with the real captures under tests/fixtures/
// (tests/fixtures/README.md) and crafted directory trees where a probe reads files.

#include "cuda/cuda_facts.hpp"
#include "util/system.hpp"
#include "util/units.hpp"
#include "util/environment.hpp"
#include "cudacheck/report.hpp"
#include "probes/driver_probe.hpp"
#include "probes/host_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/toolkit_probe.hpp"
#include "probes/visible_devices.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace {

using namespace cudacheck;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// util/units

TEST(FormatBytes, uses_gib_with_one_decimal_when_h200_memory) {
    EXPECT_EQ(format_bytes(150323855360ULL), "140.0 GiB");
}

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
