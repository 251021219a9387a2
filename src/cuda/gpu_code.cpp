#include "cuda/gpu_code.hpp"

#include "util/byte_view.hpp"
#include "util/mapped_file.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <string_view>
#include <unistd.h>

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
};

// The bytes with what the file system knows about them: a hole of a sparse file reads as zeros
// without being stored (lseek(2), SEEK_DATA), so a scan steps over it instead of faulting in its
// pages (a 32 GiB all-zero .nv_fatbin took minutes and 17.5 GB of RSS byte by byte).
class Reader {
public:
    Reader(const Bytes& bytes, const FindData& find_data) : bytes_(bytes), find_data_(find_data) {}
    [[nodiscard]] const Bytes& bytes() const { return bytes_; }

    // The first offset at or after `offset` that is stored (not in a hole), or the size.
    [[nodiscard]] std::uint64_t next_stored(std::uint64_t offset) const { return extent_at(offset).begin; }

    // The first non-zero byte in [position, end), or end.
    [[nodiscard]] std::uint64_t skip_zeros(std::uint64_t position, std::uint64_t end) const {
        while (position < end) {
            const DataExtent data = extent_at(position);
            if (data.begin >= end) return end;
            const std::uint64_t stop = std::min(data.end, end);
            const std::uint64_t found = first_nonzero(data.begin, stop);
            if (found < stop) return found;
            position = stop;
        }
        return end;
    }

private:
    // Asked once per extent: a file that is not sparse is one extent, so one lseek pair per scan.
    [[nodiscard]] DataExtent extent_at(std::uint64_t offset) const {
        const std::uint64_t size = bytes_.size();
        if (!find_data_ || offset >= size) return {std::min(offset, size), size};
        if (offset < cached_.begin || offset >= cached_.end) {
            DataExtent found = find_data_(offset);
            if (found.begin >= size) return {size, size};  // only a hole is left
            // An answer that goes backwards or is empty is not trusted: the rest counts as data.
            if (found.begin < offset || found.end <= found.begin || found.end > size) found = {offset, size};
            cached_ = found;
        }
        return {std::max(offset, cached_.begin), cached_.end};
    }

    // 64 bytes at a time: the padding between fatbinaries is a few bytes, but nothing stops a file
    // from holding gigabytes of stored zeros there.
    [[nodiscard]] std::uint64_t first_nonzero(std::uint64_t position, std::uint64_t end) const {
        const std::string_view text = bytes_.text(position, end - position);
        std::size_t at = 0;
        for (; text.size() - at >= 64; at += 64) {
            std::uint64_t words[8];
            std::memcpy(words, text.data() + at, sizeof words);
            std::uint64_t any = 0;
            for (const std::uint64_t word : words) any |= word;
            if (any != 0) break;
        }
        while (at < text.size() && text[at] == '\0') ++at;
        return position + at;
    }

    const Bytes& bytes_;
    const FindData& find_data_;
    mutable DataExtent cached_;
};

void fail(GpuCodeScan& scan, ScanError error, std::string message) {
    scan.error = error;
    scan.error_message = std::move(message);
}

// Entries of the fatbinaries laid back to back in [begin, end); false after a malformed header.
bool scan_fatbins(const Reader& reader, std::uint64_t begin, std::uint64_t end, std::string_view section,
                  GpuCodeScan& scan) {
    const Bytes& bytes = reader.bytes();
    const std::string where = section.empty() ? std::string() : fmt::format(" in section {}", section);
    std::uint64_t position = begin;
    while (position < end) {
        // Fatbinaries are 8-byte aligned in their section; what lies between them is zero padding.
        position = reader.skip_zeros(position, end);
        if (position == end) break;
        if (end - position < fatbin_header_size) {
            fail(scan, ScanError::malformed,
                 fmt::format("truncated fatbinary header at offset {:#x}{}", position, where));
            return false;
        }
        if (bytes.u32(position) != fatbin_magic) {
            fail(scan, ScanError::malformed,
                 fmt::format("no fatbinary at offset {:#x}{} (magic {:#010x}, expected {:#010x})", position, where,
                             bytes.u32(position), fatbin_magic));
            return false;
        }
        const std::uint64_t header_size = bytes.u16(position + 6);
        const std::uint64_t payload_size = bytes.u64(position + 8);
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
            const std::uint64_t entry_header_size = left >= entry_header_min_size ? bytes.u32(entry + 4) : 0;
            const std::uint64_t entry_size = left >= entry_header_min_size ? bytes.u64(entry + 8) : 0;
            if (left < entry_header_min_size || entry_header_size < entry_header_min_size || entry_header_size > left ||
                entry_size > left - entry_header_size) {
                fail(scan, ScanError::malformed,
                     fmt::format("malformed fatbinary entry at offset {:#x}{}", entry, where));
                return false;
            }
            const std::uint16_t kind = bytes.u16(entry);
            const std::uint32_t arch = bytes.u32(entry + 28);
            const std::uint64_t flags = bytes.u64(entry + 40);
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
                object.uncompressed_size = object.compression == Compression::none ? entry_size : bytes.u64(entry + 56);
                // For PTX the entry's format version is the PTX ISA version (`.version` in the text).
                if (object.kind == CodeKind::ptx) object.ptx_isa = PtxIsa{bytes.u16(entry + 26), bytes.u16(entry + 24)};
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
// an sm_100f cubin sm_100 too).
bool compat_says_arch_specific(const Bytes& bytes, const Section& compat) {
    constexpr std::uint8_t format_sized = 4, attribute_arch_specific = 9;
    std::uint64_t record = compat.offset;
    const std::uint64_t end = compat.offset + compat.size;
    while (end - record >= 4) {
        const std::uint8_t format = bytes.u8(record);
        const std::uint8_t attribute = bytes.u8(record + 1);
        if (format < 1 || format > format_sized) return false;
        if (attribute == attribute_arch_specific) return bytes.u16(record + 2) == 1;
        record += 4 + (format == format_sized ? std::uint64_t{bytes.u16(record + 2)} : 0);
        if (record > end) return false;
    }
    return false;
}

// The section header table (gABI "Sections"), read one header at a time from the mapping: nothing
// is allocated per section, since a file may claim 2^32 of them.
struct SectionTable {
    std::uint64_t offset = 0;  // e_shoff
    std::uint64_t entry_size = 0;  // e_shentsize
    std::uint64_t count = 0;
    std::string_view names;  // the section name table

    [[nodiscard]] Section at(const Bytes& bytes, std::uint64_t index) const {
        const std::uint64_t header = offset + index * entry_size;
        return {bytes.u32(header), bytes.u32(header + 4), bytes.u64(header + 24), bytes.u64(header + 32)};
    }
    // Compared in place: a name table may be gigabytes with no NUL, so names are never copied or measured.
    [[nodiscard]] bool named(const Section& section, std::string_view name) const {
        return section.name_offset < names.size() && names.size() - section.name_offset > name.size() &&
               names.substr(section.name_offset, name.size()) == name &&
               names[section.name_offset + name.size()] == '\0';
    }
};

// The section header table, or empty with the scan failed.
std::optional<SectionTable> read_section_table(const Bytes& bytes, GpuCodeScan& scan) {
    SectionTable table{bytes.u64(0x28), bytes.u16(0x3a), bytes.u16(0x3c), {}};
    std::uint64_t names_index = bytes.u16(0x3e);
    if (table.offset == 0) return SectionTable{};  // no section header table: nothing to find
    if (table.entry_size < elf64_section_header_size || !bytes.has(table.offset, table.entry_size)) {
        fail(scan, ScanError::malformed,
             fmt::format("section header table at offset {:#x} ({}-byte entries) is outside the file ({} bytes)",
                         table.offset, table.entry_size, bytes.size()));
        return std::nullopt;
    }
    // More than 0xff00 sections: the real count and name-table index live in section 0 (gABI).
    if (table.count == 0) table.count = bytes.u64(table.offset + 32);
    if (names_index == shn_xindex) names_index = bytes.u32(table.offset + 40);
    if (table.count > (bytes.size() - table.offset) / table.entry_size) {
        fail(scan, ScanError::malformed,
             fmt::format("{} section headers at offset {:#x} do not fit in the file ({} bytes)", table.count,
                         table.offset, bytes.size()));
        return std::nullopt;
    }
    const Section names = names_index < table.count ? table.at(bytes, names_index) : Section{};
    if (names_index >= table.count || names.type == sht_nobits || !bytes.has(names.offset, names.size)) {
        fail(scan, ScanError::malformed, "the section name table is missing or outside the file");
        return std::nullopt;
    }
    table.names = bytes.text(names.offset, names.size);
    return table;
}

// Calls `visit` on each section in table order until it returns false. SHT_NULL headers are
// inactive (gABI) and skipped, and so, unread, are those in a hole of a sparse file: all zeros,
// they are SHT_NULL too.
template <typename Visit>
void for_each_section(const Reader& reader, const SectionTable& table, Visit&& visit) {
    for (std::uint64_t index = 0; index < table.count;) {
        const std::uint64_t header = table.offset + index * table.entry_size;
        const std::uint64_t stored = reader.next_stored(header);
        if (stored - header >= elf64_section_header_size) {
            index = std::max(index + 1, (stored - table.offset) / table.entry_size);
            continue;
        }
        const Section section = table.at(reader.bytes(), index++);
        if (section.type != sht_null && !visit(section)) return;
    }
}

bool section_in_file(const Bytes& bytes, const Section& section, std::string_view name, GpuCodeScan& scan) {
    if (section.type != sht_nobits && bytes.has(section.offset, section.size)) return true;
    fail(scan, ScanError::malformed,
         fmt::format("section {} (offset {:#x}, {} bytes) lies outside the file ({} bytes)", name, section.offset,
                     section.size, bytes.size()));
    return false;
}

void scan_elf(const Reader& reader, GpuCodeScan& scan) {
    const Bytes& bytes = reader.bytes();
    constexpr std::uint8_t elf_class_64 = 2, elf_little_endian = 1;
    if (!bytes.has(0, elf64_header_size) || bytes.u8(4) != elf_class_64 || bytes.u8(5) != elf_little_endian) {
        fail(scan, bytes.has(0, elf64_header_size) ? ScanError::unrecognised : ScanError::malformed,
             bytes.has(0, elf64_header_size)
                 ? "an ELF file, but not 64-bit little-endian (the only kind CUDA code comes in)"
                 : fmt::format("truncated ELF header ({} bytes)", bytes.size()));
        return;
    }
    const std::uint16_t type = bytes.u16(16);
    const bool cubin = bytes.u16(18) == em_cuda;
    const auto table = read_section_table(bytes, scan);
    if (!table) return;
    bool has_nv_fatbin = false, has_interpreter = false;
    std::optional<Section> compat;
    for_each_section(reader, *table, [&](const Section& section) {
        has_nv_fatbin = has_nv_fatbin || table->named(section, ".nv_fatbin");
        has_interpreter = has_interpreter || table->named(section, ".interp");
        if (!compat && table->named(section, ".nv.compat")) compat = section;
        return true;
    });
    if (cubin) {
        scan.kind = FileKind::cubin;
        // The SM is in e_flags: bits 8-15 from ELF ABI version 8 (CUDA 13 cubins), bits 0-7 before.
        const std::uint32_t flags = bytes.u32(0x30);
        CodeObject object;
        object.arch.number = static_cast<int>(bytes.u8(8) >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
        if (compat && section_in_file(bytes, *compat, ".nv.compat", scan) && compat_says_arch_specific(bytes, *compat))
            object.arch.variant = ArchVariant::arch_specific;
        if (scan.error != ScanError::none) return;
        object.size = object.uncompressed_size = bytes.size();
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
    const std::string_view wanted = has_nv_fatbin ? ".nv_fatbin" : "__nv_relfatbin";
    // Sections of one name do not overlap, so together they fit in the file: that bounds the code
    // objects read by the file's size, however many headers name the same bytes.
    std::uint64_t claimed = 0;
    for_each_section(reader, *table, [&](const Section& section) {
        if (!table->named(section, wanted)) return true;
        if (!section_in_file(bytes, section, wanted, scan)) return false;
        claimed += section.size;
        if (claimed > bytes.size()) {
            fail(scan, ScanError::malformed,
                 fmt::format("the sections {} claim {} bytes together, more than the file's {}: they overlap", wanted,
                             claimed, bytes.size()));
            return false;
        }
        return scan_fatbins(reader, section.offset, section.offset + section.size, wanted, scan);
    });
}

// A PTX text file: `.version X.Y` and `.target sm_XY` near the top, no NUL bytes.
void scan_ptx(const Bytes& bytes, GpuCodeScan& scan) {
    const std::string_view text = bytes.text(0, bytes.size());
    const std::string_view head = text.substr(0, 1 << 16);
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
        for (std::size_t i = 0; i < std::min<std::size_t>(4, text.size()); ++i)
            start += fmt::format("{:02x}", static_cast<unsigned char>(text[i]));
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
    object.size = object.uncompressed_size = bytes.size();
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

GpuCodeScan scan_gpu_code(std::span<const std::uint8_t> data, const FindData& find_data) {
    const Bytes bytes(data);
    const Reader reader(bytes, find_data);
    GpuCodeScan scan;
    if (bytes.size() == 0) {
        fail(scan, ScanError::unrecognised, "empty file");
    } else if (bytes.has(0, 4) && bytes.u32(0) == 0x464c457f) {  // "\x7fELF"
        scan_elf(reader, scan);
    } else if (bytes.has(0, 4) && bytes.u32(0) == fatbin_magic) {
        scan.kind = FileKind::fatbin;
        scan_fatbins(reader, 0, bytes.size(), "", scan);
    } else {
        scan_ptx(bytes, scan);
    }
    return scan;
}

namespace {

// The stored extent at or after `offset` of an open file: SEEK_DATA, then SEEK_HOLE from there
// (lseek(2); a file system without holes answers the whole file as data).
DataExtent data_extent(int descriptor, std::uint64_t offset, std::uint64_t size) {
    const off_t data = ::lseek(descriptor, static_cast<off_t>(offset), SEEK_DATA);
    if (data < 0)
        return errno == ENXIO ? DataExtent{size, size} : DataExtent{offset, size};  // ENXIO: only a hole is left
    const off_t hole = ::lseek(descriptor, data, SEEK_HOLE);
    return {static_cast<std::uint64_t>(data), hole < 0 ? size : static_cast<std::uint64_t>(hole)};
}

struct Descriptor {
    explicit Descriptor(int descriptor) : fd(descriptor) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() {
        if (fd >= 0) ::close(fd);
    }
    int fd = -1;
};

}  // namespace

GpuCodeScan inspect_file(const std::string& path) {
    GpuCodeScan scan;
    // One open file for the holes (lseek) and the mapping, made through /proc/self/fd, so that both
    // are of the same file even when the path is replaced in between.
    const Expected<sys::RegularFile> opened = sys::open_regular_file(path);
    if (!opened) {
        fail(scan, ScanError::unreadable, opened.error().message);
        return scan;
    }
    const Descriptor file{opened->fd};
    const std::string same_file = fmt::format("/proc/self/fd/{}", file.fd);
    const Expected<MappedFile> mapped = MappedFile::open(sys::exists(same_file) ? same_file : path);
    if (!mapped) {
        fail(scan, ScanError::unreadable, mapped.error().message);
        return scan;
    }
    const std::uint64_t mapped_size = mapped->bytes().size();
    return scan_gpu_code(mapped->bytes(),
                         [&](std::uint64_t offset) { return data_extent(file.fd, offset, mapped_size); });
}

}  // namespace cudacheck
