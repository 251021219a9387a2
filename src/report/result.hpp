// The result of one check: plain data, so that it can be rendered, compared in tests, and later
// cross a process boundary (a supervised child sends results to its parent) without change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck {

// Ordered from best to worst: the overall status of a report is the maximum over its results,
// except that skip only wins when everything was skipped (see overall_status()).
enum class Status { pass, skip, warn, fail, timeout, error };

[[nodiscard]] std::string_view to_string(Status status);
[[nodiscard]] std::optional<Status> status_from_string(std::string_view text);
// Rank used to combine statuses: higher is worse. skip ranks below warn so that one skipped
// check never hides a warning, and above pass so that "all skipped" is still visible.
[[nodiscard]] int severity_rank(Status status);

// The units a check's figures are in. The JSON keeps each as the text the checks always wrote
// (to_string): "B" and "bytes" are both kept, as toolkit.compile and gpu.memtest wrote them.
// KiB to TiB are the units of a byte count written as format_bytes writes it (evidence only).
enum class Unit {
    tflops,
    gflops,
    gb_per_s,
    gsamples_per_s,
    ms,
    mhz,
    celsius,
    watts,
    percent,
    B,
    bytes,
    count,
    ratio,
    value,
    kib,
    mib,
    gib,
    tib
};
[[nodiscard]] std::string_view to_string(Unit unit);  // "TFLOP/s", "GB/s", "C", "%", ...
[[nodiscard]] std::optional<Unit> unit_from_string(std::string_view text);

// A figure's labels: what varies within its family (precision, size, direction, a GPU), in order.
// Three names say which GPU a figure is of, and renderers give it that GPU's labels: "device" (a
// CUDA ordinal), "peer_device" (the CUDA ordinal of the other GPU of a pair) and "gpu" (an NVML
// index, as device.health numbers GPUs).
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// One kind of figure a check measures, declared once next to the code that measures it:
//   constexpr MetricFamily gemm_rate{"gemm", "gemm_{precision}_{size}", Unit::tflops, "cuBLAS GEMM throughput ..."};
// `name` is the quantity (Prometheus names its family cudacheck_<name>_<unit>), `flat` how the
// figure's flat name is written from its labels (each {label} replaced by the label's value: the
// name `--expect`, `diff` and `fleet` match), `help` one sentence on what it measures.
struct MetricFamily {
    std::string_view name;
    std::string_view flat;
    Unit unit;
    std::string_view help;
    // false for a figure that is the GPU's and not a measurement (a datasheet peak, a bandwidth
    // from clocks and bus width): another process on the GPU does not change it, so fleet compares
    // it even from a shared GPU.
    bool measured = true;
};

// A measured number with its unit, e.g. {"device_to_device_bandwidth", 4800.0, "GB/s"}, and since
// schema 1.10.0 its family, labels and help ({"memory_bandwidth", {{"direction", "device_to_device"}}}).
// A figure of an older report read back has the family of the name it was written under
// (report/legacy_metrics.hpp); one no family is known for has none.
struct Metric {
    std::string name;  // the flat name, as flat_metric_name writes it: "gemm_fp16_8192"
    double value = 0.0;
    std::string unit;  // to_string(Unit) for what cudacheck writes; any text in a report read back
    std::string family = {};
    MetricLabels labels = {};
    std::string help = {};
    bool measured = true;  // MetricFamily::measured (schema 1.10.0; true in older reports)
    [[nodiscard]] const std::string* label(std::string_view label_name) const {
        for (const auto& [key, text] : labels)
            if (key == label_name) return &text;
        return nullptr;
    }
    bool operator==(const Metric&) const = default;
};

// The flat name of a figure: `flat` with each {label} replaced by the value of that label (the one
// place flat names are made; they are never taken apart). Throws std::logic_error when `flat` names
// a label that `labels` lacks, or `labels` holds one `flat` does not name.
[[nodiscard]] std::string flat_metric_name(std::string_view flat, const MetricLabels& labels);
// A figure of `family`, its flat name made from `labels`.
[[nodiscard]] Metric make_metric(const MetricFamily& family, double value, MetricLabels labels = {});

// A fact that led to the verdict, e.g. {"libcuda_path", "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05"}.
// The text is what a person reads; where the fact is a measured figure it also carries the number
// and its unit ({"gemm_bf16", "8192^3: 796.2 TFLOP/s (81% of 989), ...", 796.2, "TFLOP/s"}), so
// that programs need not parse the text (schema 1.6.0). The check that writes the text gives the
// number and unit beside it (ResultBuilder::evidence); nothing reads them back out of the text.
struct Evidence {
    std::string key;
    std::string value;
    std::optional<double> number = {};
    std::string unit = {};  // empty when there is no number, or the number has no unit
    bool operator==(const Evidence&) const = default;
};

// One column of a Series: a figure measured at each row, with its unit; nullopt where it was not
// measured at that row (JSON null), e.g. a second in which NVML answered no temperature.
struct SeriesColumn {
    std::string name;  // "tflops", "sm_clock", "temperature", ...
    std::string unit;  // "TFLOP/s", "MHz", "C", "W", "s", "bytes", "GB/s", "count", "bitmask"
    std::vector<std::optional<double>> values;
    bool operator==(const SeriesColumn&) const = default;
};
// Numbers a check measured as a table, for charts and for programs (schema 1.6.0): gpu.stress's
// seconds of the run, gpu.memtest's patterns. Every column has one value per row.
struct Series {
    std::string name;                 // "per_second", "nvml_samples", "per_pattern"
    std::vector<std::string> labels;  // a name per row where rows are named (memtest patterns), else empty
    std::vector<SeriesColumn> columns;
    [[nodiscard]] std::size_t rows() const { return columns.empty() ? labels.size() : columns.front().values.size(); }
    [[nodiscard]] const SeriesColumn* column(std::string_view column_name) const {
        for (const SeriesColumn& candidate : columns)
            if (candidate.name == column_name) return &candidate;
        return nullptr;
    }
    bool operator==(const Series&) const = default;
};

// Another process that used a GPU while a check timed its work there: its figures are not the GPU's own.
struct SharingProcess {
    unsigned int pid = 0;
    std::string name;                          // /proc/<pid>/comm; empty when the pid is not visible here
    std::optional<double> sm_percent;          // its highest SM utilization NVML sampled during the timing
    std::optional<std::uint64_t> memory_bytes;  // the GPU memory it held, when NVML lists it
    bool operator==(const SharingProcess&) const = default;
};
// A GPU a check's figures were measured on while it was not the check's alone: which processes, and
// how NVML told (`method`). A check whose timing no other process touched has none.
struct GpuSharing {
    int device = 0;      // CUDA ordinal
    std::string method;  // "per-process utilization", "per-process utilization, other PID namespace", "process list"
    std::vector<SharingProcess> processes;
    bool operator==(const GpuSharing&) const = default;
};

// The step a finding asks of whoever runs the machine. The GPU steps are a ladder, least to most
// disruptive: restart_app < reset_gpu < drain_p2p < bus_reset < reboot < service, after the
// resolution buckets of NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html:
// RESTART_APP, RESET_GPU, RESTART_BM, CONTACT_SUPPORT) and NVML's nvmlDeviceGpuRecoveryAction_t
// (GPU_RESET, DRAIN_P2P, DRAIN_AND_RESET, BUS_RESET, NODE_REBOOT). fix_config (install, set, start
// something) and investigate (look closer before acting) are off the ladder. In the enum's order.
enum class Remedy { none, fix_config, investigate, restart_app, reset_gpu, drain_p2p, bus_reset, reboot, service };
[[nodiscard]] std::string_view to_string(Remedy remedy);  // "reset_gpu", as the JSON spells it
[[nodiscard]] std::optional<Remedy> remedy_from_string(std::string_view text);
// Who acts, machine-readable, after DCGM's error categories (dcgm_errors.h dcgmErrorSeverity_t:
// CONFIG, TRIAGE, RESET, ISOLATE): "none", "config" (fix_config), "triage" (investigate), "app"
// (restart_app: the application's own fault or restart, nothing for the node), "reset" (reset_gpu,
// drain_p2p, bus_reset, reboot: drain, then that step), "isolate" (service). A scheduler's health
// check drains a node for "reset" and "isolate", never for "config" or "app".
[[nodiscard]] std::string_view action_class(Remedy remedy);
// Whether a remedy is a step of the GPU ladder (restart_app and above).
[[nodiscard]] constexpr bool on_gpu_ladder(Remedy remedy) { return remedy >= Remedy::restart_app; }

// One problem a check found. A check can find several (env.variables often does); the result's
// own status, code, message and remediation are those of its worst finding.
struct Finding {
    Status status = Status::warn;  // warn, fail or error
    std::string code;              // stable catalog code, e.g. "CC201"
    std::string message;           // one line: what is wrong, with the values found
    std::string remediation;       // what to do, specific to what was found
    // The CUDA device this finding concerns, when it concerns only one (e.g. one GPU of several in
    // Prohibited compute mode): per-device checks still run on the other devices.
    std::optional<int> device;
    // What it concerns when a check looks at several things of one kind: a Python framework,
    // "<environment prefix>: <framework>" (the report's `frameworks` section names it so).
    std::optional<std::string> subject = {};
    // What to do about it (schema 1.11.0): the catalogue's remedy for the code unless the check knew
    // better from the values found (NVML's recovery action names the step).
    Remedy remedy = Remedy::none;
    // The GPU it concerns, for a finding of one GPU that CUDA may not number (NVML, the kernel log):
    // its UUID ("GPU-…"), or its PCI bus id when the UUID is unknown (schema 1.11.0). The report's
    // remedy for each GPU joins its findings over this.
    std::string gpu = {};
    bool operator==(const Finding&) const = default;
};

struct CheckResult {
    std::string check_id;
    std::optional<int> device;  // CUDA ordinal for per-device checks, empty for host checks
    Status status = Status::pass;
    std::string code;         // empty when the check passed or was skipped
    std::string message;      // one line
    std::string remediation;  // empty unless status is warn, fail or error
    std::vector<Finding> findings;
    std::vector<Evidence> evidence;
    std::vector<Metric> metrics;
    std::vector<Series> series;
    // The GPUs that were shared while this check timed its work (schema 1.7.0): its figures are
    // not the GPU's own, and policies and fleet do not compare them.
    std::vector<GpuSharing> shared_gpu;
    double duration_ms = 0.0;
    std::string skip_reason;  // set only when status is skip
    bool operator==(const CheckResult&) const = default;
};

}  // namespace cudacheck
