// The report as one self-contained HTML page (`-o report.html`, `render --format html`): what a
// person opens from a ticket or a CI artifact. The verdicts and fixes first, then the checks with
// their evidence folded (<details>), then charts drawn from the report's numbers (svg_chart.hpp):
// GEMM and bandwidth against the datasheet peak, gpu.stress over time per GPU, gpu.memtest per
// pattern, and which program loads which copy of each CUDA library.
//
// One file, nothing fetched: no script, no web font, no image file. A Content-Security-Policy
// that allows only the inline style says so to the browser, which would block (and log) any
// fetch, so the headless-browser test (tests/support/check_html_in_browser.py) proves it too.
#include "render/renderer.hpp"
#include "render/svg_chart.hpp"
#include "render/text_support.hpp"
#include "report/legacy_metrics.hpp"
#include "report/remedy.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace cudacheck {

namespace {

std::string esc(std::string_view text) { return xml_escape(text); }

// A message or fix with its `backtick spans` as <code>.
std::string inline_html(std::string_view text) {
    std::string html;
    for (const TextSpan& span : code_spans(text))
        html += span.code ? "<code>" + esc(span.text) + "</code>" : esc(span.text);
    return html;
}

std::string status_class(Status status) { return std::string(to_string(status)); }

std::string badge(Status status) {
    return fmt::format("<span class=\"badge {}\">{}</span>", status_class(status), status_word(status));
}

constexpr std::string_view style = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#1b1b1b;line-height:1.4}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #e5e5e5;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f5f5f5}code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;background:#f2f2f2;padding:0 3px;border-radius:3px}
.badge{display:inline-block;min-width:58px;text-align:center;border-radius:4px;padding:1px 6px;font-size:12px;font-weight:bold;color:#fff}
.pass{background:#2e7d32}.warn{background:#ed8f00}.fail,.error,.timeout{background:#c62828}.skip{background:#8a8a8a}
.fix{margin:4px 0;padding:4px 8px;background:#fff8e1;border-left:3px solid #ed8f00}
.problem{margin:8px 0;padding:8px 10px;border:1px solid #e0e0e0;border-radius:6px}
details summary{cursor:pointer;color:#555;font-size:12px}dl{margin:4px 0;font-size:12px}dt{font-weight:bold;float:left;clear:left;width:230px;overflow-wrap:anywhere}
dd{margin-left:240px;overflow-wrap:anywhere;white-space:pre-wrap}.meta{color:#555;font-size:13px}.charts{display:flex;flex-wrap:wrap;gap:12px}
.note{color:#555;font-size:12px}svg.chart{background:#fff;border:1px solid #eee;max-width:100%;height:auto}
)";

void write_head(const Report& report, std::ostream& out) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           // Only the inline style may load: the page fetches nothing, and a browser says so if it tried.
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << fmt::format("<title>cudacheck {}: {}</title>\n", status_word(report.summary.overall),
                       esc(report.host.hostname.empty() ? "report" : report.host.hostname))
        << "<style>" << style << "</style>\n</head>\n<body>\n";
}

void write_header(const Report& report, std::ostream& out) {
    out << fmt::format("<header><h1>cudacheck: {} on {}</h1>\n", badge(report.summary.overall),
                       esc(report.host.hostname.empty() ? "?" : report.host.hostname));
    const VersionInfo& v = report.versions;
    const auto or_unknown = [](const std::string& text) { return text.empty() ? std::string("?") : text; };
    out << fmt::format(
        "<p class=\"meta\">{} &middot; level {}{} &middot; {} &middot; exit code {} &middot; {:.1f} s<br>"
        "driver {} (CUDA {}) &middot; runtime {} &middot; nvcc {} &middot; {} GPU(s) &middot; {} {} &middot; cudacheck "
        "{}</p>\n",
        esc(report.timestamp_utc), esc(report.level), report.strict ? " (strict)" : "",
        esc(summary_counts(report.summary)), report.exit_code, report.duration_ms / 1000.0, esc(or_unknown(v.driver)),
        esc(or_unknown(v.driver_cuda)), esc(or_unknown(v.runtime)), esc(or_unknown(v.nvcc)), report.devices.size(),
        esc(report.host.os_pretty_name), esc(report.host.kernel_release), esc(report.tool_version));
    if (report.redaction) out << "<p class=\"note\">" << esc(redaction_note(*report.redaction)) << "</p>\n";
    out << "</header>\n";
}

void write_problems(const Report& report, std::ostream& out) {
    std::string items;
    for (const CheckResult& result : report.checks)
        for (const Finding& finding : result.findings)
            items += fmt::format(
                "<div class=\"problem\">{} <code>{}</code> <b>{}</b>: {}{}<div class=\"note\">cudacheck explain "
                "{}</div></div>\n",
                badge(finding.status), esc(check_label(result)), esc(finding.code), inline_html(finding.message),
                finding.remediation.empty() ? ""
                                            : "<div class=\"fix\">Fix: " + inline_html(finding.remediation) + "</div>",
                esc(finding.code));
    if (items.empty()) return;
    out << "<section id=\"problems\"><h2>What to fix</h2>\n" << items << "</section>\n";
}

// The report's one ordered fix (report/remedy.hpp), when a finding asks for more than configuration:
// the node's step and action class, then a row per GPU with the findings that call for its step.
void write_remedy(const Report& report, std::ostream& out) {
    const RemedyPlan plan = plan_remedy(report);
    if (plan.step == Remedy::none || plan.step == Remedy::fix_config) return;
    out << fmt::format("<section id=\"remedy\"><h2>Remedy</h2>\n<p><b>{}</b> (action class <code>{}</code>)</p>\n",
                       esc(describe_step(plan.step)), esc(action_class(plan.step)));
    if (!plan.gpus.empty()) {
        out << "<table>\n<tr><th>GPU</th><th>Step</th><th>Because</th></tr>\n";
        for (const GpuRemedy& gpu : plan.gpus) {
            std::string because;
            for (const RemedyReason& reason : gpu.because)
                because += fmt::format("<div>{} <b>{}</b> {}</div>", badge(reason.status), esc(reason.code),
                                       inline_html(reason.message));
            out << fmt::format("<tr><td>{}<br><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                               gpu.nvml_index ? fmt::format("GPU {}", *gpu.nvml_index) : std::string("GPU"),
                               esc(gpu.gpu), esc(describe_step(gpu.step, gpu.nvml_index)), because);
        }
        out << "</table>\n";
    }
    for (const RemedyReason& reason : plan.node)
        out << fmt::format("<div class=\"problem\">{} <b>{}</b> node: {}</div>\n", badge(reason.status),
                           esc(reason.code), inline_html(reason.message));
    out << "</section>\n";
}

void write_checks(const Report& report, std::ostream& out) {
    out << "<section "
           "id=\"checks\"><h2>Checks</h2>\n<table>\n<tr><th>Status</th><th>Check</th><th>Result</th><th>Figure</"
           "th><th>Time</th></tr>\n";
    for (const CheckResult& result : report.checks) {
        const Metric* figure = key_figure(result);
        std::string details;
        if (!result.evidence.empty()) {
            details = fmt::format("<details><summary>Evidence ({})</summary><dl>", result.evidence.size());
            for (const Evidence& evidence : result.evidence)
                details += fmt::format("<dt>{}</dt><dd>{}</dd>", esc(evidence.key), esc(evidence.value));
            details += "</dl></details>";
        }
        // Every figure by its name, so that one a check adds shows here as it is.
        if (!result.metrics.empty()) {
            details += fmt::format("<details><summary>Figures ({})</summary><dl>", result.metrics.size());
            for (const Metric& metric : result.metrics)
                details += fmt::format("<dt>{}</dt><dd>{}</dd>", esc(metric.name), esc(format_metric(metric)));
            details += "</dl></details>";
        }
        out << fmt::format("<tr><td>{}</td><td><code>{}</code></td><td>{}{}{}</td><td>{}</td><td>{:.0f} ms</td></tr>\n",
                           badge(result.status), esc(check_label(result)), inline_html(result.message),
                           result.remediation.empty()
                               ? ""
                               : "<div class=\"fix\">Fix: " + inline_html(result.remediation) + "</div>",
                           details, figure ? esc(format_metric(*figure)) : "", result.duration_ms);
    }
    out << "</table>\n</section>\n";
}

// The figure of `family` whose label `label` is `value`, the first where there are several.
const Metric* labelled(const CheckResult& result, std::string_view family, std::string_view label,
                       std::string_view value) {
    for (const Metric& metric : result.metrics)
        if (metric.family == family)
            if (const std::string* text = metric.label(label); text != nullptr && *text == value) return &metric;
    return nullptr;
}

std::string gpu_name(std::optional<int> device) {
    return device ? fmt::format("GPU {}", *device) : std::string("host");
}

// A bar for each value of `label` among the figures of `family` (the first figure of each, in the
// check's order), against the figure of `peak_family` with the same value, where there is one.
void add_bars(const CheckResult& result, std::string_view family, std::string_view label, std::string_view peak_family,
              bool upper, svg::BarChart& chart) {
    std::set<std::string> seen;
    for (const Metric& rate : result.metrics) {
        const std::string* value = rate.family == family ? rate.label(label) : nullptr;
        if (value == nullptr || !seen.insert(*value).second) continue;
        std::string name = *value;
        std::transform(name.begin(), name.end(), name.begin(), [&](unsigned char c) {
            return c == '_' ? ' ' : upper ? static_cast<char>(std::toupper(c)) : static_cast<char>(c);
        });
        std::optional<double> peak;
        if (const Metric* reference = labelled(result, peak_family, label, *value);
            reference != nullptr && reference->value > 0)
            peak = reference->value;
        chart.bars.push_back(svg::Bar{fmt::format("{} {}", gpu_name(result.device), name), rate.value, peak, false,
                                      peak ? fmt::format("{:.0f}% of {:.0f}", 100.0 * rate.value / *peak, *peak) : ""});
    }
}

// A result with its peaks: a report before 1.10.0 gave them as shares only (legacy_metrics.hpp).
CheckResult with_peaks(CheckResult result) {
    add_legacy_peaks(result);
    return result;
}

// The datasheet peak cublas.gemm measured a precision against (its gemm_peak figure).
std::optional<double> gemm_peak(const CheckResult& gemm, std::string_view precision) {
    const Metric* peak = labelled(gemm, "gemm_peak", "precision", precision);
    if (peak == nullptr || peak->value <= 0) return std::nullopt;
    return peak->value;
}

void write_figures(const Report& report, std::ostream& out) {
    svg::BarChart gemm{"cublas.gemm rate against the datasheet peak", "TFLOP/s", {}, "datasheet peak"};
    svg::BarChart bandwidth{"cuda.memory bandwidth", "GB/s", {}, "theoretical peak"};
    for (const CheckResult& result : report.checks) {
        if (result.check_id == "cublas.gemm")
            add_bars(with_peaks(result), "gemm", "precision", "gemm_peak", true, gemm);
        if (result.check_id == "cuda.memory")
            add_bars(with_peaks(result), "memory_bandwidth", "direction", "memory_bandwidth_theoretical", false,
                     bandwidth);
    }
    if (gemm.bars.empty() && bandwidth.bars.empty()) return;
    out << "<section id=\"figures\"><h2>Figures</h2>\n<div class=\"charts\">\n";
    if (!gemm.bars.empty()) out << svg::render(gemm) << '\n';
    if (!bandwidth.bars.empty()) out << svg::render(bandwidth) << '\n';
    out << "</div>\n</section>\n";
}

const Series* find_series(const CheckResult& result, std::string_view name) {
    for (const Series& series : result.series)
        if (series.name == name) return &series;
    return nullptr;
}

// A line from two columns of a series; nullopt when the series lacks either.
std::optional<svg::Line> series_line(const Series* series, std::string_view x, std::string_view y, std::string name) {
    if (series == nullptr) return std::nullopt;
    const SeriesColumn* xs = series->column(x);
    const SeriesColumn* ys = series->column(y);
    if (xs == nullptr || ys == nullptr) return std::nullopt;
    svg::Line line{std::move(name), {}, ys->values};
    for (const std::optional<double>& value : xs->values) line.x.push_back(value.value_or(0.0));
    return line;
}

void write_stress(const Report& report, std::ostream& out) {
    svg::LineChart rate{"gpu.stress rate", "seconds into the run", "TFLOP/s", {}, {}, {}};
    svg::LineChart clock{"SM clock", "seconds into the run", "MHz", {}, {}, {}};
    svg::LineChart temperature{"Temperature", "seconds into the run", "C", {}, {}, {}};
    svg::LineChart power{"Power", "seconds into the run", "W", {}, {}, {}};
    std::set<long> peaks;
    for (const CheckResult& result : report.checks) {
        if (result.check_id == "cublas.gemm")
            if (const auto peak = gemm_peak(with_peaks(result), "bf16")) peaks.insert(std::lround(*peak));
        if (result.check_id != "gpu.stress") continue;
        const Series* per_second = find_series(result, "per_second");
        const Series* samples = find_series(result, "nvml_samples");
        const std::string name = gpu_name(result.device);
        if (auto line = series_line(per_second, "second", "tflops", name)) rate.lines.push_back(std::move(*line));
        // NVML's own samples where the report has them, else its per-second summary.
        const bool raw = samples != nullptr;
        for (const auto& [chart, column] :
             {std::pair{&clock, "sm_clock"}, {&temperature, "temperature"}, {&power, "power"}})
            if (auto line = series_line(raw ? samples : per_second, raw ? "time" : "second", column, name))
                chart->lines.push_back(std::move(*line));
    }
    if (rate.lines.empty() && clock.lines.empty()) return;
    // The BF16 datasheet peak the stress GEMM runs against, when every GPU has the same.
    if (peaks.size() == 1) {
        rate.reference = static_cast<double>(*peaks.begin());
        rate.reference_label = fmt::format("BF16 datasheet peak {}", *peaks.begin());
    }
    out << "<section id=\"stress\"><h2>Burn-in: gpu.stress over time</h2>\n<div class=\"charts\">\n";
    for (const svg::LineChart* chart : {&rate, &clock, &temperature, &power})
        if (!chart->lines.empty()) out << svg::render(*chart) << '\n';
    out << "</div>\n</section>\n";
}

void write_memtest(const Report& report, std::ostream& out) {
    std::string charts;
    for (const CheckResult& result : report.checks) {
        if (result.check_id != "gpu.memtest") continue;
        const Series* patterns = find_series(result, "per_pattern");
        if (patterns == nullptr) continue;
        const SeriesColumn* rate = patterns->column("bandwidth");
        const SeriesColumn* wrong = patterns->column("mismatched_words");
        if (rate == nullptr) continue;
        svg::ColumnChart chart{fmt::format("gpu.memtest {} per pattern", gpu_name(result.device)),
                               "GB/s",
                               {},
                               fmt::format("{} patterns, in the order they ran", rate->values.size())};
        for (std::size_t i = 0; i < rate->values.size(); ++i) {
            const double mismatched =
                wrong != nullptr && i < wrong->values.size() ? wrong->values[i].value_or(0.0) : 0.0;
            chart.columns.push_back(
                svg::Column{i < patterns->labels.size() ? patterns->labels[i] : fmt::format("pattern {}", i),
                            rate->values[i], mismatched > 0,
                            mismatched > 0 ? fmt::format("{:.0f} mismatched words", mismatched) : ""});
        }
        charts += svg::render(chart) + '\n';
    }
    if (charts.empty()) return;
    out << "<section id=\"memtest\"><h2>Burn-in: gpu.memtest per pattern</h2>\n<p class=\"note\">Red: a pattern that "
           "read back words other than "
           "it wrote.</p>\n<div class=\"charts\">\n"
        << charts << "</div>\n</section>\n";
}

// Who loads which copy: ld.so for a C/C++ program (the copy libraries.resolution found first),
// cudacheck itself (the files its processes mapped), and each Python framework (its libraries).
// All from the report's `libraries` and `frameworks` sections.
void write_libraries(const Report& report, std::ostream& out) {
    if (libraries_predate_section(report)) {
        out << "<section id=\"libraries\"><h2>Library copies</h2>\n<p class=\"note\">Not shown: "
            << inline_html(libraries_predate_section_text)
            << ". A report of this cudacheck has them.</p>\n</section>\n";
        return;
    }
    const std::vector<LibraryCopyView> copies = library_copies(report);
    if (copies.empty()) return;
    const std::set<std::string> cudacheck_paths(report.libraries->loaded_by_cudacheck.begin(),
                                                report.libraries->loaded_by_cudacheck.end());
    svg::Matrix matrix{"CUDA library copies and who loads them", {"C/C++ (ld.so)", "cudacheck"}, {}};
    // A column for each framework that loads a CUDA library (torchvision loads none of its own),
    // named with its environment where there are several.
    std::vector<std::set<std::string>> framework_paths;
    const std::vector<PythonEnvironmentInfo> no_environments;
    const std::vector<PythonEnvironmentInfo>& environments = report.frameworks ? *report.frameworks : no_environments;
    const auto loads_libraries = [](const PythonEnvironmentInfo& environment) {
        return std::any_of(environment.frameworks.begin(), environment.frameworks.end(),
                           [](const FrameworkInfo& framework) { return !framework.libraries.empty(); });
    };
    const bool several = std::count_if(environments.begin(), environments.end(), loads_libraries) > 1;
    for (const PythonEnvironmentInfo& environment : environments)
        for (const FrameworkInfo& framework : environment.frameworks) {
            if (framework.libraries.empty()) continue;
            matrix.columns.push_back(several ? fmt::format("{} ({})", framework.framework, environment.prefix)
                                             : framework.framework);
            std::set<std::string> paths;
            for (const FrameworkLibraryInfo& library : framework.libraries) paths.insert(library.path);
            framework_paths.push_back(std::move(paths));
        }
    // Copies of unknown version (the toolkit's stubs) are not taken for a second version.
    std::map<std::string, std::set<std::string>> versions;
    for (const LibraryCopyView& copy : copies)
        if (!copy.version.empty()) versions[copy.soname].insert(copy.version);
    for (const LibraryCopyView& copy : copies) {
        svg::MatrixRow row{copy.soname,
                           fmt::format("{} {} {}", copy.version.empty() ? "version unknown" : copy.version, copy.origin,
                                       copy.path),
                           {copy.loaded_by_loader,
                            cudacheck_paths.contains(copy.real_path) || cudacheck_paths.contains(copy.path)},
                           versions[copy.soname].size() > 1};
        for (const std::set<std::string>& paths : framework_paths)
            row.marks.push_back(paths.contains(copy.path) || paths.contains(copy.real_path));
        matrix.rows.push_back(std::move(row));
    }
    out << "<section id=\"libraries\"><h2>Library copies</h2>\n<p class=\"note\">Every copy libraries.resolution "
           "found; a dot where a program "
           "loads it. A soname in red has copies of different versions.</p>\n"
        << svg::render(matrix) << "\n</section>\n";
}

void write_frameworks(const Report& report, std::ostream& out) {
    if (!report.frameworks || report.frameworks->empty()) return;
    out << "<section id=\"frameworks\"><h2>Python "
           "frameworks</h2>\n<table>\n<tr><th>Status</th><th>Environment</th><th>Framework</th><th>CUDA</th>"
           "<th>Loads</th><th>GPUs</th></tr>\n";
    for (const FrameworkRow& row : framework_rows(*report.frameworks))
        out << fmt::format("<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                           badge(row.status), esc(row.environment), esc(row.framework), esc(row.cuda), esc(row.loads),
                           esc(row.gpus));
    out << "</table>\n</section>\n";
}

void write_devices(const Report& report, std::ostream& out) {
    if (report.devices.empty()) return;
    out << "<section id=\"devices\"><h2>GPUs</h2>\n<table>\n<tr><th>GPU</th><th>Name</th><th>UUID</th><th>PCI "
           "bus</th><th>Compute capability</th>"
           "<th>Memory</th><th>SMs</th></tr>\n";
    for (const DeviceInfo& device : report.devices)
        out << fmt::format(
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}.{} "
            "({})</td><td>{}</td><td>{}</td></tr>\n",
            device.ordinal, esc(device.name), esc(device.uuid), esc(device.pci_bus_id), device.cc_major,
            device.cc_minor, esc(device.architecture), esc(format_bytes(device.total_memory_bytes)),
            device.multiprocessors);
    out << "</table>\n</section>\n";
}

class HtmlRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        write_head(report, out);
        write_header(report, out);
        write_remedy(report, out);
        write_problems(report, out);
        write_checks(report, out);
        write_figures(report, out);
        write_stress(report, out);
        write_memtest(report, out);
        write_libraries(report, out);
        write_frameworks(report, out);
        write_devices(report, out);
        out << fmt::format(
            "<footer class=\"note\"><p>Written by cudacheck {}; the JSON report (<code>-o report.json</code>) has "
            "every figure "
            "behind these charts.</p></footer>\n</body>\n</html>\n",
            esc(report.tool_version));
    }
};

}  // namespace

std::unique_ptr<Renderer> make_html_renderer() { return std::make_unique<HtmlRenderer>(); }

}  // namespace cudacheck
