#include "report/report_json.hpp"

#include "report/catalog.hpp"
#include "report/legacy_metrics.hpp"
#include "report/remedy.hpp"
#include "util/json_read.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <ostream>

namespace cudacheck {

namespace {

using json = ordered_json;
using namespace json_read;

Status read_status(const json& object, std::string_view key) {
    const std::string text = read<std::string>(object, key);
    const auto status = status_from_string(text);
    if (!status) throw JsonShapeError(pointer_token(key), fmt::format("unknown status '{}'", text));
    return *status;
}

}  // namespace

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json to_json(const HostInfo& host) {
    return json{{"hostname", host.hostname},
                {"node_name", text_or_null(host.node_name)},
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
                                {"device", optional_or_null(finding.device)},
                                {"subject", optional_or_null(finding.subject)},
                                {"remedy", to_string(finding.remedy)},
                                {"action_class", action_class(finding.remedy)},
                                {"gpu", finding.gpu.empty() ? json(nullptr) : json(finding.gpu)}});
    json evidence = json::array();
    for (const Evidence& item : result.evidence)
        evidence.push_back(json{{"key", item.key},
                                {"value", item.value},
                                {"number", optional_or_null(item.number)},
                                {"unit", item.number ? text_or_null(item.unit) : json(nullptr)}});
    json metrics = json::array();
    for (const Metric& metric : result.metrics) {
        // family, labels and help: since schema 1.10.0; a figure of an older report no family is
        // known for has none (null, no labels).
        json labels = json::object();
        for (const auto& [name, value] : metric.labels) labels[name] = value;
        metrics.push_back(json{{"name", metric.name},
                               {"value", metric.value},
                               {"unit", metric.unit},
                               {"family", text_or_null(metric.family)},
                               {"labels", std::move(labels)},
                               {"help", text_or_null(metric.help)},
                               {"measured", metric.measured}});
    }
    json series = json::array();
    for (const Series& table : result.series) {
        json columns = json::array();
        for (const SeriesColumn& column : table.columns) {
            json values = json::array();
            for (const std::optional<double>& value : column.values)
                values.push_back(value && std::isfinite(*value) ? json(*value) : json(nullptr));
            columns.push_back(json{{"name", column.name}, {"unit", column.unit}, {"values", values}});
        }
        series.push_back(json{{"name", table.name}, {"labels", table.labels}, {"columns", columns}});
    }
    json shared_gpu = json::array();
    for (const GpuSharing& sharing : result.shared_gpu) {
        json processes = json::array();
        for (const SharingProcess& process : sharing.processes)
            processes.push_back(json{{"pid", process.pid},
                                     {"name", text_or_null(process.name)},
                                     {"sm_percent", optional_or_null(process.sm_percent)},
                                     {"memory_bytes", optional_or_null(process.memory_bytes)}});
        shared_gpu.push_back(json{{"device", sharing.device}, {"method", sharing.method}, {"processes", processes}});
    }
    return json{{"id", result.check_id},
                {"device", optional_or_null(result.device)},
                {"status", to_string(result.status)},
                {"code", text_or_null(result.code)},
                {"message", result.message},
                {"remediation", text_or_null(result.remediation)},
                {"docs", result.code.empty() ? json(nullptr) : json(docs_anchor(result.code))},
                {"findings", findings},
                {"evidence", evidence},
                {"metrics", metrics},
                {"series", series},
                {"shared_gpu", shared_gpu},
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

json to_json(const FleetNode& node) {
    // The keys come from a std::map, so they are unique: appended as they are, not through
    // ordered_map's operator[], which scans every key already there (a report with 100,000 figures).
    json figures = json::object();
    auto& figure_items = static_cast<json::object_t::Container&>(*figures.get_ptr<json::object_t*>());
    for (const auto& [key, by_device] : node.figures) {
        json values = json::array();
        for (const auto& [device, value] : by_device)
            values.push_back(json{{"device", device >= 0 ? json(device) : json(nullptr)}, {"value", value}});
        figure_items.emplace_back(key, json{{"unit", node.units.at(key)}, {"values", values}});
    }
    json failed = json::array();
    if (node.report)
        for (const CheckResult& result : node.report->checks)
            if (result.status == Status::fail || result.status == Status::error || result.status == Status::timeout)
                failed.push_back(json{{"id", result.check_id},
                                      {"device", optional_or_null(result.device)},
                                      {"status", to_string(result.status)},
                                      {"code", result.code}});
    return json{{"node", node.name},
                {"source", node.source},
                {"error", text_or_null(node.error)},
                {"exit_code", node.report ? json(node.report->exit_code) : json(nullptr)},
                {"status", node.report ? json(to_string(node.report->summary.overall)) : json(nullptr)},
                {"versions", node.report ? to_json(node.report->versions) : json(nullptr)},
                {"gpus", node.report ? json(node.report->devices.size()) : json(nullptr)},
                {"failed", failed},
                {"figures", figures},
                {"xid_events", optional_or_null(node.xid_events)},
                {"remedy", node.report ? json(to_string(node.remedy)) : json(nullptr)},
                {"action_class", node.report ? json(action_class(node.remedy)) : json(nullptr)}};
}

// `value` as dump(2) writes it `depth` levels down in a larger document: every line after the
// first indented by two spaces per level (a JSON string holds no raw newline).
void write_indented(const json& value, int depth, std::ostream& out) {
    const std::string text = value.dump(2, ' ', false, json::error_handler_t::replace);
    const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    std::size_t from = 0;
    for (std::size_t newline = text.find('\n'); newline != std::string::npos; newline = text.find('\n', from)) {
        out.write(text.data() + from, static_cast<std::streamsize>(newline + 1 - from));
        out << indent;
        from = newline + 1;
    }
    out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

}  // namespace

void write_json(const Fleet& fleet, std::ostream& out) {
    const auto listed = [](const std::vector<FleetOutlier>& entries) {
        json list = json::array();
        for (const FleetOutlier& outlier : entries)
            list.push_back(json{{"node", outlier.node},
                                {"device", optional_or_null(outlier.device)},
                                {"kind", outlier.kind},
                                {"subject", outlier.subject},
                                {"value", outlier.value},
                                {"fleet_value", outlier.fleet_value},
                                {"message", outlier.message}});
        return list;
    };
    const json document{{"schema_version", fleet_json_schema_version},
                        {"document", "fleet"},
                        {"threshold_percent", fleet.threshold_percent},
                        {"nodes", nullptr},
                        {"outliers", listed(fleet.outliers)},
                        {"not_comparable", listed(fleet.not_comparable)},
                        {"exit_code", fleet.exit_code}};
    // Written as dump(2) would write the whole document, but one node at a time: a document of
    // 10,000 nodes built whole took 350 MB and a second.
    out << "{";
    bool first = true;
    for (const auto& [key, value] : document.items()) {
        out << (first ? "\n  " : ",\n  ") << json(key).dump() << ": ";
        first = false;
        if (key != "nodes") {
            write_indented(value, 1, out);
            continue;
        }
        if (fleet.nodes.empty()) {
            out << "[]";
            continue;
        }
        out << "[";
        for (std::size_t at = 0; at < fleet.nodes.size(); ++at) {
            out << (at == 0 ? "\n    " : ",\n    ");
            write_indented(to_json(fleet.nodes[at]), 2, out);
        }
        out << "\n  ]";
    }
    out << "\n}\n";
}

json to_json(const Redaction& redaction) {
    return json{{"kinds", redaction.kinds},
                {"environment_variables", redaction.environment_variables},
                {"replacements", redaction.replacements}};
}

json to_json(const std::vector<PythonEnvironmentInfo>& environments) {
    json list = json::array();
    for (const PythonEnvironmentInfo& environment : environments) {
        json frameworks = json::array();
        for (const FrameworkInfo& framework : environment.frameworks) {
            json libraries = json::array();
            for (const FrameworkLibraryInfo& library : framework.libraries)
                libraries.push_back(json{{"name", library.name},
                                         {"soname", library.soname},
                                         {"path", library.path},
                                         {"version", text_or_null(library.version)},
                                         {"origin", library.origin},
                                         {"package", text_or_null(library.package)},
                                         {"rule", library.rule}});
            json gpus = json::array();
            for (const FrameworkGpuInfo& gpu : framework.gpus)
                gpus.push_back(json{{"device", gpu.device}, {"runs", gpu.runs}, {"how", gpu.how}});
            frameworks.push_back(json{{"subject", framework.subject},
                                      {"framework", framework.framework},
                                      {"distribution", framework.distribution},
                                      {"version", framework.version},
                                      {"accelerator", framework.accelerator},
                                      {"cuda", text_or_null(framework.cuda)},
                                      {"gpu_code", framework.gpu_code},
                                      {"libraries", libraries},
                                      {"unresolved", framework.unresolved},
                                      {"gpus", gpus},
                                      {"files", framework.files},
                                      {"status", framework.status},
                                      {"codes", framework.codes},
                                      {"imported_from", text_or_null(framework.imported_from)}});
        }
        json sys_path = json::array();
        for (const PythonPathEntryInfo& entry : environment.sys_path)
            sys_path.push_back(json{{"path", entry.path}, {"origin", entry.origin}});
        json imports = json::array();
        for (const PythonImportInfo& imported : environment.imports)
            imports.push_back(json{{"module", imported.module},
                                   {"kind", imported.kind},
                                   {"file", text_or_null(imported.file)},
                                   {"origin", text_or_null(imported.origin)}});
        list.push_back(json{{"prefix", environment.prefix},
                            {"kind", environment.kind},
                            {"interpreter", text_or_null(environment.interpreter)},
                            {"python_version", text_or_null(environment.python_version)},
                            {"bare_python3", environment.bare_python3},
                            {"found_by", environment.found_by},
                            {"frameworks", frameworks},
                            {"sys_path", sys_path},
                            {"imports", imports}});
    }
    return list;
}

std::vector<PythonEnvironmentInfo> frameworks_from_json(const json& document) {
    if (!document.is_array()) throw JsonShapeError("", "expected an array of Python environments");
    std::vector<PythonEnvironmentInfo> environments;
    for (const json& item : document) {
        PythonEnvironmentInfo environment;
        environment.prefix = read<std::string>(item, "prefix");
        environment.kind = read<std::string>(item, "kind");
        environment.interpreter = read_text(item, "interpreter");
        environment.python_version = read_text(item, "python_version");
        environment.bare_python3 = read<bool>(item, "bare_python3");
        environment.found_by = read_strings(item, "found_by");
        for_each_element(item, "frameworks", [&](const json& entry) {
            FrameworkInfo framework;
            framework.subject = read<std::string>(entry, "subject");
            framework.framework = read<std::string>(entry, "framework");
            framework.distribution = read<std::string>(entry, "distribution");
            framework.version = read<std::string>(entry, "version");
            framework.accelerator = read<std::string>(entry, "accelerator");
            framework.cuda = read_text(entry, "cuda");
            framework.gpu_code = read_strings(entry, "gpu_code");
            for_each_element(entry, "libraries", [&](const json& library) {
                framework.libraries.push_back(
                    FrameworkLibraryInfo{read<std::string>(library, "name"), read<std::string>(library, "soname"),
                                         read<std::string>(library, "path"), read_text(library, "version"),
                                         read<std::string>(library, "origin"), read_text(library, "package"),
                                         read<std::string>(library, "rule")});
            });
            framework.unresolved = read_strings(entry, "unresolved");
            for_each_element(entry, "gpus", [&](const json& gpu) {
                framework.gpus.push_back(FrameworkGpuInfo{read<int>(gpu, "device"), read<std::string>(gpu, "runs"),
                                                          read<std::string>(gpu, "how")});
            });
            framework.files = read_strings(entry, "files");
            framework.status = read<std::string>(entry, "status");
            framework.codes = read_strings(entry, "codes");
            // Added in schema 1.8.0.
            if (entry.contains("imported_from")) framework.imported_from = read_text(entry, "imported_from");
            environment.frameworks.push_back(std::move(framework));
        });
        if (item.contains("sys_path"))
            for_each_element(item, "sys_path", [&](const json& entry) {
                environment.sys_path.push_back({read<std::string>(entry, "path"), read<std::string>(entry, "origin")});
            });
        if (item.contains("imports"))
            for_each_element(item, "imports", [&](const json& entry) {
                environment.imports.push_back({read<std::string>(entry, "module"), read<std::string>(entry, "kind"),
                                               read_text(entry, "file"), read_text(entry, "origin")});
            });
        environments.push_back(std::move(environment));
    }
    return environments;
}

json to_json(const BuildInfo& build) {
    json toolkits = json::array();
    for (const BuildToolkitInfo& toolkit : build.toolkits)
        toolkits.push_back(json{{"root", toolkit.root},
                                {"version", text_or_null(toolkit.version)},
                                {"build_toolkit", toolkit.build_toolkit},
                                {"gcc_newest", optional_or_null(toolkit.gcc_newest)},
                                {"clang_newest", optional_or_null(toolkit.clang_newest)}});
    json compilers = json::array();
    for (const BuildCompilerInfo& compiler : build.compilers)
        compilers.push_back(json{{"name", compiler.name},
                                 {"source", compiler.source},
                                 {"path", text_or_null(compiler.path)},
                                 {"version", text_or_null(compiler.version)},
                                 {"accepted", optional_or_null(compiler.accepted)},
                                 {"error", text_or_null(compiler.error)}});
    return json{{"toolkit", text_or_null(build.toolkit)},
                {"toolkit_rule", text_or_null(build.toolkit_rule)},
                {"nvcc_version", text_or_null(build.nvcc_version)},
                {"nvcc_architectures", build.nvcc_architectures},
                {"missing_files", build.missing_files},
                {"host_compiler", text_or_null(build.host_compiler)},
                {"host_compiler_rule", text_or_null(build.host_compiler_rule)},
                {"host_compiler_version", text_or_null(build.host_compiler_version)},
                {"host_compiler_accepted", optional_or_null(build.host_compiler_accepted)},
                {"ninja", text_or_null(build.ninja)},
                {"toolkits", toolkits},
                {"compilers", compilers}};
}

BuildInfo build_from_json(const json& document) {
    BuildInfo build;
    build.toolkit = read_text(document, "toolkit");
    build.toolkit_rule = read_text(document, "toolkit_rule");
    build.nvcc_version = read_text(document, "nvcc_version");
    build.nvcc_architectures = read_strings(document, "nvcc_architectures");
    build.missing_files = read_strings(document, "missing_files");
    build.host_compiler = read_text(document, "host_compiler");
    build.host_compiler_rule = read_text(document, "host_compiler_rule");
    build.host_compiler_version = read_text(document, "host_compiler_version");
    build.host_compiler_accepted = read_optional<bool>(document, "host_compiler_accepted");
    build.ninja = read_text(document, "ninja");
    for_each_element(document, "toolkits", [&](const json& toolkit) {
        build.toolkits.push_back(BuildToolkitInfo{read<std::string>(toolkit, "root"), read_text(toolkit, "version"),
                                                  read<bool>(toolkit, "build_toolkit"),
                                                  read_optional<int>(toolkit, "gcc_newest"),
                                                  read_optional<int>(toolkit, "clang_newest")});
    });
    for_each_element(document, "compilers", [&](const json& compiler) {
        build.compilers.push_back(
            BuildCompilerInfo{read<std::string>(compiler, "name"), read<std::string>(compiler, "source"),
                              read_text(compiler, "path"), read_text(compiler, "version"),
                              read_optional<bool>(compiler, "accepted"), read_text(compiler, "error")});
    });
    return build;
}

json to_json(const LibrariesInfo& libraries) {
    json found = json::array();
    for (const LibraryInfo& library : libraries.found) {
        json resolved = json::array();
        for (const LibraryResolutionInfo& resolution : library.resolved)
            resolved.push_back(json{{"soname", resolution.soname},
                                    {"path", resolution.path},
                                    {"real_path", resolution.real_path},
                                    {"rule", resolution.rule},
                                    {"version", text_or_null(resolution.version)},
                                    {"origin", resolution.origin},
                                    {"package", text_or_null(resolution.package)}});
        json copies = json::array();
        for (const LibraryCopyInfo& copy : library.copies)
            copies.push_back(json{{"soname", copy.soname},
                                  {"path", copy.path},
                                  {"real_path", copy.real_path},
                                  {"version", text_or_null(copy.version)},
                                  {"origin", copy.origin},
                                  {"package", text_or_null(copy.package)}});
        found.push_back(
            json{{"name", library.name}, {"sonames", library.sonames}, {"resolved", resolved}, {"copies", copies}});
    }
    return json{{"found", found},
                {"ld_so_cache", libraries.ld_so_cache},
                {"directories_searched", libraries.directories_searched},
                {"loaded_by_cudacheck", libraries.loaded_by_cudacheck}};
}

LibrariesInfo libraries_from_json(const json& document) {
    LibrariesInfo libraries;
    for_each_element(document, "found", [&](const json& entry) {
        LibraryInfo library{.name = read<std::string>(entry, "name"),
                            .sonames = read_strings(entry, "sonames"),
                            .resolved = {},
                            .copies = {}};
        for_each_element(entry, "resolved", [&](const json& resolution) {
            library.resolved.push_back(LibraryResolutionInfo{.soname = read<std::string>(resolution, "soname"),
                                                             .path = read<std::string>(resolution, "path"),
                                                             .real_path = read<std::string>(resolution, "real_path"),
                                                             .rule = read<std::string>(resolution, "rule"),
                                                             .version = read_text(resolution, "version"),
                                                             .origin = read<std::string>(resolution, "origin"),
                                                             .package = read_text(resolution, "package")});
        });
        for_each_element(entry, "copies", [&](const json& copy) {
            library.copies.push_back(LibraryCopyInfo{.soname = read<std::string>(copy, "soname"),
                                                     .path = read<std::string>(copy, "path"),
                                                     .real_path = read<std::string>(copy, "real_path"),
                                                     .version = read_text(copy, "version"),
                                                     .origin = read<std::string>(copy, "origin"),
                                                     .package = read_text(copy, "package")});
        });
        libraries.found.push_back(std::move(library));
    });
    libraries.ld_so_cache = read<std::string>(document, "ld_so_cache");
    libraries.directories_searched = read<int>(document, "directories_searched");
    libraries.loaded_by_cudacheck = read_strings(document, "loaded_by_cudacheck");
    return libraries;
}

json to_json(const RemedyReason& reason) {
    return json{{"check", reason.check_id},
                {"code", reason.code},
                {"status", to_string(reason.status)},
                {"remedy", to_string(reason.remedy)},
                {"message", reason.message}};
}

json to_json(const std::vector<RemedyReason>& reasons) {
    json array = json::array();
    for (const RemedyReason& reason : reasons) array.push_back(to_json(reason));
    return array;
}

// The report's `remedy` section (schema 1.11.0): written for programs (the Slurm health check reads
// `action_class`), never read back, since plan_remedy makes it from the findings again.
json to_json(const RemedyPlan& plan) {
    json gpus = json::array();
    for (const GpuRemedy& gpu : plan.gpus)
        gpus.push_back(json{{"gpu", gpu.gpu},
                            {"pci_bus_id", gpu.pci_bus_id.empty() ? json(nullptr) : json(gpu.pci_bus_id)},
                            {"nvml_index", optional_or_null(gpu.nvml_index)},
                            {"device", optional_or_null(gpu.cuda_device)},
                            {"step", to_string(gpu.step)},
                            {"action_class", action_class(gpu.step)},
                            {"do", describe_step(gpu.step, gpu.nvml_index)},
                            {"because", to_json(gpu.because)}});
    return json{{"step", to_string(plan.step)},   {"action_class", action_class(plan.step)},
                {"do", describe_step(plan.step)}, {"gpus", gpus},
                {"node", to_json(plan.node)},     {"configuration", to_json(plan.configuration)}};
}

json to_json(const Report& report) {
    json devices = json::array();
    for (const DeviceInfo& device : report.devices) devices.push_back(to_json(device));
    json checks = json::array();
    for (const CheckResult& result : report.checks) checks.push_back(to_json(result));
    return json{{"schema_version", json_schema_version},
                {"tool", json{{"name", "cudacheck"}, {"version", report.tool_version}}},
                {"timestamp_utc", report.timestamp_utc},
                {"argv", report.argv},
                {"options", json{{"level", report.level}, {"strict", report.strict}}},
                {"host", to_json(report.host)},
                {"versions", to_json(report.versions)},
                {"devices", devices},
                {"checks", checks},
                {"frameworks", report.frameworks ? to_json(*report.frameworks) : json(nullptr)},
                {"build", report.build ? to_json(*report.build) : json(nullptr)},
                {"libraries", report.libraries ? to_json(*report.libraries) : json(nullptr)},
                {"remedy", to_json(plan_remedy(report))},
                {"summary", to_json(report.summary, report.duration_ms)},
                {"exit_code", report.exit_code},
                {"redacted", report.redaction ? to_json(*report.redaction) : json(nullptr)}};
}

HostInfo host_from_json(const json& document) {
    HostInfo host;
    host.hostname = read<std::string>(document, "hostname");
    host.os_pretty_name = read_text(document, "os");
    host.kernel_release = read_text(document, "kernel");
    host.architecture = read_text(document, "architecture");
    host.libc_version = read_text(document, "libc");
    host.cpu_model = read_text(document, "cpu_model");
    host.logical_cpus = read<int>(document, "logical_cpus");
    host.memory_bytes = read<std::uint64_t>(document, "memory_bytes");
    host.container = read_text(document, "container");
    host.wsl = read_text(document, "wsl");
    if (document.contains("node_name")) host.node_name = read_text(document, "node_name");  // since 1.9.0
    return host;
}

VersionInfo versions_from_json(const json& document) {
    VersionInfo versions;
    versions.driver = read_text(document, "driver");
    versions.driver_cuda = read_text(document, "driver_cuda");
    versions.runtime = read_text(document, "runtime");
    versions.nvcc = read_text(document, "nvcc");
    return versions;
}

DeviceInfo device_from_json(const json& document) {
    DeviceInfo device;
    device.ordinal = read<int>(document, "ordinal");
    device.name = read<std::string>(document, "name");
    device.uuid = read_text(document, "uuid");
    device.pci_bus_id = read_text(document, "pci_bus_id");
    device.cc_major = read<int>(document, "cc_major");
    device.cc_minor = read<int>(document, "cc_minor");
    device.architecture = read<std::string>(document, "architecture");
    device.total_memory_bytes = read<std::uint64_t>(document, "total_memory_bytes");
    device.multiprocessors = read<int>(document, "multiprocessors");
    device.sm_clock_khz = read<int>(document, "sm_clock_khz");
    device.memory_clock_khz = read<int>(document, "memory_clock_khz");
    device.memory_bus_width_bits = read<int>(document, "memory_bus_width_bits");
    device.l2_cache_bytes = read<int>(document, "l2_cache_bytes");
    device.ecc_enabled = read<bool>(document, "ecc_enabled");
    device.compute_mode = read<std::string>(document, "compute_mode");
    device.integrated = read<bool>(document, "integrated");
    device.tcc_driver = read<bool>(document, "tcc_driver");
    device.theoretical_bandwidth_gbps = read_optional<double>(document, "theoretical_memory_bandwidth_gbps");
    device.fp32_peak_tflops = read_optional<double>(document, "fp32_peak_tflops");
    // Schema 1.0.0 added these three while it was 1.0.0 (a9e1181, a9ceaa9), and a 1.0.0
    // report recorded then has no nvml_index (tests/golden/reports/1.0.0.json). Before the NVML
    // listing of --level quick, every device came from the driver API.
    device.source = document.contains("source") ? read<std::string>(document, "source") : std::string("driver_api");
    if (document.contains("nvml_index")) device.nvml_index = read_optional<int>(document, "nvml_index");
    if (document.contains("framebuffer_bytes"))
        device.framebuffer_bytes = read_optional<std::uint64_t>(document, "framebuffer_bytes");
    return device;
}

CheckResult check_result_from_json(const json& document, bool names_before_families) {
    CheckResult result;
    result.check_id = read<std::string>(document, "id");
    result.device = read_optional<int>(document, "device");
    result.status = read_status(document, "status");
    result.code = read_text(document, "code");
    result.message = read<std::string>(document, "message");
    result.remediation = read_text(document, "remediation");
    for_each_element(document, "findings", [&](const json& finding) {
        Finding read_back{read_status(finding, "status"), read<std::string>(finding, "code"),
                          read<std::string>(finding, "message"), read<std::string>(finding, "remediation"),
                          // Reports before schema 1.2.0 have no device per finding.
                          finding.contains("device") ? read_optional<int>(finding, "device") : std::nullopt,
                          // Added in schema 1.4.0.
                          finding.contains("subject") ? read_optional<std::string>(finding, "subject") : std::nullopt};
        // remedy and gpu: added in schema 1.11.0. An older report's finding takes its code's remedy
        // from this build's catalogue (a code the catalogue lacks: none).
        if (finding.contains("remedy")) {
            const std::string remedy = read<std::string>(finding, "remedy");
            const std::optional<Remedy> known = remedy_from_string(remedy);
            if (!known)
                throw JsonShapeError("/remedy", fmt::format("'{}' is not a remedy this cudacheck knows", remedy));
            read_back.remedy = *known;
        } else if (const CatalogEntry* entry = find_catalog_entry(read_back.code)) {
            read_back.remedy = entry->remedy;
        }
        if (finding.contains("gpu")) read_back.gpu = read_optional<std::string>(finding, "gpu").value_or("");
        result.findings.push_back(std::move(read_back));
    });
    for_each_element(document, "evidence", [&](const json& item) {
        Evidence evidence{read<std::string>(item, "key"), read<std::string>(item, "value")};
        // number and unit: added in schema 1.6.0.
        if (item.contains("number")) evidence.number = read_optional<double>(item, "number");
        if (evidence.number && item.contains("unit")) evidence.unit = read_text(item, "unit");
        result.evidence.push_back(std::move(evidence));
    });
    for_each_element(document, "metrics", [&](const json& metric) {
        Metric read_metric{read<std::string>(metric, "name"), read<double>(metric, "value"),
                           read<std::string>(metric, "unit")};
        // family, labels and help: added in schema 1.10.0. An older report's figures take the
        // family of the name they were written under (legacy_metrics.hpp); only theirs.
        if (metric.contains("family")) {
            read_metric.family = read_text(metric, "family");
            read_metric.help = metric.contains("help") ? read_text(metric, "help") : std::string();
            if (metric.contains("measured")) read_metric.measured = read<bool>(metric, "measured");
            read_part(metric, "labels", [&](const json& labels) {
                if (!labels.is_object())
                    throw JsonShapeError("", fmt::format("expected an object, found {}", describe_value(labels)));
                for (const auto& [name, value] : labels.items()) {
                    if (!value.is_string())
                        throw JsonShapeError(pointer_token(name),
                                             fmt::format("expected a string, found {}", describe_value(value)));
                    read_metric.labels.emplace_back(name, value.get<std::string>());
                }
                return 0;
            });
        } else if (names_before_families) {
            upgrade_legacy_metric(result.check_id, read_metric);
        }
        result.metrics.push_back(std::move(read_metric));
    });
    // Added in schema 1.6.0.
    if (document.contains("series"))
        for_each_element(document, "series", [&](const json& item) {
            Series table{read<std::string>(item, "name"), read_strings(item, "labels"), {}};
            for_each_element(item, "columns", [&](const json& column) {
                SeriesColumn read_column{read<std::string>(column, "name"), read<std::string>(column, "unit"), {}};
                for_each_element(column, "values", [&](const json& value) {
                    if (value.is_null()) read_column.values.push_back(std::nullopt);
                    else if (value.is_number()) read_column.values.push_back(value.get<double>());
                    else
                        throw JsonShapeError("",
                                             fmt::format("expected a number or null, found {}", describe_value(value)));
                });
                table.columns.push_back(std::move(read_column));
            });
            for (const SeriesColumn& column : table.columns)
                if (column.values.size() != table.rows() ||
                    (!table.labels.empty() && table.labels.size() != table.rows()))
                    throw JsonShapeError("/columns",
                                         fmt::format("column '{}' has {} values where the series has {} rows",
                                                     column.name, column.values.size(),
                                                     table.labels.empty() ? table.rows() : table.labels.size()));
            result.series.push_back(std::move(table));
        });
    // Added in schema 1.7.0.
    if (document.contains("shared_gpu"))
        for_each_element(document, "shared_gpu", [&](const json& item) {
            GpuSharing sharing{read<int>(item, "device"), read<std::string>(item, "method"), {}};
            for_each_element(item, "processes", [&](const json& process) {
                const std::uint64_t pid = read<std::uint64_t>(process, "pid");
                if (pid > UINT_MAX) throw JsonShapeError("/pid", fmt::format("{} is not a process id", pid));
                sharing.processes.push_back(SharingProcess{static_cast<unsigned int>(pid), read_text(process, "name"),
                                                           read_optional<double>(process, "sm_percent"),
                                                           read_optional<std::uint64_t>(process, "memory_bytes")});
            });
            result.shared_gpu.push_back(std::move(sharing));
        });
    result.duration_ms = read<double>(document, "duration_ms");
    result.skip_reason = read_text(document, "skip_reason");
    return result;
}

Redaction redaction_from_json(const json& document) {
    Redaction redaction;
    redaction.kinds = read_strings(document, "kinds");
    redaction.environment_variables = read_strings(document, "environment_variables");
    redaction.replacements = read<int>(document, "replacements");
    return redaction;
}

Report report_from_json(const json& document) {
    if (!document.is_object()) throw JsonShapeError("", "not a cudacheck report: expected a JSON object");
    const auto tool = document.find("tool");
    if (tool == document.end() || !tool->is_object() || tool->value("name", json()) != "cudacheck")
        throw JsonShapeError("/tool/name", "not a cudacheck report: no \"tool\": {\"name\": \"cudacheck\"}");
    const std::string version = read<std::string>(document, "schema_version");
    const std::optional<int> major = schema_major(version);
    const std::optional<int> supported = schema_major(json_schema_version);
    if (!major)
        throw JsonShapeError("/schema_version", fmt::format("'{}' is not a MAJOR.MINOR.PATCH version", version));
    if (major != supported)
        throw JsonShapeError("/schema_version", fmt::format("schema {} is incompatible: this cudacheck reads reports "
                                                            "of schema {}.x (it writes {})",
                                                            version, *supported, json_schema_version));
    Report report;
    report.tool_version =
        read_part(document, "tool", [](const json& part) { return read<std::string>(part, "version"); });
    report.timestamp_utc = read<std::string>(document, "timestamp_utc");
    report.argv = read_strings(document, "argv");
    read_part(document, "options", [&](const json& options) {
        report.level = read<std::string>(options, "level");
        report.strict = read<bool>(options, "strict");
    });
    report.host = read_part(document, "host", host_from_json);
    report.versions = read_part(document, "versions", versions_from_json);
    for_each_element(document, "devices",
                     [&](const json& device) { report.devices.push_back(device_from_json(device)); });
    // schema_major has held the version to three numbers.
    const bool names_before_families = std::stoi(sys::split(version, '.')[1]) < 10;
    for_each_element(document, "checks", [&](const json& check) {
        report.checks.push_back(check_result_from_json(check, names_before_families));
    });
    // The summary is derived data: recomputed from the checks, so it cannot disagree with them.
    report.summary = summarize(report.checks);
    report.duration_ms =
        read_part(document, "summary", [](const json& summary) { return read<double>(summary, "duration_ms"); });
    report.exit_code = read<int>(document, "exit_code");
    // Added in schema 1.4.0.
    if (document.contains("frameworks") && !document.at("frameworks").is_null())
        report.frameworks = read_part(document, "frameworks", frameworks_from_json);
    // Added in schema 1.5.0.
    if (document.contains("build") && !document.at("build").is_null())
        report.build = read_part(document, "build", build_from_json);
    // Added in schema 1.10.0: an older report says nothing of library copies here (its
    // libraries.resolution evidence is for people, and is not read back).
    if (document.contains("libraries") && !document.at("libraries").is_null())
        report.libraries = read_part(document, "libraries", libraries_from_json);
    // Added in schema 1.3.0: older reports have no such field.
    if (document.contains("redacted") && !document.at("redacted").is_null())
        report.redaction = read_part(document, "redacted", redaction_from_json);
    return report;
}

Expected<Report> parse_report(std::string_view text, const std::string& name) {
    return parse_text_as(text, name, report_from_json);
}

Expected<Report> read_report_file(const std::string& path) { return read_file_as(path, report_from_json); }

}  // namespace cudacheck
