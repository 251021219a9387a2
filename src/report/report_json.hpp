// The report's parts as JSON, both ways. The report's key names live here and only here:
// docs/report.schema.json describes them; the JSON renderer writes them, the isolation protocol
// (isolation/protocol.hpp, which owns its own keys) carries results and facts in them, and `diff`
// and `--expect` read reports written earlier, perhaps by another version of cudacheck.
#pragma once

#include "report/fleet.hpp"
#include "report/report.hpp"
#include "util/json_read.hpp"

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace cudacheck {

// Bumped on every change to the JSON layout (semantic versioning: major for removals/renames,
// minor for additions). docs/report.schema.json validates every 1.x report (a new minor's fields
// are optional there, and required by an allOf rule of reports of that minor or later); its
// schema_version examples end with this version and tests/golden/reports holds a report of each
// earlier minor, both held to it by json_schema.validates_reports. 1.11.0 added each finding's
// `remedy`, `action_class` and `gpu`, and the report's `remedy` (report/remedy.hpp). 1.10.0 added each
// metric's `family`, `labels` and `help` (and the peaks GEMM and copy shares are taken of, as
// figures of their own) and `libraries` (library copies as data); 1.9.0 added the host's
// `node_name` (NODE_NAME: the Kubernetes node, which Prometheus labels Hostname); 1.8.0 added each Python
// environment's `sys_path` and `imports` and each framework's `imported_from`; 1.7.0 `shared_gpu`
// (the GPUs another process used while a check timed its work); 1.6.0 added the `series`
// of each check and the `number` and `unit` of each evidence; 1.5.0 `build`; 1.4.0 `frameworks`
// and the `subject` of each finding; 1.3.0 added `redacted`
// (and redacted device UUIDs); 1.2.0 the `device` of each finding; 1.1.0 the exit codes 130 and 143.
inline constexpr std::string_view json_schema_version = "1.11.0";

// The `cudacheck fleet` document has its own version, on the same rules (inspect's: inspect/inspection.hpp).
// 1.1.0 added `not_comparable`: figures measured on a shared GPU, left out of the comparison;
// 1.2.0 each node's `xid_events`, `remedy` and `action_class`.
inline constexpr std::string_view fleet_json_schema_version = "1.2.0";

// The `diff --format json` document (docs/cli.md), versioned like the report. 1.1.0 added
// `not_compared`: what could not be compared and why (a report before the `libraries` section).
inline constexpr std::string_view diff_json_version = "1.1.0";

[[nodiscard]] ordered_json to_json(const HostInfo& host);
[[nodiscard]] ordered_json to_json(const VersionInfo& versions);
[[nodiscard]] ordered_json to_json(const DeviceInfo& device);
[[nodiscard]] ordered_json to_json(const CheckResult& result);
[[nodiscard]] ordered_json to_json(const Summary& summary, double duration_ms);
// The fleet document (`cudacheck fleet --format json`), written one node at a time.
void write_json(const Fleet& fleet, std::ostream& out);
[[nodiscard]] ordered_json to_json(const Redaction& redaction);
// The `frameworks` section (schema 1.4.0).
[[nodiscard]] ordered_json to_json(const std::vector<PythonEnvironmentInfo>& environments);
// The `build` section (schema 1.5.0).
[[nodiscard]] ordered_json to_json(const BuildInfo& build);
// The `libraries` section (schema 1.10.0).
[[nodiscard]] ordered_json to_json(const LibrariesInfo& libraries);
// The whole document, as `--format json` writes it.
[[nodiscard]] ordered_json to_json(const Report& report);

// For documents beside the report (inspect's): unknown (empty) text and absent values are null.
[[nodiscard]] ordered_json text_or_null(const std::string& text);
template <typename T>
[[nodiscard]] ordered_json optional_or_null(const std::optional<T>& value) {
    return value ? ordered_json(*value) : ordered_json(nullptr);
}

// The inverse of to_json; throw JsonShapeError on a document of another shape.
[[nodiscard]] HostInfo host_from_json(const ordered_json& document);
[[nodiscard]] VersionInfo versions_from_json(const ordered_json& document);
[[nodiscard]] DeviceInfo device_from_json(const ordered_json& document);
// `names_before_families`: the result is of a report older than schema 1.10.0, whose figures
// have a flat name only; each then takes the family of its name (report/legacy_metrics.hpp). A
// figure of a later report without a family keeps none: its name is not read.
[[nodiscard]] CheckResult check_result_from_json(const ordered_json& document, bool names_before_families = false);
[[nodiscard]] Redaction redaction_from_json(const ordered_json& document);
[[nodiscard]] std::vector<PythonEnvironmentInfo> frameworks_from_json(const ordered_json& document);
[[nodiscard]] BuildInfo build_from_json(const ordered_json& document);
[[nodiscard]] LibrariesInfo libraries_from_json(const ordered_json& document);
// A whole report, written by this or another cudacheck whose schema_version has the same major
// version (a minor version only adds fields, which older reports lack and readers tolerate).
// Throws JsonShapeError when the document is not a cudacheck report, comes from an incompatible
// schema, or has a field of the wrong type.
[[nodiscard]] Report report_from_json(const ordered_json& document);

// Reads a report file: read_json_file, then report_from_json. The error names the file and the
// JSON pointer of the problem.
[[nodiscard]] Expected<Report> read_report_file(const std::string& path);
// The same from text already in memory (`name` stands for the file in messages).
[[nodiscard]] Expected<Report> parse_report(std::string_view text, const std::string& name);

}  // namespace cudacheck
