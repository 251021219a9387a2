// `--redact`: a report that can be pasted into a support ticket. One pass over every string of the
// assembled Report replaces the host name, user name, home directory, GPU/MIG UUIDs and serial
// numbers, and the values of variables whose names look secret; report.redaction records what.
// It runs in the parent process after the checks, so nothing a check or a library wrote (a loader
// error naming /home/alice/...) escapes it.
#pragma once

#include "report/report.hpp"
#include "util/environment.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck {

struct RedactionTargets {
    std::string hostname;                 // as the report names it; its short form is replaced too
    std::string node_name;                // the Kubernetes node (NODE_NAME), when the report has one
    std::vector<std::string> user_names;  // USER, LOGNAME and the password database's name
    std::vector<std::string> home_directories;
    std::vector<std::pair<std::string, std::string>> secret_variables;  // name, value
    // Key of the hash that replaces UUIDs and serials: random per report, never written, so one
    // device keeps one name within a report but cannot be traced across reports.
    std::array<std::uint64_t, 2> salt{};
};

// Whether a variable's name says its value is a secret (token, key, password, secret, credential).
[[nodiscard]] bool looks_secret(std::string_view variable_name);

// From the report's host, the environment and the password database of this process, with a
// fresh random salt.
[[nodiscard]] RedactionTargets redaction_targets(const Report& report, const Environment& environment);

void redact(Report& report, const RedactionTargets& targets);

// SipHash-2-4 (Aumasson and Bernstein): a keyed hash, so the replaced UUID cannot be recovered by
// hashing candidate UUIDs without the key.
[[nodiscard]] std::uint64_t siphash24(std::string_view message, const std::array<std::uint64_t, 2>& key);

}  // namespace cudacheck
