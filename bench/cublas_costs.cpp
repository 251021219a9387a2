// What cublas.gemm's critical path is made of, in a fresh process (issue 21): the primary context,
// cublasCreate, the first product of each precision (cuBLAS loads that precision's kernels then),
// one after another or each on its own thread, handle and stream as cublas.gemm does; and the rate
// of each precision at several sizes, to choose the smallest size that reaches the steady rate.
//
// Build (on a machine with the driver and the toolkit):
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/cublas_costs.cpp -o cublas_costs \
//       -L/usr/local/cuda/lib64 -lcublas -lcudart -pthread
// Run: ./cublas_costs first-use sequential|parallel SIZE[,SIZE,SIZE,SIZE] [run|capture|capture-instantiate]
//        [none|pinned|registered|device]
//        (one JSON line; run each in a fresh process; one size, or one per precision: 4096,4096,8192,8192
//        are cublas.gemm's on an H200; LOAD says how the first product is made, BESIDE what another
//        thread does meanwhile)
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
        std::fflush(stderr);
        std::_Exit(1);  // not exit(): other threads may still be using CUDA
    }
}
void ok(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(status));
        std::fflush(stderr);
        std::_Exit(1);  // not exit(): other threads may still be using CUDA
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
            else if (precision.type == CUDA_R_16F) {
                const __half h = __float2half(value);
                std::memcpy(&host[i * 2], &h, 2);
            } else {
                const __nv_bfloat16 h = __float2bfloat16(value);
                std::memcpy(&host[i * 2], &h, 2);
            }
        }
        ok(cudaMemcpy(a, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
        ok(cudaMemcpy(b, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
};

cublasStatus_t gemm(cublasHandle_t handle, const Precision& precision, int n, Buffers& buffers) {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, buffers.a, precision.type, n, buffers.b,
                        precision.type, n, &beta, buffers.c, precision.type, n, precision.compute, CUBLAS_GEMM_DEFAULT);
}

// How a first product is made: run on the GPU (what cublas.gemm did until issue 21's third pass),
// or captured into a CUDA graph that is never launched, only instantiated (no GPU work: the kernels
// load, nothing runs) or not even that (does capturing alone load them?).
enum class Load { run, capture, capture_instantiate };

Load load_named(const char* name) {
    if (std::strcmp(name, "capture") == 0) return Load::capture;
    if (std::strcmp(name, "capture-instantiate") == 0) return Load::capture_instantiate;
    return Load::run;
}
const char* load_name(Load load) {
    return load == Load::capture ? "capture" : load == Load::capture_instantiate ? "capture-instantiate" : "run";
}

// One first product of `precision` at n^3 on its own handle and stream, made the way `load` says.
// Returns the milliseconds spent capturing (0 when it runs).
double first_product(const Precision& precision, int n, Buffers& buffers, Load load) {
    double capture_ms = 0;
    cublasHandle_t own = nullptr;
    cudaStream_t stream = nullptr;
    ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    ok(cublasCreate(&own), "cublasCreate");
    ok(cublasSetStream(own, stream), "cublasSetStream");
    if (load == Load::run) {
        ok(gemm(own, precision, n, buffers), "gemm");
        ok(cudaStreamSynchronize(stream), "sync");
    } else {
        cudaGraph_t graph = nullptr;
        const auto begin = std::chrono::steady_clock::now();
        ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        const cublasStatus_t status = gemm(own, precision, n, buffers);
        ok(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
        ok(status, "gemm (captured)");
        capture_ms = ms_since(begin);
        if (load == Load::capture_instantiate) {
            cudaGraphExec_t exec = nullptr;
            ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
            ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
        }
        ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
    }
    ok(cublasDestroy(own), "cublasDestroy");
    ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
    return capture_ms;
}

// What another thread does meanwhile, from the moment the context exists (as cuda.memory does
// beside cublas.gemm in the default run): nothing; two 64 MiB pinned buffers from cudaMallocHost,
// filled; the same from malloc, filled, then cudaHostRegister'ed; two 1 GiB device buffers, set.
enum class Beside { none, pinned, registered, device };

Beside beside_named(const char* name) {
    if (std::strcmp(name, "pinned") == 0) return Beside::pinned;
    if (std::strcmp(name, "registered") == 0) return Beside::registered;
    if (std::strcmp(name, "device") == 0) return Beside::device;
    return Beside::none;
}
const char* beside_name(Beside beside) {
    return beside == Beside::pinned       ? "pinned"
           : beside == Beside::registered ? "registered"
           : beside == Beside::device     ? "device"
                                          : "none";
}

// Returns its milliseconds; the buffers stay allocated (as cuda.memory's do while it runs).
double beside_work(Beside beside) {
    const auto begin = std::chrono::steady_clock::now();
    constexpr std::size_t host_bytes = std::size_t{64} << 20;
    constexpr std::size_t device_bytes = std::size_t{1} << 30;
    for (int i = 0; i < 2; ++i) {
        void* buffer = nullptr;
        if (beside == Beside::pinned) {
            ok(cudaMallocHost(&buffer, host_bytes), "cudaMallocHost");
            std::memset(buffer, i + 1, host_bytes);
        } else if (beside == Beside::registered) {
            buffer = std::aligned_alloc(4096, host_bytes);
            std::memset(buffer, i + 1, host_bytes);
            ok(cudaHostRegister(buffer, host_bytes, cudaHostRegisterDefault), "cudaHostRegister");
        } else if (beside == Beside::device) {
            ok(cudaMalloc(&buffer, device_bytes), "cudaMalloc");
            ok(cudaMemset(buffer, 0xFF, device_bytes), "cudaMemset");
        }
    }
    if (beside == Beside::device) ok(cudaDeviceSynchronize(), "sync");
    return ms_since(begin);
}

// sizes: one per precision (FP32, TF32, FP16, BF16).
int first_use(bool parallel, Load load, const std::vector<int>& sizes, Beside beside) {
    const auto start = std::chrono::steady_clock::now();
    ok(cudaFree(nullptr), "cudaFree(0)");  // cuInit and the primary context
    const double context_ms = ms_since(start);
    double beside_ms = 0;
    std::thread other([&] { beside_ms = beside_work(beside); });
    auto step = std::chrono::steady_clock::now();
    cublasHandle_t handle = nullptr;
    ok(cublasCreate(&handle), "cublasCreate");
    const double create_ms = ms_since(step);
    step = std::chrono::steady_clock::now();
    Buffers buffers(static_cast<std::size_t>(*std::max_element(sizes.begin(), sizes.end())));
    ok(cudaDeviceSynchronize(), "sync");
    const double buffers_ms = ms_since(step);
    double each[4] = {};
    double capturing[4] = {};
    step = std::chrono::steady_clock::now();
    const auto one = [&](int index) {
        const auto begin = std::chrono::steady_clock::now();
        capturing[index] = first_product(precisions[index], sizes[index], buffers, load);
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
    other.join();
    // Then one product of each precision on the main handle: ~a product's time if its kernels loaded.
    double after[4] = {};
    for (int i = 0; i < 4; ++i) {
        const auto begin = std::chrono::steady_clock::now();
        ok(gemm(handle, precisions[i], sizes[i], buffers), "gemm");
        ok(cudaDeviceSynchronize(), "sync");
        after[i] = ms_since(begin);
    }
    std::printf(
        "{\"mode\": \"%s\", \"load\": \"%s\", \"beside\": \"%s\", \"beside_ms\": %.1f, \"sizes\": [%d, %d, %d, %d], "
        "\"context_ms\": %.1f, \"cublasCreate_ms\": %.1f, "
        "\"buffers_ms\": %.1f, \"first_use_ms\": {\"FP32\": %.1f, \"TF32\": %.1f, \"FP16\": %.1f, \"BF16\": %.1f}, "
        "\"first_uses_total_ms\": %.1f, "
        "\"of_which_capturing_ms\": {\"FP32\": %.1f, \"TF32\": %.1f, \"FP16\": %.1f, \"BF16\": %.1f}, "
        "\"next_product_ms\": {\"FP32\": %.1f, \"TF32\": %.1f, \"FP16\": %.1f, \"BF16\": %.1f}, \"whole_ms\": %.1f}\n",
        parallel ? "parallel" : "sequential", load_name(load), beside_name(beside), beside_ms, sizes[0], sizes[1],
        sizes[2], sizes[3], context_ms, create_ms, buffers_ms, each[0], each[1], each[2], each[3], loads_ms,
        capturing[0], capturing[1], capturing[2], capturing[3], after[0], after[1], after[2], after[3],
        ms_since(start));
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
            std::printf("{\"precision\": \"%s\", \"size\": %d, \"median_ms\": %.3f, \"tflops\": %.1f}\n",
                        precision.name, n, median, 2.0 * n * double(n) * n / (median * 1e-3) / 1e12);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 4 && std::strcmp(argv[1], "first-use") == 0) {
        // first-use MODE SIZE [LOAD] or first-use MODE FP32,TF32,FP16,BF16 [LOAD]
        std::vector<int> sizes;
        for (const char* at = argv[3];;) {
            char* end = nullptr;
            const long size = std::strtol(at, &end, 10);
            if (end == at || size <= 0) break;
            sizes.push_back(static_cast<int>(size));
            if (*end != ',') break;
            at = end + 1;
        }
        if (sizes.empty()) return 2;
        while (sizes.size() < 4) sizes.push_back(sizes.back());
        return first_use(std::strcmp(argv[2], "parallel") == 0, argc >= 5 ? load_named(argv[4]) : Load::run, sizes,
                         argc >= 6 ? beside_named(argv[5]) : Beside::none);
    }
    if (argc >= 3 && std::strcmp(argv[1], "rates") == 0) {
        std::vector<int> sizes;
        for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
        return rates(sizes);
    }
    std::fprintf(stderr,
                 "usage: cublas_costs first-use sequential|parallel SIZE[,SIZE...] [run|capture|capture-instantiate] "
                 "[none|pinned|registered|device] | rates SIZE...\n");
    return 2;
}
