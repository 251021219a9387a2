// The JSON report: the document around the parts report_json.cpp writes.
#include "render/renderer.hpp"
#include "render/report_json.hpp"

namespace cudacheck {

namespace {

using json = ordered_json;

// Invalid UTF-8 from the system (a path, a loader message) is replaced, never fatal.
void write_document(const json& document, std::ostream& out) { out << document.dump(2, ' ', false, json::error_handler_t::replace) << '\n'; }

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
        write_document(document, out);
    }
};

}  // namespace

std::unique_ptr<Renderer> make_json_renderer() { return std::make_unique<JsonRenderer>(); }

void render_inspect_json(const InspectReport& report, std::ostream& out) { write_document(to_json(report), out); }

}  // namespace cudacheck
