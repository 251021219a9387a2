// A random complex signal for the FFT tests: both parts uniform in [-1, 1), reproducible by seed.
#pragma once

#include "checks/reference/fft.hpp"

#include <cstddef>
#include <random>
#include <vector>

namespace cudacheck::test {

inline std::vector<reference::Complex> random_signal(std::size_t n, unsigned seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<reference::Complex> signal(n);
    for (reference::Complex& x : signal) x = {value(engine), value(engine)};
    return signal;
}

}  // namespace cudacheck::test
