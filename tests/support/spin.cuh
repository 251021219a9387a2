// Test-only (the fault.gpu_spin check): a kernel that never returns, to show that a hung GPU
// check is killed by the supervisor and the GPU serves the next check.
#pragma once

struct CUstream_st;

namespace cudacheck::kernels {

// Launches one thread that spins until its process dies. Returns a cudaError_t value (0 on success).
[[nodiscard]] int launch_spin_forever(CUstream_st* stream);

}  // namespace cudacheck::kernels
