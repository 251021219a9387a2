// `cudacheck diff` output: a table for people, JSON for scripts. The diff document's key names
// live here (docs/cli.md describes them); it is not a report and has its own version.
#include "render/renderer.hpp"
#include "render/text_table.hpp"
#include "report/report_json.hpp"
#include "util/system.hpp"

#include <fmt/format.h>

namespace cudacheck {

namespace {

void render_diff_table(const ReportDiff& diff, const std::string& before_name, const std::string& after_name,
                       std::ostream& out) {
    // The file names as given, escaped like every cell of the table below (TextTable).
    out << fmt::format("cudacheck diff: A = {}, B = {} (figures compared at ±{:g}%)\n", sys::printable(before_name),
                       sys::printable(after_name), diff.threshold_percent);
    for (const std::string& note : diff.not_compared) out << "Not compared: " << sys::printable(note) << '\n';
    if (diff.differences.empty()) {
        out << "No differences.\n";
        return;
    }
    TextTable table({{"KIND"}, {"SUBJECT"}, {"A"}, {"B"}});
    for (const Difference& difference : diff.differences) {
        std::string after = difference.after;
        if (difference.change_percent) after += fmt::format("  ({:+.1f}%)", *difference.change_percent);
        table.add_row({difference.kind, difference.subject, difference.before, std::move(after)});
    }
    for (const std::string& line : table.lines()) out << line << '\n';
    out << fmt::format("\n{} difference(s)\n", diff.differences.size());
}

void render_diff_json(const ReportDiff& diff, const std::string& before_name, const std::string& after_name,
                      std::ostream& out) {
    ordered_json differences = ordered_json::array();
    for (const Difference& difference : diff.differences)
        differences.push_back(
            ordered_json{{"kind", difference.kind},
                         {"subject", difference.subject},
                         {"a", difference.before},
                         {"b", difference.after},
                         {"change_percent", difference.change_percent ? ordered_json(*difference.change_percent)
                                                                      : ordered_json(nullptr)}});
    const ordered_json document{{"diff_version", diff_json_version},
                                {"a", before_name},
                                {"b", after_name},
                                {"threshold_percent", diff.threshold_percent},
                                {"count", diff.differences.size()},
                                {"differences", differences},
                                {"not_compared", diff.not_compared}};
    out << document.dump(2, ' ', false, ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace

void render_diff(const ReportDiff& diff, const std::string& before_name, const std::string& after_name, Format format,
                 std::ostream& out) {
    if (format == Format::json) render_diff_json(diff, before_name, after_name, out);
    else render_diff_table(diff, before_name, after_name, out);
}

}  // namespace cudacheck
