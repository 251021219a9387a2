#include "cudacheck/engine.hpp"

#include "probes/probes.hpp"

#include <chrono>
#include <fmt/format.h>
#include <future>
#include <map>
#include <thread>

namespace cudacheck {

namespace {

bool satisfied(const CheckResult& dependency) {
    return dependency.status == Status::pass || dependency.status == Status::warn;
}

CheckResult skipped(const Check& check, std::optional<int> device, std::string reason) {
    ResultBuilder builder;
    builder.skip(std::move(reason));
    return std::move(builder).finish(check.info().id, device);
}

std::string dependency_reason(const std::string& id, const CheckResult& dependency) {
    if (dependency.status == Status::skip) return fmt::format("needs {}, which was skipped", id);
    if (dependency.code.empty()) return fmt::format("needs {}, which ended with {}", id, to_string(dependency.status));
    return fmt::format("needs {}, which ended with {} ({})", id, to_string(dependency.status), dependency.code);
}

// Runs one check, turning anything it throws into an `error` result.
CheckResult run_one(const Check& check, CheckContext& context) {
    const auto start = std::chrono::steady_clock::now();
    CheckResult result;
    try {
        ResultBuilder builder;
        check.run(context, builder);
        result = std::move(builder).finish(check.info().id, context.device);
    } catch (const std::exception& exception) {
        ResultBuilder builder;
        builder.add(Code::check_raised_exception, fmt::format("{} stopped with an error: {}", check.info().id, exception.what()));
        result = std::move(builder).finish(check.info().id, context.device);
    } catch (...) {
        ResultBuilder builder;
        builder.add(Code::check_raised_exception, fmt::format("{} stopped with an unknown exception", check.info().id));
        result = std::move(builder).finish(check.info().id, context.device);
    }
    result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

// The reason a check must not run, if any: level too low, or a dependency not satisfied.
// `lookup` returns the dependency's result, or nullptr when it was not selected.
template <typename Lookup>
std::optional<std::string> blocked(const Check& check, const EngineInput& input, Lookup lookup) {
    const CheckInfo& info = check.info();
    if (input.options.level < info.min_level)
        return fmt::format("runs at --level {} and above", to_string(info.min_level));
    for (const std::string& dependency : info.depends_on) {
        const CheckResult* result = lookup(dependency);
        if (result == nullptr) return fmt::format("needs {}, which was not run (--skip)", dependency);
        if (!satisfied(*result)) return dependency_reason(dependency, *result);
    }
    return std::nullopt;
}

}  // namespace

std::vector<CheckResult> run_checks(const EngineInput& input) {
    std::vector<const Check*> host_checks;
    std::vector<const Check*> device_checks;
    for (const Check* check : input.selection.checks)
        (check->info().scope == Scope::host ? host_checks : device_checks).push_back(check);

    // Host checks: each in its own task, waiting only for its own dependencies, so slow probes
    // (nvcc, driver initialisation) overlap.
    std::map<std::string, std::shared_future<CheckResult>> host_futures;
    for (const Check* check : host_checks) {
        std::map<std::string, std::shared_future<CheckResult>> dependencies;
        for (const std::string& id : check->info().depends_on)
            if (auto it = host_futures.find(id); it != host_futures.end()) dependencies.emplace(id, it->second);
        host_futures.emplace(check->info().id, std::async(std::launch::async, [check, &input, dependencies]() {
            std::map<std::string, CheckResult> finished;
            for (const auto& [id, future] : dependencies) finished.emplace(id, future.get());
            const auto lookup = [&](const std::string& id) -> const CheckResult* {
                const auto it = finished.find(id);
                return it == finished.end() ? nullptr : &it->second;
            };
            if (auto reason = blocked(*check, input, lookup)) return skipped(*check, std::nullopt, *reason);
            CheckContext context{input.options, input.environment, input.probes, std::nullopt};
            return run_one(*check, context);
        }).share());
    }
    std::vector<CheckResult> results;
    std::map<std::string, CheckResult> host_results;
    for (const Check* check : host_checks) {
        CheckResult result = host_futures.at(check->info().id).get();
        host_results.emplace(result.check_id, result);
        results.push_back(std::move(result));
    }
    if (device_checks.empty()) return results;

    // Per-device checks need the device list, which only a working driver gives.
    const DriverFacts& driver = input.probes.initialised_driver();
    std::vector<int> ordinals;
    for (const DeviceInfo& device : driver.devices)
        if (input.options.devices.empty() ||
            std::find(input.options.devices.begin(), input.options.devices.end(), device.ordinal) != input.options.devices.end())
            ordinals.push_back(device.ordinal);
    if (ordinals.empty()) {
        const std::string reason = driver.devices.empty() ? "no CUDA device is available (see driver.libcuda and cuda.devices)"
                                                          : "no selected device (--devices)";
        for (const Check* check : device_checks) results.push_back(skipped(*check, std::nullopt, reason));
        return results;
    }

    // One thread per device; within a device, checks run in registry order.
    std::vector<std::vector<CheckResult>> per_device(ordinals.size());
    std::vector<std::thread> threads;
    for (std::size_t slot = 0; slot < ordinals.size(); ++slot) {
        threads.emplace_back([&, slot]() {
            const int ordinal = ordinals[slot];
            std::map<std::string, CheckResult> finished;
            const auto lookup = [&](const std::string& id) -> const CheckResult* {
                if (auto it = finished.find(id); it != finished.end()) return &it->second;
                if (auto it = host_results.find(id); it != host_results.end()) return &it->second;
                return nullptr;
            };
            for (const Check* check : device_checks) {
                CheckResult result;
                if (auto reason = blocked(*check, input, lookup)) {
                    result = skipped(*check, ordinal, *reason);
                } else {
                    CheckContext context{input.options, input.environment, input.probes, ordinal};
                    result = run_one(*check, context);
                }
                finished.emplace(check->info().id, result);
                per_device[slot].push_back(std::move(result));
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    // Deterministic order: by check, then by device.
    for (const Check* check : device_checks)
        for (std::size_t slot = 0; slot < ordinals.size(); ++slot)
            for (CheckResult& result : per_device[slot])
                if (result.check_id == check->info().id) results.push_back(std::move(result));
    return results;
}

}  // namespace cudacheck
