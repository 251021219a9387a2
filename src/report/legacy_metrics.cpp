#include "report/legacy_metrics.hpp"

#include <fmt/format.h>

#include <bitset>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck {

namespace {

// The names are matched by hand, not with std::regex: libstdc++ matches a repetition by recursion,
// one level per character, and a 50 KB metric name in a report ended `render --format prometheus`
// with SIGSEGV. A NamePattern knows what the table below uses: literal
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
            for (const std::string& word :
                 next.kind == Part::Kind::literal ? std::vector<std::string>{next.text} : next.words)
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
                for (int c = static_cast<unsigned char>(first); c <= static_cast<unsigned char>(last); ++c)
                    part.characters.set(static_cast<std::size_t>(c));
            }
            return part;
        }
        part.kind = Part::Kind::words;
        for (std::size_t start = 0;;) {
            const std::size_t bar = body.find('|', start);
            const std::string_view word =
                body.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
            for (char c : word)
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) unsupported(pattern);
            part.words.emplace_back(word);
            if (bar == std::string_view::npos) break;
            start = bar + 1;
        }
        return part;
    }

    bool match_from(std::string_view name, std::size_t index, std::size_t at,
                    std::vector<std::string_view>& captures) const {
        if (index == parts_.size()) return at == name.size();
        const Part& part = parts_[index];
        switch (part.kind) {
            case Part::Kind::literal:
                return name.substr(at, part.text.size()) == part.text &&
                       match_from(name, index + 1, at + part.text.size(), captures);
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

// A name the checks wrote before 1.10.0 and the family it belongs to. The capture groups of
// `pattern` become the labels, named in order by `labels` ("device" is a CUDA ordinal, "gpu" an
// NVML index, "peer_device" the other GPU of a pair, as result.hpp names them).
struct LegacyFamily {
    std::string_view check;
    std::string_view pattern;
    std::string_view family;
    std::string_view help;
    std::vector<std::string_view> labels = {};
};

const std::vector<LegacyFamily>& legacy_families() {
    static const std::vector<LegacyFamily> families = {
        {"cublas.gemm",
         R"(gemm_([a-z0-9]+)_fraction_of_peak)",
         "gemm_of_peak",
         "cuBLAS GEMM throughput as a share (0-1) of the GPU's peak at that precision.",
         {"precision"}},
        {"cublas.gemm",
         R"(gemm_([a-z0-9]+)_(\d+))",
         "gemm",
         "cuBLAS GEMM throughput by precision and matrix size (size^3), in TFLOP/s.",
         {"precision", "size"}},
        {"cublas.gemm",
         R"((sgemm|dgemm)_relative_error)",
         "gemm_relative_error",
         "Largest relative error of a 256x192x328 product against float64, by routine.",
         {"routine"}},
        {"cuda.memory",
         R"((device_to_device|host_to_device|device_to_host)_bandwidth)",
         "memory_bandwidth",
         "Verified memory copy bandwidth by direction.",
         {"direction"}},
        {"cuda.memory",
         R"((device_to_device|host_to_device|device_to_host)_fraction_of_theoretical)",
         "memory_bandwidth_of_theoretical",
         "Memory copy bandwidth as a share (0-1) of the GPU's theoretical bandwidth.",
         {"direction"}},
        {"cuda.devices",
         R"(device(\d+)\.theoretical_memory_bandwidth)",
         "gpu_theoretical_memory_bandwidth",
         "Theoretical memory bandwidth, from the memory clock and bus width.",
         {"device"}},
        {"cuda.devices",
         R"(device(\d+)\.fp32_peak)",
         "gpu_fp32_peak",
         "FP32 peak from SMs, lanes and SM clock, in TFLOP/s.",
         {"device"}},
        {"device.health",
         R"(gpu(\d+)\.temperature)",
         "gpu_temperature",
         "GPU temperature when device.health read it.",
         {"gpu"}},
        {"device.health", R"(gpu(\d+)\.power)", "gpu_power", "GPU power draw when device.health read it.", {"gpu"}},
        {"cuda.p2p",
         R"(peer_bandwidth_(\d+)_to_(\d+))",
         "p2p_bandwidth",
         "Verified peer copy bandwidth from the gpu to the peer_gpu.",
         {"device", "peer_device"}},
        {"cuda.p2p", R"(min_peer_bandwidth)", "p2p_min_bandwidth", "The lowest peer copy bandwidth of the node."},
        {"nccl.allreduce", R"(bus_bandwidth)", "nccl_allreduce_bus_bandwidth",
         "NCCL all-reduce bus bandwidth over all GPUs (nccl-tests' busbw)."},
        {"nccl.allreduce", R"(algorithm_bandwidth)", "nccl_allreduce_algorithm_bandwidth",
         "NCCL all-reduce algorithm bandwidth over all GPUs (bytes / time)."},
        {"nccl.allreduce", R"(comm_init_time)", "nccl_comm_init", "Time NCCL took to create its communicator."},
        {"cudnn.conv", R"(convolution_throughput)", "cudnn_conv", "cuDNN convolution throughput, in TFLOP/s."},
        {"cudnn.conv", R"(convolution_time)", "cudnn_conv", "cuDNN convolution time."},
        {"cudnn.conv", R"(relative_error)", "cudnn_conv_relative_error",
         "Relative error of the convolution against float64."},
        {"cudnn.conv", R"(elements_checked)", "cudnn_conv_elements_checked",
         "Output elements of the convolution checked."},
        {"cufft.fft",
         R"(([a-z0-9]+)_forward_gflops_n(\d+))",
         "cufft_forward",
         "cuFFT forward transform throughput by transform and length, in TFLOP/s.",
         {"transform", "n"}},
        {"cufft.fft",
         R"(([a-z0-9]+)_forward_time_n(\d+))",
         "cufft_forward",
         "cuFFT forward transform time by transform and length.",
         {"transform", "n"}},
        {"cufft.fft", R"(max_relative_error)", "cufft_max_relative_error",
         "Largest relative error of the transforms against the float64 FFT."},
        {"curand.generate",
         R"((uniform|normal)_rate)",
         "curand",
         "cuRAND generation rate by distribution.",
         {"distribution"}},
        {"curand.generate",
         R"((uniform|normal)_mean)",
         "curand_mean",
         "Mean of the generated samples, by distribution.",
         {"distribution"}},
        {"curand.generate",
         R"((uniform|normal)_variance)",
         "curand_variance",
         "Variance of the generated samples, by distribution.",
         {"distribution"}},
        {"nvrtc.compile", R"(compile_time)", "nvrtc_compile", "Time NVRTC took to compile the test kernel."},
        {"nvrtc.compile", R"(module_load_time)", "nvrtc_module_load",
         "Time the driver took to load the compiled module."},
        {"nvrtc.compile", R"(elements_checked)", "nvrtc_elements_checked",
         "Elements of the compiled kernel's output checked."},
        {"cuda.kernel", R"(elements_checked)", "kernel_elements_checked",
         "Elements of the test kernel's output checked."},
        {"toolkit.compile", R"(compile_time)", "toolkit_compile", "Time nvcc took to build the test program."},
        {"toolkit.compile", R"(extension_time)", "toolkit_compile_extension", "Time the PyTorch extension build took."},
        {"toolkit.compile",
         R"((cubin|ptx|fatbinary|executable)_bytes)",
         "toolkit_compile_output",
         "Size of what nvcc wrote, by artifact.",
         {"artifact"}},
        {"toolkit.build", R"(gather_time)", "toolkit_build_gather", "Time toolkit.build took to read the build setup."},
        {"gpu.stress",
         R"(stress_tflops_(max|median|min))",
         "stress",
         "GEMM throughput under gpu.stress, per second of the run, by statistic, in TFLOP/s.",
         {"stat"}},
        {"gpu.stress",
         R"(stress_sm_clock_(max|min))",
         "stress_sm_clock",
         "SM clock NVML reported during gpu.stress, by statistic.",
         {"stat"}},
        {"gpu.stress",
         R"(stress_power_(max|min))",
         "stress_power",
         "Power draw NVML reported during gpu.stress, by statistic.",
         {"stat"}},
        {"gpu.stress",
         R"(stress_temperature_(max|min))",
         "stress_temperature",
         "Temperature NVML reported during gpu.stress, by statistic.",
         {"stat"}},
        {"gpu.stress", R"(stress_rate_drop)", "stress_rate_drop",
         "How far (0-1) the throughput fell from its best second during gpu.stress."},
        {"gpu.stress", R"(stress_products)", "stress_products", "Products gpu.stress computed and compared."},
        {"gpu.stress", R"(stress_reference_relative_error)", "stress_reference_relative_error",
         "Relative error of gpu.stress's reference product against float64."},
        {"gpu.memtest", R"(memtest_bandwidth)", "memtest_bandwidth",
         "Memory bandwidth the gpu.memtest patterns ran at."},
        {"gpu.memtest", R"(memtest_bytes)", "memtest_tested", "Device memory gpu.memtest wrote and verified."},
        {"gpu.memtest", R"(memtest_patterns)", "memtest_patterns", "Patterns gpu.memtest ran."},
    };
    return families;
}

// The peaks as cublas.gemm and cuda.memory write them (checks/cublas_gemm.cpp, checks/cuda_memory.cpp).
constexpr MetricFamily gemm_peak{"gemm_peak", "gemm_{precision}_peak", Unit::tflops,
                                 "The GPU's datasheet peak at that precision, which a GEMM's share of the peak is "
                                 "taken of, in TFLOP/s."};
constexpr MetricFamily copy_theoretical{"memory_bandwidth_theoretical", "{direction}_theoretical_bandwidth",
                                        Unit::gb_per_s,
                                        "The GPU's theoretical memory bandwidth that a copy's share is taken of, by "
                                        "direction."};

// A peak worked back from a figure and its share of the peak: exact but for the last bits of a
// double, which the 10 significant digits drop (a datasheet figure has at most 5).
double peak_of(double rate, double share_percent) {
    const double peak = rate * 100.0 / share_percent;
    return std::stod(fmt::format("{:.10g}", peak));
}

const Metric* with(const CheckResult& result, std::string_view family, std::string_view label, std::string_view value) {
    for (const Metric& metric : result.metrics)
        if (metric.family == family)
            if (const std::string* text = metric.label(label); text != nullptr && *text == value) return &metric;
    return nullptr;
}

}  // namespace

void upgrade_legacy_metric(std::string_view check_id, Metric& metric) {
    static const std::vector<NamePattern> patterns = [] {
        std::vector<NamePattern> compiled;
        for (const LegacyFamily& family : legacy_families()) compiled.emplace_back(family.pattern);
        return compiled;
    }();
    for (std::size_t i = 0; i < legacy_families().size(); ++i) {
        const LegacyFamily& family = legacy_families()[i];
        if (family.check != check_id) continue;
        const std::optional<std::vector<std::string_view>> captures = patterns[i].match(metric.name);
        if (!captures) continue;
        metric.family = std::string(family.family);
        metric.help = std::string(family.help);
        metric.labels.clear();
        for (std::size_t group = 0; group < captures->size() && group < family.labels.size(); ++group)
            metric.labels.emplace_back(std::string(family.labels[group]), std::string((*captures)[group]));
        return;
    }
}

void add_legacy_peaks(CheckResult& result) {
    std::vector<Metric> metrics;
    for (const Metric& metric : result.metrics) {
        metrics.push_back(metric);
        if (metric.value <= 0) continue;
        if (result.check_id == "cublas.gemm" && metric.family == "gemm_of_peak" && metric.unit == "%" &&
            metric.label("precision") != nullptr) {
            const std::string& precision = *metric.label("precision");
            const Metric* rate = with(result, "gemm", "precision", precision);
            if (rate == nullptr || with(result, "gemm_peak", "precision", precision) != nullptr) continue;
            metrics.push_back(make_metric(gemm_peak, peak_of(rate->value, metric.value), {{"precision", precision}}));
        }
        if (result.check_id == "cuda.memory" && metric.family == "memory_bandwidth_of_theoretical" &&
            metric.unit == "%" && metric.label("direction") != nullptr) {
            const std::string& direction = *metric.label("direction");
            const Metric* rate = with(result, "memory_bandwidth", "direction", direction);
            if (rate == nullptr || with(result, "memory_bandwidth_theoretical", "direction", direction) != nullptr)
                continue;
            metrics.push_back(
                make_metric(copy_theoretical, peak_of(rate->value, metric.value), {{"direction", direction}}));
        }
    }
    result.metrics = std::move(metrics);
}

}  // namespace cudacheck
