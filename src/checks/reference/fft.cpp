#include "checks/reference/fft.hpp"

#include <cmath>
#include <numbers>

namespace cudacheck::reference {

Complex unit_root(std::size_t k, std::size_t n, int sign) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(k % n) / static_cast<double>(n);
    return {std::cos(angle), sign * std::sin(angle)};
}

std::vector<Complex> naive_dft(std::span<const Complex> input, int sign) {
    const std::size_t n = input.size();
    std::vector<Complex> output(n);
    for (std::size_t k = 0; k < n; ++k) {
        Complex sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) sum += input[j] * unit_root(j * k, n, sign);
        output[k] = sum;
    }
    return output;
}

ReferenceFft::ReferenceFft(std::size_t n, int sign) : n_(n), roots_(n) {
    for (std::size_t k = 0; k < n; ++k) roots_[k] = unit_root(k, n, sign);
}

std::vector<Complex> ReferenceFft::operator()(std::span<const Complex> input) const {
    std::vector<Complex> output(n_);
    if (input.size() != n_) return output;
    std::vector<Complex> scratch(n_);
    transform(input.data(), 1, output.data(), scratch.data(), n_);
    return output;
}

void ReferenceFft::transform(const Complex* in, std::size_t stride, Complex* out, Complex* scratch,
                             std::size_t m) const {
    const std::size_t step = n_ / m;  // root of unity of order m: roots_[step]
    if (m == 1) {
        out[0] = in[0];
        return;
    }
    std::size_t p = 2;
    while (p * p <= m && m % p != 0) ++p;
    if (m % p != 0) p = m;  // prime
    if (p == m) {
        for (std::size_t k = 0; k < m; ++k) {
            Complex sum = 0.0;
            for (std::size_t j = 0; j < m; ++j) sum += in[j * stride] * roots_[(j * k % m) * step];
            out[k] = sum;
        }
        return;
    }
    const std::size_t q = m / p;
    // Sub-transforms of the p decimated sequences: in[r*stride + j*p*stride] -> scratch[r*q..].
    for (std::size_t r = 0; r < p; ++r) transform(in + r * stride, stride * p, scratch + r * q, out + r * q, q);
    // X[k] = sum_r w_m^(r k) * S_r[k mod q]
    for (std::size_t k = 0; k < m; ++k) {
        Complex sum = 0.0;
        for (std::size_t r = 0; r < p; ++r) sum += scratch[r * q + k % q] * roots_[(r * k % m) * step];
        out[k] = sum;
    }
}

}  // namespace cudacheck::reference
