// The float64 reference FFT (checks/reference/fft.hpp) against the naive DFT and known spectra.
#include "checks/reference/fft.hpp"
#include "support/random_signal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

namespace cudacheck {
namespace {

using namespace reference;
using test::random_signal;

// --- reference transforms --------------------------------------------------------------------

double max_abs_difference(const std::vector<Complex>& a, const std::vector<Complex>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

TEST(NaiveDft, delta_at_zero_gives_a_flat_spectrum) {
    std::vector<Complex> delta(8, 0.0);
    delta[0] = 1.0;
    for (const Complex& bin : naive_dft(delta, -1)) EXPECT_NEAR(std::abs(bin - Complex(1.0, 0.0)), 0.0, 1e-15);
}

TEST(NaiveDft, shifted_delta_gives_a_unit_magnitude_linear_phase) {
    const std::size_t n = 12;
    std::vector<Complex> delta(n, 0.0);
    delta[3] = 1.0;
    const std::vector<Complex> spectrum = naive_dft(delta, -1);
    for (std::size_t k = 0; k < n; ++k) {
        EXPECT_NEAR(std::abs(spectrum[k]), 1.0, 1e-14);
        // Forward sign -1: X[k] = exp(-2 pi i 3 k / n).
        EXPECT_NEAR(std::arg(spectrum[k] * std::polar(1.0, 2.0 * std::numbers::pi * 3.0 * static_cast<double>(k) / n)),
                    0.0, 1e-12)
            << k;
    }
}

TEST(NaiveDft, cosine_gives_two_spikes_of_height_n_over_2) {
    const std::size_t n = 16;
    std::vector<Complex> cosine(n);
    for (std::size_t j = 0; j < n; ++j) cosine[j] = std::cos(2.0 * std::numbers::pi * 3.0 * static_cast<double>(j) / n);
    const std::vector<Complex> spectrum = naive_dft(cosine, -1);
    for (std::size_t k = 0; k < n; ++k) {
        const double expected = (k == 3 || k == n - 3) ? n / 2.0 : 0.0;
        EXPECT_NEAR(spectrum[k].real(), expected, 1e-12) << k;
        EXPECT_NEAR(spectrum[k].imag(), 0.0, 1e-12) << k;
    }
}

TEST(NaiveDft, inverse_of_forward_is_n_times_the_input) {
    const std::vector<Complex> signal = random_signal(10, 1);
    std::vector<Complex> back = naive_dft(naive_dft(signal, -1), +1);
    for (Complex& x : back) x /= 10.0;
    EXPECT_LT(max_abs_difference(signal, back), 1e-14);
}

TEST(ReferenceFft, matches_the_naive_dft_for_prime_composite_and_power_of_two_lengths) {
    for (const std::size_t n : {1u, 2u, 3u, 7u, 8u, 12u, 30u, 64u, 97u, 125u, 1000u, 4096u}) {
        const std::vector<Complex> signal = random_signal(n, static_cast<unsigned>(n));
        for (const int sign : {-1, +1}) {
            const std::vector<Complex> fast = ReferenceFft(n, sign)(signal);
            const std::vector<Complex> slow = naive_dft(signal, sign);
            // Both in float64: they agree to ~1e-13 of the spectrum's scale (sqrt(n)).
            EXPECT_LT(max_abs_difference(fast, slow), 1e-12 * std::sqrt(static_cast<double>(n)) * 10)
                << "n=" << n << " sign=" << sign;
        }
    }
}

TEST(ReferenceFft, real_input_gives_a_hermitian_spectrum) {
    // What R2C relies on: bins n/2+1 .. n-1 are the conjugates of bins n/2-1 .. 1.
    const std::size_t n = 1000;
    std::vector<Complex> signal = random_signal(n, 5);
    for (Complex& x : signal) x = x.real();
    const std::vector<Complex> spectrum = ReferenceFft(n, -1)(signal);
    for (std::size_t k = 1; k < n / 2; ++k) EXPECT_LT(std::abs(spectrum[n - k] - std::conj(spectrum[k])), 1e-11) << k;
    EXPECT_NEAR(spectrum[0].imag(), 0.0, 1e-11);
    EXPECT_NEAR(spectrum[n / 2].imag(), 0.0, 1e-11);
}

}  // namespace
}  // namespace cudacheck
