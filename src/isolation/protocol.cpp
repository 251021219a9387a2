#include "isolation/protocol.hpp"

#include "report/report_json.hpp"

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <unistd.h>

namespace cudacheck::protocol {

namespace {

using json = ordered_json;

// Key names, each spelt once.
constexpr const char* key_parent_pid = "parent_pid";
constexpr const char* key_nonce = "nonce";
constexpr const char* key_hex = "hex";
constexpr const char* key_level = "level";
constexpr const char* key_devices = "devices";
constexpr const char* key_verbose = "verbose";
constexpr const char* key_duration = "duration";
constexpr const char* key_python = "python";
constexpr const char* key_profile = "profile";
constexpr const char* key_checks = "checks";
constexpr const char* key_decided = "decided";
constexpr const char* key_one_at_a_time = "one_at_a_time";
constexpr const char* key_failed_actions = "failed_actions";
constexpr const char* key_kind = "kind";
constexpr const char* key_subject = "subject";
constexpr const char* key_how = "how";
constexpr const char* key_timed_out = "timed_out";
constexpr const char* key_action = "action";

constexpr const char* key_event = "event";
constexpr const char* key_id = "id";
constexpr const char* key_device = "device";
constexpr const char* key_waiting = "waiting";
constexpr const char* key_result = "result";
constexpr const char* key_versions = "versions";
constexpr const char* key_frameworks = "frameworks";
constexpr const char* key_build = "build";
constexpr const char* key_libraries = "libraries";
constexpr const char* key_mapped_libraries = "mapped_libraries";
constexpr const char* key_message = "message";
constexpr const char* key_elapsed = "elapsed";
constexpr const char* key_planned = "planned";
constexpr const char* key_value = "value";
constexpr const char* key_unit = "unit";
constexpr const char* key_note = "note";

// Event names; "waiting" is both an event and that event's flag.
constexpr const char* event_planned = "planned";
constexpr const char* event_started = "started";
constexpr const char* event_waiting = "waiting";
constexpr const char* event_finished = "finished";
constexpr const char* event_facts = "facts";
constexpr const char* event_begun = "begun";
constexpr const char* event_ended = "ended";
constexpr const char* event_usage_error = "usage_error";
constexpr const char* event_progress = "progress";
constexpr const char* event_out_of_processes = "out_of_processes";
constexpr const char* event_done = "done";

json task_event(const char* name, const Task& task) {
    return json{{key_event, name},
                {key_id, task.check_id},
                {key_device, task.device ? json(*task.device) : json(nullptr)}};
}

Task task_of(const json& event) {
    const json& device = event.at(key_device);
    return Task{event.at(key_id).get<std::string>(),
                device.is_null() ? std::nullopt : std::optional<int>(device.get<int>())};
}

// A path as it is when it is UTF-8, else {"hex": its bytes}: JSON strings are Unicode, and nlohmann's
// dump would either throw or replace the bytes that are not (then `--python` naming a
// directory whose name is Latin-1 would reach the worker as another path).
json bytes_value(const std::string& text) {
    try {
        (void)json(text).dump();  // the strict handler throws type_error.316 on invalid UTF-8
        return text;
    } catch (const json::type_error&) {
        static constexpr char digits[] = "0123456789abcdef";
        std::string hex;
        hex.reserve(text.size() * 2);
        for (const char c : text) {
            const auto byte = static_cast<unsigned char>(c);
            hex += digits[byte >> 4];
            hex += digits[byte & 15];
        }
        return json{{key_hex, hex}};
    }
}

std::string bytes_of(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    const std::string hex = value.at(key_hex).get<std::string>();
    const auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw JsonShapeError(fmt::format("/{}", key_hex), "not hexadecimal");
    };
    if (hex.size() % 2 != 0) throw JsonShapeError(fmt::format("/{}", key_hex), "an odd number of hexadecimal digits");
    std::string bytes;
    bytes.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) bytes += static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1]));
    return bytes;
}

actions::Action action_of(const json& object) {
    const std::string kind = object.at(key_kind).get<std::string>();
    const std::optional<actions::Kind> known = actions::kind_from_name(kind);
    if (!known) throw JsonShapeError(fmt::format("/{}", key_kind), fmt::format("unknown action kind '{}'", kind));
    return actions::Action{*known, bytes_of(object.at(key_subject))};
}

// Events are written from the checks' threads as they happen; a check's text that is not UTF-8
// (a library's message) must not stop the stream.
std::string line_of(const json& event) { return event.dump(-1, ' ', false, json::error_handler_t::replace) + '\n'; }

// Overloads for std::visit.
template <typename... Handlers>
struct Overloaded : Handlers... {
    using Handlers::operator()...;
};
template <typename... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;

}  // namespace

std::string new_nonce() {
    unsigned char bytes[16] = {};
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got < sizeof bytes) {
        const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            got = ::read(fd, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes) ? sizeof bytes : 0;
            ::close(fd);
        }
    }
    if (got < sizeof bytes) {
        // Neither: still unknown to a child that was never handed the job.
        const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        for (std::size_t i = 0; i < sizeof bytes; ++i)
            bytes[i] =
                static_cast<unsigned char>((now >> (8 * (i % 8))) ^ (static_cast<unsigned>(::getpid()) >> (i % 4)));
    }
    std::string text;
    for (const unsigned char byte : bytes) text += fmt::format("{:02x}", byte);
    return text;
}

std::string encode(const Job& job) {
    json decided = json::array();
    for (const CheckResult& result : job.decided) decided.push_back(to_json(result));
    json failed = json::array();
    for (const actions::Failure& failure : job.failed_actions)
        failed.push_back(json{{key_kind, actions::kind_name(failure.action.kind)},
                              {key_subject, bytes_value(failure.action.subject)},
                              {key_how, failure.how},
                              {key_timed_out, failure.timed_out}});
    json python = json::array();
    for (const std::string& path : job.options.python) python.push_back(bytes_value(path));
    return json{{key_parent_pid, job.parent_pid},
                {key_nonce, job.nonce},
                {key_level, std::string(to_string(job.options.level))},
                {key_devices, job.options.devices},
                {key_verbose, job.options.verbose},
                {key_duration, job.options.stress_seconds},
                {key_python, python},
                {key_profile, std::string(to_string(job.options.profile))},
                {key_checks, job.checks},
                {key_decided, decided},
                {key_one_at_a_time, job.one_at_a_time},
                {key_failed_actions, failed}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<Job> decode_job(std::string_view text, int parent_pid) {
    const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!document.is_object() || document.value(key_parent_pid, 0) != parent_pid) return std::nullopt;
    Job job;
    job.parent_pid = parent_pid;
    job.nonce = document.value(key_nonce, std::string());
    job.checks = document.at(key_checks).get<std::vector<std::string>>();
    const std::string level = document.at(key_level).get<std::string>();
    const std::optional<Level> known_level = level_from_string(level);
    if (!known_level) throw JsonShapeError(fmt::format("/{}", key_level), fmt::format("unknown level '{}'", level));
    job.options.level = *known_level;
    job.options.devices = document.at(key_devices).get<std::vector<int>>();
    job.options.verbose = document.at(key_verbose).get<bool>();
    job.options.stress_seconds = document.value(key_duration, default_stress_seconds);
    if (document.contains(key_python))
        for (const json& path : document.at(key_python)) job.options.python.push_back(bytes_of(path));
    if (document.contains(key_profile)) {
        const std::string profile = document.at(key_profile).get<std::string>();
        const std::optional<Profile> known_profile = profile_from_string(profile);
        if (!known_profile)
            throw JsonShapeError(fmt::format("/{}", key_profile), fmt::format("unknown profile '{}'", profile));
        job.options.profile = *known_profile;
    }
    for (const json& result : document.at(key_decided)) job.decided.push_back(check_result_from_json(result));
    job.one_at_a_time = document.at(key_one_at_a_time).get<bool>();
    for (const json& failure : document.at(key_failed_actions))
        job.failed_actions.push_back(actions::Failure{action_of(failure), failure.at(key_how).get<std::string>(),
                                                      failure.at(key_timed_out).get<bool>()});
    return job;
}

std::string encode(const Event& event, std::string_view nonce) {
    const std::string prefix = nonce.empty() ? std::string() : std::string(nonce) + ' ';
    return prefix +
           line_of(
               std::visit(Overloaded{
                              [](const Planned& planned) { return task_event(event_planned, planned.task); },
                              [](const Started& started) { return task_event(event_started, started.task); },
                              [](const Waiting& waiting) {
                                  json line = task_event(event_waiting, waiting.task);
                                  line[key_waiting] = waiting.waiting;
                                  return line;
                              },
                              [](const Finished& finished) {
                                  return json{{key_event, event_finished}, {key_result, to_json(finished.result)}};
                              },
                              [](const Facts& facts) {
                                  json devices = json::array();
                                  for (const DeviceInfo& device : facts.facts.devices)
                                      devices.push_back(to_json(device));
                                  json line{{key_event, event_facts},
                                            {key_versions, to_json(facts.facts.versions)},
                                            {key_devices, devices}};
                                  if (facts.facts.frameworks) line[key_frameworks] = to_json(*facts.facts.frameworks);
                                  if (facts.facts.build) line[key_build] = to_json(*facts.facts.build);
                                  if (facts.facts.libraries) line[key_libraries] = to_json(*facts.facts.libraries);
                                  if (!facts.facts.mapped_libraries.empty())
                                      line[key_mapped_libraries] = facts.facts.mapped_libraries;
                                  return line;
                              },
                              [](const Begun& begun) {
                                  return json{{key_event, event_begun},
                                              {key_action, begun.id},
                                              {key_kind, actions::kind_name(begun.action.kind)},
                                              {key_subject, bytes_value(begun.action.subject)}};
                              },
                              [](const Ended& ended) { return json{{key_event, event_ended}, {key_action, ended.id}}; },
                              [](const UsageError& usage_error) {
                                  return json{{key_event, event_usage_error}, {key_message, usage_error.message}};
                              },
                              [](const Progress& progress) {
                                  json line = task_event(event_progress, progress.task);
                                  line[key_elapsed] = progress.figure.elapsed_s;
                                  line[key_planned] = progress.figure.planned_s;
                                  line[key_value] = progress.figure.value;
                                  line[key_unit] = progress.figure.unit;
                                  line[key_note] = progress.figure.note;
                                  return line;
                              },
                              [](const OutOfProcesses& out) {
                                  return json{{key_event, event_out_of_processes}, {key_message, out.message}};
                              },
                              [](const Done&) { return json{{key_event, event_done}}; },
                          },
                          event));
}

std::optional<Event> decode_event(std::string_view line, std::string_view nonce) {
    if (!nonce.empty()) {
        if (line.size() <= nonce.size() || line.substr(0, nonce.size()) != nonce || line[nonce.size()] != ' ')
            return std::nullopt;
        line.remove_prefix(nonce.size() + 1);
    }
    const json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || !event.contains(key_event)) return std::nullopt;
    try {
        const std::string name = event.at(key_event).get<std::string>();
        if (name == event_planned) return Planned{task_of(event)};
        if (name == event_started) return Started{task_of(event)};
        if (name == event_waiting) return Waiting{task_of(event), event.at(key_waiting).get<bool>()};
        if (name == event_finished) return Finished{check_result_from_json(event.at(key_result))};
        if (name == event_facts) {
            Facts facts{{versions_from_json(event.at(key_versions)), {}, std::nullopt, std::nullopt, std::nullopt, {}}};
            for (const json& device : event.at(key_devices)) facts.facts.devices.push_back(device_from_json(device));
            if (event.contains(key_frameworks)) facts.facts.frameworks = frameworks_from_json(event.at(key_frameworks));
            if (event.contains(key_build)) facts.facts.build = build_from_json(event.at(key_build));
            if (event.contains(key_libraries)) facts.facts.libraries = libraries_from_json(event.at(key_libraries));
            if (event.contains(key_mapped_libraries))
                facts.facts.mapped_libraries = event.at(key_mapped_libraries).get<std::vector<std::string>>();
            return facts;
        }
        if (name == event_begun) return Begun{event.at(key_action).get<std::uint64_t>(), action_of(event)};
        if (name == event_ended) return Ended{event.at(key_action).get<std::uint64_t>()};
        if (name == event_usage_error) return UsageError{event.at(key_message).get<std::string>()};
        if (name == event_progress)
            return Progress{task_of(event),
                            ProgressFigure{event.at(key_elapsed).get<double>(), event.at(key_planned).get<double>(),
                                           event.at(key_value).get<double>(), event.at(key_unit).get<std::string>(),
                                           event.at(key_note).get<std::string>()}};
        if (name == event_out_of_processes) return OutOfProcesses{event.at(key_message).get<std::string>()};
        if (name == event_done) return Done{};
    } catch (const std::exception&) {
        // A malformed event is as good as none.
    }
    // So is one of a name this build does not know.
    return std::nullopt;
}

}  // namespace cudacheck::protocol
