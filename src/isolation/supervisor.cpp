#include "isolation/supervisor.hpp"

#include "engine/engine.hpp"
#include "isolation/crash_attribution.hpp"
#include "isolation/protocol.hpp"
#include "isolation/stop_signals.hpp"
#include "isolation/worker_process.hpp"
#include "probes/process_limits.hpp"
#include "util/process.hpp"
#include "util/system.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <poll.h>
#include <set>
#include <sys/prctl.h>     // PR_SET_CHILD_SUBREAPER
#include <sys/resource.h>  // RLIMIT_NOFILE
#include <unistd.h>        // getpid

namespace cudacheck {

namespace {

using Clock = std::chrono::steady_clock;
using protocol::Task;

// A check the worker started and has not finished. Its time limit counts running time: time spent
// waiting for a GPU another check holds (the worker's "waiting" events) is not its own.
struct InFlight {
    Clock::time_point started;
    Clock::duration waited{};
    std::optional<Clock::time_point> waiting_since;
    [[nodiscard]] Clock::duration running(Clock::time_point now) const {
        return now - started - waited - (waiting_since ? now - *waiting_since : Clock::duration{});
    }
};

// A step outside the checks' own code the worker announced (util/actions.hpp) and has not ended.
struct ActionInFlight {
    actions::Action action;
    Clock::time_point started;
};

constexpr auto memory_poll_interval = std::chrono::milliseconds(100);

// How one worker's life ended.
struct WorkerEnd {
    enum Kind {
        done,
        usage_error,
        interrupted,
        died,
        check_timed_out,
        action_timed_out,
        run_timed_out,
        out_of_processes
    } kind = done;
    std::string reason;  // died: how; usage_error, out_of_processes: the message
    Task culprit;        // check_timed_out: the check past its limit
    bool over_memory_limit = false;  // died: stopped for its memory
    actions::Action action = {};     // action_timed_out: the step past its limit
    std::vector<activity::ThreadActivity> activity = {};  // what its threads were doing at the end (util/activity.hpp)
};

// What the supervisor knows about the run, from the events of its workers and from their deaths.
class RunState {
public:
    RunState(const Selection& selection, const SupervisorSettings& settings, const StopSignals& signals)
        : selection_(selection), settings_(settings), signals_(signals), output_(settings.forward_output) {}

    // A new nonce each time: events must carry that worker's (protocol.hpp).
    [[nodiscard]] std::string job(bool one_at_a_time) {
        nonce_ = protocol::new_nonce();
        protocol::Job job;
        job.parent_pid = static_cast<int>(::getpid());
        job.nonce = nonce_;
        job.options = settings_.run;
        for (const Check* check : selection_.checks) job.checks.push_back(check->info().id);
        for (const auto& [task, result] : results_) job.decided.push_back(result);
        job.one_at_a_time = one_at_a_time;
        job.failed_actions = failed_actions_;
        return protocol::encode(job);
    }

    // Runs one worker until it reports "done", dies, or a limit or signal stops it. Its death is
    // seen by its exit (a pidfd, or waitid every 50 ms), not by end of file on its pipes, which a
    // program it started may hold open after the worker died.
    WorkerEnd watch(WorkerProcess& worker, Clock::time_point run_start) {
        std::string pending_events;
        bool events_open = true;
        bool output_open = true;
        auto next_memory_poll = Clock::now();
        // Reads up to `budget` bytes of events; false at end of file.
        const auto read_events = [&](std::size_t budget) {
            char buffer[16384];
            while (budget > 0) {
                const ssize_t n = ::read(worker.events(), buffer, std::min(sizeof buffer, budget));
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) return true;
                if (n == 0) return false;
                pending_events.append(buffer, static_cast<std::size_t>(n));
                budget -= static_cast<std::size_t>(n);
            }
            return true;
        };
        while (true) {
            const auto now = Clock::now();
            Clock::time_point deadline = run_start + settings_.run_time_limit;
            for (const auto& [task, in_flight] : in_flight_)
                if (!in_flight.waiting_since)
                    deadline = std::min(deadline, now + (settings_.check_time_limit - in_flight.running(now)));
            for (const auto& [id, step] : actions_in_flight_)
                deadline = std::min(deadline, step.started + settings_.check_time_limit);
            if (settings_.memory_limit_bytes > 0) deadline = std::min(deadline, next_memory_poll);
            const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
            const int ended_fd = worker.ended_descriptor();
            const long long longest_wait = ended_fd >= 0 ? 1000 : sys::ended_poll_interval_ms;

            pollfd fds[4] = {{signals_.fd(), POLLIN, 0},
                             {events_open ? worker.events() : -1, POLLIN, 0},
                             {output_open ? worker.output() : -1, POLLIN, 0},
                             {ended_fd, POLLIN, 0}};
            const int ready = ::poll(fds, 4, static_cast<int>(std::clamp<long long>(wait, 0, longest_wait)));
            if (ready < 0 && errno != EINTR)
                return kill(worker, WorkerEnd{WorkerEnd::died, fmt::format("poll: {}", std::strerror(errno)), {}});
            if (signals_.received() != 0) return kill(worker, WorkerEnd{WorkerEnd::interrupted, {}, {}});
            // -v copies the worker's output to stderr: the progress line makes way for it.
            if (settings_.forward_output && progress_line_ != nullptr && ready > 0 &&
                (fds[2].revents & (POLLIN | POLLHUP)) != 0)
                progress_line_->make_room();
            // Asked before its pipes are read: all it wrote before it ended is in them by then.
            const bool ended = worker.has_ended();
            if (output_open && output_.drain(worker.output())) output_open = false;
            if (events_open) events_open = read_events(ended ? std::size_t{64} << 20 : std::size_t{4} << 20);

            bool applied = false;
            for (std::size_t newline; (newline = pending_events.find('\n')) != std::string::npos;) {
                // A line without this worker's nonce is not its own (a program that reached the pipe):
                // ignored, as is one that is not a valid event.
                const std::optional<protocol::Event> event =
                    protocol::decode_event(std::string_view(pending_events).substr(0, newline), nonce_);
                pending_events.erase(0, newline + 1);
                if (!event) continue;
                applied = true;
                if (auto end = apply(*event)) {
                    show_progress();
                    // What it said last stands; nothing after it is read. Whatever it still runs goes.
                    worker.kill_children();
                    return *end;
                }
            }
            if (applied) show_progress();
            if (ended) {
                output_.drain(worker.output());
                WorkerEnd end{WorkerEnd::died, {}, {}};
                end.activity = worker.activity();
                end.reason = sys::describe_wait_status(worker.kill_and_reap());
                return end;
            }

            const auto after = Clock::now();
            if (after - run_start >= settings_.run_time_limit)
                return kill(worker, WorkerEnd{WorkerEnd::run_timed_out, {}, {}});
            // The check that has run longest, not counting its waits for a GPU another check holds.
            const auto longest =
                std::max_element(in_flight_.begin(), in_flight_.end(), [after](const auto& a, const auto& b) {
                    return a.second.running(after) < b.second.running(after);
                });
            // A step is bounded like a check. A check past its limit while a step it may be waiting
            // for has run half as long is that step's doing (steps take milliseconds, rarely a second).
            const auto oldest_step =
                std::min_element(actions_in_flight_.begin(), actions_in_flight_.end(),
                                 [](const auto& a, const auto& b) { return a.second.started < b.second.started; });
            const auto step_running = [&] {
                return oldest_step == actions_in_flight_.end() ? Clock::duration{}
                                                               : after - oldest_step->second.started;
            };
            const bool check_over =
                longest != in_flight_.end() && longest->second.running(after) >= settings_.check_time_limit;
            if (oldest_step != actions_in_flight_.end() &&
                (step_running() >= settings_.check_time_limit ||
                 (check_over && step_running() >= settings_.check_time_limit / 2)))
                return kill(worker, WorkerEnd{WorkerEnd::action_timed_out, {}, {}, false, oldest_step->second.action});
            if (check_over) return kill(worker, WorkerEnd{WorkerEnd::check_timed_out, {}, longest->first});
            if (settings_.memory_limit_bytes > 0 && after >= next_memory_poll) {
                next_memory_poll = after + memory_poll_interval;
                if (const std::uint64_t resident = worker.resident_bytes(); resident > settings_.memory_limit_bytes)
                    return kill(worker, WorkerEnd{WorkerEnd::died,
                                                  fmt::format("used {} of host memory, over the --memory-limit of {}",
                                                              format_bytes(resident),
                                                              format_bytes(settings_.memory_limit_bytes)),
                                                  {},
                                                  true});
            }
        }
    }

    // Where the progress line goes (drawn by its own thread from what show_progress hands it).
    void show_progress_on(ProgressLine* line) { progress_line_ = line; }
    [[nodiscard]] ProgressModel progress_model() const {
        ProgressModel model;
        model.done = results_.size();
        // The tasks the run will report: those planned or decided, and one for each selected
        // check no worker has planned yet (a per-device check becomes one per GPU once planned).
        std::set<Task> tasks(planned_.begin(), planned_.end());
        for (const auto& [task, result] : results_) tasks.insert(task);
        std::set<std::string> named;
        for (const Task& task : tasks) named.insert(task.check_id);
        model.total = tasks.size();
        for (const Check* check : selection_.checks) model.total += named.count(check->info().id) == 0 ? 1 : 0;
        for (const auto& [task, in_flight] : in_flight_) {
            ProgressModel::Running running{task.device ? fmt::format("{}@{}", task.check_id, *task.device)
                                                       : task.check_id,
                                           in_flight.started,
                                           in_flight.waiting_since.has_value(),
                                           std::nullopt,
                                           {}};
            if (auto figure = figures_.find(task); figure != figures_.end()) {
                running.figure = figure->second.first;
                running.figure_at = figure->second.second;
            }
            model.running.push_back(std::move(running));
        }
        return model;
    }
    void show_progress() {
        if (progress_line_ != nullptr && progress_line_->enabled()) progress_line_->update(progress_model());
    }

    [[nodiscard]] const std::map<Task, InFlight>& in_flight() const { return in_flight_; }
    [[nodiscard]] const std::map<std::uint64_t, ActionInFlight>& actions_in_flight() const {
        return actions_in_flight_;
    }
    void clear_in_flight() {
        in_flight_.clear();
        actions_in_flight_.clear();
        figures_.clear();
        show_progress();
    }
    // `action` is not to be taken again in this run: the next workers' checks that need it say why.
    void fail_action(const actions::Action& action, std::string how, bool timed_out) {
        failed_actions_.push_back(actions::Failure{action, std::move(how), timed_out});
    }
    [[nodiscard]] bool decided(const Task& task) const { return results_.count(task) > 0; }

    // The check `task` ends with `code` (and the worker's last output lines as evidence).
    void decide(const Task& task, Code code, std::string message, std::chrono::milliseconds elapsed,
                std::string remediation = {}) {
        decide(task, make_finding(code, std::move(message), std::move(remediation)), {}, elapsed);
    }
    void decide(const Task& task, Finding finding, const std::vector<Evidence>& evidence,
                std::chrono::milliseconds elapsed) {
        ResultBuilder builder;
        builder.add(std::move(finding));
        for (const Evidence& line : evidence) builder.evidence(line);
        for (const std::string& line : output_.last_lines(12)) builder.evidence("worker_output", line);
        CheckResult result = std::move(builder).finish(task.check_id, task.device);
        result.duration_ms = static_cast<double>(elapsed.count());
        results_[task] = std::move(result);
        show_progress();
    }
    // A crash or hang of `task` as the finding of a damaged library its process loads when there is
    // one (isolation/crash_attribution.hpp), else as decide_ending does.
    void decide_death(const Task& task, Code code, CheckEnding ending, std::chrono::milliseconds elapsed,
                      const WorkerEnd& end, bool only_check) {
        if (const Check* check = find_check(task.check_id))
            if (std::optional<ChargedToLibrary> charged = charge_to_damaged_library(check->info(), ending)) {
                decide(task, std::move(charged->finding), charged->evidence, elapsed);
                return;
            }
        decide_ending(task, code, std::move(ending), elapsed, end, only_check);
    }
    // `code` (CC902, CC903) for `task`, whose fix names GPU faults only when a GPU call may have been
    // in flight, and otherwise the program it ran or the file it read last: a hung compiler is no GPU fault.
    // `only_check`: no other check was in flight, so threads no check labelled count as its own.
    void decide_ending(const Task& task, Code code, CheckEnding ending, std::chrono::milliseconds elapsed,
                       const WorkerEnd& end, bool only_check) {
        const Check* check = find_check(task.check_id);
        if (check == nullptr) {
            decide(task, code, std::move(ending.what), elapsed);
            return;
        }
        std::vector<actions::Action> steps;
        for (const auto& [id, step] : actions_in_flight_) steps.push_back(step.action);
        const Circumstances circumstances = circumstances_of(check->info(), end.activity, only_check, steps);
        std::vector<Evidence> evidence;
        if (!circumstances.child.empty()) evidence.push_back({"running", sys::printable(circumstances.child)});
        if (!circumstances.last_file.empty())
            evidence.push_back({"last_file_read", sys::printable(circumstances.last_file)});
        if (!circumstances.gpu_step.empty()) evidence.push_back({"last_gpu_step", circumstances.gpu_step});
        decide(task, ending_finding(code, ending, circumstances), evidence, elapsed);
    }
    // Every task without a result, planned or not, ends with `code` and `message`.
    void decide_undecided(Code code, const std::string& message, Clock::time_point now) {
        for (const auto& [task, in_flight] : in_flight_)
            if (!decided(task))
                decide(task, code, message,
                       std::chrono::duration_cast<std::chrono::milliseconds>(now - in_flight.started));
        for (const Task& task : planned_)
            if (!decided(task)) decide(task, code, message, {});
        for (const Check* check : selection_.checks) {
            const std::string& id = check->info().id;
            const bool any = std::any_of(results_.begin(), results_.end(),
                                         [&](const auto& entry) { return entry.first.check_id == id; });
            if (!any) decide({id, std::nullopt}, code, message, {});
        }
    }
    // Whether the worker's last words were a failed thread or process start (std::terminate prints
    // the std::system_error: "Resource temporarily unavailable", EAGAIN) under a process limit.
    [[nodiscard]] bool worker_ran_out_of_processes() const {
        if (!read_limit(RLIMIT_NPROC).soft) return false;
        const std::vector<std::string> lines = output_.last_lines(12);
        const auto said = [&lines](std::string_view words) {
            return std::any_of(lines.begin(), lines.end(),
                               [words](const std::string& line) { return line.find(words) != std::string::npos; });
        };
        return said("std::system_error") && said("Resource temporarily unavailable");
    }

    void skip_undecided(const std::string& reason) {
        for (const Task& task : planned_)
            if (!decided(task)) results_[task] = skipped(task, reason);
        // Checks no worker got as far as planning: one result each, device unknown.
        for (const Check* check : selection_.checks) {
            const std::string& id = check->info().id;
            const bool any = std::any_of(results_.begin(), results_.end(),
                                         [&](const auto& entry) { return entry.first.check_id == id; });
            if (!any) results_[{id, std::nullopt}] = skipped({id, std::nullopt}, reason);
        }
    }

    [[nodiscard]] std::vector<CheckResult> ordered_results() const {
        std::vector<CheckResult> results;
        for (const auto& [task, result] : results_) results.push_back(result);
        sort_in_report_order(results, selection_);
        return results;
    }

    ReportFacts facts;
    std::optional<std::string> usage_error;

private:
    [[nodiscard]] const Check* find_check(const std::string& id) const {
        const auto check = std::find_if(selection_.checks.begin(), selection_.checks.end(),
                                        [&](const Check* candidate) { return candidate->info().id == id; });
        return check == selection_.checks.end() ? nullptr : *check;
    }

    static CheckResult skipped(const Task& task, const std::string& reason) {
        ResultBuilder builder;
        builder.skip(reason);
        return std::move(builder).finish(task.check_id, task.device);
    }

    // Applies one event; returns how the worker ended when the event says so.
    std::optional<WorkerEnd> apply(const protocol::Event& event) {
        if (const auto* planned = std::get_if<protocol::Planned>(&event)) {
            if (std::find(planned_.begin(), planned_.end(), planned->task) == planned_.end())
                planned_.push_back(planned->task);
        } else if (const auto* started = std::get_if<protocol::Started>(&event)) {
            in_flight_[started->task] = InFlight{Clock::now(), {}, std::nullopt};
        } else if (const auto* waiting = std::get_if<protocol::Waiting>(&event)) {
            if (auto task = in_flight_.find(waiting->task); task != in_flight_.end()) {
                const auto now = Clock::now();
                if (waiting->waiting) {
                    if (!task->second.waiting_since) task->second.waiting_since = now;
                } else if (task->second.waiting_since) {
                    task->second.waited += now - *task->second.waiting_since;
                    task->second.waiting_since.reset();
                }
            }
        } else if (const auto* finished = std::get_if<protocol::Finished>(&event)) {
            const Task task{finished->result.check_id, finished->result.device};
            in_flight_.erase(task);
            figures_.erase(task);
            results_[task] = finished->result;
        } else if (const auto* progress = std::get_if<protocol::Progress>(&event)) {
            if (in_flight_.count(progress->task) > 0) figures_[progress->task] = {progress->figure, Clock::now()};
        } else if (const auto* learnt = std::get_if<protocol::Facts>(&event)) {
            // What any worker learnt stands: a later worker that skipped the check which
            // gathered a fact (it was decided already) does not know it.
            const VersionInfo& versions = learnt->facts.versions;
            for (auto [known, seen] : {std::pair{&facts.versions.driver, &versions.driver},
                                       {&facts.versions.driver_cuda, &versions.driver_cuda},
                                       {&facts.versions.runtime, &versions.runtime},
                                       {&facts.versions.nvcc, &versions.nvcc}})
                if (!seen->empty()) *known = *seen;
            if (!learnt->facts.devices.empty()) facts.devices = learnt->facts.devices;
            if (learnt->facts.frameworks) facts.frameworks = learnt->facts.frameworks;
            if (learnt->facts.build) facts.build = learnt->facts.build;
            if (learnt->facts.libraries) facts.libraries = learnt->facts.libraries;
            // Each worker maps the libraries of its own checks: the report names them all.
            for (const std::string& path : learnt->facts.mapped_libraries)
                if (std::find(facts.mapped_libraries.begin(), facts.mapped_libraries.end(), path) ==
                    facts.mapped_libraries.end())
                    facts.mapped_libraries.insert(std::upper_bound(facts.mapped_libraries.begin(),
                                                                   facts.mapped_libraries.end(), path),
                                                  path);
        } else if (const auto* begun = std::get_if<protocol::Begun>(&event)) {
            actions_in_flight_[begun->id] = ActionInFlight{begun->action, Clock::now()};
        } else if (const auto* ended = std::get_if<protocol::Ended>(&event)) {
            actions_in_flight_.erase(ended->id);
        } else if (const auto* refused = std::get_if<protocol::UsageError>(&event)) {
            return WorkerEnd{WorkerEnd::usage_error, refused->message, {}};
        } else if (const auto* out = std::get_if<protocol::OutOfProcesses>(&event)) {
            return WorkerEnd{WorkerEnd::out_of_processes, out->message, {}};
        } else if (std::holds_alternative<protocol::Done>(event)) {
            return WorkerEnd{WorkerEnd::done, {}, {}};
        }
        return std::nullopt;
    }

    // Stops the worker; what its threads were doing is read first, while it still stands.
    WorkerEnd kill(WorkerProcess& worker, WorkerEnd end) {
        end.activity = worker.activity();
        worker.kill_and_reap();
        output_.drain(worker.output());
        return end;
    }

    const Selection& selection_;
    const SupervisorSettings& settings_;
    const StopSignals& signals_;
    std::vector<Task> planned_;
    std::map<Task, InFlight> in_flight_;
    std::map<Task, CheckResult> results_;
    std::map<std::uint64_t, ActionInFlight> actions_in_flight_;
    std::vector<actions::Failure> failed_actions_;
    std::map<Task, std::pair<ProgressFigure, Clock::time_point>> figures_;  // a running check's last figure, and when
                                                                            // it came
    ProgressLine* progress_line_ = nullptr;
    WorkerOutput output_;
    std::string nonce_;  // the current worker's (protocol.hpp)
};

std::string seconds_text(std::chrono::milliseconds limit) {
    return fmt::format("{:g} s", static_cast<double>(limit.count()) / 1000.0);
}

// "; the open-files limit is 8 (ulimit -n; hard limit 8)", for a worker that could not be started.
std::string open_files_limit_text() {
    const Limit limit = read_limit(RLIMIT_NOFILE);
    return fmt::format("; the open-files limit is {} (ulimit -n; hard limit {})", limit_count_text(limit.soft),
                       limit_count_text(limit.hard));
}

}  // namespace

SupervisedRun supervise(const Selection& selection, const SupervisorSettings& settings) {
    const StopSignals signals;
    return supervise(selection, settings, signals);
}

SupervisedRun supervise(const Selection& selection, const SupervisorSettings& settings, const StopSignals& signals) {
    const auto run_start = Clock::now();
    // What a killed worker leaves running (a compiler in its own process group, what that started)
    // comes to this process instead of init, to be killed (children of children would otherwise outlive
    // cudacheck). Restored when the run is over.
    int was_subreaper = 0;
    (void)::prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
    (void)::prctl(PR_SET_CHILD_SUBREAPER, 1);
    RunState state(selection, settings, signals);
    // The line first (on the terminal within 200 ms: the run shows it started), and erased before
    // the caller prints.
    ProgressLine progress_line(settings.progress, state.progress_model(), run_start);
    state.show_progress_on(&progress_line);
    SupervisedRun run;
    bool one_at_a_time = false;
    int deaths_outside_checks = 0;
    // A worker that ends early decides a check, or switches to one at a time (the next one then
    // decides a check), or counts towards giving up: this bound only guards against a bug.
    constexpr std::size_t max_workers = 256;
    for (std::size_t attempt = 0;; ++attempt) {
        WorkerProcess::StartFailure failure;
        std::optional<WorkerProcess> worker =
            attempt < max_workers ? WorkerProcess::start(settings.executable, state.job(one_at_a_time), failure)
                                  : std::nullopt;
        if (!worker) {
            const bool descriptors = failure.error_number == EMFILE || failure.error_number == ENFILE;
            const bool processes = failure.error_number == EAGAIN;
            const std::string message =
                descriptors
                    ? fmt::format("cannot start the check process: {}{}", failure.message, open_files_limit_text())
                : processes
                    ? fmt::format("cannot start the check process: {}; {}", failure.message, sys::process_limit_words())
                : failure.message.empty() ? std::string("the check processes kept dying; gave up")
                                          : failure.message;
            const Code code = descriptors ? Code::open_files_too_few
                              : processes ? Code::process_limit_reached
                                          : Code::check_crashed;
            for (const Check* check : selection.checks)
                if (!state.decided({check->info().id, std::nullopt}))
                    state.decide({check->info().id, std::nullopt}, code, message, {});
            state.skip_undecided("not run: no check process could run it");
            break;
        }
        const WorkerEnd end = state.watch(*worker, run_start);
        // What a stopped or dead worker left running has come to this process: it goes now.
        if (end.kind != WorkerEnd::done && end.kind != WorkerEnd::usage_error) (void)sys::kill_adopted_children();
        const auto now = Clock::now();
        const auto elapsed = [&](const Task& task) {
            return std::chrono::duration_cast<std::chrono::milliseconds>(now - state.in_flight().at(task).started);
        };
        if (end.kind == WorkerEnd::done) {
            state.skip_undecided("not reported by the check process (a cudacheck bug)");
            break;
        }
        if (end.kind == WorkerEnd::usage_error) {
            state.usage_error = end.reason;
            break;
        }
        if (end.kind == WorkerEnd::interrupted) {
            run.interrupted_by = signals.received();
            state.skip_undecided(fmt::format("interrupted ({})", sys::signal_name(run.interrupted_by)));
            break;
        }
        if (end.kind == WorkerEnd::out_of_processes ||
            (end.kind == WorkerEnd::died && state.worker_ran_out_of_processes())) {
            // Not a fault of a check or of the GPU: no more threads or processes (the process limit).
            state.decide_undecided(Code::process_limit_reached,
                                   end.kind == WorkerEnd::out_of_processes
                                       ? end.reason
                                       : fmt::format("the check process could not start a thread ({}): {}", end.reason,
                                                     sys::process_limit_words()),
                                   now);
            break;
        }
        if (end.kind == WorkerEnd::run_timed_out) {
            const bool only_check = state.in_flight().size() == 1;
            for (const auto& [task, started] : state.in_flight())
                state.decide_ending(task, Code::check_timed_out,
                                    CheckEnding{fmt::format("{} was still running when the run's time limit ({}, "
                                                            "--run-timeout) was reached; its "
                                                            "process was killed",
                                                            task.check_id, seconds_text(settings.run_time_limit)),
                                                true},
                                    elapsed(task), end, only_check);
            state.skip_undecided(fmt::format("not run: the run's time limit ({}, --run-timeout) was reached",
                                             seconds_text(settings.run_time_limit)));
            break;
        }
        if (end.kind == WorkerEnd::action_timed_out) {
            // The step is charged, not the checks in flight: they run again, and those that need
            // the step report it.
            state.fail_action(end.action,
                              fmt::format("did not finish within {} (--timeout) and its process was killed",
                                          seconds_text(settings.check_time_limit)),
                              true);
        } else if (end.kind == WorkerEnd::check_timed_out) {
            // Only the check past its limit is blamed; the others in flight run again.
            state.decide_death(end.culprit, Code::check_timed_out,
                               CheckEnding{fmt::format("{} did not finish within {} (--timeout); its process was "
                                                       "killed",
                                                       end.culprit.check_id, seconds_text(settings.check_time_limit)),
                                           true},
                               elapsed(end.culprit), end, state.in_flight().size() == 1);
        } else if (const auto& steps = state.actions_in_flight(); !steps.empty()) {
            // Died in a step: charged to it when it is the only thing that could have done it (the
            // only one in flight, and no check running beside it or one check at a time); otherwise
            // the next worker runs one check at a time and takes no step in the background, to find
            // which. The checks in flight are not charged: they run again.
            if (steps.size() == 1 && (one_at_a_time || state.in_flight().empty())) {
                state.fail_action(steps.begin()->second.action,
                                  fmt::format("killed the check process ({})", end.reason), false);
                one_at_a_time = false;
            } else if (one_at_a_time) {
                for (const auto& [id, step] : steps)
                    state.fail_action(step.action, fmt::format("killed the check process ({})", end.reason), false);
                one_at_a_time = false;
            } else {
                one_at_a_time = true;
            }
        } else if (state.in_flight().empty()) {
            // Died between checks (starting up, probing): try once more, then give up.
            if (++deaths_outside_checks >= 2) {
                for (const Check* check : selection.checks)
                    if (check->info().scope == Scope::host && !state.decided({check->info().id, std::nullopt}))
                        state.decide_ending({check->info().id, std::nullopt}, Code::check_crashed,
                                            CheckEnding{
                                                fmt::format("the check process {} before it could run {}, twice",
                                                            end.reason, check->info().id)},
                                            {}, end, true);
                state.skip_undecided(fmt::format("not run: the check process {} outside any check, twice", end.reason));
                break;
            }
        } else if (state.in_flight().size() == 1 || one_at_a_time) {
            const std::string remediation =
                end.over_memory_limit
                    ? fmt::format(
                          "If this machine has host memory to spare, raise the limit (--memory-limit MiB, now {} MiB); "
                          "otherwise report it: a check should need far less.",
                          settings.memory_limit_bytes >> 20)
                    : std::string();
            // A process stopped for its memory is no library's doing.
            for (const auto& [task, started] : state.in_flight()) {
                std::string what = fmt::format("{} crashed its process: {}", task.check_id, end.reason);
                if (end.over_memory_limit)
                    state.decide(task, Code::check_crashed, std::move(what), elapsed(task), remediation);
                else
                    state.decide_death(task, Code::check_crashed, CheckEnding{std::move(what)}, elapsed(task), end,
                                       true);
            }
            one_at_a_time = false;
        } else {
            // Several checks were running: rerun them one at a time to find the one that crashes.
            one_at_a_time = true;
        }
        state.clear_in_flight();
    }
    (void)sys::kill_adopted_children();
    if (was_subreaper == 0) (void)::prctl(PR_SET_CHILD_SUBREAPER, 0);
    progress_line.finish();
    state.show_progress_on(nullptr);
    run.results = state.ordered_results();
    run.facts = state.facts;
    run.usage_error = state.usage_error;
    return run;
}

}  // namespace cudacheck
