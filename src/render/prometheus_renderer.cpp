// Prometheus text exposition format (version 0.0.4), for node_exporter's textfile collector: a
// cluster keeps cudacheck's verdicts and figures per node as time series, next to NVIDIA
// dcgm-exporter's, and joins the two on the GPU. All families are gauges (a run's figures are
// readings, not counters: no `_total`), and `promtool check metrics` finds nothing to say.
//
// Verdicts: one series per check (and GPU) and status, 1 for the status it ended with and 0 for
// the others (the usual way to expose an enum), so each series keeps its labels from run to run;
// one per finding, by code; the exit code, duration, versions and GPU count.
//
// Figures (is_performance_figure: rates, bandwidths, times, shares of a peak, sizes; not counts,
// error ratios or sample moments): one family per quantity, its unit in its name and the value
// converted to it, as https://prometheus.io/docs/practices/naming/ asks: base units (GB/s to
// bytes_per_second, ms to seconds, MHz to hertz, % to a 0-1 ratio, C as celsius, W as watts).
// FLOP rates are the one exception: TFLOP/s (`_tflops`), the unit GEMM throughput is quoted in
// and the name users query (cudacheck_gemm_tflops). Each figure carries its family, help and
// labels (result.hpp's MetricFamily, declared by the check): the family is cudacheck_<family>_<unit>,
// what varies within it (GEMM precision and size, copy direction, FFT length) its labels, a GPU
// named by a label that GPU's labels; a figure without a family comes out as
// cudacheck_<check>_<name>_<unit>. No figure's name is read here.
//
// GPU labels, as dcgm-exporter writes them (internal/pkg/rendermetrics/render_metrics.go, its
// gpuMetricsFormat template; internal/pkg/collector/gpu_collector.go fills it): `gpu` (DCGM's
// GPU id, which is NVML's index, the order nvidia-smi numbers GPUs in: so the NVML index here
// too, and the CUDA ordinal only where NVML matched no GPU; cudacheck_gpu_info maps one to the
// other), `UUID` and `pci_bus_id` (both in NVML's spelling, "00000000:00:06.0"), from the
// report's devices section. Host checks carry no GPU labels. dcgm-exporter's `modelName` is left
// out: promtool rejects camelCase label names (`UUID` and `Hostname` pass), and the join brings it.
//
// The host, as dcgm-exporter names it: the NODE_NAME variable when it is set, else the
// host's name (internal/pkg/hostname/hostname.go, getLocalHostname), NODE_NAME being set from the
// downward API's spec.nodeName by its manifests (dcgm-exporter.yaml, the Helm chart's
// deployment/templates/daemonset.yaml), as deploy/kubernetes sets it here. Its releases up to
// 4.5.3-4.8.2 write that value as `Hostname`, 4.6.0-4.8.3 and later as `hostname` ("Rename
// Hostname label to hostname (#655)"): every series here carries both, one value, so that
// `on(UUID, Hostname)` joins with the one and `on(UUID, hostname)` with the other. Not gethostname(),
// which in a Kubernetes pod is the pod's name: it names no node, joins with nothing and changes
// with every rollout. Outside Kubernetes (no NODE_NAME) it is unchanged.
// The run records NODE_NAME in the report (host.node_name, schema 1.9.0), so `cudacheck render`
// of a saved report anywhere gives the node that ran it, not the one rendering it.
// Under --redact there is no `UUID`, `hostname` or `Hostname` label (redacted placeholders join
// with nothing).
//
// `level` on every series: a quick, a standard and a full run measure different things
// under one check id (cuFFT's c2c n=4096 on an H200: 2.02 TFLOP/s at standard, 13.6 at full, in
// docs/examples/h200/cudacheck.json and issue16/second-call/full-new.json), and runs at two
// levels may leave files in one textfile directory, where node_exporter fails the whole scrape on
// a series two files hold ("was collected before with the same name and label values",
// prometheus/node_exporter#753). cudacheck_last_run_timestamp_seconds says when the run finished,
// so that `time() - cudacheck_last_run_timestamp_seconds` tells a dead loop's stale "pass" from a
// fresh one: the textfile collector serves a file's samples for as long as the file exists.
//
// Label values are escaped as the format requires (backslash, double quote, newline); every
// family's samples are written together, after its HELP and TYPE.
#include "render/renderer.hpp"
#include "render/text_support.hpp"
#include "report/remedy.hpp"
#include "report/report_query.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// HELP text escapes backslash and newline only.
std::string help_text(std::string_view text) {
    std::string escaped;
    for (char c : text) {
        if (c == '\\') escaped += "\\\\";
        else if (c == '\n') escaped += "\\n";
        else escaped += c;
    }
    return escaped;
}

std::string sample_value(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", value);
}

using Labels = std::vector<std::pair<std::string, std::string>>;

// The families in the order they first appear, each with its samples together.
class Families {
public:
    void add(const std::string& name, std::string_view help, const Labels& labels, double value) {
        auto [it, inserted] = index_.try_emplace(name, families_.size());
        if (inserted) families_.push_back({name, std::string(help), {}, {}});
        Family& family = families_[it->second];
        std::string key;
        for (std::size_t i = 0; i < labels.size(); ++i)
            key += fmt::format("{}{}=\"{}\"", i == 0 ? "" : ",", labels[i].first, label_value(labels[i].second));
        // One series per label set: a second finding of the same code on the same GPU is the same fact.
        if (!family.keys.insert(key).second) return;
        family.samples.push_back(fmt::format("{}{}{}{} {}\n", name, key.empty() ? "" : "{", key, key.empty() ? "" : "}",
                                             sample_value(value)));
    }
    void write(std::ostream& out) const {
        for (const Family& family : families_) {
            out << "# HELP " << family.name << ' ' << help_text(family.help) << '\n'
                << "# TYPE " << family.name << " gauge\n";
            for (const std::string& sample : family.samples) out << sample;
        }
    }

private:
    struct Family {
        std::string name;
        std::string help;
        std::vector<std::string> samples;
        std::set<std::string> keys;
    };
    std::vector<Family> families_;
    std::map<std::string, std::size_t> index_;
};

// A unit as the checks write it, and the one its family is named by.
struct Conversion {
    std::string_view unit;    // "GB/s"
    std::string_view suffix;  // "bytes_per_second"
    double multiply = 1.0;
    double divide = 1.0;
};
constexpr Conversion units[] = {
    {"GB/s", "bytes_per_second", 1e9, 1},
    {"MB/s", "bytes_per_second", 1e6, 1},
    {"TB/s", "bytes_per_second", 1e12, 1},
    {"B/s", "bytes_per_second", 1, 1},
    {"TFLOP/s", "tflops", 1, 1},
    {"GFLOP/s", "tflops", 1, 1e3},
    {"PFLOP/s", "tflops", 1e3, 1},
    {"Gsamples/s", "samples_per_second", 1e9, 1},
    {"Msamples/s", "samples_per_second", 1e6, 1},
    {"samples/s", "samples_per_second", 1, 1},
    {"s", "seconds", 1, 1},
    {"ms", "seconds", 1, 1e3},
    {"us", "seconds", 1, 1e6},
    {"ns", "seconds", 1, 1e9},
    {"%", "ratio", 1, 100},
    {"MHz", "hertz", 1e6, 1},
    {"GHz", "hertz", 1e9, 1},
    {"kHz", "hertz", 1e3, 1},
    {"Hz", "hertz", 1, 1},
    {"C", "celsius", 1, 1},
    {"W", "watts", 1, 1},
    {"mW", "watts", 1, 1e3},
    {"B", "bytes", 1, 1},
    {"bytes", "bytes", 1, 1},
    {"KiB", "bytes", 1024, 1},
    {"MiB", "bytes", 1024.0 * 1024, 1},
    {"GiB", "bytes", 1024.0 * 1024 * 1024, 1},
};

// Lower case, what a metric name cannot hold as '_', no doubled, leading or trailing '_'.
std::string sanitize(std::string_view text) {
    std::string name;
    for (char c : text) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        const char next = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : keep ? c : '_';
        if (next == '_' && (name.empty() || name.back() == '_')) continue;
        name += next;
    }
    while (!name.empty() && name.back() == '_') name.pop_back();
    return name;
}

// The family suffix and conversion for a unit; an unknown unit names itself ("ops/s": ops_per_second).
Conversion unit_of(std::string_view unit) {
    for (const Conversion& known : units)
        if (known.unit == unit) return known;
    return {unit, {}, 1, 1};
}
std::string suffix_of(const Conversion& unit) {
    if (!unit.suffix.empty()) return std::string(unit.suffix);
    std::string text(unit.unit);
    if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.replace(text.size() - 2, 2, "_per_second");
    return sanitize(text);
}

// Which numbering a GPU label of a figure uses: "device" and "peer_device" are CUDA ordinals,
// "gpu" an NVML index (result.hpp).
enum class Numbering { none, cuda, nvml };

struct Figure {
    std::string family;
    std::string help;
    Labels labels;  // the figure's own: precision, direction, ...
    Numbering numbering = Numbering::none;
    std::optional<int> device;  // from its "device" or "gpu" label
    std::optional<int> peer;    // from its "peer_device" label
    double value = 0.0;
};

std::optional<int> ordinal(const std::string& digits) {
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return value;
}

// The family of a figure: cudacheck_<family>_<unit> with the help the check declared, its labels
// as they are, but for those naming a GPU, which become that GPU's labels. A figure without a
// family (of a report read back whose figure no family is known for) is cudacheck_<check>_<name>_<unit>.
Figure figure_of(const CheckResult& result, const Metric& metric) {
    const Conversion unit = unit_of(metric.unit);
    const std::string suffix = suffix_of(unit);
    Figure figure;
    figure.value = metric.value * unit.multiply / unit.divide;
    const auto with_suffix = [&](std::string stem) {
        if (suffix.empty() ||
            (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0 &&
             stem[stem.size() - suffix.size() - 1] == '_'))
            return stem;
        return stem + "_" + suffix;
    };
    if (!metric.family.empty()) {
        figure.family = with_suffix("cudacheck_" + sanitize(metric.family));
        figure.help = fmt::format("{} Unit: {}.", metric.help, suffix.empty() ? "none" : suffix);
        for (const auto& [name, value] : metric.labels) {
            if (name == "device" || name == "gpu") {
                figure.device = ordinal(value);
                figure.numbering = name == "gpu" ? Numbering::nvml : Numbering::cuda;
            } else if (name == "peer_device") {
                figure.peer = ordinal(value);
            } else {
                figure.labels.emplace_back(sanitize(name), value);
            }
        }
        return figure;
    }
    std::string stem = sanitize(metric.name);
    if (suffix == "seconds" && stem.size() > 5 && stem.compare(stem.size() - 5, 5, "_time") == 0)
        stem.resize(stem.size() - 5);
    figure.family = with_suffix("cudacheck_" + sanitize(result.check_id) + (stem.empty() ? "" : "_" + stem));
    figure.help = fmt::format("{}'s figure {}. Unit: {} (the check reports {}).", result.check_id, metric.name,
                              suffix.empty() ? "none" : suffix, metric.unit);
    return figure;
}

// The host's name as dcgm-exporter gives it (see the top of this file): the report's node_name
// (NODE_NAME where it ran) when it has one, else its host.hostname; none when neither is known.
std::optional<std::string> host_name(const Report& report) {
    if (!report.host.node_name.empty()) return report.host.node_name;
    if (report.host.hostname.empty()) return std::nullopt;
    return report.host.hostname;
}

// "2026-11-30T01:40:00Z" (timestamp_utc, the schema's pattern) as Unix seconds; none for any other shape.
std::optional<double> unix_seconds(std::string_view utc) {
    if (utc.size() != 20 || utc[4] != '-' || utc[7] != '-' || utc[10] != 'T' || utc[13] != ':' || utc[16] != ':' ||
        utc[19] != 'Z')
        return std::nullopt;
    const auto field = [&](std::size_t at, std::size_t length) -> std::optional<int> {
        int value = 0;
        const char* end = utc.data() + at + length;
        const auto [stop, error] = std::from_chars(utc.data() + at, end, value);
        if (error != std::errc() || stop != end) return std::nullopt;
        return value;
    };
    const auto year = field(0, 4), month = field(5, 2), day = field(8, 2), hour = field(11, 2), minute = field(14, 2),
               second = field(17, 2);
    if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 || *day < 1 || *day > 31 ||
        *hour > 23 || *minute > 59 || *second > 60)
        return std::nullopt;
    std::tm time{};
    time.tm_year = *year - 1900;
    time.tm_mon = *month - 1;
    time.tm_mday = *day;
    time.tm_hour = *hour;
    time.tm_min = *minute;
    time.tm_sec = *second;
    return static_cast<double>(::timegm(&time));
}

class GpuLabels {
public:
    explicit GpuLabels(const Report& report) : report_(report), redacted_(report.redaction.has_value()) {
        if (!redacted_) hostname_ = host_name(report);
    }

    // The labels of the GPU with this CUDA ordinal (or NVML index), each prefixed ("peer_").
    [[nodiscard]] Labels of(std::optional<int> device, Numbering numbering = Numbering::cuda,
                            std::string_view prefix = {}) const {
        Labels labels;
        if (!device || numbering == Numbering::none) return labels;
        const DeviceInfo* info = nullptr;
        for (const DeviceInfo& candidate : report_.devices)
            if (numbering == Numbering::cuda ? candidate.ordinal == *device : candidate.nvml_index == *device)
                info = &candidate;
        const int gpu = info != nullptr && info->nvml_index ? *info->nvml_index : *device;
        labels.emplace_back(fmt::format("{}gpu", prefix), std::to_string(gpu));
        if (info != nullptr && !redacted_ && !info->uuid.empty())
            labels.emplace_back(fmt::format("{}UUID", prefix), info->uuid);
        if (info != nullptr && !info->pci_bus_id.empty())
            labels.emplace_back(fmt::format("{}pci_bus_id", prefix), info->pci_bus_id);
        return labels;
    }
    // The labels of the GPU a finding names by UUID or PCI bus id (Finding::gpu): the device's when
    // the report lists it, else what the finding says (its UUID, or its PCI bus id).
    [[nodiscard]] Labels of_gpu(const std::string& gpu) const {
        for (const DeviceInfo& candidate : report_.devices)
            if (gpu == candidate.uuid || gpu == candidate.pci_bus_id)
                return of(candidate.nvml_index ? candidate.nvml_index : std::optional<int>(candidate.ordinal),
                          candidate.nvml_index ? Numbering::nvml : Numbering::cuda);
        if (gpu.starts_with("GPU-")) return redacted_ ? Labels{} : Labels{{"UUID", gpu}};
        return Labels{{"pci_bus_id", gpu}};
    }
    // check, then the GPU's labels, then the run's (hostname, Hostname, level).
    [[nodiscard]] Labels of_check(const std::string& check, std::optional<int> device,
                                  Numbering numbering = Numbering::cuda) const {
        Labels labels{{"check", check}};
        for (auto& label : of(device, numbering)) labels.push_back(std::move(label));
        add_run(labels);
        return labels;
    }
    // What every series carries: the host, under both of dcgm-exporter's names, and the level.
    void add_run(Labels& labels) const {
        if (hostname_) {
            labels.emplace_back("hostname", *hostname_);
            labels.emplace_back("Hostname", *hostname_);
        }
        if (!report_.level.empty()) labels.emplace_back("level", report_.level);
    }
    [[nodiscard]] Labels run() const {
        Labels labels;
        add_run(labels);
        return labels;
    }

private:
    const Report& report_;
    bool redacted_;
    std::optional<std::string> hostname_;
};

Labels operator+(Labels left, const Labels& right) {
    left.insert(left.end(), right.begin(), right.end());
    return left;
}

class PrometheusRenderer final : public Renderer {
    void do_render(const Report& report, std::ostream& out) const override {
        const GpuLabels gpus(report);
        Families families;
        for (const CheckResult& result : report.checks)
            for (Status status :
                 {Status::pass, Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
                families.add("cudacheck_check_status",
                             "Status of each cudacheck check (per GPU for per-GPU checks): 1 for the status it ended "
                             "with, 0 for the others.",
                             gpus.of_check(result.check_id, result.device) +
                                 Labels{{"status", std::string(to_string(status))}},
                             status == result.status ? 1 : 0);
        for (const CheckResult& result : report.checks)
            for (const Finding& finding : result.findings) {
                Labels labels = finding.gpu.empty()
                                    ? gpus.of_check(result.check_id, result.device ? result.device : finding.device)
                                    : Labels{{"check", result.check_id}} + gpus.of_gpu(finding.gpu);
                if (!finding.gpu.empty()) gpus.add_run(labels);
                families.add("cudacheck_finding",
                             "Each problem a check found, by its catalog code (cudacheck explain CODE), with the step "
                             "it asks for and its action class; always 1.",
                             labels + Labels{{"code", finding.code},
                                             {"status", std::string(to_string(finding.status))},
                                             {"remedy", std::string(to_string(finding.remedy))},
                                             {"action_class", std::string(action_class(finding.remedy))}},
                             1);
            }
        const RemedyPlan plan = plan_remedy(report);
        families.add("cudacheck_remedy",
                     "The node's one ordered fix (the report's remedy): 1, with the step and its action class; a "
                     "health check drains for action_class reset or isolate.",
                     gpus.run() + Labels{{"step", std::string(to_string(plan.step))},
                                         {"action_class", std::string(action_class(plan.step))}},
                     1);
        for (const GpuRemedy& gpu : plan.gpus) {
            Labels labels = gpus.of_gpu(gpu.gpu);
            gpus.add_run(labels);
            families.add("cudacheck_gpu_remedy",
                         "Each GPU's step of the ladder its findings call for (restart_app, reset_gpu, drain_p2p, "
                         "bus_reset, reboot, service; none): 1.",
                         labels + Labels{{"step", std::string(to_string(gpu.step))},
                                         {"action_class", std::string(action_class(gpu.step))}},
                         1);
        }
        for (const CheckResult& result : report.checks)
            for (const Metric& metric : result.metrics) {
                if (!is_performance_figure(metric)) continue;
                const Figure figure = figure_of(result, metric);
                Labels labels{{"check", result.check_id}};
                labels = labels + (figure.device ? gpus.of(figure.device, figure.numbering) : gpus.of(result.device));
                if (figure.peer) labels = labels + gpus.of(figure.peer, Numbering::cuda, "peer_");
                gpus.add_run(labels);
                families.add(figure.family, figure.help, labels + figure.labels, figure.value);
            }
        // Counts are no performance figures, but the Xid events are what admins alert on: one series
        // per GPU and Xid, the GPU's labels where the report knows it (dcgm-exporter has
        // DCGM_FI_DEV_XID_ERRORS, the last Xid only).
        for (const CheckResult& result : report.checks)
            for (const Metric& metric : result.metrics) {
                if (metric.family != xid_events_family) continue;
                const std::string* gpu = metric.label("gpu");
                const std::string* xid = metric.label("xid");
                Labels labels{{"check", result.check_id}};
                int index = 0;
                const bool numbered = gpu != nullptr && !gpu->empty() &&
                                      std::from_chars(gpu->data(), gpu->data() + gpu->size(), index).ec == std::errc{};
                if (numbered) labels = labels + gpus.of(index, Numbering::nvml);
                else if (gpu != nullptr) labels.emplace_back("pci_bus_id", *gpu);
                gpus.add_run(labels);
                families.add("cudacheck_xid_events",
                             "Xid events the NVIDIA driver logged for a GPU since boot, by Xid (driver.kernel_log).",
                             labels + Labels{{"xid", xid != nullptr ? *xid : std::string()}}, metric.value);
            }
        for (const DeviceInfo& device : report.devices)
            families.add("cudacheck_gpu_info",
                         "Each GPU the run saw: its CUDA ordinal (cuda_device, as check results number GPUs) and "
                         "model; always 1.",
                         gpus.of(device.ordinal) + gpus.run() +
                             Labels{{"cuda_device", std::to_string(device.ordinal)}, {"model", device.name}},
                         1);
        families.add("cudacheck_gpus", "CUDA devices the run saw.", gpus.run(),
                     static_cast<double>(report.devices.size()));
        families.add("cudacheck_exit_code",
                     "cudacheck's exit code: 0 nothing failed, 1 a check failed, 130/143 interrupted.", gpus.run(),
                     report.exit_code);
        families.add("cudacheck_run_duration_seconds", "Wall time of the run.", gpus.run(),
                     report.duration_ms / 1000.0);
        if (const std::optional<double> start = unix_seconds(report.timestamp_utc))
            families.add("cudacheck_last_run_timestamp_seconds",
                         "When the run finished, as Unix seconds (its start, timestamp_utc, plus its duration): time() "
                         "minus this is how old "
                         "every other cudacheck series of the same labels is.",
                         gpus.run(), *start + report.duration_ms / 1000.0);
        families.add("cudacheck_info", "Versions the run found (empty when unknown); always 1.",
                     gpus.run() + Labels{{"version", report.tool_version},
                                         {"driver", report.versions.driver},
                                         {"driver_cuda", report.versions.driver_cuda},
                                         {"runtime", report.versions.runtime},
                                         {"nvcc", report.versions.nvcc}},
                     1);
        if (report.frameworks)
            for (const PythonEnvironmentInfo& environment : *report.frameworks)
                for (const FrameworkInfo& framework : environment.frameworks)
                    for (Status status : {Status::pass, Status::warn, Status::fail})
                        families.add("cudacheck_framework_status",
                                     "Each Python framework found (frameworks.builds): 1 for the status its findings "
                                     "give it, 0 for the others.",
                                     gpus.run() + Labels{{"environment", environment.prefix},
                                                         {"framework", framework.framework},
                                                         {"version", framework.version},
                                                         {"cuda", framework.cuda},
                                                         {"status", std::string(to_string(status))}},
                                     framework.status == to_string(status) ? 1 : 0);
        families.write(out);
    }
};

}  // namespace

std::unique_ptr<Renderer> make_prometheus_renderer() { return std::make_unique<PrometheusRenderer>(); }

}  // namespace cudacheck
