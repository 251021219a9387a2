// Renderers turn a Report (or the catalog, or the check list) into text. They are the only code
// that prints; report_json.cpp is the only code that knows the JSON key names.
#pragma once

#include "engine/registry.hpp"
#include "inspect/inspection.hpp"
#include "report/catalog.hpp"
#include "report/fleet.hpp"
#include "report/report.hpp"
#include "report/report_diff.hpp"
#include "report/report_json.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>

namespace cudacheck {

enum class Format { table, json, markdown, junit, prometheus, html };
[[nodiscard]] std::optional<Format> format_from_string(std::string_view text);

struct RenderOptions {
    bool color = false;
    bool verbose = false;  // table: evidence under every check
    // table: long lines (results, findings, fixes, evidence) wrap at this many columns with a
    // hanging indent; 0, what a file or a pipe gets, never, so that saved output is
    // not cut to a terminal's width (cli/command_support.hpp output_width says when a command sets it).
    std::size_t width = 0;
};

class Renderer {
public:
    virtual ~Renderer() = default;
    void render(const Report& report, std::ostream& out) const { do_render(report, out); }

private:
    virtual void do_render(const Report& report, std::ostream& out) const = 0;
};

[[nodiscard]] std::unique_ptr<Renderer> make_renderer(Format format, RenderOptions options);

// `cudacheck inspect`: the table groups the code objects of a file by kind, architecture and
// compression (every object with options.verbose); the JSON lists every object.
void render_inspect(const InspectReport& report, Format format, RenderOptions options, std::ostream& out);

// `cudacheck fleet`: table or JSON.
void render_fleet(const Fleet& fleet, Format format, std::ostream& out);

// `cudacheck diff`: table or JSON (other formats are refused by the command line).
void render_diff(const ReportDiff& diff, const std::string& before_name, const std::string& after_name, Format format,
                 std::ostream& out);

// `cudacheck list`
void render_check_list(const Registry& registry, std::ostream& out);
// `cudacheck list --format json`, for scripts and other tools: every check as
// docs/list.schema.json describes it,
// `"document": "checks"`, versioned like the report (report/report_json.hpp).
inline constexpr std::string_view list_json_schema_version = "1.0.0";
void render_check_list_json(const Registry& registry, std::string_view tool_version, std::ostream& out);
// `cudacheck list --markdown`: the check index table; README.md and docs/checks.md hold exactly
// this between their check-index markers.
void render_check_index_markdown(const Registry& registry, std::ostream& out);
// `cudacheck explain CODE`; `docs` is where this binary's reader finds the entry documented.
void render_catalog_entry(const CatalogEntry& entry, std::string_view docs, std::ostream& out);
// `cudacheck explain --markdown`: the whole catalog; docs/errors.md is exactly this output.
void render_catalog_markdown(std::ostream& out);

}  // namespace cudacheck
