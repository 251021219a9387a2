// A zip archive (a Python wheel) read in place: the central directory once, then each member on
// demand with pread, never the whole file. Members are stored (method 0) or deflated (method 8),
// inflated with zlib; a deflated member is read through a forward cursor with a 1 MiB window and
// checkpoints of the inflater's state, so that reading anywhere in a multi-gigabyte member costs a
// few MB of memory.
//
// The format is PKWARE's APPNOTE.TXT (version 6.3.10,
// https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT); sections cited where used. Damaged
// or hostile archives (truncated, members that overlap or lie outside the file, the "better zip
// bomb" of overlapping members, https://www.bamsoftware.com/hacks/zipbomb/, counts or sizes that
// would make the reader allocate gigabytes, a member that inflates to other than it declares, a
// CRC-32 that does not match) are an Error with one line saying what is wrong, never a crash.
#pragma once

#include "util/byte_source.hpp"
#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One entry of the central directory (APPNOTE 4.3.12), sizes and offset from its zip64 extra field
// where the 32-bit ones are 0xFFFFFFFF (4.5.3).
struct ZipMember {
    // The name's bytes as stored: UTF-8 where the archive says so (general purpose bit 11), else
    // code page 437, which for the names a wheel holds is ASCII. Not made printable: callers that
    // show one pass it through sys::printable.
    std::string name;
    std::uint64_t compressed_size = 0;
    std::uint64_t uncompressed_size = 0;
    std::uint64_t local_header_offset = 0;
    // Where the next member's local header or the central directory begins: this member's header,
    // data and data descriptor must end there.
    std::uint64_t space_end = 0;
    std::uint16_t method = 0;  // 0 stored, 8 deflated; any other is refused when read
    std::uint32_t crc32 = 0;
    bool encrypted = false;  // general purpose bit 0 or 6 (4.4.4): refused when read
    [[nodiscard]] bool is_directory() const { return !name.empty() && name.back() == '/'; }
};

// What reading a member cost, for tests and docs/performance.md.
struct ZipReadCounters {
    std::uint64_t compressed_bytes_read = 0;  // pread from the archive
    std::uint64_t bytes_inflated = 0;         // output of inflate, including what a restart inflates again
    std::uint32_t restarts = 0;  // reads behind the cursor, or jumps ahead, that resumed from a checkpoint
    std::uint32_t checkpoints = 0;  // inflater states kept
    std::uint64_t checkpoint_interval = 0;  // uncompressed bytes between two checkpoints (0: stored member)
};

// How much of a deflated member's data a reader may inflate in all, restarts included: its size
// times `times_size`, plus `plus_bytes`. A crafted file can make a reader's reads jump back and
// forth without end, each jump behind the window re-inflating from a checkpoint; past the budget the
// read fails with a reason. The default is for cudacheck's GPU-code scan, which inflates a member
// about once (tests/unit/util/zip_archive_test.cpp, the scan's read pattern); random access by a
// test asks for more.
struct InflationBudget {
    std::uint64_t times_size = 8;
    std::uint64_t plus_bytes = std::uint64_t{256} << 20;
};

// Random access to one member's uncompressed bytes (util/byte_source.hpp). A read past the point
// the member has been inflated to inflates forward; a read behind it resumes from the nearest
// checkpoint. The read that reaches the member's end checks that the deflate stream ends there and
// that the CRC-32 of everything before matches the central directory's: a damaged member fails
// that read. Holds the archive's file open; it may outlive the ZipArchive it came from.
class ZipMemberSource : public ByteSource {
public:
    [[nodiscard]] virtual ZipReadCounters counters() const = 0;
};

class ZipArchive {
public:
    // Limits on what an archive may make the reader allocate. PyTorch's largest wheels hold about
    // 12,000 members and a central directory of 2 MB; TensorFlow's about 20,000.
    static constexpr std::uint64_t max_central_directory_bytes = std::uint64_t{64} << 20;
    static constexpr std::uint64_t max_members = 400000;
    static constexpr std::size_t max_name_bytes = 4096;  // PATH_MAX

    // The archive's central directory, read and checked, or why it cannot be: not a zip archive,
    // truncated, split over several disks, a directory larger than the limits above, members that
    // overlap or lie outside the file, a name with a NUL byte. The error is one line, without the path.
    [[nodiscard]] static Expected<ZipArchive> open(const std::string& path);

    [[nodiscard]] const std::vector<ZipMember>& members() const { return members_; }
    [[nodiscard]] std::uint64_t file_size() const;
    // The member of that name, or nullptr. Where several have it, the last (as Python's zipfile's
    // getinfo, whose name table the later entry overwrites).
    [[nodiscard]] const ZipMember* find(std::string_view name) const;

    // A small member whole (METADATA, WHEEL, RECORD: text), CRC-32 checked; refused when it
    // declares more than `limit` bytes.
    [[nodiscard]] Expected<std::string> read_member(const ZipMember& member, std::size_t limit) const;
    // Random access to a member (any size), or why it cannot be read: an unknown method, encryption,
    // a local header that does not match the central directory or runs past the member's space.
    [[nodiscard]] Expected<std::unique_ptr<ZipMemberSource>> open_member(const ZipMember& member,
                                                                         InflationBudget budget = {}) const;

    struct File;  // the open file, shared with the member sources (zip_archive.cpp)

private:
    ZipArchive(std::shared_ptr<const File> file, std::vector<ZipMember> members);
    std::shared_ptr<const File> file_;
    std::vector<ZipMember> members_;
};

}  // namespace cudacheck
