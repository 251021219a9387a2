#include "isolation/worker.hpp"

#include "engine/report_builder.hpp"
#include "util/trace.hpp"
#include "bind/dynamic_library.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "probes/driver_probe.hpp"
#include "probes/probes.hpp"
#include "report/report_json.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fmt/format.h>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sys/prctl.h>
#include <unistd.h>

namespace cudacheck {

namespace {

using json = ordered_json;

// Writes each event as one line on fd 3; called from the checks' threads. After each result it
// also sends the report's facts when they changed, so that what a worker learnt (driver and nvcc
// versions, devices) survives it if it dies later.
class EventStream final : public EngineObserver {
public:
    EventStream(Probes& probes, const Environment& environment) : probes_(probes), environment_(environment) {}
    void planned(const std::string& check_id, std::optional<int> device) override {
        send(json{{"event", "planned"}, {"id", check_id}, {"device", device ? json(*device) : json(nullptr)}});
    }
    void started(const std::string& check_id, std::optional<int> device) override {
        send(json{{"event", "started"}, {"id", check_id}, {"device", device ? json(*device) : json(nullptr)}});
    }
    void waiting(const std::string& check_id, std::optional<int> device, bool waiting) override {
        send(json{{"event", "waiting"}, {"id", check_id}, {"device", device ? json(*device) : json(nullptr)}, {"waiting", waiting}});
    }
    void finished(const CheckResult& result) override {
        // Facts first: a check crashing the process right after this one must not leave a result
        // whose facts (e.g. the nvcc version) never reached the supervisor.
        send_facts_if_changed();
        send(json{{"event", "finished"}, {"result", to_json(result)}});
    }

    void send_facts_if_changed() {
        const ReportFacts facts = collect_report_facts(probes_, environment_);
        json devices = json::array();
        for (const DeviceInfo& device : facts.devices) devices.push_back(to_json(device));
        const json event{{"event", "facts"}, {"versions", to_json(facts.versions)}, {"devices", devices}};
        {
            const std::lock_guard<std::mutex> lock(facts_mutex_);
            if (event == last_facts_) return;
            last_facts_ = event;
        }
        send(event);
    }

    void send(const json& event) {
        const std::string line = event.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
        const std::lock_guard<std::mutex> lock(mutex_);
        for (std::size_t written = 0; written < line.size();) {
            const ssize_t n = ::write(worker_events_fd, line.data() + written, line.size() - written);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;  // the supervisor is gone; it will not read the rest either
            written += static_cast<std::size_t>(n);
        }
    }

private:
    Probes& probes_;
    const Environment& environment_;
    std::mutex mutex_;
    std::mutex facts_mutex_;
    json last_facts_;
};

// Lets the selected checks start their preparation (opening cuBLAS(Lt) and cuDNN reads hundreds of
// megabytes) so it overlaps cuInit and the host checks. Only when a driver library exists (opening
// it costs ~1 ms): without one the GPU checks are skipped and the work would be wasted.
void prepare_selected_checks(const Selection& selection, const RunOptions& options, Probes& probes) {
    if (!DynamicLibrary::open("libcuda.so.1").ok()) return;
    // GPU work waits for cuInit: start it now, unless no selected check does GPU work at this level.
    if (std::any_of(selection.checks.begin(), selection.checks.end(), [&](const Check* check) {
            return (check->info().scope != Scope::host || check->info().prepare) && options.level >= check->info().min_level;
        }))
        probes.prefetch_driver(options.devices);
    // A check below its level is skipped: its preparation would be wasted (gpu.stress's at standard).
    for (const Check* check : selection.checks)
        if (check->info().prepare && options.level >= check->info().min_level) check->info().prepare(probes);
}

// --devices names ordinals; only a working driver can say whether they exist. Without one the
// driver checks report the real problem and per-device checks are skipped anyway.
std::optional<std::string> missing_device(const RunOptions& options, Probes& probes) {
    if (options.devices.empty() || options.level == Level::quick) return std::nullopt;
    const DriverFacts& driver = probes.initialised_driver();
    if (!driver.device_count) return std::nullopt;
    for (int ordinal : options.devices)
        if (ordinal >= *driver.device_count)
            return fmt::format("--devices {}: this machine has {} visible CUDA device(s) (ordinals 0..{})", ordinal, *driver.device_count,
                               *driver.device_count - 1);
    return std::nullopt;
}

}  // namespace

ChecksRun run_checks_here(const EngineInput& input) {
    // Before anything could run cuInit or start a thread.
    if (input.options.level != Level::quick) limit_hardware_queues(input.environment);
    ChecksRun run;
    if (auto problem = missing_device(input.options, input.probes)) {
        run.usage_error = std::move(problem);
        return run;
    }
    trace::start(input.environment.get("CUDACHECK_TRACE"));
    if (input.options.level != Level::quick) prepare_selected_checks(input.selection, input.options, input.probes);
    run.results = run_checks(input);
    run.facts = collect_report_facts(input.probes, input.environment);
    trace::write();
    return run;
}

int run_worker() {
    // Die with the supervisor (a worker must never outlive it, e.g. spinning on a GPU); if it is
    // already gone, stop now.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const std::string input(std::istreambuf_iterator<char>(std::cin), {});
    const json job = json::parse(input, nullptr, /*allow_exceptions=*/false);
    if (!job.is_object() || job.value("parent_pid", 0) != static_cast<int>(::getppid())) return exit_usage;

    const Environment environment = Environment::from_process();
    const Registry registry(builtin_checks());
    const Selection selection = select_checks(registry, job.at("checks").get<std::vector<std::string>>(), {});
    RunOptions options;
    options.level = *level_from_string(job.at("level").get<std::string>());
    options.devices = job.at("devices").get<std::vector<int>>();
    options.verbose = job.at("verbose").get<bool>();
    options.stress_seconds = job.value("duration", default_stress_seconds);
    std::vector<CheckResult> decided;
    for (const json& result : job.at("decided")) decided.push_back(check_result_from_json(result));
    ProbeSettings settings;
    settings.initialise_cuda = options.level != Level::quick;
    Probes probes(environment, settings);
    EventStream events(probes, environment);

    const ChecksRun run = run_checks_here(EngineInput{selection, options, environment, probes, &decided, &events, job.at("one_at_a_time").get<bool>()});
    if (run.usage_error) {
        events.send(json{{"event", "usage_error"}, {"message", *run.usage_error}});
    } else {
        events.send_facts_if_changed();
    }
    events.send(json{{"event", "done"}});
    return exit_ok;
}

}  // namespace cudacheck
