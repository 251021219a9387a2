// GPU code embedded in files, found without running or loading them: the ELF section headers
// (read here, no libelf), the fatbinary containers in `.nv_fatbin` / `__nv_relfatbin`, and the
// header of each entry. Payloads are never decompressed: the entry header already carries the
// architecture, the sizes and, for PTX, the ISA version. Layout: NVIDIA's fatbinary_section.h
// (in the toolkit's include/), LLVM's clang/lib/CodeGen/CGCUDANV.cpp, the open readers
// jiegec/fatbinary and ZLUDA, with the variant
// flags and the ISA field confirmed against nvcc 13.0 and `cuobjdump --list-elf --list-ptx`
// (tests/unit/cuda/gpu_code_test.cpp).
//
// scan_gpu_code reads through a ByteSource (util/byte_source.hpp): a mapped file, a test's bytes,
// or a shared library inside a wheel inflated on demand. It reads only headers, in windows of at
// most ByteSource::max_read bytes, mostly front to back (the section header table once, then the
// sections in file order), and never a payload, so a member of a zip archive is read with bounded
// memory. inspect_file adds the I/O: it memory-maps the file, so only the pages holding headers are
// read, and tells the scan where the file's holes are. On a cold page cache it first walks the same
// headers in waves, asking the kernel for each wave's pages at once (POSIX_FADV_WILLNEED), since
// each header says where the next one is and page faults one after another wait on the disk each
// time (docs/performance.md, "Cold first run"). Nothing is allocated by what a header claims:
// a size or count larger than the file is a malformed file.
#pragma once

#include "cuda/arch_coverage.hpp"
#include "util/byte_source.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cudacheck {

enum class CodeKind {
    sass,    // a cubin: machine code for sm_XY
    ptx,     // PTX for compute_XY, JIT-compiled by the driver
    lto_ir,  // NVVM IR for link-time optimisation (code=lto_XY): needs nvlink, never loaded as is
};
enum class Compression { none, lz4, zstd };

struct PtxIsa {
    int major = 0;
    int minor = 0;
    bool operator==(const PtxIsa&) const = default;
};

struct CodeObject {
    CodeKind kind = CodeKind::sass;
    GpuArch arch;
    Compression compression = Compression::none;
    std::uint64_t size = 0;               // bytes the payload takes in the file
    std::uint64_t uncompressed_size = 0;  // equal to size when not compressed
    std::optional<PtxIsa> ptx_isa;        // PTX only
    std::string section;                  // ".nv_fatbin", "__nv_relfatbin"; empty for a bare cubin/fatbin/PTX file
    std::optional<std::size_t> fatbin;  // which fatbinary of the file (0-based; one per module); empty for a bare cubin
                                        // or PTX
    std::uint64_t offset = 0;  // of the payload in the file
};

enum class FileKind { executable, shared_library, object, cubin, fatbin, ptx };
[[nodiscard]] std::string_view to_string(FileKind kind);
[[nodiscard]] std::string_view to_string(CodeKind kind);
[[nodiscard]] std::string_view to_string(Compression compression);

enum class ScanError {
    none,
    unreadable,  // cannot open or map (set by inspect_file), or the source failed a read
    unrecognised,  // not ELF, fatbin or PTX (also: empty)
    malformed,  // recognised, but a header points outside the file or contradicts itself
};

struct GpuCodeScan {
    std::optional<FileKind> kind;
    std::vector<CodeObject> objects;  // what was read before any error, in file order
    std::size_t fatbins = 0;
    ScanError error = ScanError::none;
    std::string error_message;  // one line, without the file name
};

// Where a sparse file's data lies (util/byte_source.hpp: DataExtent).
using FindData = SpanByteSource::FindData;

// The GPU code in `source`; a read that fails ends the scan as ScanError::unreadable with the
// source's message (what was listed before stays).
[[nodiscard]] GpuCodeScan scan_gpu_code(ByteSource& source);
// The same over bytes in memory (a SpanByteSource); without `find_data`, every byte counts as stored.
[[nodiscard]] GpuCodeScan scan_gpu_code(std::span<const std::uint8_t> bytes, const FindData& find_data = {});
[[nodiscard]] GpuCodeScan inspect_file(const std::string& path);

}  // namespace cudacheck
