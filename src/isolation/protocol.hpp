// What the supervisor (isolation/supervisor.hpp) and its worker (isolation/worker.hpp) say to each
// other, and the only place that knows how it is spelt. Both ends are the same binary, so there
// is no versioning; a line the supervisor cannot read is ignored, as if never sent.
//
//   stdin   one JSON job, the Job below:
//             {"parent_pid", "nonce", "level", "devices", "verbose", "duration", "python", "checks" (ids,
//              registry order), "decided" (results not to run again), "one_at_a_time", "failed_actions"
//              ([{"kind","subject","how","timed_out"}]: steps an earlier worker died or hung in)}
//             Paths ("python", an action's "subject") may be any bytes: one that is not UTF-8 is
//             written {"hex": "<its bytes>"} (re-encoded with U+FFFD it would name another path).
//   fd 3    lines "<nonce> <JSON event>", the Events below, as things happen. The nonce is the job's,
//             which only the worker read: a line without it is not the worker's (a child
//             that reached the pipe could forge a result) and is dropped, like every line after "done".
//             The worker marks fd 3 close-on-exec at once; what it runs gets none of its descriptors.
//   fd 4    the activity board (util/activity.hpp), shared memory where the worker's threads note
//             what they are doing (the check, the child program running, the last file read), which
//             the supervisor reads when the worker died or hung
//   fd 3 events:
//             {"event":"planned","id","device"}   a check (per device) the run will report
//             {"event":"started","id","device"}
//             {"event":"waiting","id","device","waiting"}   a started check blocks on (true) or
//                                                  gets (false) a GPU another check holds
//             {"event":"finished","result":{...}}  a result (report/report_json's CheckResult)
//             {"event":"begun","action","kind","subject"}   a step outside the checks' own code
//                                                  (util/actions.hpp) starts; "action" is its id
//             {"event":"ended","action"}           ... and ended
//             {"event":"usage_error","message"}    e.g. --devices naming a missing ordinal
//             {"event":"facts","versions":{...},"devices":[...],"frameworks":[...]}  (frameworks
//                                                  once frameworks.builds gathered them)
//             {"event":"progress","id","device","elapsed","planned","value","unit","note"}
//                                                  a running check's live figure (engine/progress.hpp),
//                                                  at most four a second per check
//             {"event":"out_of_processes","message"}   the worker could not start a thread or
//                                                  process (EAGAIN): the process limit, not a fault
//             {"event":"done"}
//   stdout, stderr   whatever the checks or libraries print; the supervisor keeps the tail
#pragma once

#include "engine/check.hpp"
#include "engine/progress.hpp"
#include "engine/report_builder.hpp"
#include "report/report.hpp"
#include "util/actions.hpp"

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cudacheck::protocol {

// `cudacheck __worker` is the worker; its events come on this descriptor, apart from the
// checks' own output.
inline constexpr const char* worker_subcommand = "__worker";
inline constexpr int events_fd = 3;
inline constexpr int activity_fd = 4;

// What a worker runs.
struct Job {
    int parent_pid = 0;  // the supervisor's: a worker started by anyone else refuses the job
    std::string nonce;   // what every event line starts with (new_nonce())
    RunOptions options;
    std::vector<std::string> checks;   // ids, in registry order
    std::vector<CheckResult> decided;  // results that stand: those checks do not run again
    bool one_at_a_time = false;        // engine.hpp's EngineInput::one_at_a_time, and no step in the background
    std::vector<actions::Failure> failed_actions;  // not to be taken again
};

[[nodiscard]] std::string encode(const Job& job);
// 32 random hexadecimal digits (getrandom(2), else /dev/urandom, else the clock and the pid).
[[nodiscard]] std::string new_nonce();
// Empty optional when `text` is not a job from `parent_pid`; throws (nlohmann's exceptions,
// JsonShapeError) when a job from it has the wrong shape.
[[nodiscard]] std::optional<Job> decode_job(std::string_view text, int parent_pid);

// One check of the run on one device (none for host and multi-device checks).
struct Task {
    std::string check_id;
    std::optional<int> device;
    auto operator<=>(const Task&) const = default;
};

struct Planned {
    Task task;
};
struct Started {
    Task task;
};
struct Waiting {
    Task task;
    bool waiting = false;
};
struct Finished {
    CheckResult result;
};
struct Facts {
    ReportFacts facts;
};
struct Begun {
    std::uint64_t id = 0;
    actions::Action action;
};
struct Ended {
    std::uint64_t id = 0;
};
struct UsageError {
    std::string message;
};
struct Progress {
    Task task;
    ProgressFigure figure;
};
struct OutOfProcesses {
    std::string message;  // what could not be started, and the limit (sys::process_limit_words)
};
struct Done {};
using Event =
    std::variant<Planned, Started, Waiting, Finished, Facts, Begun, Ended, UsageError, Progress, OutOfProcesses, Done>;

// One line, newline included, starting with `nonce` and a space when one is given.
[[nodiscard]] std::string encode(const Event& event, std::string_view nonce = {});
// Empty optional for a line that is not a whole, well-formed event, or does not start with `nonce`
// (when one is given) and a space.
[[nodiscard]] std::optional<Event> decode_event(std::string_view line, std::string_view nonce = {});

}  // namespace cudacheck::protocol
