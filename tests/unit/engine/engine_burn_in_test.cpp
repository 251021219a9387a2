// The burn-ins come last on their GPUs (engine/engine.cpp, CheckInfo::burn_in): gpu.stress and
// gpu.memtest heat the GPU, and a GEMM timed after them ran at a lower clock (BF16 695 TFLOP/s
// against 800 on a cool GPU). Fake checks on two fake devices stand for them: each logs when its
// timed section (a TimedWindow) began and ended, and the burn-in's must begin after every other
// check of its device, and every multi-device check, ended, whatever those ended with.
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "probes/probes.hpp"
#include "support/function_checks.hpp"
#include "util/timed_windows.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cudacheck {
namespace {

using Clock = std::chrono::steady_clock;
using test::failing;
using test::make_check;
using test::passing;
using test::two_fake_devices;

// When each check's timed section began and ended, by (check, device).
struct Log {
    struct Section {
        Clock::time_point start;
        Clock::time_point end;
    };
    std::mutex mutex;
    std::map<std::pair<std::string, int>, Section> sections;
    // A body that holds a timed section on its device (every device, for a multi-device check) for
    // `milliseconds`, then does `after`.
    FunctionCheck::Body timed(std::string id, std::map<int, int> milliseconds,
                              std::function<void(ResultBuilder&)> after = {}) {
        return [this, id, milliseconds, after](CheckContext& context, ResultBuilder& result) {
            const std::vector<int> devices = context.device ? std::vector<int>{*context.device} : context.devices;
            const Clock::time_point start = Clock::now();
            {
                const TimedWindow window(devices);
                std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds.at(devices.front())));
            }
            const Clock::time_point end = Clock::now();
            {
                const std::lock_guard<std::mutex> lock(mutex);
                for (int device : devices) sections[{id, device}] = {start, end};
            }
            result.summary("timed");
            if (after) after(result);
        };
    }
    std::optional<Section> of(const std::string& id, int device) {
        const std::lock_guard<std::mutex> lock(mutex);
        const auto found = sections.find({id, device});
        if (found == sections.end()) return std::nullopt;
        return found->second;
    }
};

std::unique_ptr<Check> burn_in(std::string id, FunctionCheck::Body body, std::vector<std::string> depends_on = {},
                               Scope scope = Scope::device) {
    return std::make_unique<FunctionCheck>(CheckInfo{.id = std::move(id),
                                                     .title = "title",
                                                     .description = "description",
                                                     .scope = scope,
                                                     .min_level = Level::quick,
                                                     .depends_on = std::move(depends_on),
                                                     .burn_in = true},
                                           std::move(body));
}

struct Harness {
    Environment environment;
    RunOptions options;
    ProbeSettings settings;
    Harness() { settings.collect_driver = two_fake_devices; }
    std::vector<CheckResult> run(CheckList checks) {
        const Registry registry(std::move(checks));
        const Selection selection = select_checks(registry, {}, {});
        Probes probes(environment, settings);
        return run_checks(EngineInput{selection, options, environment, probes});
    }
};

const CheckResult* result_of(const std::vector<CheckResult>& results, const std::string& id,
                             std::optional<int> device) {
    for (const CheckResult& result : results)
        if (result.check_id == id && result.device == device) return &result;
    return nullptr;
}

// The burn-in is registered first, as if it came before the others in the registry: the order
// comes from the flag, not from the registry. Device 1's checks take longer than device 0's, so a
// burn-in that waited for the wrong device, or for nothing, starts too early on one of them. One
// check fails and one throws: neither holds the burn-in back or skips it.
TEST(EngineBurnIn, times_after_every_other_check_of_its_device_has_ended_whatever_they_ended_with) {
    Harness harness;
    Log log;
    CheckList checks;
    checks.push_back(burn_in("gpu.burn", log.timed("gpu.burn", {{0, 20}, {1, 20}})));
    checks.push_back(make_check("gpu.gemm", log.timed("gpu.gemm", {{0, 60}, {1, 150}}), {}, Scope::device));
    checks.push_back(make_check("gpu.broken",
                                log.timed("gpu.broken", {{0, 90}, {1, 40}},
                                          [](ResultBuilder& result) { result.add(Code::wrong_result, "wrong"); }),
                                {}, Scope::device));
    checks.push_back(make_check("gpu.throws",
                                log.timed("gpu.throws", {{0, 30}, {1, 30}},
                                          [](ResultBuilder&) { throw std::runtime_error("boom"); }),
                                {}, Scope::device));
    checks.push_back(make_check("gpu.pairs", log.timed("gpu.pairs", {{0, 50}, {1, 50}}), {}, Scope::multi_device));
    const std::vector<CheckResult> results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 9u);

    for (int device : {0, 1}) {
        const auto burn = log.of("gpu.burn", device);
        ASSERT_TRUE(burn) << "the burn-in did not run on GPU " << device;
        for (const std::string& other : {"gpu.gemm", "gpu.broken", "gpu.throws", "gpu.pairs"}) {
            const auto section = log.of(other, device);
            ASSERT_TRUE(section) << other << " on GPU " << device;
            EXPECT_GE(burn->start, section->end)
                << "the burn-in began timing on GPU " << device << " before " << other << " had ended";
        }
        const CheckResult* burned = result_of(results, "gpu.burn", device);
        ASSERT_NE(burned, nullptr);
        EXPECT_EQ(burned->status, Status::pass) << burned->skip_reason << burned->message;
        EXPECT_EQ(result_of(results, "gpu.broken", device)->status, Status::fail);
        EXPECT_EQ(result_of(results, "gpu.throws", device)->status, Status::error);
    }
    // Device 0's burn-in does not wait for device 1's checks (150 ms of gpu.gemm there).
    EXPECT_LT(log.of("gpu.burn", 0)->start, log.of("gpu.gemm", 1)->end);
    // The report keeps registry order: the burn-in first, as registered.
    EXPECT_EQ(results[0].check_id, "gpu.burn");
    EXPECT_EQ(results[0].device, 0);
    EXPECT_EQ(results[1].device, 1);
}

// A skipped check (its host dependency failed) does not skip the burn-in, which does not depend on
// it; the burn-in's own dependency still does, with the usual reason.
TEST(EngineBurnIn, is_skipped_by_its_own_dependency_only) {
    Harness harness;
    Log log;
    CheckList checks;
    checks.push_back(make_check("host.broken", failing(Code::libcuda_not_found)));
    checks.push_back(make_check("host.fine", passing()));
    checks.push_back(make_check("gpu.needs_broken", passing(), {"host.broken"}, Scope::device));
    checks.push_back(burn_in("gpu.burn", log.timed("gpu.burn", {{0, 5}, {1, 5}}), {"host.fine"}));
    checks.push_back(burn_in("gpu.burn_broken", log.timed("gpu.burn_broken", {{0, 5}, {1, 5}}), {"host.broken"}));
    const std::vector<CheckResult> results = harness.run(std::move(checks));
    for (int device : {0, 1}) {
        EXPECT_EQ(result_of(results, "gpu.needs_broken", device)->status, Status::skip);
        EXPECT_EQ(result_of(results, "gpu.burn", device)->status, Status::pass);
        const CheckResult* skipped = result_of(results, "gpu.burn_broken", device);
        ASSERT_NE(skipped, nullptr);
        EXPECT_EQ(skipped->status, Status::skip);
        EXPECT_EQ(skipped->skip_reason, "needs host.broken, which ended with fail (CC210)");
    }
}

// A multi-device burn-in comes after every per-device check of every GPU and the other
// multi-device checks; a per-device burn-in does not wait for it (it may run beside it, queueing
// on the GPU's lock).
TEST(EngineBurnIn, a_multi_device_burn_in_times_after_every_other_gpu_check) {
    Harness harness;
    Log log;
    CheckList checks;
    checks.push_back(burn_in("gpus.burn", log.timed("gpus.burn", {{0, 10}}), {}, Scope::multi_device));
    checks.push_back(make_check("gpu.gemm", log.timed("gpu.gemm", {{0, 40}, {1, 120}}), {}, Scope::device));
    checks.push_back(make_check("gpus.pairs", log.timed("gpus.pairs", {{0, 60}}), {}, Scope::multi_device));
    const std::vector<CheckResult> results = harness.run(std::move(checks));
    const auto burn = log.of("gpus.burn", 0);
    ASSERT_TRUE(burn);
    EXPECT_GE(burn->start, log.of("gpu.gemm", 0)->end);
    EXPECT_GE(burn->start, log.of("gpu.gemm", 1)->end);
    EXPECT_GE(burn->start, log.of("gpus.pairs", 0)->end);
    EXPECT_EQ(result_of(results, "gpus.burn", std::nullopt)->status, Status::pass);
}

// A check waiting for a burn-in would wait for itself: the registry refuses it.
TEST(EngineBurnIn, no_check_may_depend_on_a_burn_in) {
    CheckList checks;
    checks.push_back(burn_in("gpu.burn", passing()));
    checks.push_back(make_check("gpu.after", passing(), {"gpu.burn"}, Scope::device));
    EXPECT_THROW(Registry{std::move(checks)}, std::logic_error);
}

// The real burn-ins are marked, and no other check is: gpu.stress heats the GPU for --duration,
// gpu.memtest holds it alone over half its memory (ground truth: the two burn-in checks
// docs/cli.md's "Burn-in" section names).
TEST(EngineBurnIn, gpu_stress_and_gpu_memtest_are_the_burn_ins) {
    const Registry registry(builtin_checks());
    std::vector<std::string> burn_ins;
    for (const auto& check : registry.checks())
        if (check->info().burn_in) burn_ins.push_back(check->info().id);
    EXPECT_EQ(burn_ins, (std::vector<std::string>{"gpu.stress", "gpu.memtest"}));
}

}  // namespace
}  // namespace cudacheck
