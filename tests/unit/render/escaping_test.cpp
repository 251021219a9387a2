// Text from the machine in the table and Markdown renderers (and TextTable, which list, diff, fleet
// and inspect share): a message, a fix, an evidence value, a device or file name holding a newline,
// a carriage return or an escape sequence reaches the terminal escaped, every finding keeps its one
// row, and the JSON keeps the raw values (it escapes them itself).
#include "render/renderer.hpp"
#include "render/text_table.hpp"
#include "support/golden_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::contains;
using test::golden_report;

const std::string hostile = "line one\nline two \x1b[2J\rover | written";

// The golden report with every kind of machine text made hostile (evidence and device name
// included); each result keeps its findings, so the line counts can be compared.
Report hostile_report() {
    Report report = golden_report();
    report.checks[0].message = hostile;
    report.checks[0].evidence = {{"os\x1b[31m", hostile}};
    for (CheckResult& result : report.checks)
        for (Finding& finding : result.findings) {
            finding.message += " " + hostile;
            finding.remediation += "\r\x1b]0;title\x07";
        }
    report.checks[1].message = report.checks[1].findings[0].message;
    report.devices[0].name = "NVIDIA\x1b[2J H200";
    report.checks[3].check_id = "gpu.evil|id\n";
    return report;
}

std::string rendered(const Report& report, Format format, bool verbose = true) {
    std::ostringstream out;
    make_renderer(format, RenderOptions{false, verbose})->render(report, out);
    return out.str();
}

// Control bytes other than the newlines that end lines.
std::size_t control_bytes(const std::string& text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return c != '\n' && (byte < 0x20 || byte == 0x7f);
    }));
}

// The '|' that separate Markdown table cells (those not escaped with a backslash).
std::size_t cell_separators(const std::string& line) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++count;
    return count;
}

// The hostile report in `format`, checked for raw control bytes and for as many lines as the
// golden report gives: no value added a line.
std::string rendered_hostile(Format format) {
    const std::string text = rendered(hostile_report(), format);
    EXPECT_EQ(control_bytes(text), 0u) << text;
    EXPECT_EQ(test::line_count(text), test::line_count(rendered(golden_report(), format))) << text;
    return text;
}

TEST(RendererEscaping, the_table_escapes_control_characters_and_keeps_one_line_per_finding) {
    const std::string table = rendered_hostile(Format::table);
    EXPECT_TRUE(contains(table, "line one\\nline two \\x1b[2J\\rover | written")) << table;
    EXPECT_TRUE(contains(table, "· os\\x1b[31m: line one\\n")) << "evidence, key and value\n" << table;
    EXPECT_TRUE(contains(table, "fix: Install the NVIDIA driver.\\r\\x1b]0;title\\x07  [CC210]")) << table;
    EXPECT_TRUE(contains(table, "gpu.evil|id\\n[0]")) << table;
}

TEST(RendererEscaping, markdown_escapes_control_characters_and_no_value_breaks_a_table_row) {
    const std::string markdown = rendered_hostile(Format::markdown);
    EXPECT_TRUE(contains(markdown, "| PASS | `host.os` | line one<br>line two \\\\x1b\\[2J\\\\rover \\| written |"))
        << markdown;
    EXPECT_TRUE(contains(markdown, "| `gpu.evil\\|id\\n[0]` |")) << "a | inside a code span in a cell is escaped too\n"
                                                                 << markdown;
    EXPECT_TRUE(contains(markdown, "NVIDIA\\\\x1b\\[2J H200")) << markdown;
    EXPECT_TRUE(contains(markdown, "  os\\x1b[31m: line one\\nline two \\x1b[2J\\rover | written\n"))
        << "evidence in its fence, one line\n"
        << markdown;
    // Every row of every table has as many cells as its heading.
    std::size_t columns = 0;
    std::size_t rows = 0;
    std::istringstream lines(markdown);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line.front() != '|') {
            columns = 0;
            continue;
        }
        if (columns == 0) {
            columns = cell_separators(line);
            continue;
        }
        EXPECT_EQ(cell_separators(line), columns) << line;
        ++rows;
    }
    EXPECT_GT(rows, hostile_report().checks.size()) << "the tables were read";
}

TEST(RendererEscaping, json_keeps_the_raw_values) {
    const Report report = hostile_report();
    const nlohmann::json document = nlohmann::json::parse(rendered(report, Format::json));
    EXPECT_EQ(document.at("checks").at(0).at("message"), hostile);
    EXPECT_EQ(document.at("devices").at(0).at("name"), "NVIDIA\x1b[2J H200");
}

TEST(RendererEscaping, text_table_cells_are_escaped_and_aligned_on_what_is_shown) {
    TextTable table({{"NODE"}, {"ERROR"}});
    table.add_row({"evil\x1b[2J", "cannot read\nx.json"});
    table.add_row({"node-01", "ok"});
    const std::vector<std::string> lines = table.lines();
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1], "evil\\x1b[2J  cannot read\\nx.json");
    EXPECT_EQ(lines[2], "node-01      ok");
}

}  // namespace
}  // namespace cudacheck
