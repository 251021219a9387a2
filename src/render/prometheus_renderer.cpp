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
// and the name the issue asked for (cudacheck_gemm_tflops). What varies within a family (GEMM
// precision and size, copy direction, FFT length) is a label, never part of a `name` label; a
// metric the table below does not know still comes out, as cudacheck_<check>_<name>_<unit>.
//
// GPU labels, as dcgm-exporter writes them (internal/pkg/rendermetrics/render_metrics.go, its
// gpuMetricsFormat template; internal/pkg/collector/gpu_collector.go fills it): `gpu` (DCGM's
// GPU id, which is NVML's index, the order nvidia-smi numbers GPUs in: so the NVML index here
// too, and the CUDA ordinal only where NVML matched no GPU; cudacheck_gpu_info maps one to the
// other), `UUID` and `pci_bus_id` (both in NVML's spelling, "00000000:00:06.0"), from the
// report's devices section. Host checks carry no GPU labels. dcgm-exporter's `modelName` is left
// out: promtool rejects camelCase label names (`UUID` and `Hostname` pass), and the join brings it.
//
// The host (issue 36), as dcgm-exporter names it: the NODE_NAME variable when it is set, else the
// host's name (internal/pkg/hostname/hostname.go, getLocalHostname), NODE_NAME being set from the
// downward API's spec.nodeName by its manifests (dcgm-exporter.yaml, the Helm chart's
// deployment/templates/daemonset.yaml), as deploy/kubernetes sets it here. Its releases up to
// 4.5.3-4.8.2 write that value as `Hostname`, 4.6.0-4.8.3 and later as `hostname` ("Rename
// Hostname label to hostname (#655)"): every series here carries both, one value, so that
// `on(UUID, Hostname)` joins with the one and `on(UUID, hostname)` with the other. Before issue 36
// `hostname` was gethostname(), which in a Kubernetes pod is the pod's name: it named no node, joined
// with nothing and changed with every rollout. Outside Kubernetes (no NODE_NAME) it is unchanged.
// The run records NODE_NAME in the report (host.node_name, schema 1.9.0), so `cudacheck render`
// of a saved report anywhere gives the node that ran it, not the one rendering it.
// Under --redact there is no `UUID`, `hostname` or `Hostname` label (redacted placeholders join
// with nothing).
//
// `level` on every series (issue 36): a quick, a standard and a full run measure different things
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

#include <fmt/format.h>

#include <bitset>
#include <charconv>
#include <cmath>
#include <ctime>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
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
        family.samples.push_back(fmt::format("{}{}{}{} {}\n", name, key.empty() ? "" : "{", key, key.empty() ? "" : "}", sample_value(value)));
    }
    void write(std::ostream& out) const {
        for (const Family& family : families_) {
            out << "# HELP " << family.name << ' ' << help_text(family.help) << '\n' << "# TYPE " << family.name << " gauge\n";
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
struct Unit {
    std::string_view unit;    // "GB/s"
    std::string_view suffix;  // "bytes_per_second"
    double multiply = 1.0;
    double divide = 1.0;
};
constexpr Unit units[] = {
    {"GB/s", "bytes_per_second", 1e9, 1},  {"MB/s", "bytes_per_second", 1e6, 1},    {"TB/s", "bytes_per_second", 1e12, 1},
    {"B/s", "bytes_per_second", 1, 1},     {"TFLOP/s", "tflops", 1, 1},             {"GFLOP/s", "tflops", 1, 1e3},
    {"PFLOP/s", "tflops", 1e3, 1},         {"Gsamples/s", "samples_per_second", 1e9, 1}, {"Msamples/s", "samples_per_second", 1e6, 1},
    {"samples/s", "samples_per_second", 1, 1}, {"s", "seconds", 1, 1},             {"ms", "seconds", 1, 1e3},
    {"us", "seconds", 1, 1e6},             {"ns", "seconds", 1, 1e9},               {"%", "ratio", 1, 100},
    {"MHz", "hertz", 1e6, 1},              {"GHz", "hertz", 1e9, 1},                {"kHz", "hertz", 1e3, 1},
    {"Hz", "hertz", 1, 1},                 {"C", "celsius", 1, 1},                  {"W", "watts", 1, 1},
    {"mW", "watts", 1, 1e3},               {"B", "bytes", 1, 1},                    {"bytes", "bytes", 1, 1},
    {"KiB", "bytes", 1024, 1},             {"MiB", "bytes", 1024.0 * 1024, 1},      {"GiB", "bytes", 1024.0 * 1024 * 1024, 1},
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
Unit unit_of(std::string_view unit) {
    for (const Unit& known : units)
        if (known.unit == unit) return known;
    return {unit, {}, 1, 1};
}
std::string suffix_of(const Unit& unit) {
    if (!unit.suffix.empty()) return std::string(unit.suffix);
    std::string text(unit.unit);
    if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.replace(text.size() - 2, 2, "_per_second");
    return sanitize(text);
}

// Which numbering a device in a metric's name uses.
enum class Numbering { none, cuda, nvml };

// The metric names are matched by hand, not with std::regex: libstdc++ matches a repetition by
// recursion, one level per character, and a 50 KB metric name in a report ended `render --format
// prometheus` with SIGSEGV (issue 35). A NamePattern knows what the table below uses: literal
// characters (`\.` for a dot) and capture groups, each of literal alternatives ("(max|min)") or of
// one or more characters of a class ("(\d+)", "([a-z0-9]+)"). It matches the whole name and
// captures what std::regex_match captured: a class as many characters as it can, alternatives in
// order, backtracking only where the next part could start inside the class (none of the table's
// patterns), so a match is linear in the name; it recurses once per part of the pattern.
class NamePattern {
public:
    explicit NamePattern(std::string_view pattern) {
        for (std::size_t at = 0; at < pattern.size();) {
            const char c = pattern[at];
            if (c == '(') {
                const std::size_t close = pattern.find(')', at);
                if (close == std::string_view::npos) unsupported(pattern);
                parts_.push_back(group(pattern.substr(at + 1, close - at - 1), pattern));
                at = close + 1;
                continue;
            }
            if (c == '\\' && at + 1 < pattern.size() && pattern[at + 1] == '.') {
                literal('.');
                at += 2;
                continue;
            }
            if (std::string_view("\\[](){}*+?.|^$").find(c) != std::string_view::npos) unsupported(pattern);
            literal(c);
            ++at;
        }
        // A class may give back characters only where the part after it could start with one.
        for (std::size_t i = 0; i < parts_.size(); ++i) {
            Part& part = parts_[i];
            if (part.kind != Part::Kind::characters) continue;
            part.greedy_only = true;
            if (i + 1 == parts_.size()) continue;
            const Part& next = parts_[i + 1];
            if (next.kind == Part::Kind::characters) part.greedy_only = false;
            for (const std::string& word : next.kind == Part::Kind::literal ? std::vector<std::string>{next.text} : next.words)
                if (word.empty() || part.characters[static_cast<unsigned char>(word.front())]) part.greedy_only = false;
        }
    }

    // The captures, in order, when the whole of `name` matches.
    [[nodiscard]] std::optional<std::vector<std::string_view>> match(std::string_view name) const {
        std::vector<std::string_view> captures;
        if (!match_from(name, 0, 0, captures)) return std::nullopt;
        return captures;
    }

private:
    struct Part {
        enum class Kind { literal, words, characters } kind = Kind::literal;
        std::string text;                 // literal
        std::vector<std::string> words;   // words: the alternatives
        std::bitset<256> characters;      // characters: one or more of these
        bool greedy_only = false;         // characters: never shorter than the longest run
    };

    [[noreturn]] static void unsupported(std::string_view pattern) {
        throw std::logic_error(fmt::format("metric name pattern '{}' uses syntax NamePattern does not know", pattern));
    }

    void literal(char c) {
        if (parts_.empty() || parts_.back().kind != Part::Kind::literal) parts_.push_back(Part{});
        parts_.back().text += c;
    }

    static Part group(std::string_view body, std::string_view pattern) {
        Part part;
        if (body == "\\d+") {
            part.kind = Part::Kind::characters;
            for (char c = '0'; c <= '9'; ++c) part.characters.set(static_cast<unsigned char>(c));
            return part;
        }
        if (!body.empty() && body.front() == '[') {
            // "[a-z0-9]+": ranges and single characters, then '+'.
            part.kind = Part::Kind::characters;
            const std::size_t close = body.find(']');
            if (close == std::string_view::npos || body.substr(close) != "]+") unsupported(pattern);
            for (std::size_t at = 1; at < close; ++at) {
                const char first = body[at];
                const char last = at + 2 < close && body[at + 1] == '-' ? body[at + 2] : first;
                if (last != first) at += 2;
                for (int c = static_cast<unsigned char>(first); c <= static_cast<unsigned char>(last); ++c) part.characters.set(static_cast<std::size_t>(c));
            }
            return part;
        }
        part.kind = Part::Kind::words;
        for (std::size_t start = 0;;) {
            const std::size_t bar = body.find('|', start);
            const std::string_view word = body.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
            for (char c : word)
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) unsupported(pattern);
            part.words.emplace_back(word);
            if (bar == std::string_view::npos) break;
            start = bar + 1;
        }
        return part;
    }

    bool match_from(std::string_view name, std::size_t index, std::size_t at, std::vector<std::string_view>& captures) const {
        if (index == parts_.size()) return at == name.size();
        const Part& part = parts_[index];
        switch (part.kind) {
            case Part::Kind::literal:
                return name.substr(at, part.text.size()) == part.text && match_from(name, index + 1, at + part.text.size(), captures);
            case Part::Kind::words:
                for (const std::string& word : part.words) {
                    if (name.substr(at, word.size()) != word) continue;
                    captures.push_back(name.substr(at, word.size()));
                    if (match_from(name, index + 1, at + word.size(), captures)) return true;
                    captures.pop_back();
                }
                return false;
            case Part::Kind::characters: {
                std::size_t end = at;
                while (end < name.size() && part.characters[static_cast<unsigned char>(name[end])]) ++end;
                for (std::size_t stop = end; stop > at; --stop) {
                    captures.push_back(name.substr(at, stop - at));
                    if (match_from(name, index + 1, stop, captures)) return true;
                    captures.pop_back();
                    if (part.greedy_only) break;
                }
                return false;
            }
        }
        return false;
    }

    std::vector<Part> parts_;
};

// "device1.rest" (a CUDA ordinal, as cuda.devices writes it) or "gpu1.rest" (an NVML index, as
// device.health does): what the pattern (device|gpu)(\d+)\.(.*) matched, whose `.` takes no line
// break.
struct DeviceInName {
    Numbering numbering;
    std::string_view number;
    std::string_view rest;
};
std::optional<DeviceInName> device_in_name(std::string_view name) {
    for (const auto& [word, numbering] : {std::pair{std::string_view("device"), Numbering::cuda}, std::pair{std::string_view("gpu"), Numbering::nvml}}) {
        if (name.substr(0, word.size()) != word) continue;
        std::size_t end = word.size();
        while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
        if (end == word.size() || end == name.size() || name[end] != '.') return std::nullopt;
        const std::string_view rest = name.substr(end + 1);
        if (rest.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
        return DeviceInName{numbering, name.substr(word.size(), end - word.size()), rest};
    }
    return std::nullopt;
}

// A metric the checks produce, and its family: `stem` + "_" + the unit's suffix. The capture
// groups of `pattern` become `labels`, in order, except the device's (`device_group`, from 1)
// and the peer's (`peer_group`), which give GPU labels.
struct FamilySpec {
    std::string_view check;  // "" for any check
    std::string_view pattern;
    std::string_view stem;
    std::string_view help;
    std::vector<std::string_view> labels = {};
    Numbering numbering = Numbering::none;
    int device_group = 0;
    int peer_group = 0;
};

const std::vector<FamilySpec>& family_specs() {
    static const std::vector<FamilySpec> specs = {
        {"cublas.gemm", R"(gemm_([a-z0-9]+)_fraction_of_peak)", "cudacheck_gemm_of_peak", "cuBLAS GEMM throughput as a share (0-1) of the GPU's peak at that precision.", {"precision"}},
        {"cublas.gemm", R"(gemm_([a-z0-9]+)_(\d+))", "cudacheck_gemm", "cuBLAS GEMM throughput by precision and matrix size (size^3), in TFLOP/s.", {"precision", "size"}},
        {"cuda.memory", R"((device_to_device|host_to_device|device_to_host)_bandwidth)", "cudacheck_memory_bandwidth", "Verified memory copy bandwidth by direction.", {"direction"}},
        {"cuda.memory", R"((device_to_device|host_to_device|device_to_host)_fraction_of_theoretical)", "cudacheck_memory_bandwidth_of_theoretical",
         "Memory copy bandwidth as a share (0-1) of the GPU's theoretical bandwidth.", {"direction"}},
        {"cuda.devices", R"(device(\d+)\.theoretical_memory_bandwidth)", "cudacheck_gpu_theoretical_memory_bandwidth",
         "Theoretical memory bandwidth, from the memory clock and bus width.", {}, Numbering::cuda, 1},
        {"cuda.devices", R"(device(\d+)\.fp32_peak)", "cudacheck_gpu_fp32_peak", "FP32 peak from SMs, lanes and SM clock, in TFLOP/s.", {}, Numbering::cuda, 1},
        {"device.health", R"(gpu(\d+)\.temperature)", "cudacheck_gpu_temperature", "GPU temperature when device.health read it.", {}, Numbering::nvml, 1},
        {"device.health", R"(gpu(\d+)\.power)", "cudacheck_gpu_power", "GPU power draw when device.health read it.", {}, Numbering::nvml, 1},
        {"cuda.p2p", R"(peer_bandwidth_(\d+)_to_(\d+))", "cudacheck_p2p_bandwidth", "Verified peer copy bandwidth from the gpu to the peer_gpu.", {}, Numbering::cuda, 1, 2},
        {"cuda.p2p", R"(min_peer_bandwidth)", "cudacheck_p2p_min_bandwidth", "The lowest peer copy bandwidth of the node."},
        {"nccl.allreduce", R"(bus_bandwidth)", "cudacheck_nccl_allreduce_bus_bandwidth", "NCCL all-reduce bus bandwidth over all GPUs (nccl-tests' busbw)."},
        {"nccl.allreduce", R"(algorithm_bandwidth)", "cudacheck_nccl_allreduce_algorithm_bandwidth", "NCCL all-reduce algorithm bandwidth over all GPUs (bytes / time)."},
        {"nccl.allreduce", R"(comm_init_time)", "cudacheck_nccl_comm_init", "Time NCCL took to create its communicator."},
        {"cudnn.conv", R"(convolution_throughput)", "cudacheck_cudnn_conv", "cuDNN convolution throughput, in TFLOP/s."},
        {"cudnn.conv", R"(convolution_time)", "cudacheck_cudnn_conv", "cuDNN convolution time."},
        {"cufft.fft", R"(([a-z0-9]+)_forward_gflops_n(\d+))", "cudacheck_cufft_forward", "cuFFT forward transform throughput by transform and length, in TFLOP/s.", {"transform", "n"}},
        {"cufft.fft", R"(([a-z0-9]+)_forward_time_n(\d+))", "cudacheck_cufft_forward", "cuFFT forward transform time by transform and length.", {"transform", "n"}},
        {"curand.generate", R"((uniform|normal)_rate)", "cudacheck_curand", "cuRAND generation rate by distribution.", {"distribution"}},
        {"nvrtc.compile", R"(compile_time)", "cudacheck_nvrtc_compile", "Time NVRTC took to compile the test kernel."},
        {"nvrtc.compile", R"(module_load_time)", "cudacheck_nvrtc_module_load", "Time the driver took to load the compiled module."},
        {"toolkit.compile", R"(compile_time)", "cudacheck_toolkit_compile", "Time nvcc took to build the test program."},
        {"toolkit.compile", R"(extension_time)", "cudacheck_toolkit_compile_extension", "Time the PyTorch extension build took."},
        {"toolkit.compile", R"((cubin|ptx|fatbinary|executable)_bytes)", "cudacheck_toolkit_compile_output", "Size of what nvcc wrote, by artifact.", {"artifact"}},
        {"toolkit.build", R"(gather_time)", "cudacheck_toolkit_build_gather", "Time toolkit.build took to read the build setup."},
        {"gpu.stress", R"(stress_tflops_(max|median|min))", "cudacheck_stress", "GEMM throughput under gpu.stress, per second of the run, by statistic, in TFLOP/s.", {"stat"}},
        {"gpu.stress", R"(stress_sm_clock_(max|min))", "cudacheck_stress_sm_clock", "SM clock NVML reported during gpu.stress, by statistic.", {"stat"}},
        {"gpu.stress", R"(stress_power_(max|min))", "cudacheck_stress_power", "Power draw NVML reported during gpu.stress, by statistic.", {"stat"}},
        {"gpu.stress", R"(stress_temperature_(max|min))", "cudacheck_stress_temperature", "Temperature NVML reported during gpu.stress, by statistic.", {"stat"}},
        {"gpu.stress", R"(stress_rate_drop)", "cudacheck_stress_rate_drop", "How far (0-1) the throughput fell from its best second during gpu.stress."},
        {"gpu.memtest", R"(memtest_bandwidth)", "cudacheck_memtest_bandwidth", "Memory bandwidth the gpu.memtest patterns ran at."},
        {"gpu.memtest", R"(memtest_bytes)", "cudacheck_memtest_tested", "Device memory gpu.memtest wrote and verified."},
    };
    return specs;
}

struct Figure {
    std::string family;
    std::string help;
    Labels labels;  // from the name: precision, direction, ...
    Numbering numbering = Numbering::none;
    std::optional<int> device;  // named in the metric's name
    std::optional<int> peer;
    double value = 0.0;
};

Figure figure_of(const CheckResult& result, const Metric& metric) {
    static const std::vector<NamePattern> patterns = [] {
        std::vector<NamePattern> compiled;
        for (const FamilySpec& spec : family_specs()) compiled.emplace_back(spec.pattern);
        return compiled;
    }();
    const Unit unit = unit_of(metric.unit);
    const std::string suffix = suffix_of(unit);
    Figure figure;
    figure.value = metric.value * unit.multiply / unit.divide;
    const auto with_suffix = [&](std::string stem) {
        if (suffix.empty() || (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                               stem[stem.size() - suffix.size() - 1] == '_'))
            return stem;
        return stem + "_" + suffix;
    };
    const auto number = [](std::string_view digits) -> std::optional<int> {
        try {
            return std::stoi(std::string(digits));
        } catch (const std::exception&) {
            return std::nullopt;
        }
    };
    for (std::size_t i = 0; i < family_specs().size(); ++i) {
        const FamilySpec& spec = family_specs()[i];
        if (!spec.check.empty() && spec.check != result.check_id) continue;
        const std::optional<std::vector<std::string_view>> captures = patterns[i].match(metric.name);
        if (!captures) continue;
        figure.family = with_suffix(std::string(spec.stem));
        figure.help = fmt::format("{} Unit: {}.", spec.help, suffix.empty() ? "none" : suffix);
        figure.numbering = spec.numbering;
        std::size_t next_label = 0;
        for (std::size_t group = 1; group <= captures->size(); ++group) {
            const std::string_view captured = (*captures)[group - 1];
            if (static_cast<int>(group) == spec.device_group) figure.device = number(captured);
            else if (static_cast<int>(group) == spec.peer_group) figure.peer = number(captured);
            else if (next_label < spec.labels.size()) figure.labels.emplace_back(spec.labels[next_label++], std::string(captured));
        }
        return figure;
    }
    // Not in the table: cudacheck_<check>_<name>_<unit>, a device in the name ("device1.x" by
    // CUDA ordinal, "gpu1.x" by NVML index, as cuda.devices and device.health write them) as labels.
    std::string name = metric.name;
    if (const std::optional<DeviceInName> device = device_in_name(metric.name)) {
        figure.numbering = device->numbering;
        figure.device = number(device->number);
        name = std::string(device->rest);
    }
    std::string stem = sanitize(name);
    if (suffix == "seconds" && stem.size() > 5 && stem.compare(stem.size() - 5, 5, "_time") == 0) stem.resize(stem.size() - 5);
    figure.family = with_suffix("cudacheck_" + sanitize(result.check_id) + (stem.empty() ? "" : "_" + stem));
    figure.help = fmt::format("{}'s figure {}. Unit: {} (the check reports {}).", result.check_id, name, suffix.empty() ? "none" : suffix, metric.unit);
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
    if (utc.size() != 20 || utc[4] != '-' || utc[7] != '-' || utc[10] != 'T' || utc[13] != ':' || utc[16] != ':' || utc[19] != 'Z') return std::nullopt;
    const auto field = [&](std::size_t at, std::size_t length) -> std::optional<int> {
        int value = 0;
        const char* end = utc.data() + at + length;
        const auto [stop, error] = std::from_chars(utc.data() + at, end, value);
        if (error != std::errc() || stop != end) return std::nullopt;
        return value;
    };
    const auto year = field(0, 4), month = field(5, 2), day = field(8, 2), hour = field(11, 2), minute = field(14, 2), second = field(17, 2);
    if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 ||
        *minute > 59 || *second > 60)
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
    [[nodiscard]] Labels of(std::optional<int> device, Numbering numbering = Numbering::cuda, std::string_view prefix = {}) const {
        Labels labels;
        if (!device || numbering == Numbering::none) return labels;
        const DeviceInfo* info = nullptr;
        for (const DeviceInfo& candidate : report_.devices)
            if (numbering == Numbering::cuda ? candidate.ordinal == *device : candidate.nvml_index == *device) info = &candidate;
        const int gpu = info != nullptr && info->nvml_index ? *info->nvml_index : *device;
        labels.emplace_back(fmt::format("{}gpu", prefix), std::to_string(gpu));
        if (info != nullptr && !redacted_ && !info->uuid.empty()) labels.emplace_back(fmt::format("{}UUID", prefix), info->uuid);
        if (info != nullptr && !info->pci_bus_id.empty()) labels.emplace_back(fmt::format("{}pci_bus_id", prefix), info->pci_bus_id);
        return labels;
    }
    // check, then the GPU's labels, then the run's (hostname, Hostname, level).
    [[nodiscard]] Labels of_check(const std::string& check, std::optional<int> device, Numbering numbering = Numbering::cuda) const {
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
            for (Status status : {Status::pass, Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
                families.add("cudacheck_check_status", "Status of each cudacheck check (per GPU for per-GPU checks): 1 for the status it ended with, 0 for the others.",
                             gpus.of_check(result.check_id, result.device) + Labels{{"status", std::string(to_string(status))}}, status == result.status ? 1 : 0);
        for (const CheckResult& result : report.checks)
            for (const Finding& finding : result.findings)
                families.add("cudacheck_finding", "Each problem a check found, by its catalog code (cudacheck explain CODE); always 1.",
                             gpus.of_check(result.check_id, result.device ? result.device : finding.device) +
                                 Labels{{"code", finding.code}, {"status", std::string(to_string(finding.status))}},
                             1);
        for (const CheckResult& result : report.checks)
            for (const Metric& metric : result.metrics) {
                if (!is_performance_figure(metric)) continue;
                const Figure figure = figure_of(result, metric);
                Labels labels{{"check", result.check_id}};
                labels = labels + (figure.device ? gpus.of(figure.device, figure.numbering) : gpus.of(result.device));
                if (figure.peer) labels = labels + gpus.of(figure.peer, figure.numbering, "peer_");
                gpus.add_run(labels);
                families.add(figure.family, figure.help, labels + figure.labels, figure.value);
            }
        for (const DeviceInfo& device : report.devices)
            families.add("cudacheck_gpu_info", "Each GPU the run saw: its CUDA ordinal (cuda_device, as check results number GPUs) and model; always 1.",
                         gpus.of(device.ordinal) + gpus.run() + Labels{{"cuda_device", std::to_string(device.ordinal)}, {"model", device.name}}, 1);
        families.add("cudacheck_gpus", "CUDA devices the run saw.", gpus.run(), static_cast<double>(report.devices.size()));
        families.add("cudacheck_exit_code", "cudacheck's exit code: 0 nothing failed, 1 a check failed, 130/143 interrupted.", gpus.run(), report.exit_code);
        families.add("cudacheck_run_duration_seconds", "Wall time of the run.", gpus.run(), report.duration_ms / 1000.0);
        if (const std::optional<double> start = unix_seconds(report.timestamp_utc))
            families.add("cudacheck_last_run_timestamp_seconds",
                         "When the run finished, as Unix seconds (its start, timestamp_utc, plus its duration): time() minus this is how old "
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
                                     "Each Python framework found (frameworks.builds): 1 for the status its findings give it, 0 for the others.",
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
