#include "cuda/gpu_code.hpp"

#include "util/byte_view.hpp"
#include "util/file_source.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <iterator>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace cudacheck {

namespace {

// ELF (System V gABI, "ELF Header" and "Sections"); only ELF64 little endian carries CUDA code on
// the platforms CUDA supports.
constexpr std::size_t elf64_header_size = 64;
constexpr std::size_t elf64_section_header_size = 64;
constexpr std::uint16_t et_rel = 1, et_exec = 2, et_dyn = 3;
constexpr std::uint16_t em_cuda = 190;
constexpr std::uint32_t sht_null = 0, sht_nobits = 8;
constexpr std::uint16_t shn_xindex = 0xffff;

// Fatbinary (fatbinary_section.h; see gpu_code.hpp for the other sources). The variant flags are not in the public
// headers: nvcc 13.0 sets 0x100000 on sm_XYa/compute_XYa entries and 0x200000 on sm_XYf/compute_XYf entries, and
// cuobjdump names the entries accordingly (tests/unit/cuda/gpu_code_test.cpp compares).
constexpr std::uint32_t fatbin_magic = 0xBA55ED50;
constexpr std::uint64_t fatbin_header_size = 16;
constexpr std::uint64_t entry_header_min_size = 64;
constexpr std::uint16_t entry_kind_ptx = 1, entry_kind_elf = 2, entry_kind_lto_ir = 8;
constexpr std::uint64_t flag_compressed_lz4 = 0x2000, flag_compressed_zstd = 0x8000;
constexpr std::uint64_t flag_arch_specific = 0x100000, flag_family = 0x200000;
// Architectures are three digits at most (sm_121); a larger number is a corrupt header.
constexpr std::uint32_t largest_arch = 999;

using Bytes = ByteView;

struct Section {
    std::uint32_t name_offset = 0;  // into the section name table
    std::uint32_t type = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint64_t index = 0;  // in the section header table
    std::uint64_t address = 0;  // sh_addr: where it is mapped in memory (0 in an object file)
};

// Every read of the scan goes through here: windows of at most ByteSource::max_read bytes, each
// valid until the next read, so a source need not hold the file (a zip member inflated on demand).
// The first read that fails ends the scan (ScanError::unreadable, the source's message). The file
// system's holes come with it: a hole of a sparse file reads as zeros without being stored
// (lseek(2), SEEK_DATA), so a scan steps over it instead of faulting in its pages (a 32 GiB all-zero
// .nv_fatbin took minutes and 17.5 GB of RSS byte by byte).
class Reader {
public:
    explicit Reader(ByteSource& source) : source_(source), size_(source.size()) {
        // Bytes in memory (a mapped file) are read in place, without a call through the source per header.
        if (const auto* span = dynamic_cast<const SpanByteSource*>(&source)) memory_ = span->bytes();
    }
    [[nodiscard]] std::uint64_t size() const { return size_; }
    [[nodiscard]] ByteSource& source() const { return source_; }
    [[nodiscard]] bool has(std::uint64_t offset, std::uint64_t length) const {
        return offset <= size_ && length <= size_ - offset;
    }
    // The first read error, if any: once there is one, every caller stops.
    [[nodiscard]] const std::optional<Error>& failure() const { return failure_; }

    // `length` bytes at `offset`, inside the source; empty after a read error.
    [[nodiscard]] std::optional<Bytes> read(std::uint64_t offset, std::uint64_t length) {
        if (failure_) return std::nullopt;
        if (!has(offset, length) || length > ByteSource::max_read) {  // a bug here, not in the file
            failure_ = Error{
                fmt::format("internal error: read of {} bytes at offset {:#x} outside the limits", length, offset)};
            return std::nullopt;
        }
        if (memory_) return Bytes(memory_->subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length)));
        Expected<std::span<const std::uint8_t>> bytes = source_.read(offset, static_cast<std::size_t>(length));
        if (!bytes) {
            failure_ = bytes.error();
            return std::nullopt;
        }
        if (bytes->size() < length) {  // a source that returns less than asked is not believed
            failure_ = Error{fmt::format("read {} bytes at offset {:#x}, got {}", length, offset, bytes->size())};
            return std::nullopt;
        }
        return Bytes(bytes->first(static_cast<std::size_t>(length)));
    }

    // The stored extent at or after `offset`: {size, size} when only a hole is left.
    [[nodiscard]] DataExtent extent_at(std::uint64_t offset) {
        if (offset >= size_) return {size_, size_};
        // Asked once per extent: a file that is not sparse is one extent, so one lseek pair per scan.
        if (offset < cached_.begin || offset >= cached_.end) {
            DataExtent found = source_.find_data(offset);
            if (found.begin >= size_) return {size_, size_};  // only a hole is left
            // An answer that goes backwards or is empty is not trusted: the rest counts as data.
            if (found.begin < offset || found.end <= found.begin || found.end > size_) found = {offset, size_};
            cached_ = found;
        }
        return {std::max(offset, cached_.begin), cached_.end};
    }

    // The first non-zero byte in [position, end), or end; empty after a read error.
    [[nodiscard]] std::optional<std::uint64_t> skip_zeros(std::uint64_t position, std::uint64_t end) {
        while (position < end) {
            const DataExtent data = extent_at(position);
            if (data.begin >= end) return end;
            const std::uint64_t stop = std::min(data.end, end);
            const std::optional<std::uint64_t> found = first_nonzero(data.begin, stop);
            if (!found || *found < stop) return found;
            position = stop;
        }
        return end;
    }

private:
    // In windows that grow from 64 bytes: the padding between fatbinaries is a few bytes, so the
    // first window is small (a zip member inflates no further than needed), but nothing stops a
    // file from holding gigabytes of stored zeros there. 64 bytes at a time within a window.
    [[nodiscard]] std::optional<std::uint64_t> first_nonzero(std::uint64_t position, std::uint64_t end) {
        std::uint64_t window = 64;
        while (position < end) {
            const std::uint64_t length = std::min(end - position, window);
            const std::optional<Bytes> bytes = read(position, length);
            if (!bytes) return std::nullopt;
            const std::string_view text = bytes->text(0, length);
            std::size_t at = 0;
            for (; text.size() - at >= 64; at += 64) {
                std::uint64_t words[8];
                std::memcpy(words, text.data() + at, sizeof words);
                std::uint64_t any = 0;
                for (const std::uint64_t word : words) any |= word;
                if (any != 0) break;
            }
            while (at < text.size() && text[at] == '\0') ++at;
            if (at < text.size()) return position + at;
            position += length;
            window = std::min<std::uint64_t>(window * 2, ByteSource::max_read);
        }
        return end;
    }

    ByteSource& source_;
    std::uint64_t size_;
    std::optional<std::span<const std::uint8_t>> memory_;
    DataExtent cached_;
    std::optional<Error> failure_;
};

void fail(GpuCodeScan& scan, ScanError error, std::string message) {
    scan.error = error;
    scan.error_message = std::move(message);
}

// Entries of the fatbinaries laid back to back in [begin, end); false after a malformed header or a
// read error. Only headers are read (16 bytes per fatbinary, 64 per entry), never a payload.
bool scan_fatbins(Reader& reader, std::uint64_t begin, std::uint64_t end, std::string_view section, GpuCodeScan& scan) {
    const std::string where = section.empty() ? std::string() : fmt::format(" in section {}", section);
    std::uint64_t position = begin;
    while (position < end) {
        // Fatbinaries are 8-byte aligned in their section; what lies between them is zero padding.
        const std::optional<std::uint64_t> found = reader.skip_zeros(position, end);
        if (!found) return false;
        position = *found;
        if (position == end) break;
        if (end - position < fatbin_header_size) {
            fail(scan, ScanError::malformed,
                 fmt::format("truncated fatbinary header at offset {:#x}{}", position, where));
            return false;
        }
        const std::optional<Bytes> header = reader.read(position, fatbin_header_size);
        if (!header) return false;
        if (header->u32(0) != fatbin_magic) {
            fail(scan, ScanError::malformed,
                 fmt::format("no fatbinary at offset {:#x}{} (magic {:#010x}, expected {:#010x})", position, where,
                             header->u32(0), fatbin_magic));
            return false;
        }
        const std::uint64_t header_size = header->u16(6);
        const std::uint64_t payload_size = header->u64(8);
        if (header_size < fatbin_header_size || header_size > end - position ||
            payload_size > end - position - header_size) {
            fail(scan, ScanError::malformed,
                 fmt::format("fatbinary at offset {:#x}{} claims {} + {} bytes; {} are left", position, where,
                             header_size, payload_size, end - position));
            return false;
        }
        const std::size_t fatbin_index = scan.fatbins++;
        const std::uint64_t fatbin_end = position + header_size + payload_size;
        std::uint64_t entry = position + header_size;
        while (entry < fatbin_end) {
            const std::uint64_t left = fatbin_end - entry;
            std::optional<Bytes> bytes;
            if (left >= entry_header_min_size && !(bytes = reader.read(entry, entry_header_min_size))) return false;
            const std::uint64_t entry_header_size = bytes ? bytes->u32(4) : 0;
            const std::uint64_t entry_size = bytes ? bytes->u64(8) : 0;
            if (left < entry_header_min_size || entry_header_size < entry_header_min_size || entry_header_size > left ||
                entry_size > left - entry_header_size) {
                fail(scan, ScanError::malformed,
                     fmt::format("malformed fatbinary entry at offset {:#x}{}", entry, where));
                return false;
            }
            const std::uint16_t kind = bytes->u16(0);
            const std::uint32_t arch = bytes->u32(28);
            const std::uint64_t flags = bytes->u64(40);
            if (kind == entry_kind_elf || kind == entry_kind_ptx || kind == entry_kind_lto_ir) {
                if (arch == 0 || arch > largest_arch) {
                    fail(scan, ScanError::malformed,
                         fmt::format("fatbinary entry at offset {:#x}{} names architecture {}", entry, where, arch));
                    return false;
                }
                CodeObject object;
                object.kind = kind == entry_kind_elf   ? CodeKind::sass
                              : kind == entry_kind_ptx ? CodeKind::ptx
                                                       : CodeKind::lto_ir;
                object.arch.number = static_cast<int>(arch);
                if (flags & flag_arch_specific) object.arch.variant = ArchVariant::arch_specific;
                else if (flags & flag_family) object.arch.variant = ArchVariant::family;
                object.compression = (flags & flag_compressed_zstd)  ? Compression::zstd
                                     : (flags & flag_compressed_lz4) ? Compression::lz4
                                                                     : Compression::none;
                object.size = entry_size;
                object.uncompressed_size = object.compression == Compression::none ? entry_size : bytes->u64(56);
                // For PTX the entry's format version is the PTX ISA version (`.version` in the text).
                if (object.kind == CodeKind::ptx) object.ptx_isa = PtxIsa{bytes->u16(26), bytes->u16(24)};
                object.section = std::string(section);
                object.fatbin = fatbin_index;
                object.offset = entry + entry_header_size;
                scan.objects.push_back(std::move(object));
            }
            // Other kinds (none seen from nvcc 13) are not code a GPU can load: skipped, as cuobjdump does.
            entry += entry_header_size + entry_size;
        }
        position = fatbin_end;
    }
    return true;
}

// `.nv.compat` holds attributes in the .nv.info record format (format byte, attribute byte, then a
// 16-bit value, or a 16-bit size and that many bytes for format 4). nvcc 13.0 sets attribute 9 to 1
// in sm_XYa cubins and to 0 otherwise; nothing in a cubin tells sm_XYf from sm_XY (cuobjdump names
// an sm_100f cubin sm_100 too). Read in windows; empty after a read error.
std::optional<bool> compat_says_arch_specific(Reader& reader, const Section& compat) {
    constexpr std::uint8_t format_sized = 4, attribute_arch_specific = 9;
    std::uint64_t record = compat.offset;
    const std::uint64_t end = compat.offset + compat.size;
    std::optional<Bytes> window;
    std::uint64_t window_begin = 0;
    while (end - record >= 4) {
        if (!window || record + 4 > window_begin + window->size()) {
            window_begin = record;
            if (!(window = reader.read(record, std::min<std::uint64_t>(end - record, ByteSource::max_read))))
                return std::nullopt;
        }
        const std::uint64_t at = record - window_begin;
        const std::uint8_t format = window->u8(at);
        const std::uint8_t attribute = window->u8(at + 1);
        if (format < 1 || format > format_sized) return false;
        if (attribute == attribute_arch_specific) return window->u16(at + 2) == 1;
        record += 4 + (format == format_sized ? std::uint64_t{window->u16(at + 2)} : 0);
        if (record > end) return false;
    }
    return false;
}

// The sections whose names matter. The longest is 16 bytes: a name is told by at most its first 17
// bytes (with the NUL).
enum class Name { other, nv_fatbin, relfatbin, interp, nv_compat, fatbin_segment };
constexpr std::size_t longest_name = 17;
constexpr std::uint64_t held_names_limit = std::uint64_t{16} << 20;

// The section header table (gABI "Sections"), read in windows: nothing is allocated per section,
// since a file may claim 2^32 of them.
struct SectionTable {
    std::uint64_t offset = 0;  // e_shoff
    std::uint64_t entry_size = 0;  // e_shentsize
    std::uint64_t count = 0;
    Section names;  // the section name table
    // Its bytes up to held_names_limit (every real file: a few hundred bytes; an object built with
    // -ffunction-sections, some megabytes); a larger table is read a name at a time. Names are compared in place, never
    // measured: a table may have no NUL.
    std::string name_bytes;
    bool names_held = false;

    static Section parse(const Bytes& header, std::uint64_t at, std::uint64_t index) {
        Section section{header.u32(at), header.u32(at + 4), header.u64(at + 24), header.u64(at + 32), index};
        section.address = header.u64(at + 16);
        return section;
    }
    // Which of the names that matter the section has; empty after a read error.
    [[nodiscard]] std::optional<Name> name_of(Reader& reader, const Section& section) const {
        if (section.name_offset >= names.size) return Name::other;
        const std::uint64_t length = std::min<std::uint64_t>(longest_name, names.size - section.name_offset);
        std::string_view name;
        std::optional<Bytes> bytes;
        if (names_held) {
            name = std::string_view(name_bytes).substr(section.name_offset, length);
        } else {
            if (!(bytes = reader.read(names.offset + section.name_offset, length))) return std::nullopt;
            name = bytes->text(0, length);
        }
        const auto is = [&](std::string_view wanted) {
            return name.size() > wanted.size() && name.substr(0, wanted.size()) == wanted &&
                   name[wanted.size()] == '\0';
        };
        if (is(".nv_fatbin")) return Name::nv_fatbin;
        if (is("__nv_relfatbin")) return Name::relfatbin;
        if (is(".interp")) return Name::interp;
        if (is(".nv.compat")) return Name::nv_compat;
        if (is(".nvFatBinSegment")) return Name::fatbin_segment;
        return Name::other;
    }
};

// The section header table, or empty with the scan failed (malformed, or a read error).
std::optional<SectionTable> read_section_table(Reader& reader, const Bytes& elf_header, GpuCodeScan& scan) {
    SectionTable table{elf_header.u64(0x28), elf_header.u16(0x3a), elf_header.u16(0x3c), {}, {}, false};
    std::uint64_t names_index = elf_header.u16(0x3e);
    if (table.offset == 0) return SectionTable{};  // no section header table: nothing to find
    if (table.entry_size < elf64_section_header_size || !reader.has(table.offset, table.entry_size)) {
        fail(scan, ScanError::malformed,
             fmt::format("section header table at offset {:#x} ({}-byte entries) is outside the file ({} bytes)",
                         table.offset, table.entry_size, reader.size()));
        return std::nullopt;
    }
    // More than 0xff00 sections: the real count and name-table index live in section 0 (gABI).
    if (table.count == 0 || names_index == shn_xindex) {
        const std::optional<Bytes> first = reader.read(table.offset, elf64_section_header_size);
        if (!first) return std::nullopt;
        if (table.count == 0) table.count = first->u64(32);
        if (names_index == shn_xindex) names_index = first->u32(40);
    }
    if (table.count > (reader.size() - table.offset) / table.entry_size) {
        fail(scan, ScanError::malformed,
             fmt::format("{} section headers at offset {:#x} do not fit in the file ({} bytes)", table.count,
                         table.offset, reader.size()));
        return std::nullopt;
    }
    if (names_index < table.count) {
        const std::optional<Bytes> header =
            reader.read(table.offset + names_index * table.entry_size, elf64_section_header_size);
        if (!header) return std::nullopt;
        table.names = SectionTable::parse(*header, 0, names_index);
    }
    if (names_index >= table.count || table.names.type == sht_nobits ||
        !reader.has(table.names.offset, table.names.size)) {
        fail(scan, ScanError::malformed, "the section name table is missing or outside the file");
        return std::nullopt;
    }
    // Held whole up to held_names_limit, read forward in windows: a name read one at a time between
    // windows of section headers sends a zip member's reader back and forth (each time re-inflating
    // from a checkpoint), which a crafted wheel could use to make a scan take hours.
    if (table.names.size <= held_names_limit) {
        table.name_bytes.reserve(table.names.size);
        for (std::uint64_t done = 0; done < table.names.size;) {
            const std::uint64_t piece = std::min<std::uint64_t>(ByteSource::max_read, table.names.size - done);
            const std::optional<Bytes> names = reader.read(table.names.offset + done, piece);
            if (!names) return std::nullopt;
            table.name_bytes += names->text(0, piece);
            done += piece;
        }
        table.names_held = true;
    }
    return table;
}

// Calls `visit` on each section from `first` in table order until it returns false; false when a
// visit did or a read failed. The headers are read a window at a time and taken out of it before
// any visit (a visit may read). SHT_NULL headers are inactive (gABI) and skipped, and so, unread,
// are those in a hole of a sparse file: all zeros, they are SHT_NULL too.
template <typename Visit>
bool for_each_section(Reader& reader, const SectionTable& table, std::uint64_t first, Visit&& visit) {
    if (first >= table.count) return true;  // also no table at all (entry size 0)
    const std::uint64_t per_read = std::max<std::uint64_t>(1, ByteSource::max_read / table.entry_size);
    std::vector<Section> sections;
    for (std::uint64_t index = first; index < table.count;) {
        const std::uint64_t header = table.offset + index * table.entry_size;
        const DataExtent stored = reader.extent_at(header);
        if (stored.begin - header >= elf64_section_header_size) {
            index = std::max(index + 1, (stored.begin - table.offset) / table.entry_size);
            continue;
        }
        // The headers that begin in this stored extent, up to one read's worth.
        std::uint64_t last = index + 1;
        while (last < table.count && last - index < per_read && table.offset + last * table.entry_size < stored.end)
            ++last;
        const std::optional<Bytes> bytes =
            reader.read(header, (last - 1 - index) * table.entry_size + elf64_section_header_size);
        if (!bytes) return false;
        sections.clear();
        for (std::uint64_t at = index; at < last; ++at) {
            const Section section = SectionTable::parse(*bytes, (at - index) * table.entry_size, at);
            if (section.type != sht_null) sections.push_back(section);
        }
        for (const Section& section : sections)
            if (!visit(section)) return false;
        index = last;
    }
    return true;
}

bool section_in_file(const Reader& reader, const Section& section) {
    return section.type != sht_nobits && reader.has(section.offset, section.size);
}

std::string outside_the_file(const Reader& reader, const Section& section, std::string_view name) {
    return fmt::format("section {} (offset {:#x}, {} bytes) lies outside the file ({} bytes)", name, section.offset,
                       section.size, reader.size());
}

// The sections of one name that hold code, gathered in table order, a batch at a time, with the
// checks the table order decides: the first that lies outside the file, or that makes the sections
// claim more bytes than the file has, ends the list with that error. Sections of one name do not
// overlap, so together they fit in the file: that bounds the code objects read by the file's size,
// however many headers name the same bytes.
struct CodeSections {
    static constexpr std::size_t batch = 1 << 14;
    explicit CodeSections(std::string_view section_name, std::uint64_t claimed_before = 0)
        : name(section_name), claimed(claimed_before) {}
    std::string_view name;
    std::vector<Section> sections;
    std::uint64_t claimed = 0;
    std::optional<std::string> error;  // after the last section
    std::optional<std::uint64_t> resume;  // the table index to gather the next batch from

    void offer(const Reader& reader, const Section& section) {
        if (error || resume) return;
        if (sections.size() == batch) {
            resume = section.index;
            return;
        }
        if (!section_in_file(reader, section)) {
            error = outside_the_file(reader, section, name);
            return;
        }
        claimed += section.size;
        if (claimed > reader.size()) {
            error = fmt::format("the sections {} claim {} bytes together, more than the file's {}: they overlap", name,
                                claimed, reader.size());
            return;
        }
        if (section.size > 0) sections.push_back(section);  // an empty one holds nothing
    }
};

// Scans the gathered sections in file-offset order, so that a source read front to back (a zip
// member) is not sent back, and lists what they hold in table order, as if read one after the
// other: fatbinaries numbered across sections, the listing cut at the first error. False when the
// scan is over.
bool scan_code_sections(Reader& reader, const CodeSections& gathered, GpuCodeScan& scan) {
    std::vector<std::size_t> order(gathered.sections.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return gathered.sections[a].offset < gathered.sections[b].offset;
    });
    if (std::is_sorted(order.begin(), order.end())) {  // table order is file order (every real file): in place
        for (const Section& section : gathered.sections)
            if (!scan_fatbins(reader, section.offset, section.offset + section.size, gathered.name, scan)) return false;
    } else {
        std::vector<std::optional<GpuCodeScan>> found(order.size());
        std::optional<std::size_t> unread;  // the section a read failed in
        for (const std::size_t i : order) {
            const Section& section = gathered.sections[i];
            GpuCodeScan& part = found[i].emplace();
            if (!scan_fatbins(reader, section.offset, section.offset + section.size, gathered.name, part) &&
                reader.failure()) {
                unread = i;
                break;
            }
        }
        for (std::size_t i = 0; i < found.size(); ++i) {
            std::optional<GpuCodeScan>& part = found[i];
            if (!part) return false;  // after a read failed
            for (CodeObject& object : part->objects) {
                object.fatbin = *object.fatbin + scan.fatbins;
                scan.objects.push_back(std::move(object));
            }
            scan.fatbins += part->fatbins;
            if (unread == i) return false;
            if (part->error != ScanError::none) {
                fail(scan, part->error, std::move(part->error_message));
                return false;
            }
        }
    }
    if (reader.failure()) return false;
    if (gathered.error) {
        fail(scan, ScanError::malformed, *gathered.error);
        return false;
    }
    return true;
}

// On a cold page cache each header the scan reads is a disk request of its own, and they come one
// after the other: where the next header lies is in the one before it (libtorch_cuda.so 2.15: 476
// fatbinaries, 2,981 entries, ~0.22 s on this project's disk for 12 MB). Before the scan, this walk
// reads the same headers ahead in waves and hands each wave to the source at once
// (util/file_source.hpp: ReadAheadSource::will_need), so that the disk serves a wave's requests together; the scan
// after it then reads from memory. The first wave is every fatbinary start known: each section's start and what the
// runtime's registration records in `.nvFatBinSegment` point at
// (__fatBinC_Wrapper_t in the toolkit's fatbinary_section.h: magic 0x466243B1, version, then the
// fatbinary's address; GNU ld stores the address in place, lld leaves 0 there and only a
// relocation holds it, and then the fatbinaries are found one after the other as the scan finds
// them). Each further wave is the next header of every chain: a fatbinary's first entry and the
// fatbinary after it, an entry's next entry. Only a hint: the scan reads and checks every header
// itself, so nothing here can change a listing; what the walk cannot parse it drops, a read that
// fails ends it, and it stops at once when its first wave is already in memory (a warm cache).
void read_ahead_code_sections(ReadAheadSource& source, const CodeSections& gathered,
                              const std::optional<Section>& segment) {
    constexpr std::uint32_t wrapper_magic = 0x466243B1;
    constexpr std::uint64_t wrapper_size = 24;
    // A bound for hostile files, on the reads and on the wrappers looked at: libcublasLt.so.13 takes 8,522.
    constexpr std::size_t most_reads = std::size_t{1} << 18;
    struct Header {
        std::uint64_t offset;
        std::uint64_t end;  // of its fatbinary (an entry) or of its section (a fatbinary)
        bool fatbin;
    };
    std::vector<Header> wave;
    std::unordered_set<std::uint64_t> fatbins_seen;
    const auto add_fatbin = [&](std::vector<Header>& into, std::uint64_t offset, std::uint64_t section_end) {
        if (offset + fatbin_header_size <= section_end && fatbins_seen.insert(offset).second)
            into.push_back({offset, section_end, true});
    };
    for (const Section& section : gathered.sections) add_fatbin(wave, section.offset, section.offset + section.size);
    std::vector<const Section*> by_address;  // those with an address (not an object file's), by address
    for (const Section& section : gathered.sections)
        if (section.address != 0) by_address.push_back(&section);
    std::sort(by_address.begin(), by_address.end(),
              [](const Section* a, const Section* b) { return a->address < b->address; });
    if (segment && segment->type != sht_nobits && segment->size <= std::uint64_t{most_reads} * wrapper_size &&
        segment->offset <= source.size() && segment->size <= source.size() - segment->offset) {
        for (std::uint64_t at = 0; at + wrapper_size <= segment->size;) {
            const std::uint64_t length = std::min<std::uint64_t>((segment->size - at) / wrapper_size * wrapper_size,
                                                                 ByteSource::max_read / wrapper_size * wrapper_size);
            const Expected<std::span<const std::uint8_t>> bytes = source.read(segment->offset + at, length);
            if (!bytes) return;
            const Bytes wrappers(*bytes);
            for (std::uint64_t wrapper = 0; wrapper + wrapper_size <= length; wrapper += wrapper_size) {
                if (wrappers.u32(wrapper) != wrapper_magic) continue;
                const std::uint64_t address = wrappers.u64(wrapper + 8);
                // The last section mapped at or below the address, by binary search (sections of one
                // name do not overlap).
                const auto after = std::upper_bound(by_address.begin(), by_address.end(), address,
                                                    [](std::uint64_t value, const Section* section) {
                                                        return value < section->address;
                                                    });
                if (after == by_address.begin()) continue;
                const Section& section = **std::prev(after);
                if (address - section.address < section.size)
                    add_fatbin(wave, address - section.address + section.offset, section.offset + section.size);
            }
            at += length;
        }
    }
    std::size_t reads = 0;
    for (bool first = true; !wave.empty() && reads < most_reads; first = false) {
        std::sort(wave.begin(), wave.end(), [](const Header& a, const Header& b) { return a.offset < b.offset; });
        std::vector<DataExtent> extents;
        extents.reserve(wave.size());
        for (const Header& header : wave)
            extents.push_back(
                {header.offset, std::min(header.end, header.offset + fatbin_header_size + entry_header_min_size)});
        if (source.will_need(extents) == 0 && first) return;  // in memory already: the scan is quick as it is
        std::vector<Header> next;
        for (const Header& header : wave) {
            if (++reads > most_reads) break;
            const std::uint64_t length = std::min<std::uint64_t>(header.end - header.offset, entry_header_min_size);
            const Expected<std::span<const std::uint8_t>> read = source.read(header.offset, length);
            if (!read) return;  // the scan meets it too, and says so
            const Bytes bytes(*read);
            if (header.fatbin) {
                // Zero padding may come first (fatbinaries are 8-byte aligned): the header after it.
                std::uint64_t skip = 0;
                while (skip < length && bytes.u8(skip) == 0) ++skip;
                if (skip > 0) {
                    if (skip < length) add_fatbin(next, header.offset + skip, header.end);
                    continue;
                }
                if (length < fatbin_header_size || bytes.u32(0) != fatbin_magic) continue;
                const std::uint64_t header_size = bytes.u16(6), payload_size = bytes.u64(8);
                const std::uint64_t left = header.end - header.offset;
                if (header_size < fatbin_header_size || header_size > left || payload_size > left - header_size)
                    continue;
                const std::uint64_t fatbin_end = header.offset + header_size + payload_size;
                if (fatbin_end - (header.offset + header_size) >= entry_header_min_size)
                    next.push_back({header.offset + header_size, fatbin_end, false});
                add_fatbin(next, fatbin_end, header.end);
            } else {
                if (length < entry_header_min_size) continue;
                const std::uint64_t header_size = bytes.u32(4), entry_size = bytes.u64(8);
                const std::uint64_t left = header.end - header.offset;
                if (header_size < entry_header_min_size || header_size > left || entry_size > left - header_size)
                    continue;
                const std::uint64_t following = header.offset + header_size + entry_size;
                if (header.end - following >= entry_header_min_size) next.push_back({following, header.end, false});
            }
        }
        wave = std::move(next);
    }
}

void scan_elf(Reader& reader, GpuCodeScan& scan) {
    constexpr std::uint8_t elf_class_64 = 2, elf_little_endian = 1;
    if (!reader.has(0, elf64_header_size)) {
        fail(scan, ScanError::malformed, fmt::format("truncated ELF header ({} bytes)", reader.size()));
        return;
    }
    const std::optional<Bytes> header = reader.read(0, elf64_header_size);
    if (!header) return;
    if (header->u8(4) != elf_class_64 || header->u8(5) != elf_little_endian) {
        fail(scan, ScanError::unrecognised,
             "an ELF file, but not 64-bit little-endian (the only kind CUDA code comes in)");
        return;
    }
    const std::uint16_t type = header->u16(16);
    const bool cubin = header->u16(18) == em_cuda;
    // The SM is in e_flags: bits 8-15 from ELF ABI version 8 (CUDA 13 cubins), bits 0-7 before.
    const std::uint32_t flags = header->u32(0x30);
    const int cubin_arch = static_cast<int>(header->u8(8) >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
    const auto table = read_section_table(reader, *header, scan);  // `header` is stale from here
    if (!table) return;
    // One pass over the table: the names that decide the kind, and the sections that may hold code.
    bool has_nv_fatbin = false, has_interpreter = false;
    std::optional<Section> compat, segment;
    CodeSections linked(".nv_fatbin"), relocatable("__nv_relfatbin");
    const bool read = for_each_section(reader, *table, 0, [&](const Section& section) {
        const std::optional<Name> name = table->name_of(reader, section);
        if (!name) return false;
        has_nv_fatbin = has_nv_fatbin || *name == Name::nv_fatbin;
        has_interpreter = has_interpreter || *name == Name::interp;
        if (!compat && *name == Name::nv_compat) compat = section;
        if (!segment && *name == Name::fatbin_segment) segment = section;
        if (*name == Name::nv_fatbin) linked.offer(reader, section);
        if (*name == Name::relfatbin) relocatable.offer(reader, section);
        return true;
    });
    if (!read) return;
    if (cubin) {
        scan.kind = FileKind::cubin;
        CodeObject object;
        object.arch.number = cubin_arch;
        if (compat && !section_in_file(reader, *compat)) {
            fail(scan, ScanError::malformed, outside_the_file(reader, *compat, ".nv.compat"));
            return;
        }
        if (compat) {
            const std::optional<bool> arch_specific = compat_says_arch_specific(reader, *compat);
            if (!arch_specific) return;
            if (*arch_specific) object.arch.variant = ArchVariant::arch_specific;
        }
        object.size = object.uncompressed_size = reader.size();
        scan.objects.push_back(std::move(object));
        return;
    }
    if (type == et_rel) scan.kind = FileKind::object;
    else if (type == et_exec || (type == et_dyn && has_interpreter))
        scan.kind = FileKind::executable;  // PIE executables are ET_DYN
    else if (type == et_dyn) scan.kind = FileKind::shared_library;
    else {
        fail(scan, ScanError::unrecognised,
             fmt::format("an ELF file of type {} (not an executable, shared library or object)", type));
        return;
    }
    // The runtime registers what `.nv_fatbin` holds. `__nv_relfatbin` holds the relocatable code
    // (-rdc) for device linking: an object file compiled with -rdc has only that, while a linked
    // executable keeps it beside the linked `.nv_fatbin` without ever loading it (cuobjdump lists
    // it only when there is no `.nv_fatbin`, and so does cudacheck).
    CodeSections gathered = has_nv_fatbin ? std::move(linked) : std::move(relocatable);
    if (auto* file = dynamic_cast<ReadAheadSource*>(&reader.source()))
        read_ahead_code_sections(*file, gathered, has_nv_fatbin ? segment : std::nullopt);
    while (scan_code_sections(reader, gathered, scan) && gathered.resume) {
        // More sections of the name than one batch (no real file): the next batch, from the table again.
        CodeSections next(gathered.name, gathered.claimed);
        if (!for_each_section(reader, *table, *gathered.resume,
                              [&](const Section& section) {
                                  const std::optional<Name> name = table->name_of(reader, section);
                                  if (!name) return false;
                                  if (*name == (has_nv_fatbin ? Name::nv_fatbin : Name::relfatbin))
                                      next.offer(reader, section);
                                  return !next.resume;
                              }) &&
            reader.failure())
            return;
        gathered = std::move(next);
    }
}

// A PTX text file: `.version X.Y` and `.target sm_XY` near the top, no NUL bytes. Only the first
// 64 KiB are read: the directives come first.
void scan_ptx(Reader& reader, GpuCodeScan& scan) {
    const std::uint64_t head_size = std::min<std::uint64_t>(reader.size(), 1 << 16);
    const std::optional<Bytes> bytes = reader.read(0, head_size);
    if (!bytes) return;
    const std::string_view head = bytes->text(0, head_size);
    const auto directive = [&](std::string_view name) -> std::optional<std::string_view> {
        for (std::size_t at = head.find(name); at != std::string_view::npos; at = head.find(name, at + 1)) {
            if (at > 0 && head[at - 1] != '\n' && head[at - 1] != ' ' && head[at - 1] != '\t') continue;
            std::size_t begin = at + name.size();
            while (begin < head.size() && (head[begin] == ' ' || head[begin] == '\t')) ++begin;
            std::size_t end = begin;
            while (end < head.size() && head[end] != ',' && head[end] != ' ' && head[end] != '\t' &&
                   head[end] != '\n' && head[end] != '\r')
                ++end;
            return head.substr(begin, end - begin);
        }
        return std::nullopt;
    };
    const auto version = directive(".version");
    if (head.find('\0') != std::string_view::npos || !version) {
        std::string start;
        for (std::size_t i = 0; i < std::min<std::size_t>(4, head.size()); ++i)
            start += fmt::format("{:02x}", static_cast<unsigned char>(head[i]));
        fail(scan, ScanError::unrecognised,
             fmt::format("not an ELF file, fatbinary, cubin or PTX (starts with bytes {})", start));
        return;
    }
    scan.kind = FileKind::ptx;
    const auto target = directive(".target");
    const auto arch = target ? parse_gpu_arch(*target) : std::nullopt;
    int major = 0, minor = 0;
    if (std::sscanf(std::string(*version).c_str(), "%d.%d", &major, &minor) != 2 || !arch) {
        fail(scan, ScanError::malformed,
             fmt::format("PTX with a malformed .version ({}) or .target ({})", *version, target.value_or("missing")));
        return;
    }
    CodeObject object;
    object.kind = CodeKind::ptx;
    object.arch = *arch;
    object.size = object.uncompressed_size = reader.size();
    object.ptx_isa = PtxIsa{major, minor};
    scan.objects.push_back(std::move(object));
}

}  // namespace

std::string_view to_string(FileKind kind) {
    switch (kind) {
        case FileKind::executable: return "executable";
        case FileKind::shared_library: return "shared library";
        case FileKind::object: return "object file";
        case FileKind::cubin: return "cubin";
        case FileKind::fatbin: return "fatbinary";
        case FileKind::ptx: return "PTX";
    }
    return "";
}

std::string_view to_string(CodeKind kind) {
    switch (kind) {
        case CodeKind::sass: return "SASS";
        case CodeKind::ptx: return "PTX";
        case CodeKind::lto_ir: return "LTO-IR";
    }
    return "";
}

std::string_view to_string(Compression compression) {
    switch (compression) {
        case Compression::none: return "none";
        case Compression::lz4: return "lz4";
        case Compression::zstd: return "zstd";
    }
    return "";
}

GpuCodeScan scan_gpu_code(ByteSource& source) {
    Reader reader(source);
    GpuCodeScan scan;
    if (reader.size() == 0) {
        fail(scan, ScanError::unrecognised, "empty file");
        return scan;
    }
    const std::optional<Bytes> head = reader.has(0, 4) ? reader.read(0, 4) : std::nullopt;
    const std::uint32_t magic = head ? head->u32(0) : 0;
    if (magic == 0x464c457f) {  // "\x7fELF"
        scan_elf(reader, scan);
    } else if (magic == fatbin_magic) {
        scan.kind = FileKind::fatbin;
        scan_fatbins(reader, 0, reader.size(), "", scan);
    } else if (!reader.failure()) {
        scan_ptx(reader, scan);
    }
    if (reader.failure()) fail(scan, ScanError::unreadable, reader.failure()->message);
    return scan;
}

GpuCodeScan scan_gpu_code(std::span<const std::uint8_t> bytes, const FindData& find_data) {
    SpanByteSource source(bytes, find_data);
    return scan_gpu_code(source);
}

GpuCodeScan inspect_file(const std::string& path) {
    // Mapped, read in place, with the read-ahead walk's hints (util/file_source.hpp; pread instead
    // reads the same pages, cold, and is slower warm: docs/performance.md, "Cold first run").
    Expected<std::unique_ptr<MappedFileSource>> source = MappedFileSource::open(path);
    if (!source) {
        GpuCodeScan scan;
        fail(scan, ScanError::unreadable, source.error().message);
        return scan;
    }
    return scan_gpu_code(**source);
}

}  // namespace cudacheck
