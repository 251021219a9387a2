// The ELF dynamic-section reader (util/elf_dynamic.hpp) on libraries linked with real wheels' RPATH
// and RUNPATH, on the shipped binary, and on damaged bytes; and the expansion of $ORIGIN.
#include "util/elf_dynamic.hpp"
#include "support/test_support.hpp"
#include "util/environment.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

const std::string fixtures = CUDACHECK_ELF_FIXTURES;

std::optional<ElfDynamic> read(const std::string& path) {
    Expected<ElfDynamic> dynamic = read_elf_dynamic_file(path);
    EXPECT_TRUE(dynamic.has_value()) << path << ": " << (dynamic ? "" : dynamic.error().message);
    if (!dynamic) return std::nullopt;
    return std::move(*dynamic);
}

bool needs(const ElfDynamic& dynamic, std::string_view soname) {
    return std::find(dynamic.needed.begin(), dynamic.needed.end(), soname) != dynamic.needed.end();
}

TEST(ElfDynamic, reads_the_soname_needed_libraries_and_rpath_of_a_library_linked_like_libtorch_cuda) {
    const auto dynamic = read(fixtures + "/librpath_shape.so");
    ASSERT_TRUE(dynamic);
    EXPECT_TRUE(dynamic->has_dynamic_segment);
    EXPECT_EQ(dynamic->soname, "libtorch_cuda.so");
    EXPECT_TRUE(needs(*dynamic, "libm.so.6"));
    ASSERT_TRUE(dynamic->rpath);
    EXPECT_EQ(*dynamic->rpath,
              "$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nvshmem/lib:$ORIGIN/../../nvidia/nccl/lib:"
              "$ORIGIN/../../nvidia/cusparselt/lib:$ORIGIN/../../nvidia/cu13/lib:$ORIGIN");
    EXPECT_FALSE(dynamic->runpath);
}

TEST(ElfDynamic, tells_runpath_from_rpath) {
    const auto dynamic = read(fixtures + "/librunpath_shape.so");
    ASSERT_TRUE(dynamic);
    EXPECT_EQ(dynamic->soname, "libruntime_shape.so.1");
    ASSERT_TRUE(dynamic->runpath);
    EXPECT_EQ(*dynamic->runpath, "$ORIGIN/../lib");
    EXPECT_FALSE(dynamic->rpath);
}

const std::string readelf = sys::find_in_path("readelf", Environment::from_process().get("PATH").value_or(""));

// readelf -d's view of a file: its NEEDED, SONAME, RPATH and RUNPATH lines, as "TAG value".
std::vector<std::string> readelf_view(const std::string& path) {
    const sys::CommandResult run = sys::run_command({readelf, "-d", "-W", path}, std::chrono::seconds(20));
    std::vector<std::string> lines;
    for (const std::string& line : sys::split(run.output, '\n'))
        for (const char* tag : {"(NEEDED)", "(SONAME)", "(RPATH)", "(RUNPATH)"})
            if (line.find(tag) != std::string::npos) {
                const std::size_t open = line.find('['), close = line.rfind(']');
                if (open != std::string::npos && close > open)
                    lines.push_back(std::string(tag).substr(1, std::string(tag).size() - 2) + " " +
                                    line.substr(open + 1, close - open - 1));
            }
    return lines;
}

std::vector<std::string> view(const ElfDynamic& dynamic) {
    std::vector<std::string> lines;
    for (const std::string& soname : dynamic.needed) lines.push_back("NEEDED " + soname);
    if (!dynamic.soname.empty()) lines.push_back("SONAME " + dynamic.soname);
    if (dynamic.rpath) lines.push_back("RPATH " + *dynamic.rpath);
    if (dynamic.runpath) lines.push_back("RUNPATH " + *dynamic.runpath);
    return lines;
}

TEST(ElfDynamic, equals_readelf_on_the_fixtures_the_binary_and_real_cuda_libraries) {
    if (readelf.empty()) GTEST_SKIP() << "no readelf here";
    std::vector<std::string> files{fixtures + "/librpath_shape.so", fixtures + "/librunpath_shape.so",
                                   CUDACHECK_BINARY};
    for (const char* library : {"/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13",
                                "/usr/local/cuda/lib64/libcudnn.so.9"})
        if (sys::exists(library)) files.emplace_back(library);
    for (const std::string& file : files) {
        const auto dynamic = read(file);
        ASSERT_TRUE(dynamic) << file;
        std::vector<std::string> ours = view(*dynamic);
        std::vector<std::string> theirs = readelf_view(file);
        std::sort(ours.begin(), ours.end());
        std::sort(theirs.begin(), theirs.end());
        EXPECT_EQ(ours, theirs) << file;
        EXPECT_FALSE(theirs.empty()) << file;
    }
}

TEST(ElfDynamic, finds_no_cuda_library_among_what_the_shipped_binary_needs_at_load_time) {
    // The product's promise: cudacheck starts on a machine whose CUDA libraries are missing or broken.
    const auto dynamic = read(CUDACHECK_BINARY);
    ASSERT_TRUE(dynamic);
    EXPECT_TRUE(needs(*dynamic, "libc.so.6"));
    for (const std::string& soname : dynamic->needed)
        for (const char* cuda : {"libcuda", "libcudart", "libcublas", "libcufft", "libcurand", "libcudnn", "libnvrtc",
                                 "libnccl", "libnvidia-ml"})
            EXPECT_NE(soname.rfind(cuda, 0), 0u) << soname;
}

TEST(ElfDynamic, rejects_what_is_not_a_64_bit_elf_file_with_the_reason) {
    const std::vector<std::uint8_t> text{'#', '!', '/', 'b', 'i', 'n'};
    const Expected<ElfDynamic> script = read_elf_dynamic(text);
    ASSERT_FALSE(script);
    EXPECT_EQ(script.error().message, "not an ELF file");
    std::vector<std::uint8_t> elf32(64, 0);
    elf32[0] = 0x7f, elf32[1] = 'E', elf32[2] = 'L', elf32[3] = 'F', elf32[4] = 1, elf32[5] = 1;
    const Expected<ElfDynamic> narrow = read_elf_dynamic(elf32);
    ASSERT_FALSE(narrow);
    EXPECT_EQ(narrow.error().message, "an ELF file, but not 64-bit little-endian");
    const Expected<ElfDynamic> absent = read_elf_dynamic_file(fixtures + "/absent.so");
    ASSERT_FALSE(absent);
    EXPECT_EQ(absent.error().message, "No such file or directory");
    EXPECT_EQ(absent.error().code, ENOENT);
}

TEST(ElfDynamic, never_reads_outside_a_damaged_file) {
    // Every prefix of a real library, and the library with bytes overwritten at each 97th offset:
    // each either reads or says why not, and none crashes.
    const std::string text = test::read_text(fixtures + "/librpath_shape.so");
    const std::vector<std::uint8_t> whole(text.begin(), text.end());
    ASSERT_GT(whole.size(), 1000u);
    std::size_t refused = 0;
    for (std::size_t length = 0; length < whole.size(); length += 61) {
        const std::vector<std::uint8_t> prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length));
        if (const Expected<ElfDynamic> dynamic = read_elf_dynamic(prefix); !dynamic) {
            ++refused;
            EXPECT_FALSE(dynamic.error().message.empty());
        }
    }
    EXPECT_GT(refused, 0u);
    for (std::size_t at = 0; at < whole.size(); at += 97) {
        std::vector<std::uint8_t> damaged = whole;
        for (std::size_t i = at; i < std::min(damaged.size(), at + 8); ++i) damaged[i] = 0xff;
        (void)read_elf_dynamic(damaged);
    }
}

TEST(ElfDamage, accepts_real_libraries_and_names_each_kind_of_damage) {
    const std::string text = test::read_text(fixtures + "/librpath_shape.so");
    const std::vector<std::uint8_t> whole(text.begin(), text.end());
    const std::uint16_t machine = native_elf_machine();
    EXPECT_EQ(elf_damage(whole, machine), std::nullopt);
    EXPECT_EQ(elf_file_damage(CUDACHECK_BINARY), std::nullopt) << "the shipped binary itself";
    EXPECT_EQ(elf_damage({}, machine), "empty (0 bytes): an interrupted copy or download");
    const std::vector<std::uint8_t> script{'/', '*', ' ', 'G', 'N', 'U'};
    EXPECT_EQ(elf_damage(script, machine), "not an ELF file (6 bytes of something else)");
    std::vector<std::uint8_t> elf32 = whole;
    elf32[4] = 1;
    EXPECT_EQ(elf_damage(elf32, machine), "a 32-bit or big-endian ELF file: not loadable by this 64-bit process");
    std::vector<std::uint8_t> other = whole;
    other[0x12] = 0x28, other[0x13] = 0;  // EM_ARM
    EXPECT_NE(elf_damage(other, machine).value_or("").find("built for another machine (ELF machine 40"),
              std::string::npos);
    // Cut in half, as a full disk leaves it: shorter than its own headers say.
    const std::vector<std::uint8_t> half(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() / 2));
    const std::string truncated = elf_damage(half, machine).value_or("");
    EXPECT_NE(truncated.find("truncated: its headers describe " + std::to_string(whole.size())), std::string::npos)
        << truncated;
    EXPECT_NE(elf_file_damage(fixtures + "/absent.so").value_or("").find("cannot be read: No such file or directory"),
              std::string::npos);
}

TEST(ExpandSearchPath, replaces_origin_and_normalises_each_directory) {
    const std::string origin = "/venv/lib/python3.12/site-packages/torch/lib";
    EXPECT_EQ(expand_search_path("$ORIGIN/../../nvidia/cudnn/lib:${ORIGIN}/../../nvidia/cu13/lib:$ORIGIN", origin),
              (std::vector<std::string>{"/venv/lib/python3.12/site-packages/nvidia/cudnn/lib",
                                        "/venv/lib/python3.12/site-packages/nvidia/cu13/lib", origin}));
    EXPECT_EQ(expand_search_path("/usr/local/cuda/lib64/::/opt/x", origin),
              (std::vector<std::string>{"/usr/local/cuda/lib64", "/opt/x"}));
    EXPECT_TRUE(expand_search_path("", origin).empty());
    EXPECT_EQ(expand_search_path("$LIB/x", origin), (std::vector<std::string>{"$LIB/x"}));
}

}  // namespace
}  // namespace cudacheck
