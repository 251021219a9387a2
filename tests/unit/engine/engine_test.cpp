// The engine (engine/engine.cpp): dependency skips, exceptions, levels, concurrency and ordering.
#include "engine/engine.hpp"
#include "probes/probes.hpp"
#include "support/function_checks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::Body;
using test::failing;
using test::make_check;
using test::passing;
using test::two_fake_devices;

struct Harness {
    Environment environment;
    RunOptions options;
    ProbeSettings settings;
    std::vector<CheckResult> run(CheckList checks, std::vector<std::string> only = {},
                                 std::vector<std::string> skip = {}) {
        const Registry registry(std::move(checks));
        const Selection selection = select_checks(registry, only, skip);
        Probes probes(environment, settings);
        return run_checks(EngineInput{selection, options, environment, probes});
    }
};

TEST(Engine, skips_dependent_check_when_dependency_fails) {
    Harness harness;
    CheckList checks;
    checks.push_back(make_check("a.base", failing(Code::libcuda_not_found)));
    checks.push_back(make_check("a.dependent", passing(), {"a.base"}));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].status, Status::fail);
    EXPECT_EQ(results[1].status, Status::skip);
    EXPECT_NE(results[1].skip_reason.find("a.base"), std::string::npos);
    EXPECT_NE(results[1].skip_reason.find("CC210"), std::string::npos);
}

TEST(Engine, runs_dependent_check_when_dependency_only_warns) {
    Harness harness;
    CheckList checks;
    checks.push_back(make_check("a.base", failing(Code::cuda_launch_blocking)));
    checks.push_back(make_check("a.dependent", passing(), {"a.base"}));
    const auto results = harness.run(std::move(checks));
    EXPECT_EQ(results[0].status, Status::warn);
    EXPECT_EQ(results[1].status, Status::pass);
}

TEST(Engine, turns_exception_into_error_result_and_keeps_going) {
    Harness harness;
    CheckList checks;
    checks.push_back(make_check("a.throws", [](CheckContext&, ResultBuilder&) { throw std::runtime_error("boom"); }));
    checks.push_back(make_check("a.throws_int", [](CheckContext&, ResultBuilder&) { throw 42; }));
    checks.push_back(make_check("a.fine", passing()));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].status, Status::error);
    EXPECT_EQ(results[0].code, "CC901");
    EXPECT_NE(results[0].message.find("boom"), std::string::npos);
    EXPECT_EQ(results[1].status, Status::error);
    EXPECT_EQ(results[2].status, Status::pass);
}

// What a check found before it threw is what explains the throw: it stays in the result.
TEST(Engine, keeps_the_evidence_and_findings_gathered_before_an_exception) {
    Harness harness;
    CheckList checks;
    checks.push_back(make_check("a.throws_late", [](CheckContext&, ResultBuilder& result) {
        result.evidence("libcuda_path", "/usr/lib/libcuda.so.1");
        result.metric(MetricFamily{"bandwidth", "bandwidth", Unit::gb_per_s, "A bandwidth."}, 12.5);
        result.add(Code::cuda_launch_blocking, "CUDA_LAUNCH_BLOCKING=1");
        throw std::runtime_error("boom");
    }));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::error);
    EXPECT_EQ(results[0].code, "CC901");
    EXPECT_EQ(results[0].evidence, (std::vector<Evidence>{{"libcuda_path", "/usr/lib/libcuda.so.1"}}));
    ASSERT_EQ(results[0].metrics.size(), 1u);
    EXPECT_EQ(results[0].metrics[0].name, "bandwidth");
    ASSERT_EQ(results[0].findings.size(), 2u);
    EXPECT_EQ(results[0].findings[1].code, "CC115");
}

TEST(Engine, skips_check_above_requested_level) {
    Harness harness;
    harness.options.level = Level::quick;
    CheckList checks;
    checks.push_back(make_check("a.kernel", passing(), {}, Scope::host, Level::standard));
    const auto results = harness.run(std::move(checks));
    EXPECT_EQ(results[0].status, Status::skip);
    EXPECT_NE(results[0].skip_reason.find("--level standard"), std::string::npos);
}

TEST(Engine, skips_dependent_when_dependency_explicitly_skipped) {
    Harness harness;
    CheckList checks;
    checks.push_back(make_check("a.base", passing()));
    checks.push_back(make_check("a.dependent", passing(), {"a.base"}));
    const auto results = harness.run(std::move(checks), {}, {"a.base"});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].check_id, "a.dependent");
    EXPECT_EQ(results[0].status, Status::skip);
    EXPECT_NE(results[0].skip_reason.find("not run"), std::string::npos);
}

TEST(Engine, runs_independent_host_checks_concurrently) {
    Harness harness;
    std::atomic<int> running{0};
    std::atomic<int> most{0};
    const Body slow = [&](CheckContext&, ResultBuilder& result) {
        most = std::max(most.load(), ++running);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        --running;
        result.summary("done");
    };
    CheckList checks;
    checks.push_back(make_check("a.one", slow));
    checks.push_back(make_check("a.two", slow));
    checks.push_back(make_check("a.three", slow));
    const auto start = std::chrono::steady_clock::now();
    const auto results = harness.run(std::move(checks));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(most.load(), 3);
    EXPECT_LT(elapsed, std::chrono::milliseconds(280));
    EXPECT_EQ(results[0].check_id, "a.one");
    EXPECT_EQ(results[2].check_id, "a.three");
}

// A GPU check waits for the host checks it depends on, not for all of them: here it finishes while
// a slow host check it does not depend on is still running (on the H200, NVML held every GPU check
// back when they waited for all host checks).
TEST(Engine, starts_gpu_checks_when_their_own_host_dependencies_are_done) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    std::promise<void> gpu_done;
    std::shared_future<void> gpu_done_future = gpu_done.get_future().share();
    std::atomic<bool> saw_gpu_finish{false};
    std::atomic<int> gpu_results{0};
    CheckList checks;
    checks.push_back(make_check("host.base", passing()));
    checks.push_back(make_check("host.slow", [&](CheckContext&, ResultBuilder&) {
        saw_gpu_finish = gpu_done_future.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    }));
    checks.push_back(make_check(
        "gpu.work",
        [&](CheckContext&, ResultBuilder&) {
            if (++gpu_results == 2) gpu_done.set_value();
        },
        {"host.base"}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 4u);
    EXPECT_TRUE(saw_gpu_finish) << "the GPU checks waited for host.slow, which they do not depend on";
    for (const CheckResult& result : results) EXPECT_EQ(result.status, Status::pass) << result.check_id;
    EXPECT_EQ(results[0].check_id, "host.base");
    EXPECT_EQ(results[1].check_id, "host.slow");
    EXPECT_EQ(results[2].device, 0);
}

TEST(Engine, runs_device_checks_per_device_concurrently_in_stable_order) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    std::atomic<int> running{0};
    std::atomic<int> most{0};
    const Body per_device = [&](CheckContext& context, ResultBuilder& result) {
        most = std::max(most.load(), ++running);
        // Device 0 finishes last, so completion order differs from report order.
        std::this_thread::sleep_for(std::chrono::milliseconds(context.device == 0 ? 120 : 10));
        --running;
        result.summary("device " + std::to_string(*context.device));
    };
    CheckList checks;
    checks.push_back(make_check("gpu.first", per_device, {}, Scope::device));
    checks.push_back(make_check("gpu.second", passing(), {"gpu.first"}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 4u);
    EXPECT_EQ(most.load(), 2);
    EXPECT_EQ(results[0].check_id, "gpu.first");
    EXPECT_EQ(results[0].device, 0);
    EXPECT_EQ(results[0].message, "device 0");
    EXPECT_EQ(results[1].device, 1);
    EXPECT_EQ(results[2].check_id, "gpu.second");
    EXPECT_EQ(results[2].device, 0);
    EXPECT_EQ(results[3].device, 1);
}

TEST(Engine, runs_device_checks_on_devices_a_dependency_did_not_fail_for) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    CheckList checks;
    // One GPU of two is unusable (e.g. compute mode Prohibited): the host check fails for it only.
    checks.push_back(make_check("gpus.listed", [](CheckContext&, ResultBuilder& result) {
        result.add_for_device(1, Code::compute_mode_prohibited, "device 1 is in compute mode Prohibited");
        result.add(Code::cuda_launch_blocking, "a warning about no device in particular");
    }));
    checks.push_back(make_check("gpu.work", passing(), {"gpus.listed"}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].status, Status::fail);
    EXPECT_EQ(results[1].device, 0);
    EXPECT_EQ(results[1].status, Status::pass) << results[1].message;
    EXPECT_EQ(results[2].device, 1);
    EXPECT_EQ(results[2].status, Status::skip);
    EXPECT_NE(results[2].skip_reason.find("CC413"), std::string::npos) << results[2].skip_reason;
}

TEST(Engine, skips_every_device_when_a_dependency_fails_for_no_device_in_particular) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    CheckList checks;
    checks.push_back(make_check("gpus.listed", [](CheckContext&, ResultBuilder& result) {
        result.add_for_device(1, Code::compute_mode_prohibited, "device 1 is in compute mode Prohibited");
        result.add(Code::device_query_failed, "cuDeviceGetCount failed");
    }));
    checks.push_back(make_check("gpu.work", passing(), {"gpus.listed"}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[1].status, Status::skip);
    EXPECT_EQ(results[2].status, Status::skip);
}

TEST(Engine, runs_device_checks_only_on_selected_devices) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    harness.options.devices = {1};
    CheckList checks;
    checks.push_back(make_check("gpu.first", passing(), {}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].device, 1);
}

// Per-device and multi-device checks alike: skipped at --level quick, and CUDA never initialised.
TEST(Engine, quick_level_skips_gpu_checks_without_initialising_cuda) {
    for (const Scope scope : {Scope::device, Scope::multi_device}) {
        Harness harness;
        harness.options.level = Level::quick;
        harness.settings.initialise_cuda = false;
        int initialisations = 0;
        harness.settings.collect_driver = [&](bool initialise) {
            initialisations += initialise ? 1 : 0;
            return two_fake_devices(initialise);
        };
        CheckList checks;
        checks.push_back(make_check("gpu.work", passing(), {}, scope, Level::standard));
        const auto results = harness.run(std::move(checks));
        ASSERT_EQ(results.size(), 1u);
        EXPECT_EQ(results[0].status, Status::skip);
        EXPECT_NE(results[0].skip_reason.find("--level standard"), std::string::npos);
        EXPECT_EQ(initialisations, 0);
    }
}

TEST(Engine, skips_device_checks_with_reason_when_no_device) {
    Harness harness;
    harness.settings.collect_driver = [](bool) { return DriverFacts{}; };
    CheckList checks;
    checks.push_back(make_check("gpu.first", passing(), {}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::skip);
    EXPECT_NE(results[0].skip_reason.find("no CUDA device"), std::string::npos);
}

TEST(Engine, device_check_skipped_when_host_dependency_failed) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    CheckList checks;
    checks.push_back(make_check("host.base", failing(Code::kernel_module_not_loaded)));
    checks.push_back(make_check("gpu.first", passing(), {"host.base"}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[1].status, Status::skip);
    EXPECT_EQ(results[2].status, Status::skip);
}

TEST(Engine, runs_multi_device_checks_once_alongside_per_device_checks_in_registry_order) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    std::atomic<bool> multi_running{false};
    std::atomic<bool> overlapped{false};
    std::vector<int> seen;
    CheckList checks;
    checks.push_back(make_check("gpus.listed", passing()));
    checks.push_back(make_check(
        "gpu.single",
        [&](CheckContext& context, ResultBuilder& result) {
        // The multi-device check sleeps; a per-device check that sees it running proves they overlap.
            for (int i = 0; i < 50 && !overlapped; ++i) {
                if (multi_running) overlapped = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(4));
            }
            result.summary("device " + std::to_string(*context.device));
        },
        {"gpus.listed"}, Scope::device));
    checks.push_back(make_check(
        "gpu.pairs",
        [&](CheckContext& context, ResultBuilder& result) {
            multi_running = true;
            seen = context.devices;
            EXPECT_FALSE(context.device.has_value());
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            multi_running = false;
            result.summary("pairs");
        },
        {"gpus.listed"}, Scope::multi_device));
    checks.push_back(make_check("gpu.after", passing(), {}, Scope::device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 6u);
    EXPECT_TRUE(overlapped.load());
    EXPECT_EQ(seen, (std::vector<int>{0, 1}));
    EXPECT_EQ(results[1].check_id, "gpu.single");
    EXPECT_EQ(results[2].check_id, "gpu.single");
    EXPECT_EQ(results[3].check_id, "gpu.pairs");
    EXPECT_FALSE(results[3].device.has_value());
    EXPECT_EQ(results[3].message, "pairs");
    EXPECT_EQ(results[4].check_id, "gpu.after");
    EXPECT_EQ(results[5].device, 1);
}

TEST(Engine, multi_device_check_gets_only_the_devices_its_dependency_did_not_fail_for) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    std::vector<int> seen{-1};
    CheckList checks;
    checks.push_back(make_check("gpus.listed", [](CheckContext&, ResultBuilder& result) {
        result.add_for_device(1, Code::compute_mode_prohibited, "device 1 is in compute mode Prohibited");
    }));
    checks.push_back(make_check(
        "gpu.pairs",
        [&](CheckContext& context, ResultBuilder& result) {
            seen = context.devices;
            result.summary("ran");
        },
        {"gpus.listed"}, Scope::multi_device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(seen, (std::vector<int>{0}));
    EXPECT_EQ(results[1].status, Status::pass);
}

TEST(Engine, multi_device_check_skipped_with_the_dependency_reason_when_no_device_is_usable) {
    Harness harness;
    harness.settings.collect_driver = two_fake_devices;
    CheckList checks;
    checks.push_back(make_check("host.base", failing(Code::kernel_module_not_loaded)));
    checks.push_back(make_check("gpu.pairs", passing(), {"host.base"}, Scope::multi_device));
    const auto results = harness.run(std::move(checks));
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[1].status, Status::skip);
    EXPECT_NE(results[1].skip_reason.find("CC201"), std::string::npos) << results[1].skip_reason;
}

// The supervisor gathers one run's results from several workers in whatever order they came.
TEST(Engine, sort_in_report_order_puts_host_checks_first_then_gpu_checks_by_selection_and_device) {
    CheckList checks;
    checks.push_back(make_check("gpu.first", passing(), {}, Scope::device));
    checks.push_back(make_check("host.a", passing()));
    checks.push_back(make_check("gpu.pairs", passing(), {}, Scope::multi_device));
    checks.push_back(make_check("host.b", passing()));
    const Registry registry(std::move(checks));
    const Selection selection = select_checks(registry, {}, {});
    const auto result = [](std::string id, std::optional<int> device) {
        CheckResult made;
        made.check_id = std::move(id);
        made.device = device;
        return made;
    };
    std::vector<CheckResult> results{result("gpu.pairs", std::nullopt), result("gpu.first", 1),
                                     result("host.b", std::nullopt), result("gpu.first", 0),
                                     result("host.a", std::nullopt)};
    sort_in_report_order(results, selection);
    std::vector<std::pair<std::string, std::optional<int>>> order;
    for (const CheckResult& sorted : results) order.emplace_back(sorted.check_id, sorted.device);
    EXPECT_EQ(order, (std::vector<std::pair<std::string, std::optional<int>>>{{"host.a", std::nullopt},
                                                                              {"host.b", std::nullopt},
                                                                              {"gpu.first", 0},
                                                                              {"gpu.first", 1},
                                                                              {"gpu.pairs", std::nullopt}}));
}

}  // namespace
}  // namespace cudacheck
