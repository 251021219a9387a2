// Prometheus text exposition format (version 0.0.4), for node_exporter's textfile collector: a
// cluster keeps cudacheck's verdicts and figures per node as time series. One gauge per check
// (and device) and status, 1 for the status it ended with and 0 for the others (the usual way to
// expose an enum), so each series keeps its labels from run to run; one per finding, by code; one
// per performance figure; the exit code, duration and versions.
// Label values are escaped as the format requires (backslash, double quote, newline).
#include "render/renderer.hpp"
#include "render/text_support.hpp"

#include <fmt/format.h>

namespace cudacheck {

namespace {

std::string label_value(std::string_view text) {
    std::string escaped;
    for (char c : text) {
        if (c == '\\') escaped += "\\\\";
        else if (c == '"') escaped += "\\\"";
        else if (c == '\n') escaped += "\\n";
        else escaped += c;
    }
    return escaped;
}

std::string device_label(const CheckResult& result) { return result.device ? std::to_string(*result.device) : std::string(); }

void family(std::ostream& out, std::string_view name, std::string_view help) {
    out << "# HELP " << name << ' ' << help << '\n' << "# TYPE " << name << " gauge\n";
}

class PrometheusRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        family(out, "cudacheck_check_status", "Status of each cudacheck check (and device): 1 for the status it ended with, 0 for the others.");
        for (const CheckResult& result : report.checks)
            for (Status status : {Status::pass, Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
                out << fmt::format("cudacheck_check_status{{check=\"{}\",device=\"{}\",status=\"{}\"}} {}\n", label_value(result.check_id),
                                   device_label(result), to_string(status), status == result.status ? 1 : 0);
        family(out, "cudacheck_finding", "Each problem a check found, by its catalog code (cudacheck explain CODE); always 1.");
        for (const CheckResult& result : report.checks)
            for (const Finding& finding : result.findings)
                out << fmt::format("cudacheck_finding{{check=\"{}\",device=\"{}\",code=\"{}\",status=\"{}\"}} 1\n", label_value(result.check_id),
                                   device_label(result), label_value(finding.code), to_string(finding.status));
        family(out, "cudacheck_figure", "Performance figures the checks measured, in the unit named by the unit label.");
        for (const CheckResult& result : report.checks)
            for (const Metric& metric : result.metrics)
                if (is_performance_figure(metric))
                    out << fmt::format("cudacheck_figure{{check=\"{}\",device=\"{}\",name=\"{}\",unit=\"{}\"}} {}\n", label_value(result.check_id),
                                       device_label(result), label_value(metric.name), label_value(metric.unit), metric.value);
        family(out, "cudacheck_gpus", "CUDA devices the run saw.");
        out << "cudacheck_gpus " << report.devices.size() << '\n';
        family(out, "cudacheck_exit_code", "cudacheck's exit code: 0 nothing failed, 1 a check failed, 130/143 interrupted.");
        out << "cudacheck_exit_code " << report.exit_code << '\n';
        family(out, "cudacheck_run_duration_seconds", "Wall time of the run.");
        out << fmt::format("cudacheck_run_duration_seconds {}\n", report.duration_ms / 1000.0);
        family(out, "cudacheck_info", "Versions the run found (empty when unknown); always 1.");
        out << fmt::format("cudacheck_info{{version=\"{}\",driver=\"{}\",driver_cuda=\"{}\",runtime=\"{}\",nvcc=\"{}\",level=\"{}\"}} 1\n",
                           label_value(report.tool_version), label_value(report.versions.driver), label_value(report.versions.driver_cuda),
                           label_value(report.versions.runtime), label_value(report.versions.nvcc), label_value(report.level));
        if (!report.frameworks) return;
        family(out, "cudacheck_framework_status",
               "Each Python framework found (frameworks.builds): 1 for the status its findings give it, 0 for the others.");
        for (const PythonEnvironmentInfo& environment : *report.frameworks)
            for (const FrameworkInfo& framework : environment.frameworks)
                for (Status status : {Status::pass, Status::warn, Status::fail})
                    out << fmt::format("cudacheck_framework_status{{environment=\"{}\",framework=\"{}\",version=\"{}\",cuda=\"{}\",status=\"{}\"}} {}\n",
                                       label_value(environment.prefix), label_value(framework.framework), label_value(framework.version),
                                       label_value(framework.cuda), to_string(status), framework.status == to_string(status) ? 1 : 0);
    }
};

}  // namespace

std::unique_ptr<Renderer> make_prometheus_renderer() { return std::make_unique<PrometheusRenderer>(); }

}  // namespace cudacheck
