// What cublas.gemm's critical path is made of, in a fresh process (issue 21): the primary context,
// cublasCreate, the first product of each precision (cuBLAS loads that precision's kernels then),
// one after another or each on its own thread, handle and stream as cublas.gemm does; and the rate
// of each precision at several sizes, to choose the smallest size that reaches the steady rate.
//
// Build (on a machine with the driver and the toolkit):
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/cublas_costs.cpp -o cublas_costs \
//       -L/usr/local/cuda/lib64 -lcublas -lcudart -pthread
// Run: ./cublas_costs first-use sequential|parallel SIZE   (one JSON line; run each in a fresh process)
//      ./cublas_costs rates SIZE...                          (one JSON line per precision and size)
// Rates: inputs uniform in [-1, 1) made on the host, 3 warm-ups, median of 10 runs timed with CUDA
// events, 2*n^3 flops.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Precision {
    const char* name;
    cudaDataType_t type;
    cublasComputeType_t compute;
    std::size_t bytes;
};
const Precision precisions[] = {
    {"FP32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4},
    {"TF32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
    {"FP16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
    {"BF16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
};

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void ok(cudaError_t error, const char* what) {
    if (error != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
        std::exit(1);
    }
}
void ok(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(status));
        std::exit(1);
    }
}

// a, b and c of n x n elements of the widest type, filled for `precision`.
struct Buffers {
    void* a = nullptr;
    void* b = nullptr;
    void* c = nullptr;
    explicit Buffers(std::size_t n) {
        for (void** buffer : {&a, &b, &c}) ok(cudaMalloc(buffer, n * n * 4), "cudaMalloc");
    }
    void fill(const Precision& precision, std::size_t n) {
        std::mt19937 generator(42);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        std::vector<unsigned char> host(n * n * precision.bytes);
        for (std::size_t i = 0; i < n * n; ++i) {
            const float value = uniform(generator);
            if (precision.type == CUDA_R_32F) std::memcpy(&host[i * 4], &value, 4);
            else if (precision.type == CUDA_R_16F) { const __half h = __float2half(value); std::memcpy(&host[i * 2], &h, 2); }
            else { const __nv_bfloat16 h = __float2bfloat16(value); std::memcpy(&host[i * 2], &h, 2); }
        }
        ok(cudaMemcpy(a, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
        ok(cudaMemcpy(b, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
};

cublasStatus_t gemm(cublasHandle_t handle, const Precision& precision, int n, Buffers& buffers) {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, buffers.a, precision.type, n, buffers.b, precision.type, n, &beta,
                        buffers.c, precision.type, n, precision.compute, CUBLAS_GEMM_DEFAULT);
}

int first_use(bool parallel, int n) {
    const auto start = std::chrono::steady_clock::now();
    ok(cudaFree(nullptr), "cudaFree(0)");  // cuInit and the primary context
    const double context_ms = ms_since(start);
    auto step = std::chrono::steady_clock::now();
    cublasHandle_t handle = nullptr;
    ok(cublasCreate(&handle), "cublasCreate");
    const double create_ms = ms_since(step);
    Buffers buffers(static_cast<std::size_t>(n));
    ok(cudaDeviceSynchronize(), "sync");
    double each[4] = {};
    step = std::chrono::steady_clock::now();
    const auto one = [&](int index) {
        const auto begin = std::chrono::steady_clock::now();
        cublasHandle_t own = nullptr;
        cudaStream_t stream = nullptr;
        ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
        ok(cublasCreate(&own), "cublasCreate");
        ok(cublasSetStream(own, stream), "cublasSetStream");
        ok(gemm(own, precisions[index], n, buffers), "gemm");
        ok(cudaStreamSynchronize(stream), "sync");
        each[index] = ms_since(begin);
    };
    if (parallel) {
        std::vector<std::thread> threads;
        for (int i = 0; i < 4; ++i) threads.emplace_back(one, i);
        for (auto& thread : threads) thread.join();
    } else {
        for (int i = 0; i < 4; ++i) one(i);
    }
    const double loads_ms = ms_since(step);
    std::printf("{\"mode\": \"%s\", \"size\": %d, \"context_ms\": %.1f, \"cublasCreate_ms\": %.1f, \"first_use_ms\": {\"FP32\": %.1f, "
                "\"TF32\": %.1f, \"FP16\": %.1f, \"BF16\": %.1f}, \"first_uses_total_ms\": %.1f, \"whole_ms\": %.1f}\n",
                parallel ? "parallel" : "sequential", n, context_ms, create_ms, each[0], each[1], each[2], each[3], loads_ms, ms_since(start));
    return 0;
}

int rates(const std::vector<int>& sizes) {
    cublasHandle_t handle = nullptr;
    ok(cublasCreate(&handle), "cublasCreate");
    const int largest = *std::max_element(sizes.begin(), sizes.end());
    Buffers buffers(static_cast<std::size_t>(largest));
    cudaEvent_t events[11];
    for (auto& event : events) ok(cudaEventCreate(&event), "event");
    for (const Precision& precision : precisions) {
        buffers.fill(precision, static_cast<std::size_t>(largest));
        for (int n : sizes) {
            for (int i = 0; i < 3; ++i) ok(gemm(handle, precision, n, buffers), "gemm");
            ok(cudaEventRecord(events[0]), "record");
            for (int i = 0; i < 10; ++i) {
                ok(gemm(handle, precision, n, buffers), "gemm");
                ok(cudaEventRecord(events[i + 1]), "record");
            }
            ok(cudaEventSynchronize(events[10]), "sync");
            std::vector<float> ms(10);
            for (int i = 0; i < 10; ++i) ok(cudaEventElapsedTime(&ms[i], events[i], events[i + 1]), "elapsed");
            std::sort(ms.begin(), ms.end());
            const double median = (ms[4] + ms[5]) / 2.0;
            std::printf("{\"precision\": \"%s\", \"size\": %d, \"median_ms\": %.3f, \"tflops\": %.1f}\n", precision.name, n, median,
                        2.0 * n * double(n) * n / (median * 1e-3) / 1e12);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 4 && std::strcmp(argv[1], "first-use") == 0) return first_use(std::strcmp(argv[2], "parallel") == 0, std::atoi(argv[3]));
    if (argc >= 3 && std::strcmp(argv[1], "rates") == 0) {
        std::vector<int> sizes;
        for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
        return rates(sizes);
    }
    std::fprintf(stderr, "usage: cublas_costs first-use sequential|parallel SIZE | rates SIZE...\n");
    return 2;
}
