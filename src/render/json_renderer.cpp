// The JSON documents: report_json.cpp builds them, this prints them.
#include "render/renderer.hpp"
#include "report/report_json.hpp"

namespace cudacheck {

namespace {

using json = ordered_json;

// Invalid UTF-8 from the system (a path, a loader message) is replaced, never fatal.
void write_document(const json& document, std::ostream& out) {
    out << document.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

class JsonRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override { write_document(to_json(report), out); }
};

}  // namespace

std::unique_ptr<Renderer> make_json_renderer() { return std::make_unique<JsonRenderer>(); }

void render_inspect_json(const InspectReport& report, std::ostream& out) { write_document(to_json(report), out); }

}  // namespace cudacheck
