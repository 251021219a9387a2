#include "render/text_support.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

std::string_view count_label(Status status) {
    switch (status) {
        case Status::pass: return "passed";
        case Status::skip: return "skipped";
        case Status::warn: return "warned";
        case Status::fail: return "failed";
        case Status::timeout: return "timed out";
        case Status::error: return "errored";
    }
    return "";
}

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
    if ((lead == 0xe0 && byte(at + 1) < 0xa0) || (lead == 0xed && byte(at + 1) >= 0xa0) ||
        (lead == 0xf0 && byte(at + 1) < 0x90) || (lead == 0xf4 && byte(at + 1) >= 0x90))
        return 0;
    return length;
}

}  // namespace

std::string xml_escape(std::string_view text) {
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

std::vector<TextSpan> code_spans(std::string_view text) {
    std::vector<TextSpan> spans;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t open = text.find('`', at);
        const std::size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
        if (close == std::string_view::npos) {
            spans.push_back({text.substr(at), false});
            break;
        }
        if (open > at) spans.push_back({text.substr(at, open - at), false});
        spans.push_back({text.substr(open + 1, close - open - 1), true});
        at = close + 1;
    }
    return spans;
}

std::string status_word(Status status) {
    std::string result(to_string(status));
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return result;
}

const Metric* key_figure(const CheckResult& result) {
    for (const Metric& metric : result.metrics)
        if (is_performance_figure(metric)) return &metric;
    return nullptr;
}

std::string format_metric(const Metric& metric) {
    if (metric.value >= 100.0) return fmt::format("{:.0f} {}", metric.value, metric.unit);
    return fmt::format("{:.3g} {}", metric.value, metric.unit);
}

std::string redaction_note(const Redaction& redaction) {
    if (redaction.kinds.empty()) return "Redacted (--redact): nothing identifying was found.";
    std::string kinds;
    for (const std::string& kind : redaction.kinds) {
        std::string words = kind;
        std::replace(words.begin(), words.end(), '_', ' ');
        kinds += (kinds.empty() ? "" : ", ") + words;
    }
    std::string note = fmt::format("Redacted (--redact): {} ({} replacements)", kinds, redaction.replacements);
    if (!redaction.environment_variables.empty())
        note += fmt::format("; values of {}", fmt::join(redaction.environment_variables, ", "));
    return note + ".";
}

std::string summary_counts(const Summary& summary) {
    std::string counts = fmt::format("{} {}", summary.count(Status::pass), count_label(Status::pass));
    for (Status status : {Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
        if (summary.count(status) > 0) counts += fmt::format(", {} {}", summary.count(status), count_label(status));
    return counts;
}

std::vector<FrameworkRow> framework_rows(const std::vector<PythonEnvironmentInfo>& environments) {
    std::vector<FrameworkRow> rows;
    for (const PythonEnvironmentInfo& environment : environments)
        for (const FrameworkInfo& framework : environment.frameworks) {
            FrameworkRow row;
            row.status = status_from_string(framework.status).value_or(Status::pass);
            row.environment = environment.prefix + (environment.bare_python3 ? " (python3)" : "");
            row.framework = fmt::format("{} {}", framework.framework, framework.version);
            row.cuda = framework.accelerator == "cuda" ? (framework.cuda.empty() ? std::string("cuda") : framework.cuda)
                                                       : framework.accelerator;
            std::vector<std::string> loads;
            // The libraries that decide most failures; the JSON has them all.
            for (const char* name : {"cuDNN", "cuBLAS", "NCCL", "NVRTC"})
                for (const FrameworkLibraryInfo& library : framework.libraries)
                    if (library.name == name) {
                        loads.push_back(
                            fmt::format("{} {} {}", library.name, library.version.empty() ? "?" : library.version,
                                        library.origin == "pip_wheel" ? std::string("wheel") : library.origin));
                        break;
                    }
            for (const std::string& soname : framework.unresolved) loads.push_back(soname + " MISSING");
            row.loads = loads.empty() ? std::string("-") : fmt::format("{}", fmt::join(loads, ", "));
            std::vector<std::string> gpus;
            for (const FrameworkGpuInfo& gpu : framework.gpus)
                gpus.push_back(fmt::format("{} {}", gpu.device, gpu.runs == "native" ? gpu.how : gpu.runs));
            row.gpus = gpus.empty() ? std::string("-") : fmt::format("{}", fmt::join(gpus, "; "));
            rows.push_back(std::move(row));
        }
    return rows;
}

std::string paint(bool color, Status status, std::string_view text) {
    if (!color) return std::string(text);
    const std::string_view colour = status == Status::pass   ? "\033[32m"
                                    : status == Status::skip ? "\033[2m"
                                    : status == Status::warn ? "\033[33m"
                                                             : "\033[31m";
    return fmt::format("{}{}\033[0m", colour, text);
}

}  // namespace cudacheck
