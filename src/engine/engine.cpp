#include "engine/engine.hpp"

#include "engine/progress.hpp"

#include "probes/nvml/gpu_sharing.hpp"
#include "probes/nvml/timed_conditions.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/process.hpp"
#include "util/timed_windows.hpp"
#include "util/trace.hpp"
#include "util/waiting.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <unistd.h>
#include <variant>

namespace cudacheck {

namespace {

bool satisfied(const CheckResult& dependency) {
    return dependency.status == Status::pass || dependency.status == Status::warn;
}

// For a per-device check: a dependency that failed only because of other devices (every finding
// worse than a warning names one device, and not this one) does not hold this device back.
bool satisfied_for(const CheckResult& dependency, std::optional<int> device) {
    if (satisfied(dependency)) return true;
    if (!device || dependency.status != Status::fail) return false;
    return std::all_of(dependency.findings.begin(), dependency.findings.end(), [&](const Finding& finding) {
        return finding.status == Status::warn || (finding.device && *finding.device != *device);
    });
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

// Who else used the GPU of `span` around it, asked as the span ends (NVML keeps only each
// process's last sample): nullopt when no one did or NVML cannot tell. cudacheck's own processes
// are this one and its supervisor.
std::optional<GpuSharing> sharing_around(Probes& probes, const TimedSpan& span) {
    const GpuSharingProbe& probe = probes.gpu_sharing();
    if (!probe.ok()) return std::nullopt;
    const std::vector<unsigned int> own{static_cast<unsigned int>(::getpid()), static_cast<unsigned int>(::getppid())};
    for (const DeviceInfo& info : probes.initialised_driver().devices)
        if (info.ordinal == span.device)
            return judge_sharing(span.device,
                                 probe.snapshot(info.pci_bus_id, span.start_us - utilization_sample_period_us), {span},
                                 own);
    return std::nullopt;
}

// One entry per GPU: the processes of every span, each at its highest SM use.
void merge_sharing(std::vector<GpuSharing>& shared, GpuSharing found) {
    const auto same_device = std::find_if(shared.begin(), shared.end(),
                                          [&](const GpuSharing& known) { return known.device == found.device; });
    if (same_device == shared.end()) {
        shared.push_back(std::move(found));
        return;
    }
    for (SharingProcess& process : found.processes) {
        const auto known = std::find_if(same_device->processes.begin(), same_device->processes.end(),
                                        [&](const SharingProcess& candidate) { return candidate.pid == process.pid; });
        if (known == same_device->processes.end()) same_device->processes.push_back(std::move(process));
        else if (process.sm_percent > known->sm_percent) known->sm_percent = process.sm_percent;
    }
}

// Says so in the result when its figures were measured on a shared GPU (CC907).
void note_sharing(const std::string& check_id, const std::vector<GpuSharing>& shared, ResultBuilder& builder) {
    for (const GpuSharing& sharing : shared) {
        const std::string who = describe_sharing(sharing);
        // The headline names who else used the GPU when that fits; the evidence always does.
        const std::string named =
            fmt::format("GPU {} was shared while {} timed its work: {} also used it", sharing.device, check_id, who);
        builder.add_for_device(sharing.device, Code::gpu_shared_during_measurement,
                               named.size() <= sys::max_headline
                                   ? named
                                   : fmt::format("GPU {} was shared while {} timed its work: its figures are this "
                                                 "check's share",
                                                 sharing.device, check_id));
        builder.evidence(fmt::format("shared_gpu{}", sharing.device), fmt::format("{} (NVML {})", who, sharing.method));
        builder.shared_gpu(sharing);
    }
}

// What NVML read of each GPU during the check's timed sections (SM clock, temperature): a
// sampler per GPU, made on a watch's thread the first time the check times work there (the PCI bus
// id names the GPU to NVML, which numbers GPUs otherwise), and what each section's watch read.
class TimedConditions {
public:
    explicit TimedConditions(Probes& probes) : probes_(probes) {}
    // For util/timed_windows' recording: a watch for each GPU a section opens on.
    std::unique_ptr<SpanWatch> watch(int device) {
        return watch_conditions([this, device] { return sampler(device); }, device,
                                [this](SectionConditions read) {
                                    const std::lock_guard<std::mutex> lock(mutex_);
                                    sections_.push_back(std::move(read));
                                });
    }
    // Adds the evidence of the sections to `result`, but under a key the check gave itself
    // (gpu.stress reads NVML throughout its run): its own reading stands.
    void add_to(CheckResult& result) {
        std::vector<SectionConditions> sections;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            sections = sections_;
        }
        for (Evidence& item : describe_conditions(std::move(sections), result.device)) {
            const bool known = std::any_of(result.evidence.begin(), result.evidence.end(),
                                           [&](const Evidence& own) { return own.key == item.key; });
            if (!known) result.evidence.push_back(std::move(item));
        }
    }

private:
    std::shared_ptr<const NvmlClockSampler> sampler(int device) {
        const std::lock_guard<std::mutex> lock(sampler_mutex_);  // NVML opens once; the first section waits
        auto& slot = samplers_[device];
        if (slot) return slot;
        const NvmlFacts& nvml = probes_.nvml();
        if (!nvml.initialised()) return nullptr;  // no driver: no reading, and no error
        for (const DeviceInfo& info : probes_.initialised_driver().devices)
            if (info.ordinal == device) slot = std::make_shared<const NvmlClockSampler>(nvml, info.pci_bus_id);
        return slot;
    }

    Probes& probes_;
    std::mutex sampler_mutex_;
    std::map<int, std::shared_ptr<const NvmlClockSampler>> samplers_;  // under sampler_mutex_
    std::mutex mutex_;
    std::vector<SectionConditions> sections_;  // under mutex_
};

// Runs one check, turning anything it throws into an `error` result.
CheckResult run_one(const Check& check, CheckContext& context) {
    const auto start = std::chrono::steady_clock::now();
    // One builder for the whole run: a check that throws keeps the evidence, metrics and findings
    // it gathered before the throw, which are what explains it.
    ResultBuilder builder;
    // Who else used the GPUs while this check timed its work, asked as each timed span ends; the
    // check may ask before it judges a rate (context.sharing), and the result says so afterwards.
    // Each question runs on its own thread (NVML takes ~2-20 ms), so the check goes on meanwhile;
    // context.sharing() waits for those asked so far.
    std::vector<GpuSharing> shared;
    std::mutex shared_mutex;  // spans end on the threads a check starts too
    std::vector<std::future<void>> asking;  // under shared_mutex; declared after what they use: joined first
    // The SM clock and temperature of each timed section, read by the section's own watch.
    TimedConditions conditions(context.probes);
    const TimedWindowRecording timed(
        [&](const TimedSpan& span) {
            try {
                std::future<void> question = std::async(std::launch::async, [&, span] {
                    try {
                        const trace::Span asking_span(fmt::format("NVML: who else used GPU {}", span.device));
                        std::optional<GpuSharing> found = sharing_around(context.probes, span);
                        const std::lock_guard<std::mutex> lock(shared_mutex);
                        if (found) merge_sharing(shared, std::move(*found));
                    } catch (...) {
                        // Only a failed allocation gets here; the figures then go unflagged rather than the run down.
                    }
                });
                const std::lock_guard<std::mutex> lock(shared_mutex);
                asking.push_back(std::move(question));
            } catch (...) {
                // No thread could be started: as above.
            }
        },
        [&conditions](int device) { return conditions.watch(device); });
    context.sharing = [&] {
        std::vector<std::future<void>> pending;
        {
            const std::lock_guard<std::mutex> lock(shared_mutex);
            pending.swap(asking);
        }
        for (std::future<void>& question : pending) question.wait();
        const std::lock_guard<std::mutex> lock(shared_mutex);
        return shared;
    };
    try {
        check.run(context, builder);
        note_sharing(check.info().id, context.sharing(), builder);
    } catch (const std::system_error& exception) {
        // A thread or process the check needed could not start (EAGAIN): the process limit, not a
        // cudacheck bug.
        if (exception.code() == std::errc::resource_unavailable_try_again)
            builder.add(Code::process_limit_reached,
                        fmt::format("{} could not start a thread or process ({}): {}", check.info().id,
                                    exception.what(), sys::process_limit_words()));
        else
            builder.add(Code::check_raised_exception,
                        fmt::format("{} stopped with an error: {}", check.info().id, exception.what()));
    } catch (const std::exception& exception) {
        builder.add(Code::check_raised_exception,
                    fmt::format("{} stopped with an error: {}", check.info().id, exception.what()));
    } catch (...) {
        builder.add(Code::check_raised_exception, fmt::format("{} stopped with an unknown exception", check.info().id));
    }
    context.sharing = nullptr;
    CheckResult result = std::move(builder).finish(check.info().id, context.device);
    conditions.add_to(result);
    result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

// The reason a check must not run, if any: level too low, or a dependency not satisfied.
// `lookup` returns the dependency's result, or nullptr when it was not selected.
template <typename Lookup>
std::optional<std::string> blocked(const Check& check, const EngineInput& input, std::optional<int> device,
                                   Lookup lookup) {
    const CheckInfo& info = check.info();
    if (input.options.level < info.min_level)
        return fmt::format("runs at --level {} and above", to_string(info.min_level));
    for (const std::string& dependency : info.depends_on) {
        const CheckResult* result = lookup(dependency);
        if (result == nullptr) return fmt::format("needs {}, which was not run (--skip)", dependency);
        if (!satisfied_for(*result, device)) return dependency_reason(dependency, *result);
    }
    return std::nullopt;
}

const CheckResult* decided_result(const EngineInput& input, const std::string& id, std::optional<int> device) {
    if (input.decided == nullptr) return nullptr;
    for (const CheckResult& result : *input.decided)
        if (result.check_id == id && result.device == device) return &result;
    return nullptr;
}

CheckResult reported(const EngineInput& input, CheckResult result) {
    if (input.observer != nullptr) input.observer->finished(result);
    return result;
}

// A per-device check skipped for every device at once (device null): planned and reported here.
CheckResult skipped_unplanned(const EngineInput& input, const Check& check, std::string reason) {
    if (const CheckResult* decided = decided_result(input, check.info().id, std::nullopt)) return *decided;
    if (input.observer != nullptr) input.observer->planned(check.info().id, std::nullopt);
    return reported(input, skipped(check, std::nullopt, std::move(reason)));
}

// Held around each check when input.one_at_a_time is set.
std::mutex one_at_a_time;

// A multi-device check runs on the devices none of its dependencies failed for; with none left it
// is skipped, with the first reason found.
std::variant<std::vector<int>, std::string> usable_devices(
    const Check& check, const EngineInput& input, const std::vector<int>& ordinals,
    const std::function<const CheckResult*(const std::string&)>& lookup) {
    std::vector<int> usable;
    std::optional<std::string> reason;
    for (int ordinal : ordinals) {
        if (auto why = blocked(check, input, ordinal, lookup)) {
            if (!reason) reason = std::move(why);
        } else {
            usable.push_back(ordinal);
        }
    }
    if (usable.empty() && reason) return *reason;
    return usable;
}

using Futures = std::map<std::string, std::shared_future<CheckResult>>;

// Checks started by start_concurrently: by id, and in the order of the checks given.
struct Started {
    Futures by_id;
    std::vector<std::shared_future<CheckResult>> ordered;
};

// Starts `checks` concurrently, each in its own task as soon as its dependencies have finished: a
// dependency is another of these checks, or one of `earlier` (the host checks, for GPU checks:
// a GPU check waits for the host checks it depends on, not for all of them). Multi-device checks
// (device empty) get `ordinals`, less the devices a dependency failed for. A burn-in
// (CheckInfo::burn_in) starts once the other checks given here and `burn_in_after` (the checks of
// its devices started elsewhere) have finished, whatever they ended with. `earlier` must outlive
// the tasks.
Started start_concurrently(const std::vector<const Check*>& checks, const EngineInput& input, std::optional<int> device,
                           const Futures& earlier, const std::vector<int>& ordinals = {},
                           const std::vector<std::shared_future<CheckResult>>& burn_in_after = {}) {
    Futures futures;
    std::vector<std::optional<std::shared_future<CheckResult>>> in_order(checks.size());
    std::vector<std::shared_future<CheckResult>> before_burn_in = burn_in_after;
    const auto start = [&](std::size_t index) {
        const Check* check = checks[index];
        std::map<std::string, std::shared_future<CheckResult>> dependencies;
        for (const std::string& id : check->info().depends_on)
            if (auto it = futures.find(id); it != futures.end()) dependencies.emplace(id, it->second);
        std::vector<std::shared_future<CheckResult>> after;
        if (check->info().burn_in) after = before_burn_in;
        if (input.observer != nullptr && decided_result(input, check->info().id, device) == nullptr)
            input.observer->planned(check->info().id, device);
        std::shared_future<CheckResult> future =
            std::async(std::launch::async, [check, &input, &earlier, ordinals, device, dependencies, after]() {
                std::map<std::string, CheckResult> finished;
                for (const auto& [id, dependency] : dependencies) finished.emplace(id, dependency.get());
                if (const CheckResult* decided = decided_result(input, check->info().id, device)) return *decided;
                // Waits, not depends: their results do not matter (run_one never throws).
                for (const std::shared_future<CheckResult>& other : after) other.wait();
                const std::function<const CheckResult*(const std::string&)> lookup =
                    [&](const std::string& id) -> const CheckResult* {
                    if (auto it = finished.find(id); it != finished.end()) return &it->second;
                    if (auto it = earlier.find(id); it != earlier.end())
                        return &it->second.get();  // waits for that host check
                    return nullptr;
                };
                CheckContext context{input.options, input.environment, input.probes, device, {}};
                if (input.observer != nullptr)
                    context.progress = [&input, check, device](const ProgressFigure& figure) {
                        input.observer->progress(check->info().id, device, figure);
                    };
                if (check->info().scope == Scope::multi_device) {
                    auto usable = usable_devices(*check, input, ordinals, lookup);
                    if (auto* reason = std::get_if<std::string>(&usable))
                        return reported(input, skipped(*check, device, *reason));
                    context.devices = std::get<std::vector<int>>(std::move(usable));
                } else if (auto reason = blocked(*check, input, device, lookup)) {
                    return reported(input, skipped(*check, device, *reason));
                }
                std::unique_lock<std::mutex> alone(one_at_a_time, std::defer_lock);
                if (input.one_at_a_time) alone.lock();
                if (input.observer != nullptr) input.observer->started(check->info().id, device);
                const WaitReporting waits([&input, check, device](bool waiting) {
                    if (input.observer != nullptr) input.observer->waiting(check->info().id, device, waiting);
                });
                const std::string label = device ? fmt::format("{}[{}]", check->info().id, *device) : check->info().id;
                trace::name_thread(label);
                const trace::Span span(label);
                return reported(input, run_one(*check, context));
            }).share();
        futures.emplace(check->info().id, future);
        if (!check->info().burn_in) before_burn_in.push_back(future);
        in_order[index] = future;
    };
    // The other checks first, so that each burn-in knows every one it waits for; no check depends on
    // a burn-in (Registry), so none misses a dependency started later.
    for (std::size_t i = 0; i < checks.size(); ++i)
        if (!checks[i]->info().burn_in) start(i);
    for (std::size_t i = 0; i < checks.size(); ++i)
        if (checks[i]->info().burn_in) start(i);
    std::vector<std::shared_future<CheckResult>> ordered;
    for (auto& future : in_order) ordered.push_back(std::move(*future));
    return Started{std::move(futures), std::move(ordered)};
}

// The results of started checks, in their order, once all have finished.
std::vector<CheckResult> results_of(const Started& started) {
    std::vector<CheckResult> results;
    for (const auto& future : started.ordered) results.push_back(future.get());
    return results;
}

// The results of a run, in no particular order.
std::vector<CheckResult> run_in_any_order(const EngineInput& input) {
    std::vector<const Check*> host_checks;
    std::vector<const Check*> device_checks;
    std::vector<const Check*> multi_device_checks;
    for (const Check* check : input.selection.checks) {
        const Scope scope = check->info().scope;
        (scope == Scope::host     ? host_checks
         : scope == Scope::device ? device_checks
                                  : multi_device_checks)
            .push_back(check);
    }

    // Host checks overlap: slow probes (nvcc, cuInit, NVML) run side by side. GPU checks start
    // beside them, each once the host checks it depends on are done (on the H200, NVML took up to
    // 285 ms, longer than cuInit, and held back every GPU check when they waited for all).
    const Started host = start_concurrently(host_checks, input, std::nullopt, {});
    if (device_checks.empty() && multi_device_checks.empty()) return results_of(host);

    // GPU checks (per-device and multi-device), for skipping them all at once.
    std::vector<const Check*> gpu_checks;
    for (const Check* check : input.selection.checks)
        if (check->info().scope != Scope::host) gpu_checks.push_back(check);

    // When no GPU check runs at this level, skip them without asking for devices: listing
    // devices means initialising CUDA, which --level quick exists to avoid.
    const bool any_runnable = std::any_of(gpu_checks.begin(), gpu_checks.end(), [&](const Check* check) {
        return input.options.level >= check->info().min_level;
    });
    if (!any_runnable) {
        std::vector<CheckResult> results = results_of(host);
        for (const Check* check : gpu_checks)
            results.push_back(
                skipped_unplanned(input, *check,
                                  fmt::format("runs at --level {} and above", to_string(check->info().min_level))));
        return results;
    }

    // GPU checks need the device list, which only a working driver gives.
    const DriverFacts& driver = input.probes.initialised_driver();
    std::vector<int> ordinals;
    for (const DeviceInfo& device : driver.devices)
        if (input.options.devices.empty() || std::find(input.options.devices.begin(), input.options.devices.end(),
                                                       device.ordinal) != input.options.devices.end())
            ordinals.push_back(device.ordinal);
    std::sort(ordinals.begin(), ordinals.end());
    if (ordinals.empty()) {
        std::vector<CheckResult> results = results_of(host);
        const std::string reason = driver.devices.empty()
                                       ? "no CUDA device is available (see driver.libcuda and cuda.devices)"
                                       : "no selected device (--devices)";
        // A check below this run's level says so, not that there is no device: it would not run here anyway.
        for (const Check* check : gpu_checks)
            results.push_back(
                skipped_unplanned(input, *check,
                                  input.options.level < check->info().min_level
                                      ? fmt::format("runs at --level {} and above", to_string(check->info().min_level))
                                      : reason));
        return results;
    }

    // A per-device check below this run's level is skipped once, not once per device: one line for
    // gpu.stress at the default level rather than one per GPU.
    std::map<std::string, CheckResult> below_level;
    std::vector<const Check*> runnable_device_checks;
    for (const Check* check : device_checks) {
        if (input.options.level < check->info().min_level)
            below_level.emplace(check->info().id, skipped_unplanned(input, *check,
                                                                    fmt::format("runs at --level {} and above",
                                                                                to_string(check->info().min_level))));
        else runnable_device_checks.push_back(check);
    }
    device_checks = std::move(runnable_device_checks);

    // Every device at once, and within a device every check whose dependencies are met: CPU-side
    // work (library loading, handle and plan creation, CPU references) overlaps. Checks serialise
    // their GPU work per device themselves (gpu::DeviceWork), so timed sections run alone.
    // Multi-device checks start at the same time: they take the devices they time all at once or
    // not at all (gpu::time_on_devices), so they cannot deadlock with each other or with the
    // per-device checks. The burn-ins come last on their devices: a per-device one after the other
    // checks of its device and the multi-device checks, a multi-device one after every other GPU
    // check (start_concurrently).
    std::vector<const Check*> multi_device_burn_ins;
    std::erase_if(multi_device_checks, [&](const Check* check) {
        if (check->info().burn_in) multi_device_burn_ins.push_back(check);
        return check->info().burn_in;
    });
    const Started multi_device = start_concurrently(multi_device_checks, input, std::nullopt, host.by_id, ordinals);
    std::vector<Started> per_device;
    if (!device_checks.empty())
        for (int ordinal : ordinals)
            per_device.push_back(
                start_concurrently(device_checks, input, ordinal, host.by_id, {}, multi_device.ordered));
    std::vector<std::shared_future<CheckResult>> every_other = multi_device.ordered;
    for (const Started& one_device : per_device)
        for (const Check* check : device_checks)
            if (!check->info().burn_in) every_other.push_back(one_device.by_id.at(check->info().id));
    std::vector<Started> multi_device_burn_in;
    for (const Check* check : multi_device_burn_ins) {
        // Each after the one before: two burn-ins of the same GPUs would only queue on their locks.
        multi_device_burn_in.push_back(
            start_concurrently({check}, input, std::nullopt, host.by_id, ordinals, every_other));
        every_other.push_back(multi_device_burn_in.back().ordered.front());
    }
    std::vector<CheckResult> results = results_of(host);
    for (CheckResult& result : results_of(multi_device)) results.push_back(std::move(result));
    for (const Started& burn_in : multi_device_burn_in)
        for (CheckResult& result : results_of(burn_in)) results.push_back(std::move(result));
    for (auto& [id, result] : below_level) results.push_back(std::move(result));
    for (const Started& one_device : per_device)
        for (CheckResult& result : results_of(one_device)) results.push_back(std::move(result));
    return results;
}

}  // namespace

std::vector<CheckResult> run_checks(const EngineInput& input) {
    std::vector<CheckResult> results = run_in_any_order(input);
    sort_in_report_order(results, input.selection);
    return results;
}

void sort_in_report_order(std::vector<CheckResult>& results, const Selection& selection) {
    // (a GPU check, position in the selection, device); a result of a check not selected comes
    // after the host checks.
    std::map<std::string, std::pair<bool, std::size_t>> place;
    for (std::size_t i = 0; i < selection.checks.size(); ++i)
        place.emplace(selection.checks[i]->info().id, std::pair{selection.checks[i]->info().scope != Scope::host, i});
    const auto key = [&](const CheckResult& result) {
        const auto found = place.find(result.check_id);
        const auto [gpu_check, index] =
            found != place.end() ? found->second : std::pair{false, selection.checks.size()};
        return std::tuple{gpu_check, index, result.device.value_or(-1)};
    };
    std::stable_sort(results.begin(), results.end(),
                     [&](const CheckResult& a, const CheckResult& b) { return key(a) < key(b); });
}

}  // namespace cudacheck
