// The report's parts as JSON, both ways. The key names live here and only here:
// docs/report.schema.json describes them; the JSON renderer writes them, the supervisor reads
// back what its worker process wrote (cli/worker_protocol.hpp), and `diff` and `--expect` read
// reports written earlier, perhaps by another version of cudacheck.
#pragma once

#include "core/inspection.hpp"
#include "core/fleet.hpp"
#include "cudacheck/report.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace cudacheck {

using ordered_json = nlohmann::ordered_json;

// A document that does not have the shape a reader expects, and where: `pointer` is a JSON pointer
// into the document ("/checks/3/status"; empty for the whole document). It is one of nlohmann's
// exceptions so that callers that already catch those keep working.
class JsonShapeError : public nlohmann::json::exception {
public:
    JsonShapeError(std::string pointer, std::string problem);
    [[nodiscard]] const std::string& pointer() const { return pointer_; }
    [[nodiscard]] const std::string& problem() const { return problem_; }
    // The same problem seen from an enclosing value: within("/checks/3") of "/status".
    [[nodiscard]] JsonShapeError within(std::string_view prefix) const;

private:
    std::string pointer_;
    std::string problem_;
};

[[nodiscard]] ordered_json to_json(const HostInfo& host);
[[nodiscard]] ordered_json to_json(const VersionInfo& versions);
[[nodiscard]] ordered_json to_json(const DeviceInfo& device);
[[nodiscard]] ordered_json to_json(const CheckResult& result);
[[nodiscard]] ordered_json to_json(const Summary& summary, double duration_ms);
// The whole `cudacheck fleet` document.
[[nodiscard]] ordered_json to_json(const Fleet& fleet);
// The whole `cudacheck inspect` document.
[[nodiscard]] ordered_json to_json(const InspectReport& report);
[[nodiscard]] ordered_json to_json(const Redaction& redaction);
// The whole document, as `--format json` writes it.
[[nodiscard]] ordered_json to_json(const Report& report);

// The inverse of to_json; throw JsonShapeError on a document of another shape.
[[nodiscard]] HostInfo host_from_json(const ordered_json& document);
[[nodiscard]] VersionInfo versions_from_json(const ordered_json& document);
[[nodiscard]] DeviceInfo device_from_json(const ordered_json& document);
[[nodiscard]] CheckResult check_result_from_json(const ordered_json& document);
[[nodiscard]] Redaction redaction_from_json(const ordered_json& document);
// A whole report, written by this or another cudacheck whose schema_version has the same major
// version (a minor version only adds fields, which older reports lack and readers tolerate).
// Throws JsonShapeError when the document is not a cudacheck report, comes from an incompatible
// schema, or has a field of the wrong type.
[[nodiscard]] Report report_from_json(const ordered_json& document);

// "FILE: at /checks/3/status: unknown status 'x'": the one-line message for a bad document.
[[nodiscard]] std::string where(const std::string& name, const JsonShapeError& shape_error);

// The major version of a "MAJOR.MINOR.PATCH" text; empty when it is not one.
[[nodiscard]] std::optional<int> schema_major(std::string_view version);

// Parses JSON text. Empty optional and `error` set ("NAME: not valid JSON: parse error at line 3,
// column 5: ...") when it is not JSON.
[[nodiscard]] std::optional<ordered_json> parse_json_text(std::string_view text, const std::string& name, std::string& error);
// Runs `read` (a *_from_json function) on a document; a JsonShapeError becomes `error`, one line
// naming the file and the place.
template <typename Read>
[[nodiscard]] auto read_document(const ordered_json& document, const std::string& name, std::string& error, Read&& read)
    -> std::optional<decltype(read(document))> {
    try {
        return read(document);
    } catch (const JsonShapeError& shape_error) {
        error = where(name, shape_error);
    }
    return std::nullopt;
}
// Reads and parses a JSON file. Empty optional and `error` set (one line naming the file, and the
// line and column of a syntax error) when it cannot be read or is not JSON.
[[nodiscard]] std::optional<ordered_json> read_json_file(const std::string& path, std::string& error);
// A document from a file, or from text, through `read` (a *_from_json function): the one way
// reports and policies are read, so both fail with the same kind of message.
template <typename Read>
[[nodiscard]] auto read_file_as(const std::string& path, std::string& error, Read&& read) -> std::optional<decltype(read(std::declval<const ordered_json&>()))> {
    const std::optional<ordered_json> document = read_json_file(path, error);
    if (!document) return std::nullopt;
    return read_document(*document, path, error, read);
}
template <typename Read>
[[nodiscard]] auto parse_text_as(std::string_view text, const std::string& name, std::string& error, Read&& read)
    -> std::optional<decltype(read(std::declval<const ordered_json&>()))> {
    const std::optional<ordered_json> document = parse_json_text(text, name, error);
    if (!document) return std::nullopt;
    return read_document(*document, name, error, read);
}
// Reads a report file: read_json_file, then report_from_json. `error` names the file and the
// JSON pointer of the problem.
[[nodiscard]] std::optional<Report> read_report_file(const std::string& path, std::string& error);
// The same from text already in memory (`name` stands for the file in messages).
[[nodiscard]] std::optional<Report> parse_report(std::string_view text, const std::string& name, std::string& error);

}  // namespace cudacheck
