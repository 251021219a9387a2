// Test-only checks that misbehave on purpose, so tests can show that the supervisor turns each
// misbehaviour into one result of a complete report (isolation/supervisor.hpp). They are linked
// only into the test binary cudacheck-with-faults (tests/CMakeLists.txt), never into cudacheck
// (docs/checks.md, "Test-only checks").
#include "cuda/library_families.hpp"
#include "engine/progress.hpp"
#include "engine/registry.hpp"
#include "gpu/cuda_runtime.hpp"
#include "support/spin.cuh"
#include "util/timed_windows.hpp"
#include "util/waiting.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <thread>
#include <vector>

namespace cudacheck {

namespace {

std::unique_ptr<Check> fault_check(std::string id, std::string description,
                                   std::function<void(CheckContext&, ResultBuilder&)> body, Scope scope = Scope::host,
                                   Level level = Level::quick) {
    return std::make_unique<FunctionCheck>(CheckInfo{.id = std::move(id),
                                                     .title = "Test-only fault",
                                                     .description = std::move(description),
                                                     .scope = scope,
                                                     .min_level = level},
                                           std::move(body));
}

[[noreturn]] void sleep_forever() {
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

// What fault.lock_hold keeps and fault.lock_wait waits for: a GPU held by a hung check, without a GPU.
std::mutex held_forever;

}  // namespace

// After every built-in check, in this order.
const CheckRegistration segfault_registration{100100, [] {
                                                  return fault_check("fault.segfault",
                                                                     "Writes through a null pointer (SIGSEGV)",
                                                                     [](CheckContext&, ResultBuilder&) {
                                                                         volatile int* nowhere = nullptr;
                                                                         *nowhere = 1;
                                                                     });
                                              }};

const CheckRegistration abort_registration{100200, [] {
                                               return fault_check("fault.abort", "Calls std::abort() (SIGABRT)",
                                                                  [](CheckContext&, ResultBuilder&) { std::abort(); });
                                           }};

const CheckRegistration hang_registration{100300, [] {
                                              return fault_check("fault.hang", "Sleeps forever",
                                                                 [](CheckContext&, ResultBuilder&) {
                                                                     sleep_forever();
                                                                 });
                                          }};

const CheckRegistration memory_registration{
    100400, [] {
        return fault_check("fault.memory", "Allocates and touches host memory, 64 MiB at a time, up to 4 GiB",
                           [](CheckContext&, ResultBuilder& result) {
                               std::vector<std::unique_ptr<char[]>> blocks;
                               constexpr std::size_t block = 64ULL << 20;
                               for (int i = 0; i < 64; ++i) {
                                   blocks.push_back(std::make_unique<char[]>(block));
                                   std::memset(blocks.back().get(), i + 1, block);
                                   std::this_thread::sleep_for(
                                       std::chrono::milliseconds(5));  // lets the supervisor's memory watch see it grow
                               }
                               result.summary("allocated 4 GiB and nobody stopped it");
                           });
    }};

const CheckRegistration garbage_registration{
    100500, [] {
        return fault_check("fault.garbage",
                           "Prints binary garbage and fake protocol lines on stdout and stderr, then passes",
                           [](CheckContext&, ResultBuilder& result) {
                               const char garbage[] =
                                   "\x01\xff\xfe{\"event\":\"done\"}\n{\"event\":\"finished\",\"result\":{}}\n\x1b[2J";
                               std::fwrite(garbage, 1, sizeof garbage - 1, stdout);
                               std::fflush(stdout);
                               std::fwrite(garbage, 1, sizeof garbage - 1, stderr);
                               result.summary("printed garbage");
                           });
    }};

const CheckRegistration lock_hold_registration{
    100600, [] {
        return fault_check("fault.lock_hold",
                           "Takes a lock another check needs and hangs holding it (a hung check holding its GPU)",
                           [](CheckContext&, ResultBuilder&) {
                               std::unique_lock<std::mutex> lock(held_forever, std::defer_lock);
                               lock_reporting_wait(lock);
                               sleep_forever();
                           });
    }};

const CheckRegistration lock_wait_registration{
    100700, [] {
        return fault_check("fault.lock_wait",
                           "Waits for fault.lock_hold's lock (a check queued behind a hung one), then passes",
                           [](CheckContext&, ResultBuilder& result) {
                               std::this_thread::sleep_for(
                                   std::chrono::milliseconds(200));  // fault.lock_hold takes it first
                               std::unique_lock<std::mutex> lock(held_forever, std::defer_lock);
                               lock_reporting_wait(lock);
                               result.summary("got the lock");
                           });
    }};

const CheckRegistration gpu_spin_registration{
    100800, [] {
        return fault_check(
            "fault.gpu_spin",
            "Launches a GPU kernel that never returns, holding the device alone (as a timed section does)",
            [](CheckContext& context, ResultBuilder& result) {
                gpu::run_gpu_check(context, result, [&](int device) {
                    std::optional<gpu::DeviceWork> held(device);
                    const gpu::Stream stream;
                    (void)gpu::time_on_stream(stream, held, 0, 1, [&] {
                        gpu::check(static_cast<cudaError_t>(kernels::launch_spin_forever(stream.get())), "spin launch");
                    });
                    result.summary("the spinning kernel returned");
                });
            },
            Scope::device, Level::standard);
    }};

// Not a fault: a check that reports a live figure (engine/progress.hpp) every 50 ms for 2 s, as a
// burn-in check does, for the progress line's tests without a GPU (the worker sends at most 4 a second).
const CheckRegistration progress_registration{
    100900, [] {
        return fault_check("fault.progress", "Reports a progress figure every 50 ms for 2 s (widgets/s), then passes",
                           [](CheckContext& context, ResultBuilder& result) {
                               const auto start = std::chrono::steady_clock::now();
                               for (int tick = 1; tick <= 40; ++tick) {
                                   std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                   const double elapsed =
                                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                                   report_progress(context, ProgressFigure{elapsed, 2.0, 100.0 * tick, "widgets/s",
                                                                           fmt::format("{} ticks", tick)});
                               }
                               result.summary("reported 40 progress figures");
                           });
    }};

// Not a fault: a timed section on CUDA device 0 without a GPU, as a GPU check's (TimedWindow), and a
// rate measured in it, for the tests of what the engine says when the fake NVML reports another
// process busy on that GPU. The section runs on a thread the check starts, joined to the
// check's recording as cufft.fft's are. What it asks before judging is in its evidence.
const CheckRegistration timed_registration{
    101000, [] {
        return fault_check("fault.timed", "Times 200 ms of pretend work on device 0 and reports a rate of 100 GB/s",
                           [](CheckContext& context, ResultBuilder& result) {
                               TimedWindowRecording* const recording = TimedWindowRecording::current();
                               std::thread([recording] {
                                   const TimedWindowRecording::Join joined(recording);
                                   const TimedWindow window({0});
                                   std::this_thread::sleep_for(std::chrono::milliseconds(200));
                               }).join();
                               result.metric(MetricFamily{"fault_timed_pretend_bandwidth", "pretend_bandwidth",
                                                          Unit::gb_per_s, "The rate fault.timed pretends to measure."},
                                             100.0);
                               const std::size_t shared = context.sharing ? context.sharing().size() : 0;
                               result.evidence("sharing_seen_before_judging", std::to_string(shared));
                               result.summary("timed 200 ms");
                           });
    }};

// A check that declares cuDNN as the library it uses (CheckInfo::libraries) and hangs, as a call
// into a library can: the supervisor charges the hang to a damaged file cuDNN would load, if any
// (isolation/crash_attribution.hpp), keeping the status timeout. It never opens cuDNN.
const CheckRegistration hang_in_cudnn_registration{
    101100, []() -> std::unique_ptr<Check> {
        return std::make_unique<FunctionCheck>(CheckInfo{.id = "fault.hang_in_cudnn",
                                                         .title = "Test-only fault",
                                                         .description =
                                                             "Declares cuDNN as its library and sleeps forever",
                                                         .raises = {Code::library_damaged},
                                                         .libraries = {&cuda_library::cudnn}},
                                               [](CheckContext&, ResultBuilder&) { sleep_forever(); });
    }};

}  // namespace cudacheck
