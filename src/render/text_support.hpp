// Wording shared by the human-readable renderers (table, Markdown, JUnit), so that they name
// checks, statuses and figures the same way.
#pragma once

#include "report/report_query.hpp"  // check_label, is_performance_figure
#include "cudacheck/report.hpp"

#include <string>
#include <string_view>

namespace cudacheck {

// "PASS", "TIMEOUT"
[[nodiscard]] std::string status_word(Status status);
// The figure worth a glance: the first rate, bandwidth or time, not a count or an error ratio.
[[nodiscard]] const Metric* key_figure(const CheckResult& result);
// "4917 GB/s", "0.0102 ms"
[[nodiscard]] std::string format_metric(const Metric& metric);
// "Redacted (--redact): hostname, user name, device ids (7 replacements); values of HF_TOKEN."
[[nodiscard]] std::string redaction_note(const Redaction& redaction);
// "3 passed, 1 warned, 2 failed, 9 skipped"
[[nodiscard]] std::string summary_counts(const Summary& summary);

}  // namespace cudacheck
