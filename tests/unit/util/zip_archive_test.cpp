// util/zip_archive.hpp held to Python's zipfile: archives the test makes (tests/support/zip_fixtures.py:
// Python's own writer where it can write them, a writer of APPNOTE.TXT's records for zip64
// directories, cp437 names and damaged or hostile archives) and NVIDIA's published wheels that
// tools/deps/test.sh downloads into tests/fixtures/downloaded/wheels/. For every archive Python
// reads, the same members with the same names, sizes, CRC-32s, offsets and bytes; for every one it
// refuses, a refusal; where cudacheck is stricter (overlapping members, a member that inflates to
// fewer bytes than it declares), the reason. A deflated member read at random, forward and back,
// gives Python's bytes, and a member of more than 100 MiB is read in a few MiB.
#include "util/zip_archive.hpp"

#include "support/fixtures.hpp"
#include "support/test_support.hpp"
#include "util/elf_dynamic.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <malloc.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <unistd.h>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string fixture_script = CUDACHECK_SOURCE_DIR "/tests/support/zip_fixtures.py";

std::string from_hex(const std::string& hex) {
    std::string bytes;
    for (std::size_t at = 0; at + 1 < hex.size(); at += 2)
        bytes.push_back(static_cast<char>(std::stoi(hex.substr(at, 2), nullptr, 16)));
    return bytes;
}

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether the file holds `needle`, read in 16 MiB pieces (the test program is hundreds of MB).
bool file_holds(const std::string& path, std::string_view needle) {
    std::ifstream in(path, std::ios::binary);
    std::string window;
    std::vector<char> piece(std::size_t{16} << 20);
    while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0) {
        window.append(piece.data(), static_cast<std::size_t>(in.gcount()));
        if (window.find(needle) != std::string::npos) return true;
        window.erase(0, window.size() - std::min(window.size(), needle.size()));
    }
    return false;
}

// The archives of `zip_fixtures.py make`, made once for the whole suite, and Python's reading of them.
struct Fixtures {
    test::TempDir dir;
    json manifest;
    std::string failure;
};

const Fixtures& fixtures() {
    static Fixtures* made = [] {
        auto* fixtures = new Fixtures();
        const sys::CommandResult result =
            sys::run_command({CUDACHECK_PYTHON, fixture_script, "make", fixtures->dir.path()},
                             std::chrono::seconds(300));
        if (result.exit_status != 0) {
            fixtures->failure = "zip_fixtures.py make failed: " + result.error + result.output;
        } else {
            std::ifstream in(fixtures->dir.path() + "/manifest.json");
            fixtures->manifest = json::parse(in);
        }
        return fixtures;
    }();
    return *made;
}

std::string archive_path(const std::string& name) { return fixtures().dir.path() + "/" + name; }

ZipArchive open_ok(const std::string& path) {
    Expected<ZipArchive> archive = ZipArchive::open(path);
    if (!archive) throw std::runtime_error(path + ": " + archive.error().message);
    return std::move(*archive);
}

// A member whole, through open_member, in reads of `piece` bytes.
Expected<std::string> read_through_source(const ZipArchive& archive, const ZipMember& member,
                                          std::size_t piece = 65536) {
    Expected<std::unique_ptr<ZipMemberSource>> source = archive.open_member(member);
    if (!source) return source.error();
    std::string bytes;
    std::uint64_t offset = 0;
    do {
        const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(piece, member.uncompressed_size - offset));
        Expected<std::span<const std::uint8_t>> read = (*source)->read(offset, length);
        if (!read) return read.error();
        if (read->size() != length)
            return Error{"a read of " + std::to_string(length) + " gave " + std::to_string(read->size())};
        bytes.append(reinterpret_cast<const char*>(read->data()), read->size());
        offset += length;
    } while (offset < member.uncompressed_size);
    return bytes;
}

// Every member as Python's zipfile reads it (`reading`, a manifest entry), member by member.
void expect_same_as_python(const std::string& label, const ZipArchive& archive, const json& reading) {
    const json& expected = reading.at("members");
    ASSERT_EQ(archive.members().size(), expected.size()) << label;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const ZipMember& member = archive.members()[i];
        const json& python = expected[i];
        const std::string where = label + " member " + std::to_string(i) + " " + sys::printable(member.name);
        EXPECT_EQ(member.name, from_hex(python.at("name_hex").get<std::string>())) << where;
        EXPECT_EQ(member.uncompressed_size, python.at("size").get<std::uint64_t>()) << where;
        EXPECT_EQ(member.compressed_size, python.at("compressed_size").get<std::uint64_t>()) << where;
        EXPECT_EQ(member.crc32, python.at("crc32").get<std::uint32_t>()) << where;
        EXPECT_EQ(member.method, python.at("method").get<std::uint16_t>()) << where;
        EXPECT_EQ(member.local_header_offset, python.at("offset").get<std::uint64_t>()) << where;
        const std::string bytes = python.contains("data_hex") ? from_hex(python["data_hex"].get<std::string>())
                                                              : file_bytes(python.at("data").get<std::string>());
        const Expected<std::string> whole = archive.read_member(member, std::size_t{1} << 30);
        ASSERT_TRUE(whole) << where << ": " << whole.error().message;
        EXPECT_TRUE(*whole == bytes) << where << ": read_member differs from Python's bytes";
        if (member.uncompressed_size > 64) {  // and in odd-sized pieces through the cursor
            const Expected<std::string> pieces = read_through_source(archive, member, 4093);
            ASSERT_TRUE(pieces) << where << ": " << pieces.error().message;
            EXPECT_TRUE(*pieces == bytes) << where << ": reading in pieces differs from Python's bytes";
        }
    }
}

// Where each damaged or hostile archive is refused, and why: at open, or when its member is read.
struct Refusal {
    bool at_open;
    std::string reason;
};
const std::map<std::string, Refusal>& refusals() {
    static const std::map<std::string, Refusal> expected{
        {"truncated.zip", {true, "no end of central directory record"}},
        {"empty-file.zip", {true, "not a zip archive"}},
        {"not-a-zip.zip", {true, "not a zip archive"}},
        // Python's zipfile reads these two (3.11): the "better zip bomb" shape.
        {"overlap-full.zip", {true, "members 'kernel' and 'kernel' overlap"}},
        {"overlap-partial.zip", {true, "members 'outer' and 'inner' overlap"}},
        {"directory-outside.zip", {true, "runs past where its end record begins"}},
        {"huge-count.zip", {true, "its end record says 65000 members, more than its"}},
        {"huge-count-zip64.zip", {true, "more than the 400000 cudacheck reads"}},
        {"nul-in-name.zip", {true, "has a NUL byte in its name"}},
        {"member-past-directory.zip", {true, "runs past the start of the central directory"}},
        {"bad-crc.zip", {false, "its data's CRC-32 is"}},
        {"bad-crc-stored.zip", {false, "its data's CRC-32 is"}},
        {"encrypted.zip", {false, "encrypted"}},
        {"inflates-more.zip", {false, "inflates to more than the 9000 bytes its entry declares"}},
        // Python returns the 10,000 bytes there are and no error.
        {"inflates-less.zip", {false, "inflates to 10000 bytes, fewer than the 11000 its entry declares"}},
        {"bad-deflate.zip", {false, "damaged"}},
        {"truncated-deflate.zip", {false, "ends before its deflate stream does"}},
        {"local-name-differs.zip", {false, "its local header names it 'METADATX'"}},
        {"local-method-differs.zip", {false, "its local header names method 8, the central directory 0"}},
        {"ratio-bomb.zip", {false, "more than deflate's 1032:1"}},
        {"method-99.zip", {false, "AES encryption (99)"}},
        {"bzip2.zip", {false, "compressed with bzip2 (12); cudacheck reads stored (0) and deflated (8) members"}},
        {"lzma.zip", {false, "compressed with LZMA (14)"}},
    };
    return expected;
}

// The first error reading every member of the archive gives, or "".
std::string first_read_error(const ZipArchive& archive) {
    for (const ZipMember& member : archive.members()) {
        const Expected<std::string> bytes = read_through_source(archive, member);
        if (!bytes) return bytes.error().message;
    }
    return "";
}

TEST(ZipArchive, reads_every_archive_python_reads_and_refuses_the_damaged_ones_with_a_reason) {
    ASSERT_EQ(fixtures().failure, "");
    std::size_t compared = 0;
    std::size_t refused = 0;
    for (const auto& [name, reading] : fixtures().manifest.items()) {
        SCOPED_TRACE(name);
        Expected<ZipArchive> archive = ZipArchive::open(archive_path(name));
        const auto refusal = refusals().find(name);
        if (refusal != refusals().end()) {
            const std::string error = !archive ? archive.error().message : first_read_error(*archive);
            EXPECT_EQ(!archive, refusal->second.at_open) << (archive ? "opened" : error);
            EXPECT_TRUE(test::contains(error, refusal->second.reason)) << "error: " << error;
            EXPECT_EQ(error.find('\n'), std::string::npos) << error;
            ++refused;
            continue;
        }
        ASSERT_FALSE(reading.contains("python_error"))
            << "Python refuses it (" << reading["python_error"] << ") and cudacheck has no expectation";
        ASSERT_TRUE(archive) << archive.error().message;
        expect_same_as_python(name, *archive, reading);
        ++compared;
    }
    // Every archive Python refuses is one cudacheck refuses too.
    for (const auto& [name, reading] : fixtures().manifest.items()) {
        if (reading.contains("python_error")) {
            EXPECT_TRUE(refusals().count(name)) << name << ": " << reading["python_error"];
        }
    }
    EXPECT_EQ(refused, refusals().size());
    EXPECT_GE(compared,
              9u);  // stored, deflated, forced-zip64, names, zip64-end, zip64-directory, cp437-names, comment, prefixed
}

TEST(ZipArchive, zip64_records_odd_names_and_bytes_before_the_archive_are_read) {
    ASSERT_EQ(fixtures().failure, "");
    const ZipArchive zip64_end = open_ok(archive_path("zip64-end.zip"));  // Python's zip64 end record and locator
    EXPECT_EQ(zip64_end.members().size(), 5u);
    ASSERT_NE(zip64_end.find("m/4"), nullptr);
    EXPECT_EQ(*zip64_end.read_member(*zip64_end.find("m/4"), 100),
              "member 4\nmember 4\nmember 4\nmember 4\nmember 4\n");

    const ZipArchive zip64 =
        open_ok(archive_path("zip64-directory.zip"));  // every central size deferred to the extra field
    ASSERT_EQ(zip64.members().size(), 3u);
    EXPECT_EQ(zip64.members()[1].uncompressed_size, 5000u);
    EXPECT_EQ(zip64.members()[1].method, 0);

    const ZipArchive names = open_ok(archive_path("names.zip"));
    ASSERT_NE(names.find("new\nline"), nullptr);
    ASSERT_NE(names.find("caf\xc3\xa9/\xc3\xbc"
                         "ber.txt"),
              nullptr);
    ASSERT_NE(names.find(std::string(4000, 'a')), nullptr);
    EXPECT_EQ(names.find("missing"), nullptr);
    EXPECT_EQ(*names.read_member(*names.find("new\nline"), 100), "member 3\n");

    const ZipArchive cp437 = open_ok(archive_path("cp437-names.zip"));
    ASSERT_NE(cp437.find("\xff\xfe.bin"), nullptr);

    const ZipArchive prefixed = open_ok(archive_path("prefixed.zip"));
    ASSERT_EQ(prefixed.members().size(), 2u);
    EXPECT_EQ(prefixed.members()[0].local_header_offset, 17u);  // "#!/bin/sh\nexit 0\n"
}

TEST(ZipArchive, a_member_larger_than_the_limit_is_refused_whole) {
    ASSERT_EQ(fixtures().failure, "");
    const ZipArchive archive = open_ok(archive_path("deflated.zip"));
    const ZipMember* text = archive.find("text.txt");
    ASSERT_NE(text, nullptr);
    const Expected<std::string> refused = archive.read_member(*text, 1000);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(test::contains(refused.error().message, "more than the 1000 read of it")) << refused.error().message;
}

TEST(ZipArchive, a_path_that_is_no_archive_file_is_an_error) {
    test::TempDir dir;
    EXPECT_FALSE(ZipArchive::open(dir.path() + "/missing.whl"));
    const Expected<ZipArchive> directory = ZipArchive::open(dir.path());
    ASSERT_FALSE(directory);
    EXPECT_TRUE(test::contains(directory.error().message, "directory")) << directory.error().message;
}

// Reads of random lengths at random offsets, forward and back, each compared with Python's bytes.
void random_reads(ZipMemberSource& source, const std::string& expected, std::mt19937_64& random, int count) {
    for (int i = 0; i < count; ++i) {
        const std::uint64_t length =
            std::uniform_int_distribution<std::uint64_t>(0, i % 5 == 0 ? ByteSource::max_read : 4096)(random);
        const std::uint64_t usable = std::min<std::uint64_t>(length, expected.size());
        const std::uint64_t offset = std::uniform_int_distribution<std::uint64_t>(0, expected.size() - usable)(random);
        const Expected<std::span<const std::uint8_t>> read = source.read(offset, usable);
        ASSERT_TRUE(read) << read.error().message;
        ASSERT_EQ(read->size(), usable);
        ASSERT_EQ(std::memcmp(read->data(), expected.data() + offset, usable), 0)
            << "bytes at " << offset << " (+" << usable << ") differ from Python's";
    }
}

TEST(ZipArchive, random_reads_of_a_deflated_member_give_pythons_bytes_and_resume_from_checkpoints) {
    ASSERT_EQ(fixtures().failure, "");
    const ZipArchive archive = open_ok(archive_path("deflated.zip"));
    std::mt19937_64 random(39);
    for (const char* name : {"mixed.bin", "zeros.bin", "text.txt"}) {
        SCOPED_TRACE(name);
        const ZipMember* member = archive.find(name);
        ASSERT_NE(member, nullptr);
        std::string expected;
        for (const json& python : fixtures().manifest["deflated.zip"]["members"])
            if (from_hex(python["name_hex"].get<std::string>()) == name)
                expected = file_bytes(python["data"].get<std::string>());
        ASSERT_EQ(expected.size(), member->uncompressed_size);
        // 300 reads at random re-inflate more than a scan's budget allows (InflationBudget).
        Expected<std::unique_ptr<ZipMemberSource>> source =
            archive.open_member(*member, InflationBudget{.times_size = 1000});
        ASSERT_TRUE(source) << source.error().message;
        random_reads(**source, expected, random, 300);
        const ZipReadCounters counters = (*source)->counters();
        if (member->uncompressed_size > ByteSource::max_read) EXPECT_GT(counters.restarts, 0u);
        else EXPECT_EQ(counters.restarts, 0u);  // the window holds it all
        if (std::string(name) == "zeros.bin") {
            // 20 MiB: checkpoints at 8 and 16 MiB, so no read inflated more than 8 MiB again.
            EXPECT_EQ(counters.checkpoint_interval, std::uint64_t{8} << 20);
            EXPECT_EQ(counters.checkpoints, 2u);
        }
    }
}

TEST(ZipArchive, a_stored_member_is_read_in_place_and_its_crc_checked_when_read_through) {
    ASSERT_EQ(fixtures().failure, "");
    const ZipArchive archive = open_ok(archive_path("stored.zip"));
    const ZipMember* member = archive.find("random.bin");
    ASSERT_NE(member, nullptr);
    const std::string expected = file_bytes(fixtures().manifest["stored.zip"]["members"][3]["data"].get<std::string>());
    Expected<std::unique_ptr<ZipMemberSource>> source = archive.open_member(*member);
    ASSERT_TRUE(source);
    std::mt19937_64 random(7);
    random_reads(**source, expected, random, 100);
    EXPECT_EQ((*source)->counters().bytes_inflated, 0u);

    const ZipArchive damaged = open_ok(archive_path("bad-crc-stored.zip"));
    Expected<std::unique_ptr<ZipMemberSource>> bad = damaged.open_member(damaged.members()[0]);
    ASSERT_TRUE(bad);
    EXPECT_TRUE((*bad)->read(100, 100));  // a piece: nothing to compare the CRC with yet
    EXPECT_TRUE((*bad)->read(0, 4000));
    const Expected<std::span<const std::uint8_t>> last = (*bad)->read(4000, 4000);  // the prefix reaches the end
    ASSERT_FALSE(last);
    EXPECT_TRUE(test::contains(last.error().message, "CRC-32 is")) << last.error().message;
}

// The GPU-code scan's pattern (cuda/gpu_code.cpp): the ELF header, the section headers at the end,
// then forward through a section in the middle in small reads that skip payloads.
TEST(ZipArchive, the_scans_read_pattern_inflates_the_member_about_once) {
    ASSERT_EQ(fixtures().failure, "");
    const ZipArchive archive = open_ok(archive_path("deflated.zip"));
    const ZipMember* member = archive.find("zeros.bin");
    ASSERT_NE(member, nullptr);
    Expected<std::unique_ptr<ZipMemberSource>> opened = archive.open_member(*member);
    ASSERT_TRUE(opened);
    ZipMemberSource& source = **opened;
    const std::uint64_t size = source.size();
    ASSERT_TRUE(source.read(0, 64));
    ASSERT_TRUE(source.read(size - 4096, 4096));
    const std::uint64_t section_begin = size / 2;
    const std::uint64_t section_end = size * 3 / 4;
    for (std::uint64_t offset = section_begin; offset + 80 <= section_end; offset += 200000)
        ASSERT_TRUE(source.read(offset, 80));
    const ZipReadCounters counters = source.counters();
    EXPECT_EQ(counters.restarts, 1u);  // back from the end to the checkpoint at 8 MiB
    // Once through, then the section again from the checkpoint before it (plus the window's read-ahead).
    EXPECT_LE(counters.bytes_inflated,
              size + (section_end - section_begin) + counters.checkpoint_interval + ByteSource::max_read);
    std::cout << "[ zip      ] scan pattern over a " << size << "-byte member: " << counters.bytes_inflated
              << " bytes inflated, " << counters.restarts << " restart(s), " << counters.checkpoints
              << " checkpoints\n";
}

// A crafted file can make the scan jump back and forth (each jump behind the window re-inflates
// from the checkpoint before it): the member's reader gives up, with a reason, once it has inflated
// eight times the member's size (plus 256 MiB), instead of keeping zlib busy for hours.
TEST(ZipArchive, reads_that_jump_back_and_forth_without_end_are_refused_after_a_bounded_amount_of_work) {
    ASSERT_EQ(fixtures().failure, "");
    const ZipArchive archive = open_ok(archive_path("deflated.zip"));
    const ZipMember* member = archive.find("zeros.bin");
    ASSERT_NE(member, nullptr);
    Expected<std::unique_ptr<ZipMemberSource>> opened = archive.open_member(*member);
    ASSERT_TRUE(opened);
    ZipMemberSource& source = **opened;
    const std::uint64_t size = source.size();
    // Just before the first checkpoint (8 MiB), then the start: no checkpoint helps either read.
    const std::uint64_t far = (std::uint64_t{8} << 20) - 4096;
    const std::uint64_t budget = size * 8 + (std::uint64_t{256} << 20);
    std::optional<Error> refused;
    int jumps = 0;
    for (; jumps < 10000 && !refused; ++jumps) {
        const Expected<std::span<const std::uint8_t>> read = source.read(jumps % 2 == 0 ? far : 0, 64);
        if (!read) refused = read.error();
    }
    ASSERT_TRUE(refused) << "10000 jumps were all served";
    EXPECT_TRUE(test::contains(refused->message, "jumps back and forth")) << refused->message;
    EXPECT_TRUE(test::contains(refused->message, "zeros.bin")) << refused->message;
    const ZipReadCounters counters = source.counters();
    EXPECT_LE(counters.bytes_inflated, budget);
    EXPECT_GT(counters.bytes_inflated, budget - (far + ByteSource::max_read)) << "refused before its budget";
    EXPECT_GT(jumps, 20) << "a scan's few jumps must stay far from the limit";
    // Once refused, the member's reads keep failing with the same reason.
    const Expected<std::span<const std::uint8_t>> again = source.read(0, 64);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().message, refused->message);
}

TEST(ZipArchive, a_member_source_outlives_its_archive) {
    ASSERT_EQ(fixtures().failure, "");
    std::unique_ptr<ZipMemberSource> source;
    {
        const ZipArchive archive = open_ok(archive_path("deflated.zip"));
        Expected<std::unique_ptr<ZipMemberSource>> opened = archive.open_member(*archive.find("METADATA"));
        ASSERT_TRUE(opened);
        source = std::move(*opened);
    }
    const Expected<std::span<const std::uint8_t>> read = source->read(0, 17);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(read->data()), read->size()), "Metadata-Version:");
}

// Every byte of small archives changed in turn, and every length cut off: an archive and members,
// or one line saying why not; never a crash (the sanitizer build of tools/fuzz.sh goes further).
TEST(ZipArchive, every_corruption_of_a_small_archive_is_read_or_refused_in_one_line) {
    ASSERT_EQ(fixtures().failure, "");
    test::TempDir dir;
    std::size_t opened = 0;
    std::size_t refused = 0;
    for (const char* name : {"cp437-names.zip", "forced-zip64.zip", "comment.zip"}) {
        const std::string original = file_bytes(archive_path(name));
        ASSERT_FALSE(original.empty());
        const auto judge = [&](const std::string& bytes) {
            const std::string path = dir.write("variant.zip", bytes);
            Expected<ZipArchive> archive = ZipArchive::open(path);
            const std::string error = !archive ? archive.error().message : first_read_error(*archive);
            if (error.empty()) {
                ++opened;
                return;
            }
            ++refused;
            EXPECT_EQ(error.find('\n'), std::string::npos) << error;
            EXPECT_LE(error.size(), 400u) << error;
        };
        for (std::size_t at = 0; at < original.size(); ++at) {
            std::string changed = original;
            changed[at] = static_cast<char>(changed[at] ^ 0xA5);
            judge(changed);
        }
        for (std::size_t length = 0; length < original.size(); ++length) judge(original.substr(0, length));
    }
    EXPECT_GT(opened, 0u);  // a changed byte in a name or a timestamp leaves a readable archive
    EXPECT_GT(refused, 0u);
}

// Peak resident memory of this process, in bytes, since the last reset.
std::uint64_t peak_rss() {
    const std::optional<std::string> status = sys::read_file("/proc/self/status");
    if (!status) return 0;
    const std::size_t at = status->find("VmHWM:");
    return at == std::string::npos ? 0 : std::stoull(status->substr(at + 6)) * 1024;
}
// Resets the peak to the current resident size (proc(5), /proc/pid/clear_refs: "5").
bool reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

TEST(ZipArchive, a_member_of_more_than_100_mib_is_read_through_and_at_random_in_a_few_mib) {
    constexpr int mebibytes = 112;
    test::TempDir dir;
    const sys::CommandResult made =
        sys::run_command({CUDACHECK_PYTHON, fixture_script, "large", dir.path(), std::to_string(mebibytes)},
                         std::chrono::seconds(300));
    ASSERT_EQ(made.exit_status, 0) << made.error << made.output;
    const ZipArchive archive = open_ok(dir.path() + "/large.zip");
    const ZipMember* member = archive.find("large.bin");
    ASSERT_NE(member, nullptr);
    ASSERT_EQ(member->uncompressed_size, std::uint64_t{mebibytes} << 20);
    const int expected_fd = ::open((dir.path() + "/large.bin").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(expected_fd, 0);
    std::vector<std::uint8_t> expected(ByteSource::max_read);
    const auto python_bytes = [&](std::uint64_t offset, std::size_t length) {
        return ::pread(expected_fd, expected.data(), length, static_cast<off_t>(offset)) ==
               static_cast<ssize_t>(length);
    };

    ::malloc_trim(0);  // earlier tests' freed memory back to the system, so that reuse hides no growth
    ASSERT_TRUE(reset_peak_rss());
    const std::uint64_t before = peak_rss();
    // Through, in 1 MiB reads, each compared with Python's extraction; timed.
    Expected<std::unique_ptr<ZipMemberSource>> opened = archive.open_member(*member);
    ASSERT_TRUE(opened) << opened.error().message;
    ZipMemberSource& source = **opened;
    std::chrono::steady_clock::duration reading{};
    for (std::uint64_t offset = 0; offset < source.size(); offset += ByteSource::max_read) {
        const auto length =
            static_cast<std::size_t>(std::min<std::uint64_t>(ByteSource::max_read, source.size() - offset));
        const auto read_start = std::chrono::steady_clock::now();
        const Expected<std::span<const std::uint8_t>> read = source.read(offset, length);
        reading += std::chrono::steady_clock::now() - read_start;
        ASSERT_TRUE(read) << read.error().message;
        ASSERT_TRUE(python_bytes(offset, length));
        ASSERT_TRUE(std::equal(read->begin(), read->end(), expected.begin())) << "bytes at " << offset << " differ";
    }
    const ZipReadCounters through = source.counters();
    EXPECT_EQ(through.bytes_inflated, source.size());
    EXPECT_EQ(through.restarts, 0u);
    EXPECT_EQ(through.checkpoints, (source.size() - 1) / through.checkpoint_interval);

    // At random, forward and back.
    std::mt19937_64 random(112);
    for (int i = 0; i < 60; ++i) {
        const std::size_t length =
            std::uniform_int_distribution<std::size_t>(1, i % 4 == 0 ? ByteSource::max_read : 512)(random);
        const std::uint64_t offset = std::uniform_int_distribution<std::uint64_t>(0, source.size() - length)(random);
        const Expected<std::span<const std::uint8_t>> read = source.read(offset, length);
        ASSERT_TRUE(read) << read.error().message;
        ASSERT_TRUE(python_bytes(offset, length));
        ASSERT_TRUE(std::equal(read->begin(), read->end(), expected.begin())) << "bytes at " << offset << " differ";
    }
    const ZipReadCounters random_counters = source.counters();
    const std::uint64_t grown = peak_rss() - before;
    ::close(expected_fd);

    // The scan's pattern on a fresh source: the header, the end, then forward from the middle.
    Expected<std::unique_ptr<ZipMemberSource>> scan = archive.open_member(*member);
    ASSERT_TRUE(scan);
    const std::uint64_t size = (*scan)->size();
    const auto scan_start = std::chrono::steady_clock::now();
    ASSERT_TRUE((*scan)->read(0, 64));
    ASSERT_TRUE((*scan)->read(size - 65536, 65536));
    const std::uint64_t section_begin = size / 3;
    const std::uint64_t section_end = size * 2 / 3;
    for (std::uint64_t offset = section_begin; offset + 64 <= section_end; offset += 150000)
        ASSERT_TRUE((*scan)->read(offset, 64));
    const double scan_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_start).count();
    const ZipReadCounters scan_counters = (*scan)->counters();
    EXPECT_EQ(scan_counters.restarts, 1u);
    EXPECT_LE(scan_counters.bytes_inflated,
              size + (section_end - section_begin) + scan_counters.checkpoint_interval + ByteSource::max_read);

    const double seconds = std::chrono::duration<double>(reading).count();
    std::cout << "[ zip      ] " << mebibytes << " MiB member (" << member->compressed_size
              << " bytes compressed): read through in " << seconds << " s, "
              << static_cast<double>(source.size()) / 1e6 / seconds << " MB/s of output; " << random_counters.restarts
              << " restarts and " << random_counters.bytes_inflated - through.bytes_inflated
              << " bytes inflated again for 60 random reads; " << through.checkpoints << " checkpoints every "
              << through.checkpoint_interval << " bytes; peak RSS grew " << grown << " bytes\n"
              << "[ zip      ] scan pattern: " << scan_counters.bytes_inflated << " bytes inflated for a " << size
              << "-byte member (" << static_cast<double>(scan_counters.bytes_inflated) / static_cast<double>(size)
              << "x), " << scan_counters.restarts << " restart(s), " << scan_seconds << " s\n";
    EXPECT_LT(grown, std::uint64_t{16} << 20)
        << "reading a " << mebibytes << " MiB member grew the peak RSS by " << grown;
}

// zlib is linked in (cmake/Dependencies.cmake: libz.a), not loaded: this test program, which reads
// zips, holds zlib's inflate (its copyright string), and neither it nor the shipped binary needs
// libz.so.1 (tools/check-release-binary.sh holds the release binary to its list of libraries).
TEST(ZipArchive, zlib_is_linked_in_and_no_binary_needs_libz_at_load_time) {
    for (const std::string& binary : {std::string("/proc/self/exe"), std::string(CUDACHECK_BINARY)}) {
        const Expected<ElfDynamic> dynamic = read_elf_dynamic_file(binary);
        ASSERT_TRUE(dynamic) << binary << ": " << dynamic.error().message;
        EXPECT_FALSE(dynamic->needed.empty()) << binary;
        for (const std::string& library : dynamic->needed)
            EXPECT_FALSE(library.starts_with("libz.")) << binary << " needs " << library;
    }
    EXPECT_TRUE(file_holds("/proc/self/exe", " Copyright 1995-2022 Mark Adler "))
        << "no zlib inflate_copyright in this program";
}

// NVIDIA's published wheels (tools/deps/test.sh downloads them): every member against Python's zipfile.
TEST(ZipArchive, nvidias_published_wheels_read_as_python_reads_them) {
    const std::string folder = test::fixture_path("downloaded/wheels");
    std::vector<std::string> wheels;
    std::error_code error;
    // NVIDIA's small ones: a framework-sized wheel there (the inspection's tests) would be extracted whole by Python.
    for (const auto& entry : fs::directory_iterator(folder, error))
        if (entry.path().extension() == ".whl" && entry.path().filename().string().starts_with("nvidia_") &&
            entry.file_size() <= (std::uint64_t{64} << 20))
            wheels.push_back(entry.path().string());
    if (wheels.empty()) GTEST_SKIP() << "no wheels in " << folder << " (tools/deps/test.sh downloads them from PyPI)";
    std::sort(wheels.begin(), wheels.end());
    for (const std::string& wheel : wheels) {
        SCOPED_TRACE(wheel);
        test::TempDir dir;
        const sys::CommandResult extracted =
            sys::run_command({CUDACHECK_PYTHON, fixture_script, "extract", wheel, dir.path()},
                             std::chrono::seconds(300));
        ASSERT_EQ(extracted.exit_status, 0) << extracted.error << extracted.output;
        std::ifstream in(dir.path() + "/manifest.json");
        const json reading = json::parse(in);
        ASSERT_FALSE(reading.contains("python_error")) << reading["python_error"];
        const ZipArchive archive = open_ok(wheel);
        expect_same_as_python(fs::path(wheel).filename().string(), archive, reading);
        // Its largest member (a shared library) at random, forward and back.
        std::size_t largest = 0;
        for (std::size_t i = 0; i < archive.members().size(); ++i)
            if (archive.members()[i].uncompressed_size > archive.members()[largest].uncompressed_size) largest = i;
        const std::string expected = file_bytes(reading["members"][largest].at("data").get<std::string>());
        Expected<std::unique_ptr<ZipMemberSource>> source = archive.open_member(archive.members()[largest]);
        ASSERT_TRUE(source) << source.error().message;
        std::mt19937_64 random(largest);
        random_reads(**source, expected, random, 100);
        const ZipMember* record = nullptr;
        for (const ZipMember& member : archive.members())
            if (member.name.size() > 11 && member.name.ends_with(".dist-info/RECORD")) record = &member;
        ASSERT_NE(record, nullptr) << "a wheel without a RECORD";
        const Expected<std::string> text = archive.read_member(*record, 1 << 20);
        ASSERT_TRUE(text) << text.error().message;
        EXPECT_TRUE(test::contains(*text, ".dist-info/METADATA,sha256="));
    }
}

}  // namespace
}  // namespace cudacheck
