// `cudacheck inspect` on hostile ELF files: a size or count beyond the file makes that
// file malformed, never an allocation, and the other files are still listed; the holes of a sparse
// file, however large, are stepped over unread. The files are sparse (no disk used).
#include "inspect/inspection.hpp"
#include "support/crafted_gpu_code.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::ByteVector;
using test::make_elf;
using test::make_fatbin;
using test::put;

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

std::uint64_t get(const ByteVector& bytes, std::size_t offset) {
    std::uint64_t value = 0;
    for (std::size_t i = 8; i-- > 0;) value = (value << 8) | bytes[offset + i];
    return value;
}

// Writes each piece at its offset and extends the file to `size`: what was never written is a hole.
// Empty when that worked, else why (a file system that cannot hold a file this large).
std::string write_sparse(const std::string& path, const std::vector<std::pair<std::uint64_t, ByteVector>>& pieces,
                         std::uint64_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return std::strerror(errno);
    std::string error;
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) error = std::string("ftruncate: ") + std::strerror(errno);
    for (const auto& [offset, bytes] : pieces)
        if (error.empty() &&
            ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) != static_cast<ssize_t>(bytes.size()))
            error = std::string("pwrite: ") + std::strerror(errno);
    ::close(fd);
    return error;
}

// A shared library whose only section, .nv_fatbin, lies at `offset` and claims `size` bytes; the
// headers are those of make_elf with the section moved.
ByteVector elf_with_fatbin_section_at(std::uint64_t offset, std::uint64_t size) {
    ByteVector elf = make_elf(3, {{".nv_fatbin", {}}});
    const std::size_t header = get(elf, 0x28) + 64;  // section 1
    put(elf, header + 24, offset, 8);
    put(elf, header + 32, size, 8);
    return elf;
}

// 32 GiB of zeros in .nv_fatbin, a hole: read a byte at a time this took minutes at 17.5 GB of RSS.
std::string zero_fatbin(const test::TempDir& dir, std::string& error) {
    const std::string path = dir.path() + "/zero-fatbin.so";
    constexpr std::uint64_t at = 1 << 20;
    error = write_sparse(path, {{0, elf_with_fatbin_section_at(at, 32 * gib)}}, at + 32 * gib);
    return path;
}

// A fatbinary for sm_80 beyond 32 GiB of zeros in the same section: the hole is skipped, the code after it is found.
std::string fatbin_after_a_hole(const test::TempDir& dir, std::string& error) {
    const std::string path = dir.path() + "/fatbin-after-hole.so";
    const ByteVector fatbin = make_fatbin({{2, 80}});
    constexpr std::uint64_t at = 1 << 20;
    error = write_sparse(path, {{0, elf_with_fatbin_section_at(at, 32 * gib + fatbin.size())}, {at + 32 * gib, fatbin}},
                         at + 32 * gib + fatbin.size());
    return path;
}

// 2^32 section headers (the count in section 0's sh_size, gABI), which fit in the 256 GiB sparse
// file: reserving a vector of them ended the command with std::bad_alloc. The name table is
// header 1, and the last header, beyond the hole, is a .nv_fatbin with code for sm_86.
std::string billions_of_sections(const test::TempDir& dir, std::string& error) {
    const std::string path = dir.path() + "/sections.so";
    constexpr std::uint64_t count = std::uint64_t{1} << 32, table = 4096;
    const ByteVector fatbin = make_fatbin({{2, 86}});
    const std::string names = std::string("\0.shstrtab\0.nv_fatbin\0", 22);
    ByteVector head = make_elf(3, {});
    head.resize(table + 2 * 64, 0);
    put(head, 0x28, table, 8);
    put(head, 0x3c, 0, 2);       // e_shnum: see section 0
    put(head, 0x3e, 0xffff, 2);  // e_shstrndx: see section 0's sh_link
    put(head, table + 32, count, 8);
    put(head, table + 40, 1, 4);
    constexpr std::uint64_t names_at = 1024, fatbin_at = 2048;
    put(head, table + 64, 1, 4);  // ".shstrtab"
    put(head, table + 64 + 4, 3, 4);  // SHT_STRTAB
    put(head, table + 64 + 24, names_at, 8);
    put(head, table + 64 + 32, names.size(), 8);
    std::memcpy(head.data() + names_at, names.data(), names.size());
    std::memcpy(head.data() + fatbin_at, fatbin.data(), fatbin.size());
    ByteVector last(64, 0);
    put(last, 0, 11, 4);  // ".nv_fatbin"
    put(last, 4, 1, 4);   // SHT_PROGBITS
    put(last, 24, fatbin_at, 8);
    put(last, 32, fatbin.size(), 8);
    const std::uint64_t last_at = table + (count - 1) * 64;
    error = write_sparse(path, {{0, head}, {last_at, last}}, last_at + 64);
    return path;
}

TEST(InspectHostileElf, an_all_zero_sparse_fatbin_section_is_skipped_without_reading_it) {
    test::TempDir dir;
    std::string error;
    const std::string path = zero_fatbin(dir, error);
    if (!error.empty()) GTEST_SKIP() << "this file system cannot hold a 32 GiB sparse file: " << error;
    rusage before{};
    ::getrusage(RUSAGE_SELF, &before);
    const auto start = std::chrono::steady_clock::now();
    const InspectedFile file = inspect_and_judge(path, {InspectTarget{8, 0, std::nullopt, {}}}, std::nullopt);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage after{};
    ::getrusage(RUSAGE_SELF, &after);
    EXPECT_FALSE(file.input_error) << file.input_error->message;
    EXPECT_TRUE(file.scan.objects.empty());
    ASSERT_EQ(file.verdicts.size(), 1u);
    EXPECT_EQ(file.verdicts[0].status, Status::skip);
    EXPECT_LT(seconds, 20.0);
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64L << 10) << "kB of RSS gained: the zeros were read";
}

TEST(InspectHostileElf, code_beyond_a_hole_and_headers_beyond_billions_of_empty_ones_are_found) {
    test::TempDir dir;
    std::string error;
    const std::string after_hole = fatbin_after_a_hole(dir, error);
    if (!error.empty()) GTEST_SKIP() << "this file system cannot hold a 32 GiB sparse file: " << error;
    const std::string sections = billions_of_sections(dir, error);
    if (!error.empty()) GTEST_SKIP() << "this file system cannot hold a 256 GiB sparse file: " << error;
    const InspectedFile code = inspect_and_judge(after_hole, {}, std::nullopt);
    EXPECT_FALSE(code.input_error) << code.input_error->message;
    ASSERT_EQ(code.scan.objects.size(), 1u);
    EXPECT_EQ(code.scan.objects[0].arch.sass_name(), "sm_80");
    const InspectedFile headers = inspect_and_judge(sections, {}, std::nullopt);
    EXPECT_FALSE(headers.input_error) << headers.input_error->message;
    ASSERT_EQ(headers.scan.objects.size(), 1u);
    EXPECT_EQ(headers.scan.objects[0].arch.sass_name(), "sm_86");
}

// Through the binary, as in the issue: the malformed files are one error row each (CC803, exit 2 as
// docs/cli.md says), and the valid and the sparse ones are still listed and judged.
TEST(InspectHostileElf, each_bad_file_is_one_error_and_the_others_are_still_listed) {
    test::TempDir dir;
    const ByteVector valid = make_elf(3, {{".nv_fatbin", make_fatbin({{2, 90}})}});
    const std::string valid_path = dir.write("valid.so", std::string(valid.begin(), valid.end()));
    const std::size_t table = get(valid, 0x28);
    ByteVector huge_section = valid;
    put(huge_section, table + 64 + 32, 1ULL << 40, 8);
    const std::string huge_section_path =
        dir.write("huge-section.so", std::string(huge_section.begin(), huge_section.end()));
    ByteVector huge_count = valid;
    put(huge_count, 0x3c, 0, 2);
    put(huge_count, table + 32, 1ULL << 31, 8);
    const std::string huge_count_path = dir.write("huge-count.so", std::string(huge_count.begin(), huge_count.end()));
    std::string error;
    const std::string zeros = zero_fatbin(dir, error);
    const std::string sections = error.empty() ? billions_of_sections(dir, error) : std::string();
    if (!error.empty()) GTEST_SKIP() << "this file system cannot hold a large sparse file: " << error;

    const test::BinaryRun run = test::run_cudacheck({"inspect", "--arch", "sm_90", "--format", "json",
                                                     huge_section_path, valid_path, huge_count_path, zeros, sections});
    EXPECT_FALSE(run.timed_out);
    EXPECT_LT(run.wall_ms, 20000.0);
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_EQ(run.output.find("internal error"), std::string::npos) << run.output;
    const std::size_t json_start = run.output.find('{');
    ASSERT_NE(json_start, std::string::npos) << run.output;
    const auto document = nlohmann::json::parse(run.output.substr(json_start), nullptr, false);
    ASSERT_FALSE(document.is_discarded()) << run.output;
    ASSERT_EQ(document["files"].size(), 5u) << run.output;
    const auto& files = document["files"];
    for (const std::size_t bad : {std::size_t{0}, std::size_t{2}}) {
        EXPECT_TRUE(files[bad]["error"].is_object()) << files[bad].dump();
        EXPECT_EQ(files[bad]["error"].value("code", ""), "CC803") << files[bad].dump();
    }
    EXPECT_NE(run.output.find("huge-section.so: section .nv_fatbin (offset"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("huge-count.so: 2147483648 section headers"), std::string::npos) << run.output;
    for (const std::size_t good : {std::size_t{1}, std::size_t{3}, std::size_t{4}})
        EXPECT_TRUE(files[good]["error"].is_null()) << files[good].dump();
    EXPECT_EQ(files[1]["verdicts"][0]["status"], "pass") << files[1].dump();
    EXPECT_EQ(files[3]["code_objects"].size(), 0u) << files[3].dump();
    EXPECT_EQ(files[3]["verdicts"][0]["status"], "skip") << files[3].dump();
    EXPECT_EQ(files[4]["code_objects"].size(), 1u) << files[4].dump();
    EXPECT_EQ(files[4]["verdicts"][0]["status"], "fail") << "sm_86 SASS does not run on sm_90: " << files[4].dump();
}

}  // namespace
}  // namespace cudacheck
