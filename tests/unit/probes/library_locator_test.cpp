// Where CUDA libraries resolve (probes/library_locator.cpp): ld.so.cache, versions, crafted trees.
#include "probes/library_locator.hpp"
#include "cuda/library_families.hpp"
#include "support/library_tree.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace cudacheck {
namespace {

using test::ld_so_cache;
using test::Machine;
using test::system_directory;

const LibraryLocation* location(const LibraryFacts& facts, std::string_view family) {
    for (const LibraryLocation& found : facts.libraries)
        if (found.family->name == family) return &found;
    return nullptr;
}

// --- /etc/ld.so.cache ----------------------------------------------------------------------------

// tests/fixtures/ldconfig/: the dev machine's /etc/ld.so.cache (Debian 12, glibc 2.36) and
// `ldconfig -p` printed from it at the same moment. The parser must find exactly what ldconfig does.
TEST(LdSoCache, parses_every_entry_ldconfig_prints_when_real_debian_12_cache) {
    const std::string bytes = test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/ldconfig/ld.so.cache-debian-12");
    const std::string printed =
        test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/ldconfig/ldconfig-p-debian-12.txt");
    const auto entries = parse_ld_so_cache(bytes);
    ASSERT_TRUE(entries.has_value());
    ASSERT_EQ(entries->size(), 649U);  // "649 libs found in cache"

    std::multiset<std::tuple<std::string, std::string, std::string>> expected;
    const std::regex line(R"(\t(\S+) \(([^)]*)\) => (\S+))");
    for (auto it = std::sregex_iterator(printed.begin(), printed.end(), line); it != std::sregex_iterator(); ++it)
        expected.emplace((*it)[1], (*it)[2], (*it)[3]);
    std::multiset<std::tuple<std::string, std::string, std::string>> parsed;
    for (const LdCacheEntry& entry : *entries) {
        EXPECT_EQ(entry.hwcap, 0U);
        // ldconfig prints FLAG_ELF_LIBC6 alone as "libc6", with FLAG_X8664_LIB64 as "libc6,x86-64",
        // FLAG_ELF (the i386 loader) as "ELF".
        parsed.emplace(entry.soname,
                       entry.flags == 0x0303   ? "libc6,x86-64"
                       : entry.flags == 0x0003 ? "libc6"
                       : entry.flags == 0x0001 ? "ELF"
                                               : "other",
                       entry.path);
    }
    EXPECT_EQ(parsed, expected);
    EXPECT_EQ(parsed.count({"libcudnn_ops.so.9", "libc6,x86-64", "/usr/local/cuda-13.0/lib/libcudnn_ops.so.9"}), 1U);
}

TEST(LdSoCache, reads_new_table_after_old_one_when_compat_format) {
    // glibc before 2.32 wrote the libc5-era table first: {"ld.so-1.7.0", nlibs} and 12-byte entries.
    std::string old_table("ld.so-1.7.0\0", 12);
    const std::uint32_t old_count = 1;
    old_table.append(reinterpret_cast<const char*>(&old_count), 4);
    old_table.append(12, '\0');
    old_table.append(4, '\0');  // to the 8-byte alignment of the new table (16 + 12 = 28 -> 32)
    const auto entries = parse_ld_so_cache(old_table + ld_so_cache({{"libcudart.so.13", "/usr/lib/libcudart.so.13"}}));
    ASSERT_TRUE(entries.has_value());
    ASSERT_EQ(entries->size(), 1U);
    EXPECT_EQ((*entries)[0].soname, "libcudart.so.13");
    EXPECT_EQ((*entries)[0].path, "/usr/lib/libcudart.so.13");
}

TEST(LdSoCache, rejects_foreign_or_truncated_bytes) {
    EXPECT_FALSE(parse_ld_so_cache("").has_value());
    EXPECT_FALSE(parse_ld_so_cache("not a cache at all, but long enough to hold a header of 48 bytes").has_value());
    const std::string cache = ld_so_cache({{"libcudart.so.13", "/usr/lib/libcudart.so.13"}});
    EXPECT_FALSE(parse_ld_so_cache(cache.substr(0, cache.size() - 5)).has_value())
        << "a path without its terminating NUL";
    EXPECT_FALSE(parse_ld_so_cache(cache.substr(0, 60)).has_value()) << "an entry cut short";
}

// --- versions ---------------------------------------------------------------------------------------

TEST(LibraryVersion, comes_from_file_name_unless_it_is_only_a_soname) {
    EXPECT_EQ(version_from_file_name("libcublas.so.13.1.0.3", *find_library_family("cuBLAS")), "13.1.0.3");
    EXPECT_EQ(version_from_file_name("libcudnn.so.9.14.0", *find_library_family("cuDNN")), "9.14.0");
    EXPECT_EQ(version_from_file_name("libcublas.so.13", *find_library_family("cuBLAS")), "");
    EXPECT_EQ(version_from_file_name("libnvrtc.so.11.2", *find_library_family("NVRTC")), "")
        << "CUDA 11's NVRTC soname has two numbers";
    EXPECT_EQ(version_from_file_name("libnvrtc.so.11.8.89", *find_library_family("NVRTC")), "11.8.89");
}

TEST(LibraryVersion, comes_from_dist_info_whose_major_matches_the_soname) {
    const std::vector<std::string> site{"nvidia",
                                        "nvidia_cublas-13.1.0.3.dist-info",
                                        "nvidia_cublas_cu12-12.4.5.8.dist-info",
                                        "nvidia_cudnn_cu12-9.1.0.70.dist-info",
                                        "nvidia_cublas_cu12.pth",
                                        "torch-2.5.1.dist-info"};
    const auto cublas12 = wheel_from_dist_info(site, "nvidia_cublas", 12);
    ASSERT_TRUE(cublas12.has_value());
    EXPECT_EQ(cublas12->version, "12.4.5.8");
    EXPECT_EQ(cublas12->package, "nvidia-cublas-cu12");
    EXPECT_EQ(wheel_from_dist_info(site, "nvidia_cublas", 13)->package, "nvidia-cublas");
    EXPECT_EQ(wheel_from_dist_info(site, "nvidia_cudnn", 9)->version, "9.1.0.70");
    EXPECT_FALSE(wheel_from_dist_info(site, "nvidia_cufft", 12).has_value());
    EXPECT_FALSE(wheel_from_dist_info(site, "", 12).has_value());
}

TEST(LibraryVersion, same_release_compares_the_components_both_have) {
    EXPECT_TRUE(same_release("9.19.0", "9.19.0.56"));
    EXPECT_TRUE(same_release("", "9.14.0"));
    EXPECT_FALSE(same_release("9.14.0", "9.19.0.56"));
    EXPECT_FALSE(same_release("12.4.5.8", "13.1.0.3"));
}

// --- resolution ---------------------------------------------------------------------------------

TEST(LibraryLocator, resolves_from_ld_library_path_entry_before_the_cache) {
    Machine machine;
    const std::string own = machine.library("opt/mylibs", "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.library(system_directory, "libcudart.so.13.0.48", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.set("LD_LIBRARY_PATH", "/nonexistent:" + own);

    const LibraryFacts facts = machine.locate();
    const LibraryLocation* cudart = location(facts, "cudart");
    ASSERT_NE(cudart, nullptr);
    ASSERT_EQ(cudart->resolutions.size(), 1U);
    EXPECT_EQ(cudart->resolutions[0].rule, "LD_LIBRARY_PATH entry " + own);
    EXPECT_EQ(cudart->resolutions[0].path, own + "/libcudart.so.13");
    EXPECT_EQ(cudart->resolutions[0].real_path, own + "/libcudart.so.13.0.96");
    ASSERT_EQ(cudart->copies.size(), 2U);
    EXPECT_EQ(cudart->copies[0].origin, LibraryOrigin::ld_library_path);
    EXPECT_EQ(cudart->copies[0].version, "13.0.96");
    EXPECT_EQ(cudart->copies[1].origin, LibraryOrigin::system);
    EXPECT_EQ(cudart->copies[1].version, "13.0.48");
    EXPECT_EQ(cudart->copies[1].path, machine.root() + "/usr/lib/x86_64-linux-gnu/libcudart.so.13");
}

TEST(LibraryLocator, resolves_from_default_directory_when_cache_entry_is_stale) {
    Machine machine;
    machine.cache(system_directory, {"libcublas.so.13"});  // removed since ldconfig ran
    machine.library("usr/lib", "libcublas.so.13.1.0.3", {"libcublas.so.13", "libcublas.so"});
    machine.tree().symlink("libcublas.so.13.9.9.9", "usr/lib/libcublasLt.so.13");  // dangling: passed over

    const LibraryFacts facts = machine.locate();
    const LibraryLocation* cublas = location(facts, "cuBLAS");
    ASSERT_NE(cublas, nullptr);
    ASSERT_EQ(cublas->resolutions.size(), 1U);
    EXPECT_EQ(cublas->resolutions[0].rule, "default directory " + machine.root() + "/usr/lib");
    ASSERT_EQ(cublas->copies.size(), 1U) << "three names, one file";
    EXPECT_EQ(cublas->copies[0].version, "13.1.0.3");
    EXPECT_EQ(location(facts, "cuBLASLt"), nullptr);
}

TEST(LibraryLocator, finds_wheel_copies_with_versions_from_dist_info) {
    Machine machine;
    const std::string wheel =
        machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu12-9.1.0.70.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");

    const LibraryFacts facts = machine.locate();
    const LibraryLocation* cudnn = location(facts, "cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_TRUE(cudnn->resolutions.empty());
    ASSERT_EQ(cudnn->copies.size(), 1U);
    EXPECT_EQ(cudnn->copies[0].origin, LibraryOrigin::pip_wheel);
    EXPECT_EQ(cudnn->copies[0].version, "9.1.0.70");
    EXPECT_EQ(cudnn->copies[0].package, "nvidia-cudnn-cu12");
    EXPECT_EQ(cudnn->copies[0].path, wheel + "/libcudnn.so.9");
    ASSERT_NE(location(facts, "cuDNN heuristic"), nullptr);
    EXPECT_EQ(location(facts, "cuDNN heuristic")->copies[0].version, "9.1.0.70");
}

}  // namespace
}  // namespace cudacheck
