// The report's parts as JSON, both ways. The key names live here and only here:
// docs/report.schema.json describes them; the JSON renderer writes them, and the supervisor reads
// back what its worker process wrote (cli/worker_protocol.hpp).
#pragma once

#include "core/inspection.hpp"
#include "cudacheck/report.hpp"

#include <nlohmann/json.hpp>

namespace cudacheck {

using ordered_json = nlohmann::ordered_json;

[[nodiscard]] ordered_json to_json(const HostInfo& host);
[[nodiscard]] ordered_json to_json(const VersionInfo& versions);
[[nodiscard]] ordered_json to_json(const DeviceInfo& device);
[[nodiscard]] ordered_json to_json(const CheckResult& result);
[[nodiscard]] ordered_json to_json(const Summary& summary, double duration_ms);
// The whole `cudacheck inspect` document.
[[nodiscard]] ordered_json to_json(const InspectReport& report);

// The inverse of to_json; throw nlohmann::json::exception on a document of another shape.
[[nodiscard]] VersionInfo versions_from_json(const ordered_json& document);
[[nodiscard]] DeviceInfo device_from_json(const ordered_json& document);
[[nodiscard]] CheckResult check_result_from_json(const ordered_json& document);

}  // namespace cudacheck
