// What the dynamic loader reads from a shared library or program before it loads the libraries
// that one needs: its DT_NEEDED list and where it asks for them to be looked up (System V gABI,
// "Dynamic Section"; ld.so(8) for how DT_RPATH and DT_RUNPATH are used). Read through the program
// headers, as the loader reads them, so stripped files work too; only the pages holding the headers
// and the dynamic segment are touched.
#pragma once

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
    std::optional<std::string> rpath;    // DT_RPATH as written ("$ORIGIN/../lib:..."); searched before LD_LIBRARY_PATH
    std::optional<std::string> runpath;  // DT_RUNPATH; searched after LD_LIBRARY_PATH, and disables DT_RPATH
    bool has_dynamic_segment = false;    // false for a statically linked program
};

// The dynamic entries of a 64-bit little-endian ELF file's bytes, or nullopt with `error` saying
// what is wrong ("not an ELF file", "the dynamic segment lies outside the file", ...).
[[nodiscard]] std::optional<ElfDynamic> read_elf_dynamic(std::span<const std::uint8_t> bytes, std::string& error);
// The same for a file; `error` also says why it cannot be opened.
[[nodiscard]] std::optional<ElfDynamic> read_elf_dynamic_file(const std::string& path, std::string& error);

// The directories of a DT_RPATH or DT_RUNPATH value, in order: `$ORIGIN` and `${ORIGIN}` replaced by
// `origin` (the directory of the object that carries it), each path lexically normalised
// ("/a/torch/lib/../../nvidia/cudnn/lib" -> "/a/nvidia/cudnn/lib"). Empty entries are dropped.
// `$LIB` and `$PLATFORM` are left as written: no wheel uses them, and a directory named so does not
// exist, so such an entry finds nothing, as cudacheck cannot know the loader's expansion.
[[nodiscard]] std::vector<std::string> expand_search_path(std::string_view value, std::string_view origin);

}  // namespace cudacheck
