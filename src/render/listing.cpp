// Text for `cudacheck list` and `cudacheck explain`, and the generated docs/errors.md.
#include "render/renderer.hpp"
#include "render/text_table.hpp"

#include "util/system.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cudacheck {

std::unique_ptr<Renderer> make_table_renderer(RenderOptions options);
std::unique_ptr<Renderer> make_json_renderer();
void render_inspect_table(const InspectReport& report, RenderOptions options, std::ostream& out);
void render_inspect_json(const InspectReport& report, std::ostream& out);
std::unique_ptr<Renderer> make_markdown_renderer();
std::unique_ptr<Renderer> make_junit_renderer();
std::unique_ptr<Renderer> make_prometheus_renderer();
std::unique_ptr<Renderer> make_html_renderer();

std::optional<Format> format_from_string(std::string_view text) {
    if (text == "table") return Format::table;
    if (text == "json") return Format::json;
    if (text == "markdown") return Format::markdown;
    if (text == "junit") return Format::junit;
    if (text == "prometheus") return Format::prometheus;
    if (text == "html") return Format::html;
    return std::nullopt;
}

std::unique_ptr<Renderer> make_renderer(Format format, RenderOptions options) {
    switch (format) {
        case Format::json: return make_json_renderer();
        case Format::markdown: return make_markdown_renderer();
        case Format::junit: return make_junit_renderer();
        case Format::prometheus: return make_prometheus_renderer();
        case Format::html: return make_html_renderer();
        case Format::table: break;
    }
    return make_table_renderer(options);
}

void render_inspect(const InspectReport& report, Format format, RenderOptions options, std::ostream& out) {
    if (format == Format::json) render_inspect_json(report, out);
    else render_inspect_table(report, options, out);
}

void render_check_list(const Registry& registry, std::ostream& out) {
    // SCOPE and LEVEL as wide as their longest words ("device", "standard"), whatever is listed.
    TextTable table({{"ID"}, {"SCOPE", 6}, {"LEVEL", 8}, {"DESCRIPTION"}});
    for (const auto& check : registry.checks()) {
        const CheckInfo& info = check->info();
        std::string description = info.description;
        if (!info.depends_on.empty()) {
            description += " (needs ";
            for (std::size_t i = 0; i < info.depends_on.size(); ++i)
                description += (i > 0 ? ", " : "") + info.depends_on[i];
            description += ")";
        }
        table.add_row({info.id, std::string(to_string(info.scope)), std::string(to_string(info.min_level)),
                       std::move(description)});
    }
    for (const std::string& line : table.lines()) out << line << '\n';
}

void render_check_list_json(const Registry& registry, std::string_view tool_version, std::ostream& out) {
    using json = nlohmann::ordered_json;
    json checks = json::array();
    for (const auto& check : registry.checks()) {
        const CheckInfo& info = check->info();
        json raises = json::array();
        for (const Code code : info.raises) raises.push_back(code_string(code));
        checks.push_back(json{{"id", info.id},
                              {"title", info.title},
                              {"scope", to_string(info.scope)},
                              {"level", to_string(info.min_level)},
                              {"description", info.description},
                              {"needs", info.depends_on},
                              {"raises", std::move(raises)}});
    }
    const json document{{"schema_version", list_json_schema_version},
                        {"document", "checks"},
                        {"tool", json{{"name", "cudacheck"}, {"version", tool_version}}},
                        {"checks", std::move(checks)}};
    // Invalid UTF-8 (none is expected in the checks' own text) is replaced, never a throw.
    out << document.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

void render_check_index_markdown(const Registry& registry, std::ostream& out) {
    out << "| id | scope | level | needs | what it answers |\n|---|---|---|---|---|\n";
    for (const auto& check : registry.checks()) {
        const CheckInfo& info = check->info();
        std::string needs;
        for (const std::string& dependency : info.depends_on)
            needs += fmt::format("{}`{}`", needs.empty() ? "" : ", ", dependency);
        out << fmt::format("| `{}` | {} | {} | {} | {} |\n", info.id, to_string(info.scope), to_string(info.min_level),
                           needs, info.answers.empty() ? info.description : info.answers);
    }
}

void render_catalog_entry(const CatalogEntry& entry, std::string_view docs, std::ostream& out) {
    out << fmt::format("{} {} ({})\n", code_string(entry.code), entry.title, entry.slug);
    out << fmt::format("  severity:    {}\n", to_string(entry.severity));
    out << fmt::format("  remedy:      {} (action class {})\n", to_string(entry.remedy), action_class(entry.remedy));
    out << fmt::format("  raised by:   {}\n", entry.raised_by);
    out << fmt::format("  cause:       {}\n", entry.cause);
    if (!entry.detail.empty()) out << fmt::format("  detail:      {}\n", entry.detail);
    out << fmt::format("  remediation: {}\n", entry.remediation);
    out << fmt::format("  docs:        {}\n", docs);
}

void render_catalog_markdown(std::ostream& out) {
    out << "# cudacheck error catalogue\n\n"
           "Generated from `src/report/catalog.cpp` by `cudacheck explain --markdown`; a unit test fails when this "
           "file is out of date.\n"
           "Codes are stable and append-only. Each finding in a report carries one of these codes; the report's own\n"
           "remediation is specific to the machine (versions, paths), the one here is the general rule.\n\n"
           "Each code's remedy is the step it asks for by default (a finding may name another from the values found);\n"
           "its action class says who acts: `config`, `triage`, `app` (the application's own fault), `reset` (drain,\n"
           "then reset or reboot) or `isolate` (service). A scheduler's health check drains for `reset` and "
           "`isolate`.\n\n"
           "| code | severity | remedy | title | raised by |\n|---|---|---|---|---|\n";
    for (const CatalogEntry& entry : catalog())
        out << fmt::format("| [{}](#{}) | {} | {} | {} | {} |\n", code_string(entry.code),
                           sys::to_lower(code_string(entry.code)), to_string(entry.severity), to_string(entry.remedy),
                           entry.title, entry.raised_by);
    for (const CatalogEntry& entry : catalog()) {
        out << fmt::format("\n## {}\n\n", code_string(entry.code));
        out << fmt::format("**{}** (`{}`), severity `{}`, remedy `{}` (action class `{}`), raised by `{}`.\n\n",
                           entry.title, entry.slug, to_string(entry.severity), to_string(entry.remedy),
                           action_class(entry.remedy), entry.raised_by);
        out << fmt::format("- Cause: {}\n", entry.cause);
        out << fmt::format("- Remediation: {}\n", entry.remediation);
        // The detail is the depth the one-sentence cause leaves out: a paragraph below the two lines.
        if (!entry.detail.empty()) out << fmt::format("\n{}\n", entry.detail);
    }
}

}  // namespace cudacheck
