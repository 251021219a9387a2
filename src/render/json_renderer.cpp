// The JSON report: report_json.cpp builds the document, this prints it.
#include "render/renderer.hpp"
#include "render/report_json.hpp"

namespace cudacheck {

namespace {

using json = ordered_json;

class JsonRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        // Invalid UTF-8 from the system (a path, a loader message) is replaced, never fatal.
        out << to_json(report).dump(2, ' ', false, json::error_handler_t::replace) << '\n';
    }
};

}  // namespace

std::unique_ptr<Renderer> make_json_renderer() { return std::make_unique<JsonRenderer>(); }

}  // namespace cudacheck
