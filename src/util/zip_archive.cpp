#include "util/zip_archive.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <unistd.h>
#include <utility>
#include <zlib.h>

namespace cudacheck {

// The open archive: closed when the archive and every member source opened from it are gone.
struct ZipArchive::File {
    int fd = -1;
    std::uint64_t size = 0;
    File(int descriptor, std::uint64_t bytes) : fd(descriptor), size(bytes) {}
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File() {
        if (fd >= 0) ::close(fd);
    }
};

namespace {

using File = ZipArchive::File;

// Signatures and fixed sizes of APPNOTE 4.3.
constexpr std::uint32_t local_header_signature = 0x04034b50;        // 4.3.7
constexpr std::uint32_t central_header_signature = 0x02014b50;      // 4.3.12
constexpr std::uint32_t digital_signature_signature = 0x05054b50;   // 4.3.13
constexpr std::uint32_t zip64_end_signature = 0x06064b50;           // 4.3.14
constexpr std::uint32_t zip64_locator_signature = 0x07064b50;       // 4.3.15
constexpr std::uint32_t end_signature = 0x06054b50;                 // 4.3.16
constexpr std::size_t local_header_bytes = 30;
constexpr std::size_t central_header_bytes = 46;
constexpr std::size_t zip64_end_bytes = 56;
constexpr std::size_t zip64_locator_bytes = 20;
constexpr std::size_t end_bytes = 22;
constexpr std::size_t max_comment_bytes = 0xFFFF;
constexpr std::uint16_t zip64_extra_id = 0x0001;  // 4.5.3
// General purpose bits (4.4.4): 0 encrypted, 6 strong encryption, 11 UTF-8 names.
constexpr std::uint16_t flag_encrypted = 1u << 0;
constexpr std::uint16_t flag_strong_encryption = 1u << 6;
constexpr std::uint16_t method_stored = 0;
constexpr std::uint16_t method_deflated = 8;
// zlib's FAQ ("Is there a maximum compression ratio?", https://zlib.net/zlib_tech.html): deflate
// cannot expand more than 1032:1. A member declaring more is lying about one of its sizes.
constexpr std::uint64_t deflate_max_ratio = 1032;

std::uint16_t u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
std::uint32_t u32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t u64(const std::uint8_t* p) { return u32(p) | (static_cast<std::uint64_t>(u32(p + 4)) << 32); }

std::string quoted_name(std::string_view name) { return "'" + sys::printable(name) + "'"; }
std::string member_error(std::string_view name, const std::string& what) {
    return "member " + quoted_name(name) + ": " + what;
}

// `out.size()` bytes at `offset`, all of them or an error (a file that shrank while being read).
Expected<void> read_at(const File& file, std::uint64_t offset, std::span<std::uint8_t> out) {
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t got = ::pread(file.fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return Error{std::string("cannot read it: ") + std::strerror(errno), errno};
        if (got == 0)
            return Error{"it ends at byte " + std::to_string(offset + done) +
                         ", sooner than its directory says (truncated while being read?)"};
        done += static_cast<std::size_t>(got);
    }
    return {};
}

// a + b, or nothing where it would wrap.
std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
    if (b > std::numeric_limits<std::uint64_t>::max() - a) return std::nullopt;
    return a + b;
}

std::string method_words(std::uint16_t method) {
    switch (method) {  // APPNOTE 4.4.5
        case 1: return "shrink (1)";
        case 6: return "implode (6)";
        case 9: return "deflate64 (9)";
        case 12: return "bzip2 (12)";
        case 14: return "LZMA (14)";
        case 93: return "Zstandard (93)";
        case 95: return "xz (95)";
        case 98: return "PPMd (98)";
        case 99: return "AES encryption (99)";
        default: return "method " + std::to_string(method);
    }
}

struct EndRecord {
    std::uint64_t entries = 0;
    std::uint64_t directory_size = 0;
    std::uint64_t directory_offset = 0;
    std::uint64_t directory_end = 0;  // where the directory must end: the zip64 end record, or the end record
    bool zip64 = false;
};

// The end of central directory record (4.3.16): the last one in the file whose comment reaches the
// file's end exactly, then the zip64 locator and end record (4.3.14, 4.3.15) where the locator
// stands just before it.
Expected<EndRecord> read_end_record(const File& file) {
    if (file.size < end_bytes)
        return Error{"not a zip archive: " + std::to_string(file.size) +
                     " bytes, fewer than an end of central directory record"};
    const std::uint64_t tail_size = std::min<std::uint64_t>(file.size, end_bytes + max_comment_bytes);
    std::vector<std::uint8_t> tail(tail_size);
    if (Expected<void> read = read_at(file, file.size - tail_size, tail); !read) return read.error();
    std::optional<std::uint64_t> found;
    for (std::size_t at = tail_size - end_bytes + 1; at-- > 0;) {
        if (u32(&tail[at]) == end_signature && at + end_bytes + u16(&tail[at + 20]) == tail_size) {
            found = at;
            break;
        }
    }
    if (!found)
        return Error{"not a zip archive, or a truncated one: no end of central directory record in its last " +
                     std::to_string(tail_size) + " bytes"};
    const std::uint8_t* end = &tail[*found];
    const std::uint64_t end_offset = file.size - tail_size + *found;
    EndRecord record;
    record.entries = u16(end + 10);
    record.directory_size = u32(end + 12);
    record.directory_offset = u32(end + 16);
    record.directory_end = end_offset;
    const std::uint16_t disk = u16(end + 4);
    const std::uint16_t directory_disk = u16(end + 6);
    const std::uint16_t entries_here = u16(end + 8);

    std::uint8_t locator[zip64_locator_bytes];
    if (end_offset >= zip64_locator_bytes) {
        if (Expected<void> read = read_at(file, end_offset - zip64_locator_bytes, locator); !read) return read.error();
        if (u32(locator) == zip64_locator_signature) {
            std::uint64_t zip64_offset = u64(locator + 8);
            if (u32(locator + 4) != 0 || u32(locator + 16) > 1)
                return Error{"a split (multi-disk) zip archive, which cudacheck does not read"};
            const std::uint64_t locator_offset = end_offset - zip64_locator_bytes;
            std::uint8_t zip64[zip64_end_bytes];
            const auto zip64_end_at = [&](std::uint64_t offset) -> Expected<bool> {
                if (offset > locator_offset || locator_offset - offset < zip64_end_bytes) return false;
                if (Expected<void> read = read_at(file, offset, zip64); !read) return read.error();
                return u32(zip64) == zip64_end_signature;
            };
            // Where the locator says, else just before the locator, where it stands in an archive
            // with bytes before it (a self-extracting one: the offsets then count from the archive's
            // own start, as Python's zipfile allows).
            Expected<bool> found64 = zip64_end_at(zip64_offset);
            if (found64 && !*found64 && locator_offset >= zip64_end_bytes) {
                zip64_offset = locator_offset - zip64_end_bytes;
                found64 = zip64_end_at(zip64_offset);
            }
            if (!found64) return found64.error();
            if (!*found64)
                return Error{"damaged zip archive: no zip64 end record where its locator says (offset " +
                             std::to_string(u64(locator + 8)) + ")"};
            if (u32(zip64 + 16) != 0 || u32(zip64 + 20) != 0 || u64(zip64 + 24) != u64(zip64 + 32))
                return Error{"a split (multi-disk) zip archive, which cudacheck does not read"};
            record.entries = u64(zip64 + 32);
            record.directory_size = u64(zip64 + 40);
            record.directory_offset = u64(zip64 + 48);
            record.directory_end = zip64_offset;
            record.zip64 = true;
            return record;
        }
    }
    if (disk != 0 || directory_disk != 0 || entries_here != record.entries)
        return Error{"a split (multi-disk) zip archive, which cudacheck does not read"};
    return record;
}

// The values of a central header's zip64 extra field (4.5.3) that its 32-bit fields defer to,
// in the field's fixed order; an error where the field is missing, short or runs past the entry.
Expected<void> apply_zip64_extra(std::span<const std::uint8_t> extra, ZipMember& member, bool need_uncompressed,
                                 bool need_compressed, bool need_offset, bool need_disk) {
    std::size_t at = 0;
    while (at + 4 <= extra.size()) {
        const std::uint16_t id = u16(&extra[at]);
        const std::uint16_t length = u16(&extra[at + 2]);
        at += 4;
        if (length > extra.size() - at) return Error{"an extra field runs past its entry"};
        if (id == zip64_extra_id) {
            std::span<const std::uint8_t> field = extra.subspan(at, length);
            std::size_t pos = 0;
            const auto take = [&](std::uint64_t& value, std::size_t bytes) {
                if (field.size() - pos < bytes) return false;
                value = bytes == 8 ? u64(&field[pos]) : u32(&field[pos]);
                pos += bytes;
                return true;
            };
            std::uint64_t disk = 0;
            if ((need_uncompressed && !take(member.uncompressed_size, 8)) ||
                (need_compressed && !take(member.compressed_size, 8)) ||
                (need_offset && !take(member.local_header_offset, 8)) || (need_disk && !take(disk, 4)))
                return Error{"its zip64 extra field is shorter than the sizes it stands for"};
            if (disk != 0) return Error{"it starts on another disk (a split archive)"};
            return {};
        }
        at += length;
    }
    if (need_uncompressed || need_compressed || need_offset || need_disk)
        return Error{"its sizes say zip64 (0xFFFFFFFF), and it has no zip64 extra field"};
    return {};
}

Expected<std::vector<ZipMember>> parse_central_directory(std::span<const std::uint8_t> directory,
                                                         const EndRecord& end) {
    std::vector<ZipMember> members;
    members.reserve(static_cast<std::size_t>(end.entries));
    std::size_t at = 0;
    while (directory.size() - at >= 4 && u32(&directory[at]) == central_header_signature) {
        if (members.size() >= ZipArchive::max_members)
            return Error{"more than " + std::to_string(ZipArchive::max_members) + " members, the most cudacheck reads"};
        if (directory.size() - at < central_header_bytes)
            return Error{"damaged zip archive: its central directory ends inside an entry"};
        const std::uint8_t* header = &directory[at];
        const std::size_t name_length = u16(header + 28);
        const std::size_t extra_length = u16(header + 30);
        const std::size_t comment_length = u16(header + 32);
        if (directory.size() - at - central_header_bytes < name_length + extra_length + comment_length)
            return Error{"damaged zip archive: its central directory ends inside entry " +
                         std::to_string(members.size() + 1)};
        ZipMember member;
        member.name.assign(reinterpret_cast<const char*>(header + central_header_bytes), name_length);
        if (name_length > ZipArchive::max_name_bytes)
            return Error{"a member name of " + std::to_string(name_length) + " bytes, more than " +
                         std::to_string(ZipArchive::max_name_bytes)};
        if (member.name.find('\0') != std::string::npos)
            return Error{"member " + quoted_name(member.name) + " has a NUL byte in its name (damaged or crafted)"};
        const std::uint16_t flags = u16(header + 8);
        member.method = u16(header + 10);
        member.crc32 = u32(header + 16);
        member.compressed_size = u32(header + 20);
        member.uncompressed_size = u32(header + 24);
        member.local_header_offset = u32(header + 42);
        member.encrypted = (flags & (flag_encrypted | flag_strong_encryption)) != 0;
        const std::uint16_t disk = u16(header + 34);
        constexpr std::uint32_t zip64_marker = 0xFFFFFFFF;
        const std::span<const std::uint8_t> extra(header + central_header_bytes + name_length, extra_length);
        if (Expected<void> applied = apply_zip64_extra(extra, member, member.uncompressed_size == zip64_marker,
                                                       member.compressed_size == zip64_marker,
                                                       member.local_header_offset == zip64_marker, disk == 0xFFFF);
            !applied)
            return Error{member_error(member.name, applied.error().message)};
        if (disk != 0 && disk != 0xFFFF)
            return Error{member_error(member.name, "it starts on another disk (a split archive)")};
        members.push_back(std::move(member));
        at += central_header_bytes + name_length + extra_length + comment_length;
    }
    // What may follow the last entry: a digital signature (4.3.13) filling the rest, nothing else.
    if (at != directory.size()) {
        const std::size_t left = directory.size() - at;
        if (!(left >= 6 && u32(&directory[at]) == digital_signature_signature && u16(&directory[at + 4]) == left - 6))
            return Error{"damaged zip archive: " + std::to_string(left) +
                         " bytes of its central directory after entry " + std::to_string(members.size()) +
                         " are no entry"};
    }
    // An archive of more than 65,535 members written without zip64 records keeps the count's low 16 bits.
    const bool count_matches = end.zip64 ? members.size() == end.entries : (members.size() & 0xFFFF) == end.entries;
    if (!count_matches)
        return Error{"damaged zip archive: its central directory holds " + std::to_string(members.size()) +
                     " entries, its end record says " + std::to_string(end.entries)};
    return members;
}

// Each member's header and data between its local header offset and the next member's, the last
// one's before the central directory (4.3.6): a member whose smallest possible extent (header,
// name, data; an extra field only adds) reaches into the next shares bytes with it. Sets space_end.
Expected<void> check_layout(std::vector<ZipMember>& members, std::uint64_t directory_offset) {
    std::vector<std::size_t> order(members.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return members[a].local_header_offset < members[b].local_header_offset;
    });
    for (std::size_t i = 0; i < order.size(); ++i) {
        ZipMember& member = members[order[i]];
        const bool last = i + 1 == order.size();
        const std::uint64_t next = last ? directory_offset : members[order[i + 1]].local_header_offset;
        const std::optional<std::uint64_t> header_end =
            checked_add(member.local_header_offset, local_header_bytes + member.name.size());
        const std::optional<std::uint64_t> extent_end =
            header_end ? checked_add(*header_end, member.compressed_size) : std::nullopt;
        if (!extent_end || *extent_end > next) {
            if (last || member.local_header_offset >= directory_offset)
                return Error{member_error(member.name, "it runs past the start of the central directory (offset " +
                                                           std::to_string(directory_offset) +
                                                           "): damaged or truncated")};
            return Error{"members " + quoted_name(member.name) + " and " + quoted_name(members[order[i + 1]].name) +
                         " overlap (a zip bomb's construction, or a damaged archive)"};
        }
        member.space_end = next;
    }
    return {};
}

// The bytes of the member seen so far, from the start and with no gap: their CRC-32 (zlib's crc32,
// the polynomial of APPNOTE 4.4.7), compared with the directory's once they reach the end.
class RunningCrc {
public:
    void reset(std::uint64_t position, std::uint32_t crc) {
        position_ = position;
        crc_ = crc;
    }
    // `bytes` lie at `offset`: whatever of them extends the prefix goes into the CRC.
    void add(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
        if (offset > position_ || offset + bytes.size() <= position_) return;
        std::span<const std::uint8_t> fresh = bytes.subspan(static_cast<std::size_t>(position_ - offset));
        while (!fresh.empty()) {
            const std::size_t part = std::min<std::size_t>(fresh.size(), std::numeric_limits<uInt>::max());
            crc_ = static_cast<std::uint32_t>(::crc32(crc_, fresh.data(), static_cast<uInt>(part)));
            fresh = fresh.subspan(part);
        }
        position_ = offset + bytes.size();
    }
    [[nodiscard]] std::uint64_t position() const { return position_; }
    [[nodiscard]] std::uint32_t value() const { return crc_; }

private:
    std::uint64_t position_ = 0;
    std::uint32_t crc_ = 0;
};

std::string crc_mismatch(std::uint32_t read, std::uint32_t declared) {
    char text[96];
    std::snprintf(text, sizeof text, "its data's CRC-32 is %08x, the central directory says %08x (damaged)", read,
                  declared);
    return text;
}

struct MemberPlace {
    std::string name;
    std::uint64_t data_offset = 0;  // in the archive
    std::uint64_t compressed_size = 0;
    std::uint64_t size = 0;
    std::uint32_t crc32 = 0;
};

class StoredSource final : public ZipMemberSource {
public:
    StoredSource(std::shared_ptr<const File> file, MemberPlace place)
        : file_(std::move(file)), place_(std::move(place)) {}
    [[nodiscard]] std::uint64_t size() const override { return place_.size; }
    [[nodiscard]] ZipReadCounters counters() const override { return counters_; }

    Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override {
        if (offset > place_.size || length > place_.size - offset || length > max_read)
            return Error{member_error(place_.name, "a read past its end (a bug in the caller)")};
        buffer_.resize(length);
        if (Expected<void> read = read_at(*file_, place_.data_offset + offset, buffer_); !read)
            return Error{member_error(place_.name, read.error().message)};
        counters_.compressed_bytes_read += length;
        crc_.add(offset, buffer_);
        if (crc_.position() == place_.size && crc_.value() != place_.crc32)
            return Error{member_error(place_.name, crc_mismatch(crc_.value(), place_.crc32))};
        return std::span<const std::uint8_t>(buffer_);
    }

private:
    std::shared_ptr<const File> file_;
    MemberPlace place_;
    std::vector<std::uint8_t> buffer_;
    RunningCrc crc_;
    ZipReadCounters counters_;
};

// A deflated member behind a forward cursor. The window holds the last bytes inflated, ending at
// the cursor; reads inside it cost nothing, reads ahead inflate forward (the window refilled whole,
// so that many small forward reads inflate once), reads behind it resume from the nearest
// checkpoint: a copy of the inflater taken every `interval` bytes of output (inflateCopy copies
// its 32 KiB history and its bit buffer, so the copy continues from the compressed byte it had
// reached). At most max_checkpoints copies of about 40 KB each, whatever the member's size.
class DeflateSource final : public ZipMemberSource {
public:
    static constexpr std::size_t window_bytes = ByteSource::max_read;
    static constexpr std::size_t input_bytes = 64 << 10;
    static constexpr std::uint64_t min_interval = std::uint64_t{8} << 20;
    static constexpr std::uint64_t max_checkpoints = 64;

    DeflateSource(std::shared_ptr<const File> file, MemberPlace place, InflationBudget budget)
        : file_(std::move(file)), place_(std::move(place)) {
        interval_ = std::max(min_interval, (place_.size + max_checkpoints - 1) / max_checkpoints);
        // Saturating: a test's "unlimited" budget must not wrap around.
        const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
        budget_ = place_.size != 0 && budget.times_size > most / place_.size ? most : place_.size * budget.times_size;
        budget_ = budget_ > most - budget.plus_bytes ? most : budget_ + budget.plus_bytes;
        counters_.checkpoint_interval = interval_;
    }
    DeflateSource(const DeflateSource&) = delete;
    DeflateSource& operator=(const DeflateSource&) = delete;
    ~DeflateSource() override {
        if (live_) ::inflateEnd(&stream_);
        for (Checkpoint& checkpoint : checkpoints_) ::inflateEnd(checkpoint.stream.get());
    }

    // zlib's raw inflate (no zlib or gzip wrapper: windowBits -15, as zlib.h says for zip's data).
    Expected<void> start() {
        stream_ = z_stream{};
        if (::inflateInit2(&stream_, -MAX_WBITS) != Z_OK)
            return Error{member_error(place_.name, "zlib cannot start inflating (out of memory?)")};
        live_ = true;
        window_.resize(window_bytes);
        input_.resize(input_bytes);
        return {};
    }

    [[nodiscard]] std::uint64_t size() const override { return place_.size; }
    [[nodiscard]] ZipReadCounters counters() const override {
        ZipReadCounters counters = counters_;
        counters.checkpoints = static_cast<std::uint32_t>(checkpoints_.size());
        return counters;
    }

    Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override {
        if (failure_) return *failure_;
        if (offset > place_.size || length > place_.size - offset || length > max_read)
            return Error{member_error(place_.name, "a read past its end (a bug in the caller)")};
        const std::uint64_t end = offset + length;
        const std::uint64_t window_begin = cursor_ - window_used_;
        const bool at_end_checked = end < place_.size || verified_;
        if (offset >= window_begin && end <= cursor_ && at_end_checked) return view(offset, length);

        if (Expected<void> moved = move_to(offset); !moved) return fail(moved.error());
        // Inflate until `end` is in the window, keeping what it holds from `offset` on: as
        // `end - offset` is at most the window's size, each round has room to inflate into.
        while (cursor_ < end || (cursor_ == place_.size && !verified_)) {
            keep_from(offset);
            if (Expected<void> inflated = inflate_more(); !inflated) return fail(inflated.error());
        }
        return view(offset, length);
    }

private:
    struct Checkpoint {
        std::uint64_t output = 0;  // uncompressed position
        std::uint64_t input = 0;   // compressed bytes the copy has consumed
        std::uint32_t crc = 0;     // CRC-32 of the output before it
        std::unique_ptr<z_stream> stream;
    };

    std::span<const std::uint8_t> view(std::uint64_t offset, std::size_t length) const {
        const std::uint64_t window_begin = cursor_ - window_used_;
        return {window_.data() + (offset - window_begin), length};
    }

    // Drops what the window holds before `offset` (all of it when the cursor is not past it).
    void keep_from(std::uint64_t offset) {
        if (offset >= cursor_) {
            window_used_ = 0;
            return;
        }
        const auto kept = static_cast<std::size_t>(std::min<std::uint64_t>(cursor_ - offset, window_used_));
        if (kept < window_used_) std::memmove(window_.data(), window_.data() + (window_used_ - kept), kept);
        window_used_ = kept;
    }

    Expected<std::span<const std::uint8_t>> fail(const Error& error) {
        failure_ = error;
        return error;
    }

    // Puts the cursor at or before `offset`, at most one interval before it, resuming from a
    // checkpoint (or the start) when `offset` is behind the window or past a checkpoint ahead.
    Expected<void> move_to(std::uint64_t offset) {
        const std::uint64_t window_begin = cursor_ - window_used_;
        const Checkpoint* best = nullptr;
        for (const Checkpoint& checkpoint : checkpoints_)
            if (checkpoint.output <= offset) best = &checkpoint;
        const bool behind = offset < window_begin;
        const bool ahead = best != nullptr && best->output > cursor_;
        if (!behind && !ahead) return {};
        ++counters_.restarts;
        if (live_) ::inflateEnd(&stream_);
        live_ = false;
        stream_ = z_stream{};
        if (best != nullptr) {
            if (::inflateCopy(&stream_, best->stream.get()) != Z_OK)
                return Error{member_error(place_.name, "zlib cannot copy its state (out of memory?)")};
            cursor_ = best->output;
            input_offset_ = best->input;
            crc_.reset(best->output, best->crc);
        } else {
            if (::inflateInit2(&stream_, -MAX_WBITS) != Z_OK)
                return Error{member_error(place_.name, "zlib cannot start inflating (out of memory?)")};
            cursor_ = 0;
            input_offset_ = 0;
            crc_.reset(0, 0);
        }
        live_ = true;
        stream_.next_in = nullptr;
        stream_.avail_in = 0;
        window_used_ = 0;
        ended_ = false;
        return {};
    }

    // Inflates into the free part of the window, up to the next checkpoint and the member's end;
    // at the end, checks the stream ends there and the CRC-32.
    Expected<void> inflate_more() {
        std::uint64_t want = std::min<std::uint64_t>(window_.size() - window_used_, place_.size - cursor_);
        const std::uint64_t next_checkpoint = (checkpoints_.size() + 1) * interval_;
        const bool checkpoint_due =
            checkpoints_.size() < max_checkpoints && next_checkpoint < place_.size && next_checkpoint > cursor_;
        if (checkpoint_due) want = std::min(want, next_checkpoint - cursor_);
        // The budget (InflationBudget): a crafted file's reads could jump back and forth for hours.
        if (want > 0 && counters_.bytes_inflated + want > budget_) {
            return Error{member_error(place_.name, "reading it jumps back and forth more than a scan does (" +
                                                       std::to_string(counters_.restarts) + " restarts, " +
                                                       std::to_string(counters_.bytes_inflated) +
                                                       " bytes inflated for " + std::to_string(place_.size) +
                                                       " bytes of data): a crafted or unusual file, not read further")};
        }
        if (want > 0) {
            std::uint8_t* out = window_.data() + window_used_;
            Expected<std::size_t> produced = inflate_into(out, static_cast<std::size_t>(want));
            if (!produced) return produced.error();
            crc_.add(cursor_, {out, *produced});
            window_used_ += *produced;
            cursor_ += *produced;
            counters_.bytes_inflated += *produced;
            if (*produced < want)
                return Error{member_error(place_.name, "it inflates to " + std::to_string(cursor_) +
                                                           " bytes, fewer than the " + std::to_string(place_.size) +
                                                           " its entry declares (damaged)")};
        }
        if (checkpoint_due && cursor_ == next_checkpoint) {
            if (Expected<void> taken = take_checkpoint(); !taken) return taken;
        }
        if (cursor_ == place_.size && !verified_) return check_end();
        return {};
    }

    Expected<void> take_checkpoint() {
        Checkpoint checkpoint;
        checkpoint.output = cursor_;
        checkpoint.input = input_offset_ - stream_.avail_in;
        checkpoint.crc = crc_.value();
        checkpoint.stream = std::make_unique<z_stream>();
        if (::inflateCopy(checkpoint.stream.get(), &stream_) != Z_OK)
            return Error{member_error(place_.name, "zlib cannot copy its state (out of memory?)")};
        checkpoints_.push_back(std::move(checkpoint));
        return {};
    }

    // Up to `want` bytes out of zlib (fewer only where the stream ends first); the compressed bytes
    // read in 64 KiB pieces, never past the member's compressed size.
    Expected<std::size_t> inflate_into(std::uint8_t* out, std::size_t want) {
        stream_.next_out = out;
        stream_.avail_out = static_cast<uInt>(want);
        while (stream_.avail_out > 0) {
            if (stream_.avail_in == 0 && input_offset_ < place_.compressed_size) {
                const auto piece = static_cast<std::size_t>(
                    std::min<std::uint64_t>(input_.size(), place_.compressed_size - input_offset_));
                if (Expected<void> read = read_at(*file_, place_.data_offset + input_offset_, {input_.data(), piece});
                    !read)
                    return Error{member_error(place_.name, read.error().message)};
                input_offset_ += piece;
                counters_.compressed_bytes_read += piece;
                stream_.next_in = input_.data();
                stream_.avail_in = static_cast<uInt>(piece);
            }
            const int status = ::inflate(&stream_, Z_NO_FLUSH);
            if (status == Z_STREAM_END) {
                ended_ = true;
                break;
            }
            if (status == Z_BUF_ERROR && stream_.avail_in == 0 && input_offset_ >= place_.compressed_size)
                return Error{member_error(place_.name,
                                          "its compressed data (" + std::to_string(place_.compressed_size) +
                                              " bytes) ends before its deflate stream does (damaged or truncated)")};
            if (status != Z_OK && status != Z_BUF_ERROR) {
                const std::string why =
                    stream_.msg != nullptr ? sys::printable(stream_.msg) : "error " + std::to_string(status);
                return Error{member_error(place_.name, "damaged deflate data (zlib: " + why + ")")};
            }
        }
        return want - stream_.avail_out;
    }

    // At the member's declared end: the stream must end here (no byte more), and the CRC-32 of the
    // whole output must be the directory's.
    Expected<void> check_end() {
        std::uint8_t extra = 0;
        while (!ended_) {
            const bool input_left = stream_.avail_in > 0 || input_offset_ < place_.compressed_size;
            Expected<std::size_t> produced = inflate_into(&extra, 1);
            // Every compressed byte consumed and every declared byte out, nothing pending, but no
            // final block: the data is whole (its CRC-32 is checked below), as Python's zipfile reads it.
            if (!produced && !input_left) break;
            if (!produced) return produced.error();
            if (*produced > 0)
                return Error{member_error(place_.name, "it inflates to more than the " + std::to_string(place_.size) +
                                                           " bytes its entry declares (damaged or crafted)")};
        }
        if (crc_.position() == place_.size && crc_.value() != place_.crc32)
            return Error{member_error(place_.name, crc_mismatch(crc_.value(), place_.crc32))};
        verified_ = true;
        return {};
    }

    std::shared_ptr<const File> file_;
    MemberPlace place_;
    z_stream stream_{};
    bool live_ = false;
    bool ended_ = false;              // the deflate stream has ended (at the cursor)
    bool verified_ = false;           // it ends at the declared size, and the CRC-32 matches
    std::uint64_t cursor_ = 0;        // uncompressed bytes the stream has produced
    std::uint64_t input_offset_ = 0;  // compressed bytes read into zlib's input (its avail_in not yet consumed)
    std::vector<std::uint8_t> window_;
    std::size_t window_used_ = 0;  // the window holds [cursor_ - window_used_, cursor_)
    std::vector<std::uint8_t> input_;
    std::uint64_t interval_ = min_interval;
    std::uint64_t budget_ = 0;  // the most bytes_inflated may reach
    std::vector<Checkpoint> checkpoints_;
    RunningCrc crc_;
    ZipReadCounters counters_;
    std::optional<Error> failure_;
};

}  // namespace

ZipArchive::ZipArchive(std::shared_ptr<const File> file, std::vector<ZipMember> members)
    : file_(std::move(file)), members_(std::move(members)) {}

std::uint64_t ZipArchive::file_size() const { return file_->size; }

Expected<ZipArchive> ZipArchive::open(const std::string& path) {
    const Expected<sys::RegularFile> opened = sys::open_regular_file(path);
    if (!opened) return opened.error();
    auto file = std::make_shared<const File>(opened->fd, opened->size);
    const Expected<EndRecord> end = read_end_record(*file);
    if (!end) return end.error();
    // The directory ends where the (zip64) end record begins. Where it would end sooner, bytes stand
    // before the archive (a self-extracting archive, a script): its offsets count from the
    // archive's start, and are moved by that much (as Python's zipfile and Info-ZIP's unzip do).
    const std::optional<std::uint64_t> directory_end = checked_add(end->directory_offset, end->directory_size);
    if (!directory_end || *directory_end > end->directory_end)
        return Error{"damaged zip archive: its central directory (" + std::to_string(end->directory_size) +
                     " bytes at offset " + std::to_string(end->directory_offset) +
                     ") runs past where its end record begins (offset " + std::to_string(end->directory_end) + ")"};
    const std::uint64_t prefix = end->directory_end - *directory_end;
    const std::uint64_t directory_offset = end->directory_offset + prefix;
    if (end->directory_size > max_central_directory_bytes)
        return Error{"a central directory of " + std::to_string(end->directory_size) + " bytes, more than the " +
                     std::to_string(max_central_directory_bytes) + " cudacheck reads"};
    if (end->entries > max_members)
        return Error{"its end record says " + std::to_string(end->entries) + " members, more than the " +
                     std::to_string(max_members) + " cudacheck reads"};
    if (end->entries * central_header_bytes > end->directory_size)
        return Error{"damaged zip archive: its end record says " + std::to_string(end->entries) +
                     " members, more than its " + std::to_string(end->directory_size) +
                     "-byte central directory can hold"};
    std::vector<std::uint8_t> directory(static_cast<std::size_t>(end->directory_size));
    if (Expected<void> read = read_at(*file, directory_offset, directory); !read) return read.error();
    Expected<std::vector<ZipMember>> members = parse_central_directory(directory, *end);
    if (!members) return members.error();
    for (ZipMember& member : *members) {
        const std::optional<std::uint64_t> moved = checked_add(member.local_header_offset, prefix);
        if (!moved) return Error{member_error(member.name, "its local header offset is past any file")};
        member.local_header_offset = *moved;
    }
    if (Expected<void> layout = check_layout(*members, directory_offset); !layout) return layout.error();
    return ZipArchive(std::move(file), std::move(*members));
}

const ZipMember* ZipArchive::find(std::string_view name) const {
    for (auto member = members_.rbegin(); member != members_.rend(); ++member)
        if (member->name == name) return &*member;
    return nullptr;
}

Expected<std::unique_ptr<ZipMemberSource>> ZipArchive::open_member(const ZipMember& member,
                                                                   InflationBudget budget) const {
    if (member.encrypted)
        return Error{member_error(member.name, "it is encrypted, and cudacheck reads no encrypted member")};
    if (member.method != method_stored && member.method != method_deflated)
        return Error{member_error(member.name, "compressed with " + method_words(member.method) +
                                                   "; cudacheck reads stored (0) and deflated (8) members")};
    if (member.method == method_stored && member.compressed_size != member.uncompressed_size)
        return Error{member_error(member.name, "stored, yet its sizes differ (" +
                                                   std::to_string(member.compressed_size) + " and " +
                                                   std::to_string(member.uncompressed_size) + " bytes): damaged")};
    if (member.method == method_deflated && member.uncompressed_size / deflate_max_ratio > member.compressed_size + 64)
        return Error{
            member_error(member.name, "it declares " + std::to_string(member.uncompressed_size) + " bytes from " +
                                          std::to_string(member.compressed_size) +
                                          " compressed, more than deflate's 1032:1 can give (damaged or crafted)")};
    // The local header (4.3.7): its name must be the directory's (as Python's zipfile requires),
    // its method too, and the data after its name and extra field must end within the member's space.
    std::uint8_t header[local_header_bytes];
    if (member.local_header_offset > file_->size || file_->size - member.local_header_offset < sizeof header)
        return Error{member_error(member.name, "its local header lies past the end of the archive")};
    if (Expected<void> read = read_at(*file_, member.local_header_offset, header); !read)
        return Error{member_error(member.name, read.error().message)};
    if (u32(header) != local_header_signature)
        return Error{member_error(member.name, "no local header at offset " +
                                                   std::to_string(member.local_header_offset) + " (damaged)")};
    const std::size_t name_length = u16(header + 26);
    const std::size_t extra_length = u16(header + 28);
    if ((u16(header + 6) & (flag_encrypted | flag_strong_encryption)) != 0)
        return Error{
            member_error(member.name, "its local header says encrypted, and cudacheck reads no encrypted member")};
    if (u16(header + 8) != member.method)
        return Error{member_error(member.name, "its local header names method " + std::to_string(u16(header + 8)) +
                                                   ", the central directory " + std::to_string(member.method) +
                                                   " (damaged or crafted)")};
    const std::uint64_t data_offset = member.local_header_offset + local_header_bytes + name_length + extra_length;
    if (data_offset > member.space_end || member.space_end - data_offset < member.compressed_size)
        return Error{member_error(member.name,
                                  "its data runs into the next member or the central directory (damaged or crafted)")};
    std::string local_name(name_length, '\0');
    if (Expected<void> read = read_at(*file_, member.local_header_offset + local_header_bytes,
                                      {reinterpret_cast<std::uint8_t*>(local_name.data()), name_length});
        !read)
        return Error{member_error(member.name, read.error().message)};
    if (local_name != member.name)
        return Error{member_error(member.name,
                                  "its local header names it " + quoted_name(local_name) + " (damaged or crafted)")};

    MemberPlace place{member.name, data_offset, member.compressed_size, member.uncompressed_size, member.crc32};
    // An empty member "deflated" into no bytes at all (no stream): empty, as Python's zipfile reads it.
    const bool empty = member.compressed_size == 0 && member.uncompressed_size == 0;
    if (member.method == method_stored || empty)
        return std::unique_ptr<ZipMemberSource>(std::make_unique<StoredSource>(file_, std::move(place)));
    auto source = std::make_unique<DeflateSource>(file_, std::move(place), budget);
    if (Expected<void> started = source->start(); !started) return started.error();
    return std::unique_ptr<ZipMemberSource>(std::move(source));
}

Expected<std::string> ZipArchive::read_member(const ZipMember& member, std::size_t limit) const {
    if (member.uncompressed_size > limit)
        return Error{member_error(member.name, std::to_string(member.uncompressed_size) + " bytes, more than the " +
                                                   std::to_string(limit) + " read of it")};
    Expected<std::unique_ptr<ZipMemberSource>> source = open_member(member);
    if (!source) return source.error();
    std::string text;
    text.reserve(static_cast<std::size_t>(member.uncompressed_size));
    std::uint64_t offset = 0;
    do {  // once at least, so that an empty member's stream and CRC are checked too
        const auto length =
            static_cast<std::size_t>(std::min<std::uint64_t>(ByteSource::max_read, member.uncompressed_size - offset));
        Expected<std::span<const std::uint8_t>> bytes = (*source)->read(offset, length);
        if (!bytes) return bytes.error();
        text.append(reinterpret_cast<const char*>(bytes->data()), bytes->size());
        offset += length;
    } while (offset < member.uncompressed_size);
    return text;
}

}  // namespace cudacheck
