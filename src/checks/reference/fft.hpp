// The float64 reference a GPU FFT is measured against: the discrete Fourier transform by its
// definition (O(n^2), for tests) and a mixed-radix FFT of the same transform (what cufft.fft uses).
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

namespace cudacheck::reference {

using Complex = std::complex<double>;

// exp(sign * 2 pi i * k / n), the exponent reduced exactly in integers first.
[[nodiscard]] Complex unit_root(std::size_t k, std::size_t n, int sign);

// X[k] = sum_j x[j] exp(sign 2 pi i j k / n), unnormalised (sign -1: cuFFT's CUFFT_FORWARD, +1:
// CUFFT_INVERSE). O(n^2): the definition itself, against which the fast reference is tested.
[[nodiscard]] std::vector<Complex> naive_dft(std::span<const Complex> input, int sign);

// The same transform in O(n * sum of prime factors): mixed-radix Cooley-Tukey (decimation in time
// by the smallest prime factor; a prime length falls back to the direct sum), in float64 with
// twiddles from one table of n roots. Its own error is ~1e-15 relative, far below fp32's.
class ReferenceFft {
public:
    ReferenceFft(std::size_t n, int sign);
    [[nodiscard]] std::size_t size() const { return n_; }
    [[nodiscard]] std::vector<Complex> operator()(std::span<const Complex> input) const;

private:
    // out[0..m) = DFT_m of in[0], in[stride], ... (m divides n_).
    void transform(const Complex* in, std::size_t stride, Complex* out, Complex* scratch, std::size_t m) const;

    std::size_t n_;
    std::vector<Complex> roots_;
};

}  // namespace cudacheck::reference
