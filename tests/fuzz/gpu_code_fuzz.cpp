// libFuzzer target for the ELF/fatbinary reader behind `cudacheck inspect` (cuda/gpu_code.hpp):
// any input gives a listing or an error, never a crash, an out-of-bounds read or a hang; every
// code object lies inside the input; and told where the input's zero blocks are, as lseek tells
// of a sparse file's holes, or reading through a ByteSource that copies each window (as a zip member
// does), the scan lists exactly the same.
#include "cuda/gpu_code.hpp"
#include "fuzz/fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudacheck;
    const std::span<const std::uint8_t> bytes(data, size);
    const GpuCodeScan scan = scan_gpu_code(bytes);
    if (scan.error != ScanError::none) fuzz::require(!scan.error_message.empty(), "an error without a message");
    for (const CodeObject& object : scan.objects)
        fuzz::require(object.offset <= size && object.size <= size - object.offset, "a code object outside the input");
    fuzz::require(fuzz::same_listing(scan, scan_gpu_code(bytes, fuzz::holes_where_zero(bytes))),
                  "stepping over holes changed the listing");
    fuzz::CopyingSource source(bytes);
    fuzz::require(fuzz::same_listing(scan, scan_gpu_code(source)), "reading through a ByteSource changed the listing");
    fuzz::require(source.broken_contract == 0, "a read outside the ByteSource contract");
    return 0;
}
