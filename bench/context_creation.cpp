// How long the CUDA driver takes to create the primary contexts of several GPUs, one after another
// or each on its own thread: the experiment behind create_primary_contexts() (src/probes/
// driver_probe.cpp) and docs/performance.md's "several GPUs" section.
//
// Build (on a machine with the driver):
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/context_creation.cpp -o context_creation -lcuda -pthread
// Run: ./context_creation sequential|parallel [HOLD_SECONDS]
// Prints one JSON line: cuInit's time, each context's time and the total, in milliseconds. Run it
// several times, alternating the modes, in fresh processes (a context is created once per process).
// With HOLD_SECONDS, it then keeps its contexts that long before exiting: run one so in the
// background to see what another process's cuInit costs while the GPUs are held.
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    const bool parallel = argc > 1 && std::strcmp(argv[1], "parallel") == 0;
    const auto start = std::chrono::steady_clock::now();
    if (cuInit(0) != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuInit failed\n");
        return 1;
    }
    const double init_ms = milliseconds_since(start);
    int count = 0;
    cuDeviceGetCount(&count);
    std::vector<double> each(static_cast<std::size_t>(count), 0.0);
    std::vector<CUresult> results(static_cast<std::size_t>(count), CUDA_SUCCESS);
    const auto create = [&](int ordinal) {
        const auto begin = std::chrono::steady_clock::now();
        CUdevice device = 0;
        CUcontext context = nullptr;
        results[ordinal] = cuDeviceGet(&device, ordinal);
        if (results[ordinal] == CUDA_SUCCESS) results[ordinal] = cuDevicePrimaryCtxRetain(&context, device);
        each[ordinal] = milliseconds_since(begin);
    };
    const auto contexts_start = std::chrono::steady_clock::now();
    if (parallel) {
        std::vector<std::thread> threads;
        for (int ordinal = 0; ordinal < count; ++ordinal) threads.emplace_back(create, ordinal);
        for (std::thread& thread : threads) thread.join();
    } else {
        for (int ordinal = 0; ordinal < count; ++ordinal) create(ordinal);
    }
    const double contexts_ms = milliseconds_since(contexts_start);
    std::string list;
    int failed = 0;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        list += (ordinal ? ", " : "") + std::to_string(each[ordinal]);
        failed += results[ordinal] != CUDA_SUCCESS;
    }
    std::printf(
        "{\"mode\": \"%s\", \"devices\": %d, \"failed\": %d, \"cuinit_ms\": %.1f, \"contexts_ms\": %.1f, \"each_ms\": "
        "[%s]}\n",
        parallel ? "parallel" : "sequential", count, failed, init_ms, contexts_ms, list.c_str());
    std::fflush(stdout);
    if (argc > 2) std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(argv[2])));
    return failed == 0 ? 0 : 1;
}
