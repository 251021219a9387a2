// Unit tests for the cudnn_nvrtc checks (pure parts; the GPU parts run on the GPU machine).
#include <gtest/gtest.h>
