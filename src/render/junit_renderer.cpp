// JUnit XML for CI systems (GitHub Actions test reporters, GitLab's `artifacts:reports:junit`,
// Jenkins): one testcase per check and device. fail becomes <failure>, error and timeout
// <error>, skip <skipped>; a warning passes (JUnit has no warning) with its finding in
// <system-out>, unless the run was --strict, where it fails as it does for the exit code.
#include "render/renderer.hpp"
#include "render/text_support.hpp"

#include <fmt/format.h>

namespace cudacheck {

namespace {

std::string seconds(double milliseconds) { return fmt::format("{:.6f}", milliseconds / 1000.0); }

// "node: fix text [CC201] docs/errors.md#cc201" lines for every finding.
std::string findings_text(const CheckResult& result) {
    std::string text;
    for (const Finding& finding : result.findings)
        text += fmt::format("{} {}: {}\nfix: {}\ndocs: docs/errors.md#{}\n", status_word(finding.status), finding.code,
                            finding.message, finding.remediation,
                            finding.code.empty() ? "" : "cc" + finding.code.substr(2));
    return text;
}

bool counts_as_failure(const CheckResult& result, bool strict) {
    return result.status == Status::fail || (strict && result.status == Status::warn);
}

bool counts_as_error(const CheckResult& result) {
    return result.status == Status::error || result.status == Status::timeout;
}

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
        const std::string totals = fmt::format(R"(tests="{}" failures="{}" errors="{}" skipped="{}" time="{}")", tests,
                                               failures, errors, skipped, seconds(report.duration_ms));
        // JUnit's timestamp is a local date and time without a zone; the report's is UTC.
        std::string timestamp = report.timestamp_utc;
        if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
        out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        out << fmt::format("<testsuites name=\"cudacheck\" {}>\n", totals);
        out << fmt::format("  <testsuite name=\"cudacheck\" {} timestamp=\"{}\" hostname=\"{}\">\n", totals,
                           xml_escape(timestamp),
                           xml_escape(report.host.hostname.empty() ? "unknown" : report.host.hostname));
        out << "    <properties>\n";
        const std::pair<std::string_view, const std::string*> properties[] = {
            {"cudacheck.version", &report.tool_version}, {"level", &report.level},
            {"driver", &report.versions.driver},         {"driver_cuda", &report.versions.driver_cuda},
            {"runtime", &report.versions.runtime},       {"nvcc", &report.versions.nvcc}};
        for (const auto& [name, value] : properties)
            if (!value->empty())
                out << fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml_escape(*value));
        out << fmt::format("      <property name=\"exit_code\" value=\"{}\"/>\n", report.exit_code);
        out << "    </properties>\n";
        for (const CheckResult& result : report.checks) render_testcase(result, report.strict, out);
        out << "  </testsuite>\n</testsuites>\n";
    }

    static void render_testcase(const CheckResult& result, bool strict, std::ostream& out) {
        const std::string area = result.check_id.substr(0, result.check_id.find('.'));
        out << fmt::format("    <testcase name=\"{}\" classname=\"cudacheck.{}\" time=\"{}\"",
                           xml_escape(check_label(result)), xml_escape(area), seconds(result.duration_ms));
        if (result.status == Status::pass) {
            out << "/>\n";
            return;
        }
        out << ">\n";
        const std::string message =
            result.code.empty() ? result.message : fmt::format("{}: {}", result.code, result.message);
        if (result.status == Status::skip) {
            out << fmt::format("      <skipped message=\"{}\"/>\n",
                               xml_escape(result.skip_reason.empty() ? result.message : result.skip_reason));
        } else if (counts_as_failure(result, strict) || counts_as_error(result)) {
            const std::string_view element = counts_as_error(result) ? "error" : "failure";
            out << fmt::format("      <{} message=\"{}\" type=\"{}\">{}</{}>\n", element, xml_escape(message),
                               xml_escape(result.code.empty() ? to_string(result.status) : result.code),
                               xml_escape(findings_text(result)), element);
        } else {
            out << fmt::format("      <system-out>{}</system-out>\n", xml_escape(findings_text(result)));
        }
        out << "    </testcase>\n";
    }
};

}  // namespace

std::unique_ptr<Renderer> make_junit_renderer() { return std::make_unique<JunitRenderer>(); }

}  // namespace cudacheck
