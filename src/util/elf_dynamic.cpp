#include "util/elf_dynamic.hpp"

#include "util/byte_view.hpp"
#include "util/mapped_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <unordered_set>

namespace cudacheck {

namespace {

// ELF64 (System V gABI): the file header's fields used here, and the program header's.
constexpr std::uint64_t elf64_header_size = 64;
constexpr std::uint64_t program_header_size = 56;
constexpr std::uint32_t pt_load = 1, pt_dynamic = 2;
constexpr std::uint16_t pn_xnum = 0xffff;  // the real count is in section header 0's sh_info
// Dynamic entry tags (d_tag), each 16 bytes: tag, value.
constexpr std::uint64_t dt_null = 0, dt_needed = 1, dt_strtab = 5, dt_strsz = 10, dt_soname = 14, dt_rpath = 15,
                        dt_runpath = 29;

struct Segment {
    std::uint32_t type = 0;
    std::uint64_t offset = 0;
    std::uint64_t address = 0;
    std::uint64_t file_size = 0;
};

// The file offset of a virtual address, through the PT_LOAD segment that maps it from the file.
std::optional<std::uint64_t> file_offset(const std::vector<Segment>& segments, std::uint64_t address) {
    for (const Segment& segment : segments)
        if (segment.type == pt_load && address >= segment.address && address - segment.address < segment.file_size)
            return segment.offset + (address - segment.address);
    return std::nullopt;
}

Expected<std::vector<Segment>> read_segments(const ByteView& bytes) {
    const std::uint64_t table = bytes.u64(0x20);
    const std::uint64_t entry_size = bytes.u16(0x36);
    std::uint64_t count = bytes.u16(0x38);
    if (count == pn_xnum) {
        const std::uint64_t sections = bytes.u64(0x28);
        if (!bytes.has(sections, 64))
            return Error{"the program header count lies in a section header outside the file"};
        count = bytes.u32(sections + 44);
    }
    std::vector<Segment> segments;
    if (count == 0) return segments;
    if (entry_size < program_header_size || !bytes.has(table, entry_size) ||
        count > (bytes.size() - table) / entry_size)
        return Error{
            fmt::format("{} program headers at offset {:#x} ({}-byte entries) do not fit in the file ({} bytes)", count,
                        table, entry_size, bytes.size())};
    segments.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t header = table + i * entry_size;
        segments.push_back({bytes.u32(header), bytes.u64(header + 8), bytes.u64(header + 16), bytes.u64(header + 32)});
    }
    return segments;
}

}  // namespace

Expected<ElfDynamic> read_elf_dynamic(std::span<const std::uint8_t> data) {
    const ByteView bytes(data);
    if (!bytes.has(0, 4) || bytes.u32(0) != 0x464c457f) return Error{"not an ELF file"};  // "\x7fELF"
    constexpr std::uint8_t elf_class_64 = 2, elf_little_endian = 1;
    if (!bytes.has(0, elf64_header_size) || bytes.u8(4) != elf_class_64 || bytes.u8(5) != elf_little_endian)
        return Error{bytes.has(0, elf64_header_size) ? "an ELF file, but not 64-bit little-endian"
                                                     : "truncated ELF header"};
    const Expected<std::vector<Segment>> segments = read_segments(bytes);
    if (!segments) return segments.error();
    ElfDynamic dynamic;
    const Segment* dynamic_segment = nullptr;
    for (const Segment& segment : *segments)
        if (segment.type == pt_dynamic) dynamic_segment = &segment;
    if (dynamic_segment == nullptr) return dynamic;  // statically linked
    dynamic.has_dynamic_segment = true;
    if (!bytes.has(dynamic_segment->offset, dynamic_segment->file_size))
        return Error{fmt::format("the dynamic segment (offset {:#x}, {} bytes) lies outside the file ({} bytes)",
                                 dynamic_segment->offset, dynamic_segment->file_size, bytes.size())};

    // First the string table's place, then the strings: entries may come in any order.
    struct Entry {
        std::uint64_t tag;
        std::uint64_t value;
    };
    std::vector<Entry> entries;
    std::optional<std::uint64_t> strtab_address;
    std::uint64_t strtab_size = 0;
    for (std::uint64_t at = dynamic_segment->offset; at + 16 <= dynamic_segment->offset + dynamic_segment->file_size;
         at += 16) {
        const Entry entry{bytes.u64(at), bytes.u64(at + 8)};
        if (entry.tag == dt_null) break;
        if (entry.tag == dt_strtab) strtab_address = entry.value;
        if (entry.tag == dt_strsz) strtab_size = entry.value;
        if (entry.tag == dt_needed || entry.tag == dt_soname || entry.tag == dt_rpath || entry.tag == dt_runpath)
            entries.push_back(entry);
    }
    if (entries.empty()) return dynamic;
    const std::optional<std::uint64_t> strtab = strtab_address ? file_offset(*segments, *strtab_address) : std::nullopt;
    if (!strtab || !bytes.has(*strtab, strtab_size))
        return Error{strtab_address
                         ? fmt::format("the dynamic string table (address {:#x}, {} bytes) is not in the file",
                                       *strtab_address, strtab_size)
                         : "dynamic entries name strings, but there is no DT_STRTAB"};
    for (const Entry& entry : entries) {
        const std::optional<std::string_view> text = bytes.c_string(*strtab, strtab_size, entry.value);
        if (!text)
            return Error{
                fmt::format("a dynamic entry (tag {}) names string offset {}, outside the {}-byte string table",
                            entry.tag, entry.value, strtab_size)};
        switch (entry.tag) {
            case dt_needed: dynamic.needed.emplace_back(*text); break;
            case dt_soname: dynamic.soname = std::string(*text); break;
            case dt_rpath: dynamic.rpath = std::string(*text); break;
            default: dynamic.runpath = std::string(*text); break;
        }
    }
    return dynamic;
}

Expected<ElfDynamic> read_elf_dynamic_file(const std::string& path) {
    const Expected<MappedFile> mapped = MappedFile::open(path);
    if (!mapped) return mapped.error();
    return read_elf_dynamic(mapped->bytes());
}

std::vector<std::string> expand_search_path(std::string_view value, std::string_view origin, std::size_t* left_out) {
    // One pass over the value, each token replaced as it is met (replacing in place,
    // token after token, was quadratic: a 10 MB DT_RPATH took 192 s and 2 GiB in `cudacheck env`).
    std::vector<std::string> directories;
    std::unordered_set<std::string> seen, seen_written;  // kept directories, as kept and as written (expanded)
    std::size_t kept_bytes = 0, dropped = 0;
    std::string entry;
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t end = std::min(value.find(':', start), value.size());
        const std::string_view written = value.substr(start, end - start);
        start = end + 1;
        if (written.empty()) continue;
        entry.clear();
        bool too_long = false;
        for (std::size_t at = 0; at < written.size() && !too_long;) {
            std::size_t token = 0;
            if (written[at] == '$') {
                if (written.substr(at, 9) == "${ORIGIN}") token = 9;
                else if (written.substr(at, 7) == "$ORIGIN") token = 7;
            }
            if (token > 0) {
                entry += origin;
                at += token;
            } else {
                entry += written[at++];
            }
            too_long = entry.size() >= search_path_entry_limit;
        }
        // open() of a path of PATH_MAX bytes or more fails with ENAMETOOLONG (open(2)): the loader
        // finds nothing in such a directory, and neither does this.
        if (too_long) {
            ++dropped;
            continue;
        }
        // Without "." or ".." components or doubled slashes a path is already normal: the common
        // case, and 1,000,000 entries go through here in a crafted path.
        // An entry written as one already kept ("$ORIGIN/../lib" a million times) is not
        // normalised again.
        const bool normal_already = entry.find("//") == std::string::npos && entry.find("/.") == std::string::npos &&
                                    (entry.empty() || entry.front() != '.');
        if (!normal_already && seen_written.contains(entry)) continue;
        std::string written_copy = normal_already ? std::string() : entry;
        std::string normal =
            normal_already ? std::move(entry) : std::filesystem::path(entry).lexically_normal().string();
        if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
        // A directory listed twice is searched once, where it first appears: glibc's fillin_rpath
        // (elf/dl-load.c) keeps a directory it already has ("See if this directory is already
        // known") once in an object's list.
        if (seen.contains(normal)) continue;
        if (directories.size() >= search_path_directory_limit || kept_bytes + normal.size() > search_path_byte_limit) {
            ++dropped;
            continue;
        }
        kept_bytes += normal.size();
        if (!written_copy.empty()) seen_written.insert(std::move(written_copy));
        seen.insert(normal);
        directories.push_back(std::move(normal));
    }
    if (left_out != nullptr) *left_out = dropped;
    return directories;
}

std::uint16_t native_elf_machine() {
#if defined(__x86_64__)
    return 62;  // EM_X86_64
#elif defined(__aarch64__)
    return 183;  // EM_AARCH64
#else
    return 0;  // not checked
#endif
}

std::optional<std::string> elf_damage(std::span<const std::uint8_t> data, std::uint16_t machine) {
    const ByteView bytes(data);
    if (bytes.size() == 0) return std::string("empty (0 bytes): an interrupted copy or download");
    if (!bytes.has(0, 4) || bytes.u32(0) != 0x464c457f)
        return fmt::format("not an ELF file ({} bytes of something else)", bytes.size());
    if (!bytes.has(0, elf64_header_size))
        return fmt::format("truncated: {} bytes, shorter than an ELF header", bytes.size());
    if (bytes.u8(4) != 2 || bytes.u8(5) != 1)
        return std::string("a 32-bit or big-endian ELF file: not loadable by this 64-bit process");
    const std::uint16_t file_machine = bytes.u16(0x12);
    if (machine != 0 && file_machine != machine)
        return fmt::format("built for another machine (ELF machine {}, this one is {})", file_machine, machine);
    // The end of the file its headers describe: every PT_LOAD's bytes, and the section headers.
    const Expected<std::vector<Segment>> segments = read_segments(bytes);
    if (!segments) return "truncated or corrupt: " + segments.error().message;
    std::uint64_t end = 0;
    for (const Segment& segment : *segments)
        if (segment.type == pt_load) end = std::max(end, segment.offset + segment.file_size);
    const std::uint64_t sections = bytes.u64(0x28);
    const std::uint64_t section_end = sections + std::uint64_t{bytes.u16(0x3a)} * bytes.u16(0x3c);
    if (sections != 0) end = std::max(end, section_end);
    if (end > bytes.size())
        return fmt::format("truncated: its headers describe {} bytes, the file has {} ({:.0f}%)", end, bytes.size(),
                           100.0 * static_cast<double>(bytes.size()) / static_cast<double>(end));
    return std::nullopt;
}

std::optional<std::string> elf_file_damage(const std::string& path) {
    const Expected<MappedFile> file = MappedFile::open(path);
    if (!file) return "cannot be read: " + file.error().message;
    return elf_damage(file->bytes(), native_elf_machine());
}

}  // namespace cudacheck
