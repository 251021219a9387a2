#include "isolation/worker.hpp"

#include "bind/dynamic_library.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "engine/report_builder.hpp"
#include "isolation/protocol.hpp"
#include "probes/driver_probe.hpp"
#include "probes/probes.hpp"
#include "util/actions.hpp"
#include "util/activity.hpp"
#include "util/expected.hpp"
#include "util/process.hpp"
#include "util/trace.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <sys/prctl.h>
#include <system_error>
#include <unistd.h>

namespace cudacheck {

namespace {

// Sends each event as one line to the supervisor; called from the checks' threads. After each
// result it also sends the report's facts when they changed, so that what a worker learnt (driver
// and nvcc versions, devices) survives it if it dies later. The steps outside the checks' own code
// (util/actions.hpp) are announced on the same stream.
class EventStream final : public EngineObserver, public actions::Observer {
public:
    EventStream(Probes& probes, const Environment& environment, std::string nonce)
        : probes_(probes), environment_(environment), nonce_(std::move(nonce)) {}
    void planned(const std::string& check_id, std::optional<int> device) override {
        send(protocol::Planned{{check_id, device}});
    }
    // Called on the thread that runs the check: the activity board names it (util/activity.hpp).
    void started(const std::string& check_id, std::optional<int> device) override {
        activity::label_thread(check_id);
        send(protocol::Started{{check_id, device}});
    }
    void waiting(const std::string& check_id, std::optional<int> device, bool waiting) override {
        send(protocol::Waiting{{check_id, device}, waiting});
    }
    void finished(const CheckResult& result) override {
        // Facts first: a check crashing the process right after this one must not leave a result
        // whose facts (e.g. the nvcc version) never reached the supervisor.
        send_facts_if_changed();
        send(protocol::Finished{result});
    }

    // At most four a second per check: a check may report after every batch of work, and the
    // line it feeds moves at most every 250 ms. One dropped is superseded by the next.
    void progress(const std::string& check_id, std::optional<int> device, const ProgressFigure& figure) override {
        const protocol::Task task{check_id, device};
        const auto now = std::chrono::steady_clock::now();
        {
            const std::lock_guard<std::mutex> lock(progress_mutex_);
            const auto last = last_progress_.find(task);
            if (last != last_progress_.end() && now - last->second < min_progress_interval) return;
            last_progress_[task] = now;
        }
        send(protocol::Progress{task, figure});
    }

    void begun(std::uint64_t id, const actions::Action& action) override {
        activity::gpu_step(actions::describe(action));  // on the thread taking it
        send(protocol::Begun{id, action});
    }
    void ended(std::uint64_t id) override {
        activity::gpu_step_ended();
        send(protocol::Ended{id});
    }

    void send_facts_if_changed() {
        const std::string line = protocol::encode(protocol::Facts{collect_report_facts(probes_, environment_)}, nonce_);
        {
            const std::lock_guard<std::mutex> lock(facts_mutex_);
            if (line == last_facts_) return;
            last_facts_ = line;
        }
        send_line(line);
    }

    void send(const protocol::Event& event) { send_line(protocol::encode(event, nonce_)); }

private:
    void send_line(const std::string& line) {
        const std::lock_guard<std::mutex> lock(mutex_);
        // A failed write means the supervisor is gone; it will not read the rest either.
        (void)sys::write_all(protocol::events_fd, line);
    }

    Probes& probes_;
    const Environment& environment_;
    const std::string nonce_;
    std::mutex mutex_;
    std::mutex facts_mutex_;
    std::string last_facts_;
    static constexpr std::chrono::milliseconds min_progress_interval{250};
    std::mutex progress_mutex_;
    std::map<protocol::Task, std::chrono::steady_clock::time_point> last_progress_;
};

// Lets the selected checks start their preparation (opening cuBLAS(Lt) and cuDNN reads hundreds of
// megabytes) so it overlaps cuInit and the host checks. Only when a driver library exists (opening
// it costs ~1 ms): without one the GPU checks are skipped and the work would be wasted.
void prepare_selected_checks(const Selection& selection, const RunOptions& options, Probes& probes) {
    // The same step as the driver probe's (util/actions.hpp): a libcuda that kills its loader is
    // charged to it here too, and not opened again.
    const actions::Action opening{actions::Kind::load, "libcuda.so.1"};
    if (actions::failed(opening) != nullptr) return;
    {
        const actions::Announced announced(opening);
        if (!DynamicLibrary::open("libcuda.so.1").ok()) return;
    }
    // GPU work waits for cuInit: start it now, unless no selected check does GPU work at this level.
    if (std::any_of(selection.checks.begin(), selection.checks.end(), [&](const Check* check) {
            return (check->info().scope != Scope::host || check->info().prepare) &&
                   options.level >= check->info().min_level;
        }))
        probes.prefetch_driver(options.devices);
    // A check below its level is skipped: its preparation would be wasted (gpu.stress's at standard).
    for (const Check* check : selection.checks)
        if (check->info().prepare && options.level >= check->info().min_level) check->info().prepare(probes);
}

// --devices names ordinals; only a working driver can say whether they exist. Without one the
// driver checks report the real problem and per-device checks are skipped anyway.
Expected<void> check_devices_exist(const RunOptions& options, Probes& probes) {
    if (options.devices.empty() || options.level == Level::quick) return {};
    const DriverFacts& driver = probes.initialised_driver();
    if (!driver.device_count) return {};
    for (int ordinal : options.devices)
        if (ordinal >= *driver.device_count)
            return Error{fmt::format("--devices {}: this machine has {} visible CUDA device(s) (ordinals 0..{})",
                                     ordinal, *driver.device_count, *driver.device_count - 1)};
    return {};
}

}  // namespace

ChecksRun run_checks_here(const EngineInput& input) {
    // Before anything could run cuInit or start a thread.
    if (input.options.level != Level::quick) limit_hardware_queues(input.environment);
    ChecksRun run;
    if (const Expected<void> devices = check_devices_exist(input.options, input.probes); !devices) {
        run.usage_error = devices.error().message;
        return run;
    }
    trace::start(input.environment.get("CUDACHECK_TRACE"));
    // One check at a time (the supervisor looks for what crashed) also means no step in the background.
    if (input.options.level != Level::quick && !input.one_at_a_time)
        prepare_selected_checks(input.selection, input.options, input.probes);
    run.results = run_checks(input);
    run.facts = collect_report_facts(input.probes, input.environment);
    trace::write();
    return run;
}

int run_worker() {
    // Die with the supervisor (a worker must never outlive it, e.g. spinning on a GPU); if it is
    // already gone, stop now.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The event pipe and the activity board reach no program the checks (or the libraries they
    // load) start, whoever starts it (an interpreter that inherited fd 3 could forge a result).
    ::fcntl(protocol::events_fd, F_SETFD, FD_CLOEXEC);
    (void)activity::attach(protocol::activity_fd);
    const std::string input(std::istreambuf_iterator<char>(std::cin), {});
    const std::optional<protocol::Job> job = protocol::decode_job(input, static_cast<int>(::getppid()));
    if (!job) return exit_usage;

    const Environment environment = Environment::from_process();
    const Registry registry(builtin_checks());
    const Selection selection = select_checks(registry, job->checks, {});
    ProbeSettings settings;
    settings.initialise_cuda = job->options.level != Level::quick;
    settings.start_programs = job->options.level != Level::quick;
    settings.python = job->options.python;
    Probes probes(environment, settings);
    EventStream events(probes, environment, job->nonce);
    actions::install(&events, job->failed_actions);

    try {
        const ChecksRun run = run_checks_here(
            EngineInput{selection, job->options, environment, probes, &job->decided, &events, job->one_at_a_time});
        if (run.usage_error) {
            events.send(protocol::UsageError{*run.usage_error});
        } else {
            events.send_facts_if_changed();
        }
    } catch (const std::system_error& error) {
        // No thread could be started for the next check (std::async, std::thread: EAGAIN): the
        // process limit, which the supervisor reports as such rather than as a crash.
        if (error.code() != std::errc::resource_unavailable_try_again) throw;
        events.send(
            protocol::OutOfProcesses{fmt::format("the check process could not start a thread for the checks ({}): {}",
                                                 error.what(), sys::process_limit_words())});
    }
    events.send(protocol::Done{});
    // Steps still running in the background (joined when the probes go) must not reach `events`
    // after it is gone.
    actions::detach();
    return exit_ok;
}

}  // namespace cudacheck
