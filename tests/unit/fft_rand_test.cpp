// Unit tests for the fft_rand checks (pure parts; the GPU parts run on the GPU machine).
#include <gtest/gtest.h>
