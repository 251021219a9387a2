// JUnit XML for CI systems (GitHub Actions test reporters, GitLab's `artifacts:reports:junit`,
// Jenkins): one testcase per check and device. fail becomes <failure>, error and timeout
// <error>, skip <skipped>; a warning passes (JUnit has no warning) with its finding in
// <system-out>, unless the run was --strict, where it fails as it does for the exit code.
#include "render/renderer.hpp"
#include "render/text_support.hpp"

#include <fmt/format.h>

namespace cudacheck {

namespace {

// Length of the UTF-8 sequence starting at text[at], or 0 when it is not a valid one.
std::size_t utf8_length(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
    const unsigned char lead = byte(at);
    std::size_t length = 0;
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) length = 3;
    else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
    else return 0;
    if (at + length > text.size()) return 0;
    for (std::size_t i = 1; i < length; ++i)
        if ((byte(at + i) & 0xc0) != 0x80) return 0;
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((lead == 0xe0 && byte(at + 1) < 0xa0) || (lead == 0xed && byte(at + 1) >= 0xa0) || (lead == 0xf0 && byte(at + 1) < 0x90) ||
        (lead == 0xf4 && byte(at + 1) >= 0x90))
        return 0;
    return length;
}

// Text for an attribute or element: XML-escaped, with what XML 1.0 cannot carry at all (control
// characters, invalid UTF-8 from a path or a loader message) replaced by U+FFFD.
std::string xml(std::string_view text) {
    std::string escaped;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t length = utf8_length(text, at);
        if (length == 0) {
            escaped += "\xef\xbf\xbd";
            ++at;
            continue;
        }
        if (length > 1) {
            escaped.append(text, at, length);
            at += length;
            continue;
        }
        const char c = text[at++];
        switch (c) {
            case '&': escaped += "&amp;"; break;
            case '<': escaped += "&lt;"; break;
            case '>': escaped += "&gt;"; break;
            case '"': escaped += "&quot;"; break;
            case '\'': escaped += "&apos;"; break;
            case '\n': escaped += "&#10;"; break;
            case '\t': escaped += "&#9;"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) escaped += "\xef\xbf\xbd";
                else escaped += c;
        }
    }
    return escaped;
}

std::string seconds(double milliseconds) { return fmt::format("{:.6f}", milliseconds / 1000.0); }

// "node: fix text [CC201] docs/errors.md#cc201" lines for every finding.
std::string findings_text(const CheckResult& result) {
    std::string text;
    for (const Finding& finding : result.findings)
        text += fmt::format("{} {}: {}\nfix: {}\ndocs: docs/errors.md#{}\n", status_word(finding.status), finding.code, finding.message,
                            finding.remediation, finding.code.empty() ? "" : "cc" + finding.code.substr(2));
    return text;
}

bool counts_as_failure(const CheckResult& result, bool strict) {
    return result.status == Status::fail || (strict && result.status == Status::warn);
}

bool counts_as_error(const CheckResult& result) { return result.status == Status::error || result.status == Status::timeout; }

class JunitRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        int failures = 0;
        int errors = 0;
        for (const CheckResult& result : report.checks) {
            failures += counts_as_failure(result, report.strict) ? 1 : 0;
            errors += counts_as_error(result) ? 1 : 0;
        }
        const int tests = static_cast<int>(report.checks.size());
        const int skipped = report.summary.count(Status::skip);
        const std::string totals = fmt::format(R"(tests="{}" failures="{}" errors="{}" skipped="{}" time="{}")", tests, failures, errors, skipped,
                                               seconds(report.duration_ms));
        // JUnit's timestamp is a local date and time without a zone; the report's is UTC.
        std::string timestamp = report.timestamp_utc;
        if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
        out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        out << fmt::format("<testsuites name=\"cudacheck\" {}>\n", totals);
        out << fmt::format("  <testsuite name=\"cudacheck\" {} timestamp=\"{}\" hostname=\"{}\">\n", totals, xml(timestamp),
                           xml(report.host.hostname.empty() ? "unknown" : report.host.hostname));
        out << "    <properties>\n";
        const std::pair<std::string_view, const std::string*> properties[] = {
            {"cudacheck.version", &report.tool_version}, {"level", &report.level},
            {"driver", &report.versions.driver},         {"driver_cuda", &report.versions.driver_cuda},
            {"runtime", &report.versions.runtime},       {"nvcc", &report.versions.nvcc}};
        for (const auto& [name, value] : properties)
            if (!value->empty()) out << fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml(*value));
        out << fmt::format("      <property name=\"exit_code\" value=\"{}\"/>\n", report.exit_code);
        out << "    </properties>\n";
        for (const CheckResult& result : report.checks) render_testcase(result, report.strict, out);
        out << "  </testsuite>\n</testsuites>\n";
    }

    static void render_testcase(const CheckResult& result, bool strict, std::ostream& out) {
        const std::string area = result.check_id.substr(0, result.check_id.find('.'));
        out << fmt::format("    <testcase name=\"{}\" classname=\"cudacheck.{}\" time=\"{}\"", xml(check_label(result)), xml(area),
                           seconds(result.duration_ms));
        if (result.status == Status::pass) {
            out << "/>\n";
            return;
        }
        out << ">\n";
        const std::string message = result.code.empty() ? result.message : fmt::format("{}: {}", result.code, result.message);
        if (result.status == Status::skip) {
            out << fmt::format("      <skipped message=\"{}\"/>\n", xml(result.skip_reason.empty() ? result.message : result.skip_reason));
        } else if (counts_as_failure(result, strict) || counts_as_error(result)) {
            const std::string_view element = counts_as_error(result) ? "error" : "failure";
            out << fmt::format("      <{} message=\"{}\" type=\"{}\">{}</{}>\n", element, xml(message), xml(result.code.empty() ? to_string(result.status) : result.code),
                               xml(findings_text(result)), element);
        } else {
            out << fmt::format("      <system-out>{}</system-out>\n", xml(findings_text(result)));
        }
        out << "    </testcase>\n";
    }
};

}  // namespace

std::unique_ptr<Renderer> make_junit_renderer() { return std::make_unique<JunitRenderer>(); }

}  // namespace cudacheck
