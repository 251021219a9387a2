#include "render/report_json.hpp"

#include "render/renderer.hpp"

#include <cctype>
#include <stdexcept>

namespace cudacheck {

namespace {

using json = ordered_json;

// Empty strings are "unknown": null in JSON, so consumers need not guess.
json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

template <typename T>
json optional_or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

std::string lower_code(std::string code) {
    for (char& c : code) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return code;
}

// null -> "", for the fields text_or_null writes.
std::string text_or_empty(const json& value) { return value.is_null() ? std::string() : value.get<std::string>(); }

template <typename T>
std::optional<T> optional_from(const json& value) {
    return value.is_null() ? std::nullopt : std::optional<T>(value.get<T>());
}

}  // namespace

json to_json(const HostInfo& host) {
    return json{{"hostname", host.hostname},
                {"os", text_or_null(host.os_pretty_name)},
                {"kernel", text_or_null(host.kernel_release)},
                {"architecture", text_or_null(host.architecture)},
                {"libc", text_or_null(host.libc_version)},
                {"cpu_model", text_or_null(host.cpu_model)},
                {"logical_cpus", host.logical_cpus},
                {"memory_bytes", host.memory_bytes},
                {"container", text_or_null(host.container)},
                {"wsl", text_or_null(host.wsl)}};
}

json to_json(const VersionInfo& versions) {
    return json{{"driver", text_or_null(versions.driver)},
                {"driver_cuda", text_or_null(versions.driver_cuda)},
                {"runtime", text_or_null(versions.runtime)},
                {"nvcc", text_or_null(versions.nvcc)}};
}

json to_json(const DeviceInfo& device) {
    return json{{"ordinal", device.ordinal},
                {"name", device.name},
                {"uuid", text_or_null(device.uuid)},
                {"pci_bus_id", text_or_null(device.pci_bus_id)},
                {"compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)},
                {"cc_major", device.cc_major},
                {"cc_minor", device.cc_minor},
                {"architecture", device.architecture},
                {"total_memory_bytes", device.total_memory_bytes},
                {"multiprocessors", device.multiprocessors},
                {"sm_clock_khz", device.sm_clock_khz},
                {"memory_clock_khz", device.memory_clock_khz},
                {"memory_bus_width_bits", device.memory_bus_width_bits},
                {"l2_cache_bytes", device.l2_cache_bytes},
                {"ecc_enabled", device.ecc_enabled},
                {"compute_mode", device.compute_mode},
                {"integrated", device.integrated},
                {"tcc_driver", device.tcc_driver},
                {"theoretical_memory_bandwidth_gbps", optional_or_null(device.theoretical_bandwidth_gbps)},
                {"fp32_peak_tflops", optional_or_null(device.fp32_peak_tflops)},
                {"source", device.source},
                {"nvml_index", optional_or_null(device.nvml_index)},
                {"framebuffer_bytes", optional_or_null(device.framebuffer_bytes)}};
}

json to_json(const CheckResult& result) {
    json findings = json::array();
    for (const Finding& finding : result.findings)
        findings.push_back(json{{"status", to_string(finding.status)},
                                {"code", finding.code},
                                {"message", finding.message},
                                {"remediation", finding.remediation},
                                {"device", optional_or_null(finding.device)}});
    json evidence = json::array();
    for (const Evidence& item : result.evidence) evidence.push_back(json{{"key", item.key}, {"value", item.value}});
    json metrics = json::array();
    for (const Metric& metric : result.metrics)
        metrics.push_back(json{{"name", metric.name}, {"value", metric.value}, {"unit", metric.unit}});
    return json{{"id", result.check_id},
                {"device", optional_or_null(result.device)},
                {"status", to_string(result.status)},
                {"code", text_or_null(result.code)},
                {"message", result.message},
                {"remediation", text_or_null(result.remediation)},
                {"docs", result.code.empty() ? json(nullptr) : json("docs/errors.md#" + lower_code(result.code))},
                {"findings", findings},
                {"evidence", evidence},
                {"metrics", metrics},
                {"duration_ms", result.duration_ms},
                {"skip_reason", text_or_null(result.skip_reason)}};
}

json to_json(const Summary& summary, double duration_ms) {
    json counts = json::object();
    for (Status status : {Status::pass, Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
        counts[std::string(to_string(status))] = summary.count(status);
    return json{{"overall", to_string(summary.overall)}, {"counts", counts}, {"duration_ms", duration_ms}};
}

namespace {

json to_json(const CodeObject& object) {
    const auto variant = [](ArchVariant value) -> json {
        switch (value) {
            case ArchVariant::arch_specific: return "a";
            case ArchVariant::family: return "f";
            case ArchVariant::generic: break;
        }
        return nullptr;
    };
    const auto kind = [](CodeKind value) {
        switch (value) {
            case CodeKind::sass: return "sass";
            case CodeKind::ptx: return "ptx";
            case CodeKind::lto_ir: return "lto_ir";
        }
        return "";
    };
    return json{{"kind", kind(object.kind)},
                {"arch", object.kind == CodeKind::sass ? object.arch.sass_name() : object.arch.virtual_name()},
                {"arch_number", object.arch.number},
                {"variant", variant(object.arch.variant)},
                {"compressed", object.compression != Compression::none},
                {"compression", object.compression == Compression::none ? json(nullptr) : json(to_string(object.compression))},
                {"size_bytes", object.size},
                {"uncompressed_size_bytes", object.uncompressed_size},
                {"ptx_isa", object.ptx_isa ? json(std::to_string(object.ptx_isa->major) + "." + std::to_string(object.ptx_isa->minor)) : json(nullptr)},
                {"section", text_or_null(object.section)},
                {"fatbin", optional_or_null(object.fatbin)},
                {"offset", object.offset}};
}

json to_json(const TargetVerdict& verdict, std::size_t target) {
    const auto image = [&]() -> json {
        if (verdict.status == Status::skip) return nullptr;
        switch (verdict.image.kind) {
            case ImageKind::native: return "native";
            case ImageKind::ptx_jit: return "ptx_jit";
            case ImageKind::none: break;
        }
        return "none";
    };
    json used = nullptr;
    if (verdict.image.kind == ImageKind::native) used = verdict.image.target.sass_name();
    if (verdict.image.kind == ImageKind::ptx_jit) used = verdict.image.target.virtual_name();
    return json{{"target", target},
                {"status", to_string(verdict.status)},
                {"image", image()},
                {"uses", used},
                {"ptx_isa", verdict.ptx_isa ? json(std::to_string(verdict.ptx_isa->major) + "." + std::to_string(verdict.ptx_isa->minor)) : json(nullptr)},
                {"requires_driver_cuda", verdict.ptx_needs_cuda ? json(verdict.ptx_needs_cuda->to_string()) : json(nullptr)},
                {"fatbins_without_image", verdict.fatbins_without_image},
                {"message", verdict.message},
                {"code", verdict.finding ? json(verdict.finding->code) : json(nullptr)},
                {"remediation", verdict.finding ? json(verdict.finding->remediation) : json(nullptr)},
                {"docs", verdict.finding ? json("docs/errors.md#" + lower_code(verdict.finding->code)) : json(nullptr)}};
}

json to_json(const InspectedFile& file) {
    json objects = json::array();
    for (const CodeObject& object : file.scan.objects) objects.push_back(to_json(object));
    json verdicts = json::array();
    for (std::size_t i = 0; i < file.verdicts.size(); ++i) verdicts.push_back(to_json(file.verdicts[i], i));
    json error = nullptr;
    if (file.input_error)
        error = json{{"code", file.input_error->code},
                     {"message", file.input_error->message},
                     {"remediation", file.input_error->remediation},
                     {"docs", "docs/errors.md#" + lower_code(file.input_error->code)}};
    return json{{"path", file.path},
                {"type", file.scan.kind ? json(to_string(*file.scan.kind)) : json(nullptr)},
                {"error", error},
                {"fatbins", file.scan.fatbins},
                {"code_objects", objects},
                {"verdicts", verdicts}};
}

}  // namespace

json to_json(const InspectReport& report) {
    json targets = json::array();
    for (const InspectTarget& target : report.targets)
        targets.push_back(json{{"label", target.label()},
                               {"arch", target.arch().sass_name()},
                               {"compute_capability", std::to_string(target.cc_major) + "." + std::to_string(target.cc_minor)},
                               {"device", optional_or_null(target.device)},
                               {"name", text_or_null(target.device_name)}});
    json files = json::array();
    for (const InspectedFile& file : report.files) files.push_back(to_json(file));
    return json{{"schema_version", inspect_json_schema_version},
                {"document", "inspect"},
                {"tool", json{{"name", "cudacheck"}, {"version", report.tool_version}}},
                {"argv", report.argv},
                {"targets_from", text_or_null(report.targets_from)},
                {"targets", targets},
                {"note", text_or_null(report.note)},
                {"driver_cuda", report.driver_cuda ? json(report.driver_cuda->to_string()) : json(nullptr)},
                {"files", files},
                {"duration_ms", report.duration_ms},
                {"exit_code", report.exit_code}};
}

VersionInfo versions_from_json(const json& document) {
    VersionInfo versions;
    versions.driver = text_or_empty(document.at("driver"));
    versions.driver_cuda = text_or_empty(document.at("driver_cuda"));
    versions.runtime = text_or_empty(document.at("runtime"));
    versions.nvcc = text_or_empty(document.at("nvcc"));
    return versions;
}

DeviceInfo device_from_json(const json& document) {
    DeviceInfo device;
    device.ordinal = document.at("ordinal").get<int>();
    device.name = document.at("name").get<std::string>();
    device.uuid = text_or_empty(document.at("uuid"));
    device.pci_bus_id = text_or_empty(document.at("pci_bus_id"));
    device.cc_major = document.at("cc_major").get<int>();
    device.cc_minor = document.at("cc_minor").get<int>();
    device.architecture = document.at("architecture").get<std::string>();
    device.total_memory_bytes = document.at("total_memory_bytes").get<std::uint64_t>();
    device.multiprocessors = document.at("multiprocessors").get<int>();
    device.sm_clock_khz = document.at("sm_clock_khz").get<int>();
    device.memory_clock_khz = document.at("memory_clock_khz").get<int>();
    device.memory_bus_width_bits = document.at("memory_bus_width_bits").get<int>();
    device.l2_cache_bytes = document.at("l2_cache_bytes").get<int>();
    device.ecc_enabled = document.at("ecc_enabled").get<bool>();
    device.compute_mode = document.at("compute_mode").get<std::string>();
    device.integrated = document.at("integrated").get<bool>();
    device.tcc_driver = document.at("tcc_driver").get<bool>();
    device.theoretical_bandwidth_gbps = optional_from<double>(document.at("theoretical_memory_bandwidth_gbps"));
    device.fp32_peak_tflops = optional_from<double>(document.at("fp32_peak_tflops"));
    device.source = document.at("source").get<std::string>();
    device.nvml_index = optional_from<int>(document.at("nvml_index"));
    device.framebuffer_bytes = optional_from<std::uint64_t>(document.at("framebuffer_bytes"));
    return device;
}

CheckResult check_result_from_json(const json& document) {
    const auto status = [](const json& value) {
        const auto parsed = status_from_string(value.get<std::string>());
        if (!parsed) throw std::invalid_argument("unknown status " + value.get<std::string>());
        return *parsed;
    };
    CheckResult result;
    result.check_id = document.at("id").get<std::string>();
    result.device = optional_from<int>(document.at("device"));
    result.status = status(document.at("status"));
    result.code = text_or_empty(document.at("code"));
    result.message = document.at("message").get<std::string>();
    result.remediation = text_or_empty(document.at("remediation"));
    for (const json& finding : document.at("findings"))
        result.findings.push_back(Finding{status(finding.at("status")), finding.at("code").get<std::string>(),
                                          finding.at("message").get<std::string>(), finding.at("remediation").get<std::string>(),
                                          optional_from<int>(finding.at("device"))});
    for (const json& item : document.at("evidence"))
        result.evidence.push_back(Evidence{item.at("key").get<std::string>(), item.at("value").get<std::string>()});
    for (const json& metric : document.at("metrics"))
        result.metrics.push_back(Metric{metric.at("name").get<std::string>(), metric.at("value").get<double>(), metric.at("unit").get<std::string>()});
    result.duration_ms = document.at("duration_ms").get<double>();
    result.skip_reason = text_or_empty(document.at("skip_reason"));
    return result;
}

}  // namespace cudacheck
