// cufft.fft: what its GPU part measures, and the pure judge of it (unit tests drive it without a GPU).
#pragma once

#include "engine/check.hpp"
#include "gpu/library_support.hpp"

#include <string>
#include <vector>

namespace cudacheck {

// Relative Frobenius error allowed for cufft.fft against the float64 reference.
// A single-precision FFT's error relative to the exact transform grows like eps * log2(n) in the
// worst case (and like eps * sqrt(log2 n) on average): with eps = 6e-8 and n <= 4096 that is at
// most ~7e-7. 1e-5 leaves more than 10x headroom for implementation differences, while a wrong
// twiddle factor, a dropped or shifted batch member or a mis-scaled bin gives errors of order 1.
// The inputs are exactly representable floats, so the float64 reference sees the very same data.
inline constexpr double fft_tolerance = 1e-5;

// One verified quantity of one length: the whole error, and the batch member where it was worst.
struct FftVerdict {
    std::string key;   // "c2c_forward_n1000"
    std::string what;  // "C2C forward n=1000"
    gpu::Accuracy accuracy;
    int worst_member = 0;
    double worst_member_error = 0.0;  // infinite when the member has a non-finite value
    int members = 0;
};

// Accumulates a verdict member by member: add() every value of a member, then end_member().
class FftVerdictBuilder {
public:
    FftVerdictBuilder(std::string key, std::string what);
    void add(double actual, double reference);
    void end_member(int member);
    [[nodiscard]] FftVerdict finish();

private:
    FftVerdict verdict_;
    gpu::AccuracyAccumulator member_;
    gpu::AccuracyAccumulator total_;
};

// One transform length: the forward C2C's median time and its three verdicts (C2C forward, round
// trip, R2C).
struct FftLengthOutcome {
    int n = 0;
    double forward_ms = 0.0;
    std::vector<FftVerdict> verdicts;
};

// What the GPU part of cufft.fft found. A cuFFT or GPU error part-way leaves `lengths` with the
// lengths done before it and `complete` false; the judge reports those.
struct FftOutcome {
    int batch = 0;
    int timed_runs = 0;
    int members_compared = 0;  // forward transforms compared with the reference, per length
    std::vector<FftLengthOutcome> lengths;
    bool complete = false;
};

void judge_fft(const FftOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
