// Test-only checks that misbehave on purpose, so tests can show that the supervisor turns each
// misbehaviour into one result of a complete report (isolation/supervisor.hpp). They are registered only
// when CUDACHECK_FAULT_CHECKS=1 is set (docs/checks.md, "Test-only checks"); nobody else sees them.
#include "checks/checks.hpp"
#include "util/waiting.hpp"
#include "gpu/cuda_runtime.hpp"
#include "kernels/spin.cuh"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace cudacheck {

namespace {

std::unique_ptr<Check> fault_check(std::string id, std::string description, std::function<void(CheckContext&, ResultBuilder&)> body,
                                   Scope scope = Scope::host, Level level = Level::quick) {
    return std::make_unique<FunctionCheck>(CheckInfo{std::move(id), "Test-only fault", std::move(description), scope, level, {}, {}}, std::move(body));
}

[[noreturn]] void sleep_forever() {
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

// What fault.lock_hold keeps and fault.lock_wait waits for: a GPU held by a hung check, without a GPU.
std::mutex held_forever;

}  // namespace

bool fault_checks_enabled() {
    const char* value = std::getenv("CUDACHECK_FAULT_CHECKS");
    return value != nullptr && std::strcmp(value, "1") == 0;
}

void add_fault_checks(CheckList& checks) {
    checks.push_back(fault_check("fault.segfault", "Writes through a null pointer (SIGSEGV)", [](CheckContext&, ResultBuilder&) {
        volatile int* nowhere = nullptr;
        *nowhere = 1;
    }));
    checks.push_back(fault_check("fault.abort", "Calls std::abort() (SIGABRT)", [](CheckContext&, ResultBuilder&) { std::abort(); }));
    checks.push_back(fault_check("fault.hang", "Sleeps forever", [](CheckContext&, ResultBuilder&) { sleep_forever(); }));
    checks.push_back(fault_check("fault.memory", "Allocates and touches host memory, 64 MiB at a time, up to 4 GiB", [](CheckContext&, ResultBuilder& result) {
        std::vector<std::unique_ptr<char[]>> blocks;
        constexpr std::size_t block = 64ULL << 20;
        for (int i = 0; i < 64; ++i) {
            blocks.push_back(std::make_unique<char[]>(block));
            std::memset(blocks.back().get(), i + 1, block);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));  // lets the supervisor's memory watch see it grow
        }
        result.summary("allocated 4 GiB and nobody stopped it");
    }));
    checks.push_back(fault_check("fault.garbage", "Prints binary garbage and fake protocol lines on stdout and stderr, then passes",
                                 [](CheckContext&, ResultBuilder& result) {
                                     const char garbage[] = "\x01\xff\xfe{\"event\":\"done\"}\n{\"event\":\"finished\",\"result\":{}}\n\x1b[2J";
                                     std::fwrite(garbage, 1, sizeof garbage - 1, stdout);
                                     std::fflush(stdout);
                                     std::fwrite(garbage, 1, sizeof garbage - 1, stderr);
                                     result.summary("printed garbage");
                                 }));
    checks.push_back(fault_check("fault.lock_hold", "Takes a lock another check needs and hangs holding it (a hung check holding its GPU)",
                                 [](CheckContext&, ResultBuilder&) {
                                     std::unique_lock<std::mutex> lock(held_forever, std::defer_lock);
                                     lock_reporting_wait(lock);
                                     sleep_forever();
                                 }));
    checks.push_back(fault_check("fault.lock_wait", "Waits for fault.lock_hold's lock (a check queued behind a hung one), then passes",
                                 [](CheckContext&, ResultBuilder& result) {
                                     std::this_thread::sleep_for(std::chrono::milliseconds(200));  // fault.lock_hold takes it first
                                     std::unique_lock<std::mutex> lock(held_forever, std::defer_lock);
                                     lock_reporting_wait(lock);
                                     result.summary("got the lock");
                                 }));
    checks.push_back(fault_check(
        "fault.gpu_spin", "Launches a GPU kernel that never returns, holding the device alone (as a timed section does)",
        [](CheckContext& context, ResultBuilder& result) {
            gpu::run_gpu_check(context, result, [&](int device) {
                std::optional<gpu::DeviceWork> held(device);
                const gpu::Stream stream;
                (void)gpu::time_on_stream(stream, held, 0, 1, [&] { gpu::check(static_cast<cudaError_t>(kernels::launch_spin_forever(stream.get())), "spin launch"); });
                result.summary("the spinning kernel returned");
            });
        },
        Scope::device, Level::standard));
}

}  // namespace cudacheck
