// The JSON report. Key names live here and only here; docs/report.schema.json describes them.
#include "render/renderer.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

namespace cudacheck {

namespace {

using json = nlohmann::ordered_json;

// Empty strings are "unknown": null in JSON, so consumers need not guess.
json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

template <typename T>
json optional_or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

std::string lower_code(std::string code) {
    for (char& c : code) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return code;
}

json to_json(const HostInfo& host) {
    return json{{"hostname", host.hostname},
                {"os", text_or_null(host.os_pretty_name)},
                {"kernel", text_or_null(host.kernel_release)},
                {"architecture", text_or_null(host.architecture)},
                {"libc", text_or_null(host.libc_version)},
                {"cpu_model", text_or_null(host.cpu_model)},
                {"logical_cpus", host.logical_cpus},
                {"memory_bytes", host.memory_bytes},
                {"container", text_or_null(host.container)},
                {"wsl", text_or_null(host.wsl)}};
}

json to_json(const VersionInfo& versions) {
    return json{{"driver", text_or_null(versions.driver)},
                {"driver_cuda", text_or_null(versions.driver_cuda)},
                {"runtime", text_or_null(versions.runtime)},
                {"nvcc", text_or_null(versions.nvcc)}};
}

json to_json(const DeviceInfo& device) {
    return json{{"ordinal", device.ordinal},
                {"name", device.name},
                {"uuid", text_or_null(device.uuid)},
                {"pci_bus_id", text_or_null(device.pci_bus_id)},
                {"compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)},
                {"cc_major", device.cc_major},
                {"cc_minor", device.cc_minor},
                {"architecture", device.architecture},
                {"total_memory_bytes", device.total_memory_bytes},
                {"multiprocessors", device.multiprocessors},
                {"sm_clock_khz", device.sm_clock_khz},
                {"memory_clock_khz", device.memory_clock_khz},
                {"memory_bus_width_bits", device.memory_bus_width_bits},
                {"l2_cache_bytes", device.l2_cache_bytes},
                {"ecc_enabled", device.ecc_enabled},
                {"compute_mode", device.compute_mode},
                {"integrated", device.integrated},
                {"tcc_driver", device.tcc_driver},
                {"theoretical_memory_bandwidth_gbps", optional_or_null(device.theoretical_bandwidth_gbps)},
                {"fp32_peak_tflops", optional_or_null(device.fp32_peak_tflops)},
                {"source", device.source},
                {"nvml_index", optional_or_null(device.nvml_index)},
                {"framebuffer_bytes", optional_or_null(device.framebuffer_bytes)}};
}

json to_json(const CheckResult& result) {
    json findings = json::array();
    for (const Finding& finding : result.findings)
        findings.push_back(json{{"status", to_string(finding.status)},
                                {"code", finding.code},
                                {"message", finding.message},
                                {"remediation", finding.remediation}});
    json evidence = json::array();
    for (const Evidence& item : result.evidence) evidence.push_back(json{{"key", item.key}, {"value", item.value}});
    json metrics = json::array();
    for (const Metric& metric : result.metrics)
        metrics.push_back(json{{"name", metric.name}, {"value", metric.value}, {"unit", metric.unit}});
    return json{{"id", result.check_id},
                {"device", optional_or_null(result.device)},
                {"status", to_string(result.status)},
                {"code", text_or_null(result.code)},
                {"message", result.message},
                {"remediation", text_or_null(result.remediation)},
                {"docs", result.code.empty() ? json(nullptr) : json("docs/errors.md#" + lower_code(result.code))},
                {"findings", findings},
                {"evidence", evidence},
                {"metrics", metrics},
                {"duration_ms", result.duration_ms},
                {"skip_reason", text_or_null(result.skip_reason)}};
}

json to_json(const Summary& summary, double duration_ms) {
    json counts = json::object();
    for (Status status : {Status::pass, Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
        counts[std::string(to_string(status))] = summary.count(status);
    return json{{"overall", to_string(summary.overall)}, {"counts", counts}, {"duration_ms", duration_ms}};
}

class JsonRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        json devices = json::array();
        for (const DeviceInfo& device : report.devices) devices.push_back(to_json(device));
        json checks = json::array();
        for (const CheckResult& result : report.checks) checks.push_back(to_json(result));
        const json document{{"schema_version", json_schema_version},
                            {"tool", json{{"name", "cudacheck"}, {"version", report.tool_version}}},
                            {"timestamp_utc", report.timestamp_utc},
                            {"argv", report.argv},
                            {"options", json{{"level", report.level}, {"strict", report.strict}}},
                            {"host", to_json(report.host)},
                            {"versions", to_json(report.versions)},
                            {"devices", devices},
                            {"checks", checks},
                            {"summary", to_json(report.summary, report.duration_ms)},
                            {"exit_code", report.exit_code}};
        // Invalid UTF-8 from the system (a path, a loader message) is replaced, never fatal.
        out << document.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
    }
};

}  // namespace

std::unique_ptr<Renderer> make_json_renderer() { return std::make_unique<JsonRenderer>(); }

}  // namespace cudacheck
