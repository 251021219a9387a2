// libFuzzer target for the ELF/fatbinary reader behind `cudacheck inspect` (cuda/gpu_code.hpp):
// any input must give a listing or an error, never a crash, an out-of-bounds read or a hang.
// Built and run by tools/fuzz-gpu-code.sh (clang's -fsanitize=fuzzer,address,undefined); the
// normal build runs a bounded property test over mutated seeds instead (GpuCodeRobustness).
#include "cuda/gpu_code.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const cudacheck::GpuCodeScan scan = cudacheck::scan_gpu_code({data, size});
    for (const cudacheck::CodeObject& object : scan.objects)
        if (object.offset > size || object.size > size - object.offset) __builtin_trap();
    return 0;
}
