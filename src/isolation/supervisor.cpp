#include "isolation/supervisor.hpp"

#include "isolation/worker.hpp"
#include "util/system.hpp"
#include "util/units.hpp"
#include "report/report_json.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace cudacheck {

namespace {

using json = ordered_json;
using Clock = std::chrono::steady_clock;
using TaskKey = std::pair<std::string, std::optional<int>>;  // check id, device

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

constexpr std::size_t output_tail_bytes = 64 * 1024;
constexpr auto memory_poll_interval = std::chrono::milliseconds(100);

// --- SIGINT/SIGTERM: the handler writes to a pipe the wait loop polls --------------------------

int signal_pipe[2] = {-1, -1};
volatile std::sig_atomic_t received_signal = 0;

extern "C" void on_stop_signal(int signal) {
    received_signal = signal;
    const char byte = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(signal_pipe[1], &byte, 1);
}

// Installs the handlers while a run is supervised and restores the previous ones after. SIGPIPE is
// ignored meanwhile: a worker that died before reading its job makes write() fail, not kill us.
class SignalScope {
public:
    SignalScope() {
        received_signal = 0;
        if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) signal_pipe[0] = signal_pipe[1] = -1;
        struct sigaction action {};
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, &previous_int_);
        ::sigaction(SIGTERM, &action, &previous_term_);
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, &previous_pipe_);
    }
    SignalScope(const SignalScope&) = delete;
    SignalScope& operator=(const SignalScope&) = delete;
    ~SignalScope() {
        ::sigaction(SIGINT, &previous_int_, nullptr);
        ::sigaction(SIGTERM, &previous_term_, nullptr);
        ::sigaction(SIGPIPE, &previous_pipe_, nullptr);
        for (int& fd : signal_pipe)
            if (fd >= 0) ::close(std::exchange(fd, -1));
    }

private:
    struct sigaction previous_int_ {};
    struct sigaction previous_term_ {};
    struct sigaction previous_pipe_ {};
};

// --- the worker process --------------------------------------------------------------------------

class FileDescriptor {
public:
    explicit FileDescriptor(int fd = -1) : fd_(fd) {}
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept {
        reset(std::exchange(other.fd_, -1));
        return *this;
    }
    ~FileDescriptor() { reset(); }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    [[nodiscard]] int get() const { return fd_; }

private:
    int fd_;
};

struct Pipe {
    FileDescriptor read;
    FileDescriptor write;
    static std::optional<Pipe> open() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
        return Pipe{FileDescriptor(fds[0]), FileDescriptor(fds[1])};
    }
};

class WorkerProcess {
public:
    // Starts `executable __worker` in its own process group (Ctrl-C reaches the supervisor only,
    // which then stops the worker) and hands it `job` on stdin.
    static std::optional<WorkerProcess> start(const std::string& executable, const std::string& job, std::string& error) {
        auto job_pipe = Pipe::open();
        auto event_pipe = Pipe::open();
        auto output_pipe = Pipe::open();
        if (!job_pipe || !event_pipe || !output_pipe) {
            error = fmt::format("pipe: {}", std::strerror(errno));
            return std::nullopt;
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, job_pipe->read.get(), 0);
        posix_spawn_file_actions_adddup2(&actions, output_pipe->write.get(), 1);
        posix_spawn_file_actions_adddup2(&actions, output_pipe->write.get(), 2);
        posix_spawn_file_actions_adddup2(&actions, event_pipe->write.get(), worker_events_fd);
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
        posix_spawnattr_setpgroup(&attributes, 0);
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int signal : {SIGINT, SIGTERM, SIGPIPE}) sigaddset(&defaults, signal);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigmask(&attributes, &none);
        std::string subcommand = worker_subcommand;
        std::string program = executable;
        char* argv[] = {program.data(), subcommand.data(), nullptr};
        pid_t pid = -1;
        const int spawn_error = ::posix_spawn(&pid, executable.c_str(), &actions, &attributes, argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        if (spawn_error != 0) {
            error = fmt::format("could not start {} {}: {}", executable, worker_subcommand, std::strerror(spawn_error));
            return std::nullopt;
        }
        WorkerProcess worker;
        worker.pid_ = pid;
        worker.events_ = std::move(event_pipe->read);
        worker.output_ = std::move(output_pipe->read);
        job_pipe->read.reset();
        event_pipe->write.reset();
        output_pipe->write.reset();
        // The worker reads its whole job first; if it died already, write() fails with EPIPE and
        // the death shows as end of file on the events pipe.
        for (std::size_t written = 0; written < job.size();) {
            const ssize_t n = ::write(job_pipe->write.get(), job.data() + written, job.size() - written);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            written += static_cast<std::size_t>(n);
        }
        job_pipe->write.reset();
        for (int fd : {worker.events_.get(), worker.output_.get()}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        return worker;
    }

    WorkerProcess() = default;
    WorkerProcess(WorkerProcess&&) noexcept = default;
    WorkerProcess& operator=(WorkerProcess&&) noexcept = default;
    ~WorkerProcess() = default;  // a worker still running is left to PR_SET_PDEATHSIG

    [[nodiscard]] pid_t pid() const { return pid_; }
    [[nodiscard]] int events() const { return events_.get(); }
    [[nodiscard]] int output() const { return output_.get(); }

    // Kills the whole process group (the worker and anything it started) and reaps the worker.
    int kill_and_reap() {
        ::kill(-pid_, SIGKILL);
        return reap();
    }
    int reap() {
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        return status;
    }
    // Resident memory (/proc/<pid>/statm, in pages); 0 when unknown.
    [[nodiscard]] std::uint64_t resident_bytes() const {
        const auto statm = sys::read_file(fmt::format("/proc/{}/statm", pid_), 256);
        if (!statm) return 0;
        const std::vector<std::string> fields = sys::split(*statm, ' ');
        if (fields.size() < 2) return 0;
        return std::strtoull(fields[1].c_str(), nullptr, 10) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    }

private:
    pid_t pid_ = -1;
    FileDescriptor events_;
    FileDescriptor output_;
};

// --- what the supervisor knows about the run -----------------------------------------------------

// How one worker's life ended.
struct WorkerEnd {
    enum Kind { done, usage_error, interrupted, died, check_timed_out, run_timed_out } kind = done;
    std::string reason;  // died: how; usage_error: the message
    TaskKey culprit;     // check_timed_out: the check past its limit
    bool over_memory_limit = false;  // died: stopped for its memory
};

class RunState {
public:
    RunState(const Selection& selection, const SupervisorSettings& settings) : selection_(selection), settings_(settings) {}

    [[nodiscard]] std::string job(bool one_at_a_time) const {
        std::vector<std::string> ids;
        for (const Check* check : selection_.checks) ids.push_back(check->info().id);
        json decided = json::array();
        for (const auto& [key, result] : results_) decided.push_back(to_json(result));
        return json{{"parent_pid", static_cast<int>(::getpid())},
                    {"level", std::string(to_string(settings_.run.level))},
                    {"devices", settings_.run.devices},
                    {"verbose", settings_.run.verbose},
                    {"duration", settings_.run.stress_seconds},
                    {"checks", ids},
                    {"decided", decided},
                    {"one_at_a_time", one_at_a_time}}
            .dump();
    }

    // Runs one worker until it reports "done", dies, or a limit or signal stops it.
    WorkerEnd watch(WorkerProcess& worker, Clock::time_point run_start) {
        std::string pending_events;
        auto next_memory_poll = Clock::now();
        while (true) {
            const auto now = Clock::now();
            Clock::time_point deadline = run_start + settings_.run_time_limit;
            for (const auto& [key, task] : in_flight_)
                if (!task.waiting_since) deadline = std::min(deadline, now + (settings_.check_time_limit - task.running(now)));
            if (settings_.memory_limit_bytes > 0) deadline = std::min(deadline, next_memory_poll);
            const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();

            pollfd fds[3] = {{signal_pipe[0], POLLIN, 0}, {worker.events(), POLLIN, 0}, {worker.output(), POLLIN, 0}};
            const int ready = ::poll(fds, 3, static_cast<int>(std::clamp<long long>(wait, 0, 1000)));
            if (ready < 0 && errno != EINTR) return kill(worker, WorkerEnd{WorkerEnd::died, fmt::format("poll: {}", std::strerror(errno)), {}});
            if (received_signal != 0) return kill(worker, WorkerEnd{WorkerEnd::interrupted, {}, {}});
            drain_output(worker.output());

            bool events_closed = false;
            char buffer[16384];
            while (true) {
                const ssize_t n = ::read(worker.events(), buffer, sizeof buffer);
                if (n > 0) {
                    pending_events.append(buffer, static_cast<std::size_t>(n));
                    continue;
                }
                if (n < 0 && errno == EINTR) continue;
                events_closed = n == 0;
                break;
            }
            for (std::size_t newline; (newline = pending_events.find('\n')) != std::string::npos;) {
                const std::string line = pending_events.substr(0, newline);
                pending_events.erase(0, newline + 1);
                if (auto end = handle_event(line)) return *end;
            }
            if (events_closed) {
                drain_output(worker.output());
                return WorkerEnd{WorkerEnd::died, describe_wait_status(worker.reap()), {}};
            }

            const auto after = Clock::now();
            if (after - run_start >= settings_.run_time_limit) return kill(worker, WorkerEnd{WorkerEnd::run_timed_out, {}, {}});
            // The check that has run longest, not counting its waits for a GPU another check holds.
            const auto longest = std::max_element(in_flight_.begin(), in_flight_.end(),
                                                  [after](const auto& a, const auto& b) { return a.second.running(after) < b.second.running(after); });
            if (longest != in_flight_.end() && longest->second.running(after) >= settings_.check_time_limit)
                return kill(worker, WorkerEnd{WorkerEnd::check_timed_out, {}, longest->first});
            if (settings_.memory_limit_bytes > 0 && after >= next_memory_poll) {
                next_memory_poll = after + memory_poll_interval;
                if (const std::uint64_t resident = worker.resident_bytes(); resident > settings_.memory_limit_bytes)
                    return kill(worker, WorkerEnd{WorkerEnd::died,
                                                  fmt::format("used {} of host memory, over the --memory-limit of {}", format_bytes(resident),
                                                              format_bytes(settings_.memory_limit_bytes)),
                                                  {}, true});
            }
        }
    }

    [[nodiscard]] const std::map<TaskKey, InFlight>& in_flight() const { return in_flight_; }
    void clear_in_flight() { in_flight_.clear(); }
    [[nodiscard]] bool decided(const TaskKey& key) const { return results_.count(key) > 0; }

    // The check `key` ends with `code` (and the worker's last output lines as evidence).
    void decide(const TaskKey& key, Code code, std::string message, std::chrono::milliseconds elapsed, std::string remediation = {}) {
        ResultBuilder builder;
        builder.add(code, std::move(message), std::move(remediation));
        for (const std::string& line : output_tail_lines(12)) builder.evidence("worker_output", line);
        CheckResult result = std::move(builder).finish(key.first, key.second);
        result.duration_ms = static_cast<double>(elapsed.count());
        results_[key] = std::move(result);
    }

    void skip_undecided(const std::string& reason) {
        for (const TaskKey& key : planned_)
            if (!decided(key)) results_[key] = skipped(key, reason);
        // Checks no worker got as far as planning: one result each, device unknown.
        for (const Check* check : selection_.checks) {
            const std::string& id = check->info().id;
            const bool any = std::any_of(results_.begin(), results_.end(), [&](const auto& entry) { return entry.first.first == id; });
            if (!any) results_[{id, std::nullopt}] = skipped({id, std::nullopt}, reason);
        }
    }

    // Results in the engine's order: host checks, then GPU checks (per-device and multi-device) by
    // check, a per-device check's by device.
    [[nodiscard]] std::vector<CheckResult> ordered_results() const {
        std::vector<std::pair<std::tuple<bool, std::size_t, int>, const CheckResult*>> keyed;
        for (const auto& [key, result] : results_) {
            std::size_t index = selection_.checks.size();
            bool gpu_check = false;
            for (std::size_t i = 0; i < selection_.checks.size(); ++i)
                if (selection_.checks[i]->info().id == key.first) {
                    index = i;
                    gpu_check = selection_.checks[i]->info().scope != Scope::host;
                }
            keyed.push_back({{gpu_check, index, key.second.value_or(-1)}, &result});
        }
        std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<CheckResult> ordered;
        for (const auto& [order, result] : keyed) ordered.push_back(*result);
        return ordered;
    }

    ReportFacts facts;
    std::optional<std::string> usage_error;

private:
    static CheckResult skipped(const TaskKey& key, const std::string& reason) {
        ResultBuilder builder;
        builder.skip(reason);
        return std::move(builder).finish(key.first, key.second);
    }

    static TaskKey key_of(const json& event) {
        const json& device = event.at("device");
        return {event.at("id").get<std::string>(), device.is_null() ? std::nullopt : std::optional<int>(device.get<int>())};
    }

    // Applies one line from the worker; returns how the worker ended when the line says so. A line
    // that is not a valid event is ignored (the worker writes nothing else on that pipe).
    std::optional<WorkerEnd> handle_event(const std::string& line) {
        const json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (!event.is_object() || !event.contains("event")) return std::nullopt;
        try {
            const std::string kind = event.at("event").get<std::string>();
            if (kind == "planned") {
                const TaskKey key = key_of(event);
                if (std::find(planned_.begin(), planned_.end(), key) == planned_.end()) planned_.push_back(key);
            } else if (kind == "started") {
                in_flight_[key_of(event)] = InFlight{Clock::now(), {}, std::nullopt};
            } else if (kind == "waiting") {
                if (auto task = in_flight_.find(key_of(event)); task != in_flight_.end()) {
                    const auto now = Clock::now();
                    if (event.at("waiting").get<bool>()) {
                        if (!task->second.waiting_since) task->second.waiting_since = now;
                    } else if (task->second.waiting_since) {
                        task->second.waited += now - *task->second.waiting_since;
                        task->second.waiting_since.reset();
                    }
                }
            } else if (kind == "finished") {
                CheckResult result = check_result_from_json(event.at("result"));
                const TaskKey key{result.check_id, result.device};
                in_flight_.erase(key);
                results_[key] = std::move(result);
            } else if (kind == "facts") {
                // What any worker learnt stands: a later worker that skipped the check which
                // gathered a fact (it was decided already) does not know it.
                const VersionInfo versions = versions_from_json(event.at("versions"));
                for (auto [known, seen] : {std::pair{&facts.versions.driver, &versions.driver}, {&facts.versions.driver_cuda, &versions.driver_cuda},
                                           {&facts.versions.runtime, &versions.runtime}, {&facts.versions.nvcc, &versions.nvcc}})
                    if (!seen->empty()) *known = *seen;
                std::vector<DeviceInfo> devices;
                for (const json& device : event.at("devices")) devices.push_back(device_from_json(device));
                if (!devices.empty()) facts.devices = std::move(devices);
            } else if (kind == "usage_error") {
                return WorkerEnd{WorkerEnd::usage_error, event.at("message").get<std::string>(), {}};
            } else if (kind == "done") {
                return WorkerEnd{WorkerEnd::done, {}, {}};
            }
        } catch (const std::exception&) {
            // A malformed event is as good as none.
        }
        return std::nullopt;
    }

    void drain_output(int fd) {
        char buffer[16384];
        while (true) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            if (settings_.forward_output) [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, buffer, static_cast<std::size_t>(n));
            output_.append(buffer, static_cast<std::size_t>(n));
            if (output_.size() > output_tail_bytes) output_.erase(0, output_.size() - output_tail_bytes);
        }
    }

    // The last `count` non-empty lines the worker printed, printable characters only, each cut to 200.
    [[nodiscard]] std::vector<std::string> output_tail_lines(std::size_t count) const {
        std::vector<std::string> lines;
        for (const std::string& line : sys::split(output_, '\n')) {
            std::string clean;
            for (char c : line) clean += (c >= 0x20 && c < 0x7f) || c == '\t' ? c : '?';
            if (!sys::trim(clean).empty()) lines.push_back(clean.substr(0, 200));
        }
        if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
        return lines;
    }

    WorkerEnd kill(WorkerProcess& worker, WorkerEnd end) {
        worker.kill_and_reap();
        drain_output(worker.output());
        return end;
    }

    const Selection& selection_;
    const SupervisorSettings& settings_;
    std::vector<TaskKey> planned_;
    std::map<TaskKey, InFlight> in_flight_;
    std::map<TaskKey, CheckResult> results_;
    std::string output_;
};

std::string signal_name(int signal) {
    switch (signal) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGSEGV: return "SIGSEGV";
        case SIGABRT: return "SIGABRT";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        case SIGKILL: return "SIGKILL";
        default: return fmt::format("signal {}", signal);
    }
}

std::string seconds_text(std::chrono::milliseconds limit) { return fmt::format("{:g} s", static_cast<double>(limit.count()) / 1000.0); }

}  // namespace

std::string describe_wait_status(int status) {
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* text = ::strsignal(signal);
        return fmt::format("killed by {} ({})", signal_name(signal), text != nullptr ? text : "unknown signal");
    }
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    return fmt::format("ended with wait status {}", status);
}

SupervisedRun supervise(const Selection& selection, const SupervisorSettings& settings) {
    const SignalScope signals;
    RunState state(selection, settings);
    SupervisedRun run;
    const auto run_start = Clock::now();
    bool one_at_a_time = false;
    int deaths_outside_checks = 0;
    // A worker that ends early decides a check, or switches to one at a time (the next one then
    // decides a check), or counts towards giving up: this bound only guards against a bug.
    constexpr std::size_t max_workers = 256;
    for (std::size_t attempt = 0;; ++attempt) {
        std::string error;
        std::optional<WorkerProcess> worker =
            attempt < max_workers ? WorkerProcess::start(settings.executable, state.job(one_at_a_time), error) : std::nullopt;
        if (!worker) {
            for (const Check* check : selection.checks)
                if (!state.decided({check->info().id, std::nullopt}))
                    state.decide({check->info().id, std::nullopt}, Code::check_crashed,
                                 error.empty() ? "the check processes kept dying; gave up" : error, {});
            state.skip_undecided("not run: no check process could run it");
            break;
        }
        const WorkerEnd end = state.watch(*worker, run_start);
        const auto now = Clock::now();
        const auto elapsed = [&](const TaskKey& key) {
            return std::chrono::duration_cast<std::chrono::milliseconds>(now - state.in_flight().at(key).started);
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
            run.interrupted_by = received_signal;
            state.skip_undecided(fmt::format("interrupted ({})", signal_name(received_signal)));
            break;
        }
        if (end.kind == WorkerEnd::run_timed_out) {
            for (const auto& [key, started] : state.in_flight())
                state.decide(key, Code::check_timed_out,
                             fmt::format("{} was still running when the run's time limit ({}, --run-timeout) was reached; its process was killed",
                                         key.first, seconds_text(settings.run_time_limit)),
                             elapsed(key));
            state.skip_undecided(fmt::format("not run: the run's time limit ({}, --run-timeout) was reached", seconds_text(settings.run_time_limit)));
            break;
        }
        if (end.kind == WorkerEnd::check_timed_out) {
            // Only the check past its limit is blamed; the others in flight run again.
            state.decide(end.culprit, Code::check_timed_out,
                         fmt::format("{} did not finish within {} (--timeout); its process was killed", end.culprit.first,
                                     seconds_text(settings.check_time_limit)),
                         elapsed(end.culprit));
        } else if (state.in_flight().empty()) {
            // Died between checks (starting up, probing): try once more, then give up.
            if (++deaths_outside_checks >= 2) {
                for (const Check* check : selection.checks)
                    if (check->info().scope == Scope::host && !state.decided({check->info().id, std::nullopt}))
                        state.decide({check->info().id, std::nullopt}, Code::check_crashed,
                                     fmt::format("the check process {} before it could run {}, twice", end.reason, check->info().id), {});
                state.skip_undecided(fmt::format("not run: the check process {} outside any check, twice", end.reason));
                break;
            }
        } else if (state.in_flight().size() == 1 || one_at_a_time) {
            const std::string remediation =
                end.over_memory_limit ? fmt::format("If this machine has host memory to spare, raise the limit (--memory-limit MiB, now {} MiB); "
                                                    "otherwise report it: a check should need far less.",
                                                    settings.memory_limit_bytes >> 20)
                                      : std::string();
            for (const auto& [key, started] : state.in_flight())
                state.decide(key, Code::check_crashed, fmt::format("{} crashed its process: {}", key.first, end.reason), elapsed(key), remediation);
            one_at_a_time = false;
        } else {
            // Several checks were running: rerun them one at a time to find the one that crashes.
            one_at_a_time = true;
        }
        state.clear_in_flight();
    }
    run.results = state.ordered_results();
    run.facts = state.facts;
    run.usage_error = state.usage_error;
    return run;
}

}  // namespace cudacheck
