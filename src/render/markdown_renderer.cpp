// Markdown for a GitHub issue or a support ticket: a short summary table anyone can read at a
// glance, then the details (findings and fixes, devices, evidence, figures) folded into <details>
// sections so the ticket stays short. Every text from the system is escaped: a path or a loader
// message must not turn into HTML, a table column or a code fence, nor carry a control character
// (an escape sequence, a carriage return) to the terminal of whoever reads the file: those are
// written as sys::printable writes them ("\x1b"), a newline in a cell as <br>.
#include "render/renderer.hpp"
#include "render/text_support.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <sstream>
#include <vector>

namespace cudacheck {

namespace {

// Text inside a table cell or a paragraph: HTML and the Markdown characters that change meaning.
std::string escape(std::string_view text) {
    std::string escaped;
    for (char c : text) {
        switch (c) {
            case '&': escaped += "&amp;"; break;
            case '<': escaped += "&lt;"; break;
            case '>': escaped += "&gt;"; break;
            case '|': escaped += "\\|"; break;
            case '\\': escaped += "\\\\"; break;
            case '`': escaped += "\\`"; break;
            case '*': escaped += "\\*"; break;
            case '_': escaped += "\\_"; break;
            case '[': escaped += "\\["; break;
            case ']': escaped += "\\]"; break;
            case '\n': escaped += "<br>"; break;
            default:
                // "\x1b", "\r", "\t" as text: its backslash escaped, like any other.
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                    escaped += "\\" + sys::printable(std::string_view(&c, 1));
                else escaped += c;
        }
    }
    return escaped;
}

// A code span or fence that no backtick in `text` can close early.
std::string fence_for(std::string_view text, std::size_t minimum) {
    std::size_t longest = 0;
    std::size_t run = 0;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return std::string(std::max(minimum, longest + 1), '`');
}

// A code span: its text as is, but for control characters (a newline would end the span's line).
std::string code(std::string_view raw) {
    const std::string text = sys::printable(raw);
    const std::string fence = fence_for(text, 1);
    // A span that starts or ends with a backtick needs a space inside its fence.
    const bool padded = !text.empty() && (text.front() == '`' || text.back() == '`');
    return fmt::format("{0}{1}{2}{1}{0}", fence, padded ? " " : "", text);
}

// A code span in a table cell: a `|`, even inside the span, would end the cell (GitHub reads `\|`
// there as the character).
std::string cell_code(std::string_view raw) {
    std::string span = code(raw);
    for (std::size_t at = 0; (at = span.find('|', at)) != std::string::npos; at += 2) span.insert(at, 1, '\\');
    return span;
}

std::string or_unknown(const std::string& text) { return text.empty() ? "unknown" : text; }

// A check's message or fix: what it puts between backticks (a command, a variable, a path) is
// code, to copy as it is; the rest is escaped text. An unpaired backtick is text too (escaping
// every backtick made fixes read "\`export ...\`").
std::string inline_markdown(std::string_view text, bool in_cell) {
    std::string out;
    for (const TextSpan& span : code_spans(text)) {
        if (!span.code) out += escape(span.text);
        else out += span.text.empty() ? escape("``") : in_cell ? cell_code(span.text) : code(span.text);
    }
    return out;
}

// GitHub refuses an issue or comment body over 65,536 characters: the report is cut to fit, its
// bulkiest folded sections first, and says what is left out and where the whole is.
constexpr std::size_t github_body_limit = 65536;

class MarkdownRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        std::string head = render_head(report, false);
        // The folded sections, and the order they give way in when the whole is too long.
        struct Section {
            std::string name;
            std::string text;
            int give_way;  // lower goes first
        };
        const auto section = [&report](void (*render_part)(const Report&, std::ostream&)) {
            std::ostringstream text;
            render_part(report, text);
            return text.str();
        };
        std::vector<Section> sections = {{"findings", section(render_findings), 5},
                                         {"devices", section(render_devices), 3},
                                         {"frameworks", section(render_frameworks), 2},
                                         {"measurements", section(render_figures), 1},
                                         {"evidence", section(render_evidence), 0},
                                         {"host", section(render_host), 4}};
        const auto total = [&] {
            std::size_t size = head.size();
            for (const Section& part : sections) size += part.text.size();
            return size;
        };
        std::vector<std::string> left_out;
        // Room for the note that says what was cut.
        constexpr std::size_t note_room = 400;
        for (int turn = 0; turn <= 5 && total() + (left_out.empty() ? 0 : note_room) > github_body_limit; ++turn)
            for (Section& part : sections)
                if (part.give_way == turn && !part.text.empty()) {
                    left_out.push_back(fmt::format("{} ({} characters)", part.name, part.text.size()));
                    part.text.clear();
                }
        // Still too long (dozens of GPUs): the summary table keeps the checks that did not pass.
        if (total() + note_room > github_body_limit) {
            head = render_head(report, true);
            left_out.push_back("the rows of the checks that passed");
        }
        if (head.size() + note_room > github_body_limit) {
            head.resize(head.rfind('\n', github_body_limit - note_room) + 1);
            left_out.push_back("the rest of the summary table");
        }
        out << head;
        if (!left_out.empty())
            out << fmt::format(
                "\n_Cut to fit GitHub's {}-character limit: left out {}. Attach the whole report as JSON "
                "(`cudacheck -o report.json`, or the `.json` written beside this file)._\n",
                github_body_limit, fmt::join(left_out, ", "));
        for (const Section& part : sections) out << part.text;
    }

    // The heading, the versions line and the summary table; `compact`: only the rows of the checks
    // that did not pass, and how many did.
    static std::string render_head(const Report& report, bool compact) {
        const Summary& summary = report.summary;
        std::ostringstream head;
        head << fmt::format("### cudacheck: {} (exit {})\n\n", status_word(summary.overall), report.exit_code);
        head << fmt::format("cudacheck {}, level {}, {}; {}; driver {} (CUDA {}), runtime {}, nvcc {}; {} GPU(s)\n\n",
                            escape(report.tool_version), escape(report.level), escape(report.timestamp_utc),
                            escape(or_unknown(report.host.os_pretty_name)), escape(or_unknown(report.versions.driver)),
                            escape(or_unknown(report.versions.driver_cuda)),
                            escape(or_unknown(report.versions.runtime)), escape(or_unknown(report.versions.nvcc)),
                            report.devices.size());
        render_summary_table(report, head, compact);
        head << fmt::format("\n{} in {:.0f} ms.", summary_counts(summary), report.duration_ms);
        if (summary.overall == Status::skip) head << " Nothing was verified: every selected check was skipped.";
        head << '\n';
        if (report.redaction) head << '\n' << escape(redaction_note(*report.redaction)) << '\n';
        return head.str();
    }

    static void open_details(std::ostream& out, std::string_view title) {
        out << "\n<details><summary>" << title << "</summary>\n\n";
    }
    static void close_details(std::ostream& out) { out << "\n</details>\n"; }

    static void render_summary_table(const Report& report, std::ostream& out, bool compact) {
        out << "| status | check | result |\n|---|---|---|\n";
        std::size_t passed = 0;
        for (const CheckResult& result : report.checks) {
            if (compact && result.status == Status::pass) {
                ++passed;
                continue;
            }
            std::string line = inline_markdown(result.message, true);
            if (!result.code.empty()) line += fmt::format(" ({})", escape(result.code));
            out << fmt::format("| {} | {} | {} |\n", status_word(result.status), cell_code(check_label(result)), line);
        }
        if (passed > 0) out << fmt::format("| PASS | {} more | left out to fit |\n", passed);
    }

    static void render_findings(const Report& report, std::ostream& out) {
        std::size_t count = 0;
        for (const CheckResult& result : report.checks) count += result.findings.size();
        if (count == 0) return;
        open_details(out, fmt::format("Findings and fixes ({})", count));
        for (const CheckResult& result : report.checks)
            for (const Finding& finding : result.findings)
                out << fmt::format("- **{} {}** {}: {}\n  - fix: {}\n  - `cudacheck explain {}`\n",
                                   status_word(finding.status), escape(finding.code), code(check_label(result)),
                                   inline_markdown(finding.message, false), inline_markdown(finding.remediation, false),
                                   escape(finding.code));
        close_details(out);
    }

    static void render_devices(const Report& report, std::ostream& out) {
        if (report.devices.empty()) return;
        open_details(out, fmt::format("Devices ({})", report.devices.size()));
        out << "| # | name | compute capability | memory (GiB) | SMs | ECC | compute mode | UUID "
               "|\n|---|---|---|---|---|---|---|---|\n";
        for (const DeviceInfo& device : report.devices)
            out << fmt::format("| {} | {} | {}.{} {} | {:.1f} | {} | {} | {} | {} |\n", device.ordinal,
                               escape(device.name), device.cc_major, device.cc_minor, escape(device.architecture),
                               static_cast<double>(device.total_memory_bytes) / (1ULL << 30), device.multiprocessors,
                               device.ecc_enabled ? "on" : "off", escape(device.compute_mode),
                               escape(or_unknown(device.uuid)));
        close_details(out);
    }

    static void render_frameworks(const Report& report, std::ostream& out) {
        if (!report.frameworks) return;
        const std::vector<FrameworkRow> rows = framework_rows(*report.frameworks);
        if (rows.empty()) return;
        open_details(out, fmt::format("Python frameworks ({})", rows.size()));
        out << "| status | environment | framework | CUDA | loads | GPUs |\n|---|---|---|---|---|---|\n";
        for (const FrameworkRow& row : rows)
            out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", status_word(row.status), cell_code(row.environment),
                               escape(row.framework), escape(row.cuda), escape(row.loads), escape(row.gpus));
        close_details(out);
    }

    static void render_figures(const Report& report, std::ostream& out) {
        std::string rows;
        for (const CheckResult& result : report.checks)
            for (const Metric& metric : result.metrics)
                rows += fmt::format("| {} | {} | {} |\n", cell_code(check_label(result)), escape(metric.name),
                                    escape(fmt::format("{:.6g} {}", metric.value, metric.unit)));
        if (rows.empty()) return;
        open_details(out, "Measurements");
        out << "| check | metric | value |\n|---|---|---|\n" << rows;
        close_details(out);
    }

    // Evidence in fences, one line each, folded per GPU (the host checks first): paths and loader
    // messages are easiest to read without Markdown's escapes; only control characters are escaped.
    static void render_evidence(const Report& report, std::ostream& out) {
        std::map<int, std::string> groups;  // -1: the host checks
        for (const CheckResult& result : report.checks) {
            if (result.evidence.empty()) continue;
            std::string& lines = groups[result.device.value_or(-1)];
            lines += sys::printable(check_label(result)) + "\n";
            for (const Evidence& evidence : result.evidence)
                lines += fmt::format("  {}: {}\n", sys::printable(evidence.key), sys::printable(evidence.value));
        }
        for (const auto& [device, lines] : groups) {
            std::string title = "Evidence";
            if (groups.size() > 1 && device < 0) title = "Evidence: host checks";
            if (device >= 0) {
                const auto named = std::find_if(report.devices.begin(), report.devices.end(),
                                                [&](const DeviceInfo& info) { return info.ordinal == device; });
                title = named != report.devices.end()
                            ? fmt::format("Evidence: GPU {} ({})", device, escape(named->name))
                            : fmt::format("Evidence: GPU {}", device);
            }
            const std::string fence = fence_for(lines, 3);
            open_details(out, title);
            out << fence << "text\n" << lines << fence << '\n';
            close_details(out);
        }
    }

    static void render_host(const Report& report, std::ostream& out) {
        const HostInfo& host = report.host;
        open_details(out, "Host");
        out << fmt::format("- host: {}\n- OS: {}, kernel {}, {}, {}\n- CPU: {} ({} logical CPUs), {:.1f} GiB memory\n",
                           escape(or_unknown(host.hostname)), escape(or_unknown(host.os_pretty_name)),
                           escape(or_unknown(host.kernel_release)), escape(or_unknown(host.libc_version)),
                           escape(or_unknown(host.architecture)), escape(or_unknown(host.cpu_model)), host.logical_cpus,
                           static_cast<double>(host.memory_bytes) / (1ULL << 30));
        if (!host.container.empty()) out << fmt::format("- container: {}\n", escape(host.container));
        if (!host.wsl.empty()) out << fmt::format("- {}\n", escape(host.wsl));
        std::string command;
        for (const std::string& argument : report.argv) command += (command.empty() ? "" : " ") + argument;
        out << fmt::format("- command: {}\n", code(command));
        close_details(out);
    }
};

}  // namespace

std::unique_ptr<Renderer> make_markdown_renderer() { return std::make_unique<MarkdownRenderer>(); }

}  // namespace cudacheck
