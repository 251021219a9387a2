// cufft.fft: what its GPU part measures, and the pure judge of it (unit tests drive it without a GPU).
#pragma once

namespace cudacheck {

// Relative Frobenius error allowed for cufft.fft against the float64 reference.
// A single-precision FFT's error relative to the exact transform grows like eps * log2(n) in the
// worst case (and like eps * sqrt(log2 n) on average): with eps = 6e-8 and n <= 4096 that is at
// most ~7e-7. 1e-5 leaves more than 10x headroom for implementation differences, while a wrong
// twiddle factor, a dropped or shifted batch member or a mis-scaled bin gives errors of order 1.
// The inputs are exactly representable floats, so the float64 reference sees the very same data.
inline constexpr double fft_tolerance = 1e-5;

}  // namespace cudacheck
