// The `cudacheck inspect` document as JSON (docs/cli.md, "inspect"): the inspect layer's own
// document, written with the report's JSON conventions (report/report_json.hpp).
#include "inspect/inspection.hpp"
#include "report/catalog.hpp"
#include "report/report_json.hpp"

#include <string>

namespace cudacheck {

namespace {

using json = ordered_json;

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
                {"compression",
                 object.compression == Compression::none ? json(nullptr) : json(to_string(object.compression))},
                {"size_bytes", object.size},
                {"uncompressed_size_bytes", object.uncompressed_size},
                {"ptx_isa", object.ptx_isa ? json(std::to_string(object.ptx_isa->major) + "." +
                                                  std::to_string(object.ptx_isa->minor))
                                           : json(nullptr)},
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
                {"ptx_isa", verdict.ptx_isa ? json(std::to_string(verdict.ptx_isa->major) + "." +
                                                   std::to_string(verdict.ptx_isa->minor))
                                            : json(nullptr)},
                {"requires_driver_cuda",
                 verdict.ptx_needs_cuda ? json(verdict.ptx_needs_cuda->to_string()) : json(nullptr)},
                {"fatbins_without_image", verdict.fatbins_without_image},
                {"message", verdict.message},
                {"code", verdict.finding ? json(verdict.finding->code) : json(nullptr)},
                {"remediation", verdict.finding ? json(verdict.finding->remediation) : json(nullptr)},
                {"docs", verdict.finding ? json(docs_anchor(verdict.finding->code)) : json(nullptr)}};
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
                     {"docs", docs_anchor(file.input_error->code)}};
    return json{{"path", file.path},       {"type", file.scan.kind ? json(to_string(*file.scan.kind)) : json(nullptr)},
                {"error", error},          {"fatbins", file.scan.fatbins},
                {"code_objects", objects}, {"verdicts", verdicts}};
}

json finding_or_null(const std::optional<Finding>& finding) {
    if (!finding) return nullptr;
    return json{{"code", finding->code},
                {"message", finding->message},
                {"remediation", finding->remediation},
                {"docs", docs_anchor(finding->code)}};
}

json to_json(const InspectedPackage& package) {
    json libraries = json::array();
    for (const PackageLibrary& library : package.libraries) {
        json file = to_json(library.file);
        file["size_bytes"] = library.size;
        file["bytes_inflated"] = package.wheel ? json(library.bytes_inflated) : json(nullptr);
        libraries.push_back(std::move(file));
    }
    json pins = json::array();
    for (const packaging::CudaPin& pin : package.cuda.pins)
        pins.push_back(json{{"requirement", pin.requirement}, {"cuda_major", pin.cuda_major}, {"why", pin.why}});
    json per_target = json::array();
    for (std::size_t i = 0; i < package.per_target.size(); ++i)
        per_target.push_back(json{{"target", i}, {"verdict", to_string(package.per_target[i])}});
    json fit = nullptr;
    if (package.fit)
        fit = json{{"fits", package.fit->fits},
                   {"tag", package.fit->fits ? json(package.fit->tag.text()) : json(nullptr)},
                   {"priority", package.fit->fits ? json(package.fit->priority) : json(nullptr)},
                   {"why_not", text_or_null(package.fit->why_not)}};
    return json{{"path", package.path},
                {"kind", package.wheel ? "wheel" : "installed"},
                {"name", text_or_null(package.name)},
                {"version", text_or_null(package.version)},
                {"tags", package.tags},
                {"requires_python", text_or_null(package.requires_python)},
                {"tag_fit", fit},
                {"not_installable", text_or_null(package.not_installable)},
                {"cuda_major", optional_or_null(package.cuda.cuda_major)},
                {"cuda_pins", pins},
                {"cuda_ambiguous", package.cuda.ambiguous},
                {"shared_libraries", package.shared_libraries},
                {"verdict", to_string(package.verdict)},
                {"per_target", per_target},
                {"why", package.why},
                {"finding", finding_or_null(package.finding)},
                {"error", finding_or_null(package.input_error)},
                {"libraries", libraries},
                {"duration_ms", package.duration_ms}};
}

}  // namespace

ordered_json to_json(const InspectReport& report) {
    json targets = json::array();
    for (const InspectTarget& target : report.targets)
        targets.push_back(
            json{{"label", target.label()},
                 {"arch", target.arch().sass_name()},
                 {"compute_capability", std::to_string(target.cc_major) + "." + std::to_string(target.cc_minor)},
                 {"device", optional_or_null(target.device)},
                 {"name", text_or_null(target.device_name)}});
    json files = json::array();
    for (const InspectedFile& file : report.files) files.push_back(to_json(file));
    json packages = json::array();
    for (const InspectedPackage& package : report.packages) packages.push_back(to_json(package));
    return json{{"schema_version", inspect_json_schema_version},
                {"document", "inspect"},
                {"tool", json{{"name", "cudacheck"}, {"version", report.tool_version}}},
                {"argv", report.argv},
                {"targets_from", text_or_null(report.targets_from)},
                {"targets", targets},
                {"note", text_or_null(report.note)},
                {"driver_cuda", report.driver_cuda ? json(report.driver_cuda->to_string()) : json(nullptr)},
                {"files", files},
                {"interpreter", text_or_null(report.interpreter)},
                {"packages", packages},
                {"duration_ms", report.duration_ms},
                {"exit_code", report.exit_code}};
}

}  // namespace cudacheck
