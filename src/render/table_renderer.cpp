// The human-readable table: one line per check (and device), remediation under problems, summary.
// Text from the machine (messages, fixes, evidence, paths) is written with its control characters
// escaped (sys::printable; TextTable does the same for its cells): one line per finding, and no
// escape sequence from a file name or a library's message reaches the terminal.
#include "render/renderer.hpp"
#include "render/text_support.hpp"
#include "render/text_table.hpp"
#include "report/remedy.hpp"

#include "util/system.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <vector>

namespace cudacheck {

namespace {

using sys::printable;

// --- cudacheck inspect ---------------------------------------------------------------------

std::string object_arch(const CodeObject& object) {
    return object.kind == CodeKind::sass ? object.arch.sass_name() : object.arch.virtual_name();
}

std::string isa_text(const std::optional<PtxIsa>& isa) {
    return isa ? fmt::format("{}.{}", isa->major, isa->minor) : std::string();
}

// One table row: a code object, or all those of one kind, architecture and compression.
struct ObjectRow {
    const CodeObject* first = nullptr;
    std::size_t count = 0;
    std::uint64_t size = 0;
    std::uint64_t uncompressed_size = 0;
    std::set<std::string> isas;
};

std::vector<ObjectRow> object_rows(const std::vector<CodeObject>& objects, bool every_object) {
    std::vector<ObjectRow> rows;
    for (const CodeObject& object : objects) {
        auto row = std::find_if(rows.begin(), rows.end(), [&](const ObjectRow& candidate) {
            return !every_object && candidate.first->kind == object.kind && candidate.first->arch == object.arch &&
                   candidate.first->compression == object.compression;
        });
        if (row == rows.end()) {
            row = rows.insert(rows.end(), ObjectRow{});
            row->first = &object;
        }
        ++row->count;
        row->size += object.size;
        row->uncompressed_size += object.uncompressed_size;
        if (object.ptx_isa) row->isas.insert(isa_text(object.ptx_isa));
    }
    return rows;
}

std::string size_text(const ObjectRow& row) {
    if (row.first->compression == Compression::none) return format_bytes(row.size);
    return fmt::format("{} ({})", format_bytes(row.size), format_bytes(row.uncompressed_size));
}

void render_objects(const InspectedFile& file, bool every_object, std::ostream& out) {
    if (file.scan.objects.empty()) return;
    // KIND, COUNT and COMPRESSION hold short known values: fixed widths keep files aligned with each other.
    TextTable table({{"KIND", 6},
                     {"ARCH"},
                     {"COUNT", 5, TextTable::Align::right},
                     {"COMPRESSION", 11},
                     {"SIZE"},
                     {every_object ? "PTX ISA  WHERE" : "PTX ISA"}});
    for (const ObjectRow& row : object_rows(file.scan.objects, every_object)) {
        std::string isa;
        for (const std::string& version : row.isas) isa += (isa.empty() ? "" : ", ") + version;
        std::string where;
        if (every_object && row.first->fatbin)
            where = fmt::format("{}{} fatbin {} @{:#x}", isa.empty() ? std::string(7, ' ') : "  ", row.first->section,
                                *row.first->fatbin, row.first->offset);
        table.add_row({std::string(to_string(row.first->kind)), object_arch(*row.first), std::to_string(row.count),
                       std::string(to_string(row.first->compression)), size_text(row), isa + where});
    }
    for (const std::string& line : table.lines()) out << "  " << line << '\n';
}

}  // namespace

namespace {

Status package_status(PackageVerdict verdict) {
    switch (verdict) {
        case PackageVerdict::unreadable: return Status::error;
        case PackageVerdict::not_installable:
        case PackageVerdict::cannot_run: return Status::fail;
        case PackageVerdict::runs_through_ptx: return Status::warn;
        case PackageVerdict::runs_natively: return Status::pass;
        case PackageVerdict::no_gpu_code:
        case PackageVerdict::not_judged: return Status::skip;
    }
    return Status::skip;
}

std::string_view package_verdict_words(PackageVerdict verdict) {
    switch (verdict) {
        case PackageVerdict::unreadable: return "unreadable";
        case PackageVerdict::not_installable: return "not installable here";
        case PackageVerdict::cannot_run: return "does not run";
        case PackageVerdict::runs_through_ptx: return "runs through PTX JIT";
        case PackageVerdict::runs_natively: return "runs natively";
        case PackageVerdict::no_gpu_code: return "no GPU code";
        case PackageVerdict::not_judged: return "not judged";
    }
    return "";
}

}  // namespace

void render_inspect_table(const InspectReport& report, RenderOptions options, std::ostream& out) {
    out << fmt::format("cudacheck {} · inspect", report.tool_version);
    if (report.targets.empty()) out << " · " << printable(report.note) << '\n';
    else
        out << fmt::format(" · targets from {}{}\n", printable(report.targets_from),
                           report.driver_cuda ? fmt::format(" (driver CUDA {})", report.driver_cuda->to_string())
                                              : std::string());
    // The target column after the painted status word; continuation lines start under the verdict.
    TextTable verdicts({{"", 6}, {""}});
    for (const InspectTarget& target : report.targets) verdicts.fit({target.label(), ""});
    const std::string indent(8 + verdicts.offset(1), ' ');
    std::size_t runs = 0, cannot = 0;
    for (const InspectedFile& file : report.files) {
        out << '\n' << printable(file.path);
        if (file.scan.kind) {
            out << ": " << to_string(*file.scan.kind);
            // A bare cubin or PTX file is its own single code object; fatbinaries are the others' modules.
            if (*file.scan.kind != FileKind::cubin && *file.scan.kind != FileKind::ptx)
                out << fmt::format(", {} fatbinar{}, {} code object{}", file.scan.fatbins,
                                   file.scan.fatbins == 1 ? "y" : "ies", file.scan.objects.size(),
                                   file.scan.objects.size() == 1 ? "" : "s");
        }
        out << '\n';
        if (file.input_error) {
            out << "  " << paint(options.color, Status::error, "ERROR") << ' ' << printable(file.input_error->message)
                << '\n';
            out << "        fix: " << printable(file.input_error->remediation)
                << fmt::format("  [{}]\n", printable(file.input_error->code));
        }
        render_objects(file, options.verbose, out);
        for (std::size_t i = 0; i < file.verdicts.size() && i < report.targets.size(); ++i) {
            const TargetVerdict& verdict = file.verdicts[i];
            if (verdict.status == Status::pass) ++runs;
            if (verdict.status == Status::fail) ++cannot;
            out << "  " << paint(options.color, verdict.status, fmt::format("{:<6}", status_word(verdict.status)))
                << verdicts.row({report.targets[i].label(), verdict.message}) << '\n';
            if (verdict.fatbins_without_image > 0)
                out << indent
                    << fmt::format(
                           "{} of {} fatbinaries have no image for it (a library may launch those only on other "
                           "GPUs)\n",
                           verdict.fatbins_without_image, file.scan.fatbins);
            if (verdict.finding)
                out << indent << "fix: " << printable(verdict.finding->remediation)
                    << fmt::format("  [{}]\n", printable(verdict.finding->code));
        }
    }
    if (!report.packages.empty() && !report.interpreter.empty())
        out << "\nwheels judged for " << printable(report.interpreter) << '\n';
    std::size_t packages_fail = 0;
    for (const InspectedPackage& package : report.packages) {
        const Status status = package_status(package.verdict);
        if (status == Status::fail || status == Status::error) ++packages_fail;
        out << '\n'
            << printable(package.name.empty() ? package.path : package.name)
            << (package.version.empty() ? std::string() : " " + printable(package.version)) << " ("
            << (package.wheel ? "wheel" : "installed") << ")";
        if (package.cuda.cuda_major) out << fmt::format(", CUDA {}", *package.cuda.cuda_major);
        out << '\n';
        if (options.verbose || package.name.empty()) out << "  " << printable(package.path) << '\n';
        out << "  " << paint(options.color, status, fmt::format("{:<6}", status_word(status)))
            << printable(package_verdict_words(package.verdict)) << ": " << printable(package.why) << '\n';
        const std::optional<Finding>& finding = package.input_error ? package.input_error : package.finding;
        if (finding && status != Status::pass)
            out << "        fix: " << printable(finding->remediation)
                << fmt::format("  [{}]\n", printable(finding->code));
        if (options.verbose)
            for (const PackageLibrary& library : package.libraries) {
                out << "    " << printable(library.file.path)
                    << fmt::format(": {} fatbinar{}, {} code object{}", library.file.scan.fatbins,
                                   library.file.scan.fatbins == 1 ? "y" : "ies", library.file.scan.objects.size(),
                                   library.file.scan.objects.size() == 1 ? "" : "s");
                for (std::size_t i = 0; i < library.file.verdicts.size() && i < report.targets.size(); ++i)
                    out << fmt::format("; {}: {}", report.targets[i].arch().sass_name(),
                                       status_word(library.file.verdicts[i].status));
                out << '\n';
            }
    }
    const Status overall = report.exit_code == exit_ok             ? Status::pass
                           : report.exit_code == exit_check_failed ? Status::fail
                                                                   : Status::error;
    // "2 files, 3 targets: 5 run, 1 cannot", and for packages "2 packages: 1 cannot run or install".
    std::vector<std::string> parts;
    if (!report.files.empty() || report.packages.empty())
        parts.push_back(fmt::format("{} file{}, {} target{}: {} run, {} cannot", report.files.size(),
                                    report.files.size() == 1 ? "" : "s", report.targets.size(),
                                    report.targets.size() == 1 ? "" : "s", runs, cannot));
    if (!report.packages.empty())
        parts.push_back(fmt::format("{} package{}: {} cannot run or install", report.packages.size(),
                                    report.packages.size() == 1 ? "" : "s", packages_fail));
    out << '\n'
        << fmt::format("{} — ", fmt::join(parts, "; ")) << paint(options.color, overall, status_word(overall))
        << fmt::format(" (exit {}) in {:.0f} ms\n", report.exit_code, report.duration_ms);
}

namespace {

class TableRenderer final : public Renderer {
public:
    explicit TableRenderer(RenderOptions options) : options_(options) {}

private:
    std::string paint(Status status, std::string_view text) const {
        return cudacheck::paint(options_.color, status, text);
    }

    // `lead` (already `lead_columns` wide: a status word, a label, "fix: "), then `text` wrapped
    // at options_.width with its later lines `indent` columns in; as one line when no width is set
    // (a file, a pipe: the golden files) or it fits.
    void put(std::ostream& out, std::string_view lead, std::size_t lead_columns, std::string_view text,
             std::size_t indent) const {
        const std::vector<std::string> lines = wrap_text(text, options_.width, lead_columns, indent);
        out << lead << lines.front() << '\n';
        for (std::size_t i = 1; i < lines.size(); ++i) out << lines[i] << '\n';
    }

    void do_render(const Report& report, std::ostream& out) const override {
        // CHECK and RESULT after the painted status word (STATUS, 7 wide, and one space).
        TextTable table({{"CHECK"}, {"RESULT"}});
        for (const CheckResult& result : report.checks) table.fit({check_label(result), ""});
        out << fmt::format("cudacheck {} · level {} · {}\n", report.tool_version, report.level, report.timestamp_utc);
        out << fmt::format("{:<7} ", "STATUS") << table.heading_row() << '\n';
        const std::string indent(8 + table.offset(1), ' ');  // under the RESULT column
        // At a terminal's width, each line's later lines hang under its own text: a result under
        // the RESULT column, a finding after its status word, a fix after "fix: ".
        // Without -v, checks skipped for one same reason (three or more) share one row, at the place
        // of the first: on a machine without the driver, one line for the 14 checks that need it
        // rather than 14.
        std::map<std::string, std::vector<const CheckResult*>> skipped_for;
        if (!options_.verbose)
            for (const CheckResult& result : report.checks)
                if (result.status == Status::skip) skipped_for[result.skip_reason].push_back(&result);
        for (const CheckResult& result : report.checks) {
            if (const auto group = skipped_for.find(result.skip_reason);
                result.status == Status::skip && group != skipped_for.end() && group->second.size() >= 3) {
                if (group->second.front() != &result) continue;
                std::vector<std::string> labels;
                for (const CheckResult* member : group->second) labels.push_back(check_label(*member));
                put(out,
                    paint(Status::skip, fmt::format("{:<7}", status_word(Status::skip))) + ' ' +
                        table.row({fmt::format("{} checks", labels.size()), ""}),
                    indent.size(), sys::printable(fmt::format("{}: {}", result.skip_reason, fmt::join(labels, ", "))),
                    indent.size());
                continue;
            }
            std::string line = result.message;
            if (const Metric* key = key_figure(result)) line += fmt::format("  [{}]", format_metric(*key));
            put(out,
                paint(result.status, fmt::format("{:<7}", status_word(result.status))) + ' ' +
                    table.row({check_label(result), ""}),
                indent.size(), sys::printable(line), indent.size());
            // Every finding after the headline, then each finding's fix.
            for (std::size_t i = 0; i < result.findings.size(); ++i) {
                const Finding& finding = result.findings[i];
                if (i > 0) {
                    const std::string word = status_word(finding.status);
                    put(out, indent + paint(finding.status, word) + ' ', indent.size() + word.size() + 1,
                        printable(finding.message), indent.size() + word.size() + 1);
                }
                put(out, indent + "fix: ", indent.size() + 5,
                    printable(finding.remediation) + fmt::format("  [{}]", printable(finding.code)), indent.size() + 5);
            }
            if (options_.verbose)
                for (const Evidence& evidence : result.evidence)
                    put(out, indent + "· ", indent.size() + 2,
                        printable(evidence.key) + ": " + printable(evidence.value), indent.size() + 2);
        }
        if (report.frameworks) render_frameworks(*report.frameworks, out);
        render_remedy(report, out);
        const Summary& summary = report.summary;
        const std::string counts = summary_counts(summary);
        out << '\n';
        put(out, "", 0,
            fmt::format("{} — ", counts) + paint(summary.overall, status_word(summary.overall)) +
                fmt::format(" (exit {}) in {:.0f} ms", report.exit_code, report.duration_ms),
            0);
        if (report.redaction) put(out, "", 0, printable(redaction_note(*report.redaction)), 0);
        if (summary.overall == Status::skip)
            put(out, "", 0, "Nothing was verified: every selected check was skipped.", 0);
        if (summary.count(Status::warn) + summary.count(Status::fail) + summary.count(Status::error) > 0)
            put(out, "", 0, "`cudacheck explain CODE` describes a code; `-v` shows the evidence behind each verdict.",
                0);
    }

    // The node's one ordered fix when a finding asks for more than configuration (report/remedy.hpp):
    // "Remedy: drain the node and reboot it [action class reset]", then a line per GPU with the
    // codes that call for its step. Its first line is what deploy/slurm's health check reads.
    void render_remedy(const Report& report, std::ostream& out) const {
        const RemedyPlan plan = plan_remedy(report);
        if (plan.step == Remedy::none || plan.step == Remedy::fix_config) return;
        out << '\n';
        put(out, "", 0, fmt::format("Remedy: {} [action class {}]", describe_step(plan.step), action_class(plan.step)),
            0);
        for (const GpuRemedy& gpu : plan.gpus) {
            std::vector<std::string> codes;
            for (const RemedyReason& reason : gpu.because) codes.push_back(reason.code);
            const std::string name =
                gpu.nvml_index ? fmt::format("GPU {} ({})", *gpu.nvml_index, gpu.gpu) : fmt::format("GPU {}", gpu.gpu);
            put(out, "  ", 2,
                printable(fmt::format("{}: {} — {}", name,
                                      gpu.step == Remedy::none ? describe_step(gpu.because.front().remedy)
                                                               : describe_step(gpu.step, gpu.nvml_index),
                                      fmt::join(codes, ", "))),
                4);
        }
        for (const RemedyReason& reason : plan.node)
            put(out, "  ", 2,
                printable(
                    fmt::format("node: {} — {} ({})", describe_step(reason.remedy), reason.code, reason.check_id)),
                4);
    }

    // One row per framework found; the verdicts themselves are frameworks.builds' findings above.
    // A row wider than the terminal wraps under the ENVIRONMENT column.
    void render_frameworks(const std::vector<PythonEnvironmentInfo>& environments, std::ostream& out) const {
        const std::vector<FrameworkRow> rows = framework_rows(environments);
        if (rows.empty()) return;
        TextTable table({{"ENVIRONMENT"}, {"FRAMEWORK"}, {"CUDA"}, {"LOADS"}, {"GPUS"}});
        for (const FrameworkRow& row : rows) table.fit({row.environment, row.framework, row.cuda, row.loads, row.gpus});
        out << "\nPython frameworks\n";
        put(out, fmt::format("{:<7} ", "STATUS"), 8, table.heading_row(), 8);
        for (const FrameworkRow& row : rows)
            put(out, paint(row.status, fmt::format("{:<7}", status_word(row.status))) + ' ', 8,
                table.row({row.environment, row.framework, row.cuda, row.loads, row.gpus}), 8);
    }

    RenderOptions options_;
};

}  // namespace

std::unique_ptr<Renderer> make_table_renderer(RenderOptions options) {
    return std::make_unique<TableRenderer>(options);
}

}  // namespace cudacheck
