// cublas.gemm: what its GPU part measures, and the pure judge of it (unit tests drive it without a
// GPU).
#pragma once

#include "cuda/cuda_facts.hpp"
#include "engine/check.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"

#include <cublas_api.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// One precision of the throughput phase: how cublasGemmEx is called, at which size, how far its
// sampled entries may stray from float64, and which datasheet peak it is compared with.
struct GemmPrecision {
    const char* name;  // "FP32", "TF32", "FP16", "BF16"
    kernels::Element element;
    cudaDataType_t type;
    cublasComputeType_t compute;
    std::size_t size;  // of the square products, where the GPU has the room (metric gemm_<name>_<size>)
    double tolerance;  // relative Frobenius error over the sampled entries
    double DatasheetPeaks::* peak;
};

// Sizes: the smallest that reaches the steady rate. On an H200 (bench/cublas_costs.cpp, rates of
// 2048^3 ... 8192^3, docs/performance.md) FP32 reaches at 4096^3 the rate of 8192^3 (51.4 against
// 51.3 TFLOP/s), where one product takes 2.7 ms instead of 21; TF32 too (402 against 360-420,
// which varies most between runs). FP16 and BF16 lose 0.6-0.7% at 4096^3 and their 8192^3
// products take only 1.4 ms: they stay at 8192^3.
// Tolerances for K up to 8192 with random inputs in [-1, 1): FP32 accumulates ~sqrt(K) * 2^-24 ≈
// 5e-6 of relative error; TF32 rounds inputs to 10-bit mantissas (~3e-4 observed); FP16 and BF16
// round the output to 11 and 8 bits (2^-11 ≈ 5e-4, 2^-8 ≈ 4e-3). Each limit leaves a margin of
// ~5-10x.
inline constexpr std::array gemm_precisions{
    GemmPrecision{"FP32", kernels::Element::f32, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4096, 5e-5, &DatasheetPeaks::fp32},
    GemmPrecision{"TF32", kernels::Element::f32, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4096, 3e-3,
                  &DatasheetPeaks::tf32},
    GemmPrecision{"FP16", kernels::Element::f16, CUDA_R_16F, CUBLAS_COMPUTE_32F, 8192, 5e-3, &DatasheetPeaks::fp16},
    GemmPrecision{"BF16", kernels::Element::bf16, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 8192, 3e-2, &DatasheetPeaks::bf16},
};

// The size each precision is measured at on a GPU with `free_bytes` free: its own size, halved
// (down to 2048) while three matrices of that size in the widest element (4 bytes) would take more
// than a quarter of the free memory (the device's other checks run at the same time).
[[nodiscard]] std::array<std::size_t, gemm_precisions.size()> gemm_sizes(std::size_t free_bytes);

// SGEMM in float32 arithmetic: ~sqrt(K) * 2^-24 ≈ 1e-6 expected for K = 328; DGEMM ~1e-15.
inline constexpr double sgemm_tolerance = 1e-5;
inline constexpr double dgemm_tolerance = 1e-13;

// One precision's timed products.
struct GemmThroughput {
    const GemmPrecision* precision = nullptr;  // an element of gemm_precisions
    std::size_t size = 0;                      // of the square products
    double tflops = 0.0;                       // of the median run
    gpu::Accuracy accuracy;                    // of the sampled entries against float64
};

// What the GPU part of cublas.gemm found, filled as it goes: a cuBLAS or GPU error that stops it
// leaves the later fields unset, and the judge reports what was measured before it.
struct GemmOutcome {
    // The small non-square products (256x192x328), every element against float64.
    std::optional<gpu::Accuracy> sgemm;
    std::optional<gpu::Accuracy> dgemm;
    std::string device_name;  // cudaGetDeviceProperties: looks up the datasheet peaks
    int warmups = 0;
    int runs = 0;
    int samples = 0;  // entries of each product checked in float64
    std::vector<GemmThroughput> throughput;  // in gemm_precisions' order, as far as measured
    std::string phases;  // wall time of each phase: "handle 120 ms, ..."; set when every phase ran
};

void judge_gemm(const GemmOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
