// What the dynamic loader reads from a shared library or program before it loads the libraries
// that one needs: its DT_NEEDED list and where it asks for them to be looked up (System V gABI,
// "Dynamic Section"; ld.so(8) for how DT_RPATH and DT_RUNPATH are used). Read through the program
// headers, as the loader reads them, so stripped files work too; only the pages holding the headers
// and the dynamic segment are touched.
#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct ElfDynamic {
    std::string soname;                  // DT_SONAME; "" when it has none (programs)
    std::vector<std::string> needed;     // DT_NEEDED, in the order the loader loads them
    std::optional<std::string> rpath;  // DT_RPATH as written ("$ORIGIN/../lib:..."); searched before LD_LIBRARY_PATH
    std::optional<std::string> runpath;  // DT_RUNPATH; searched after LD_LIBRARY_PATH, and disables DT_RPATH
    bool has_dynamic_segment = false;  // false for a statically linked program
};

// The dynamic entries of a 64-bit little-endian ELF file's bytes, or the error saying what is wrong
// ("not an ELF file", "the dynamic segment lies outside the file", ...).
[[nodiscard]] Expected<ElfDynamic> read_elf_dynamic(std::span<const std::uint8_t> bytes);
// The same for a file; the error also says why it cannot be opened.
[[nodiscard]] Expected<ElfDynamic> read_elf_dynamic_file(const std::string& path);

// The directories of a DT_RPATH or DT_RUNPATH value, in order: `$ORIGIN` and `${ORIGIN}` replaced by
// `origin` (the directory of the object that carries it), each path lexically normalised
// ("/a/torch/lib/../../nvidia/cudnn/lib" -> "/a/nvidia/cudnn/lib"). Empty entries are dropped.
// `$LIB` and `$PLATFORM` are left as written: no wheel uses them, and a directory named so does not
// exist, so such an entry finds nothing, as cudacheck cannot know the loader's expansion.
//
// Bounded, which the loader is not (glibc keeps every distinct directory: fillin_rpath in
// elf/dl-load.c): a DT_RPATH of a wheel lists a dozen directories (torch 2.11's libtorch_cuda.so:
// 13, 600 bytes), and a crafted 10 MB one made cudacheck spend minutes and GiBs searching it (issue
// 35). A directory listed again is kept once, where it first appears (as glibc keeps it); an entry
// of PATH_MAX bytes or more is left out (open(2): ENAMETOOLONG, so the loader finds nothing
// there); beyond search_path_directory_limit directories or search_path_byte_limit bytes the rest
// is left out. `left_out`, when given, counts the entries left out so.
inline constexpr std::size_t search_path_directory_limit = 1024;
inline constexpr std::size_t search_path_byte_limit = std::size_t{256} * 1024;
inline constexpr std::size_t search_path_entry_limit = 4096;  // PATH_MAX on Linux (limits.h), with its NUL
[[nodiscard]] std::vector<std::string> expand_search_path(std::string_view value, std::string_view origin,
                                                          std::size_t* left_out = nullptr);

// Why a shared library's file cannot be what the loader maps (a truncated libcublas.so.13
// first on LD_LIBRARY_PATH killed the process that opened it with SIGBUS): empty, not ELF, not
// 64-bit little-endian, built for another machine than `machine` (ELF e_machine: 62 x86-64, 183
// AArch64), or shorter than its own program or section headers say. nullopt when none of these.
// Reads only the headers.
[[nodiscard]] std::optional<std::string> elf_damage(std::span<const std::uint8_t> bytes, std::uint16_t machine);
// The same for a file; a file that cannot be opened is reported as such.
[[nodiscard]] std::optional<std::string> elf_file_damage(const std::string& path);
// This process's ELF machine.
[[nodiscard]] std::uint16_t native_elf_machine();

}  // namespace cudacheck
