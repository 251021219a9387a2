// Wording shared by the human-readable renderers (table, Markdown, JUnit), so that they name
// checks, statuses and figures the same way.
#pragma once

#include "report/report.hpp"
#include "report/report_query.hpp"  // check_label, is_performance_figure

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Text for an XML or HTML attribute or element: escaped, with what XML 1.0 cannot carry at all
// (control characters, invalid UTF-8 from a path or a loader message) replaced by U+FFFD.
[[nodiscard]] std::string xml_escape(std::string_view text);
// A check's message or fix in pieces: what it puts between backticks (a command, a variable, a
// path) is code, to copy as it is; the rest, an unpaired backtick included, is text.
struct TextSpan {
    std::string_view text;
    bool code = false;
};
[[nodiscard]] std::vector<TextSpan> code_spans(std::string_view text);
// "PASS", "TIMEOUT"
[[nodiscard]] std::string status_word(Status status);
// `text` in the status's colour (ANSI escapes) when `color`; as it is otherwise.
[[nodiscard]] std::string paint(bool color, Status status, std::string_view text);
// The figure worth a glance: the first rate, bandwidth or time, not a count or an error ratio.
[[nodiscard]] const Metric* key_figure(const CheckResult& result);
// "4917 GB/s", "0.0102 ms"
[[nodiscard]] std::string format_metric(const Metric& metric);
// "Redacted (--redact): hostname, user name, device ids (7 replacements); values of HF_TOKEN."
[[nodiscard]] std::string redaction_note(const Redaction& redaction);
// "3 passed, 1 warned, 2 failed, 9 skipped"
[[nodiscard]] std::string summary_counts(const Summary& summary);

// One row per framework of the `frameworks` section: what the table and Markdown show.
struct FrameworkRow {
    Status status = Status::pass;
    std::string environment;  // the prefix, "(python3)" after the one a bare python3 uses
    std::string framework;    // "PyTorch 2.11.0+cu130"
    std::string cuda;         // "13.0", "cpu"
    std::string loads;        // "cuDNN 9.19.0.56 wheel, cuBLAS 13.1.0.3 wheel, NCCL 2.28.9 wheel"
    std::string gpus;         // "0 native sm_90 SASS"
};
[[nodiscard]] std::vector<FrameworkRow> framework_rows(const std::vector<PythonEnvironmentInfo>& environments);

}  // namespace cudacheck
