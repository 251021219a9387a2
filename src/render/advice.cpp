#include "render/advice.hpp"

#include "render/text_support.hpp"
#include "report/report_json.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

using json = ordered_json;
using sys::printable;

std::string gpu_names(const std::vector<GpuArch>& gpus) {
    std::vector<std::string> names;
    for (const GpuArch& gpu : gpus) names.push_back(gpu.sass_name());
    return fmt::format("{}", fmt::join(names, ", "));
}

std::string_view image_word(ImageKind kind) {
    switch (kind) {
        case ImageKind::native: return "native";
        case ImageKind::ptx_jit: return "ptx_jit";
        case ImageKind::none: break;
    }
    return "none";
}

json row_json(const FrameworkBuildRow* row) {
    if (!row) return nullptr;
    return json{{"name", row->name()},
                {"version", std::string(row->version)},
                {"variant", std::string(row->variant)},
                {"cuda", row->cuda.to_string()},
                {"sass", std::string(row->sass)},
                {"ptx", std::string(row->ptx)},
                {"install", install_command(*row)},
                {"source", std::string(row->source)}};
}

json advice_json(const BuildAdvice& advice) {
    json runs = json::array();
    for (const GpuRun& run : advice.runs)
        runs.push_back(
            json{{"gpu", run.gpu.sass_name()},
                 {"image", image_word(run.kind)},
                 {"uses", run.kind == ImageKind::ptx_jit ? run.target.virtual_name() : run.target.sass_name()}});
    return json{{"framework", std::string(to_string(advice.framework))},
                {"fits", advice.fits()},
                {"build", row_json(advice.build)},
                {"command", text_or_null(advice.command)},
                {"why", text_or_null(advice.why)},
                {"runs", runs},
                {"passed_over", advice.passed_over},
                {"problem", text_or_null(advice.problem)},
                {"with_newer_driver", row_json(advice.with_newer_driver)},
                {"driver_to_install", text_or_null(advice.driver_to_install)}};
}

json installed_json(const InstalledJudgement& judgement) {
    return json{{"framework", std::string(to_string(judgement.best.framework))},
                {"installed", row_json(judgement.installed)},
                {"verdict", std::string(to_string(judgement.verdict))},
                {"message", judgement.message},
                {"fix", text_or_null(judgement.fix)}};
}

Status installed_status(InstalledVerdict verdict) {
    switch (verdict) {
        case InstalledVerdict::best_fit: return Status::pass;
        case InstalledVerdict::runs_older: return Status::warn;
        case InstalledVerdict::does_not_run: return Status::fail;
        case InstalledVerdict::unknown: break;
    }
    return Status::skip;
}

void render_table(const AdviceDocument& document, bool color, std::ostream& out) {
    out << fmt::format("cudacheck {} · advise · {}\n", document.tool_version, printable(document.table_age));
    out << fmt::format("machine: driver {}, GPUs {} (from {}), glibc {}, {}\n",
                       document.machine.driver_cuda
                           ? "CUDA " + document.machine.driver_cuda->to_string() +
                                 (document.driver_from.empty() ? std::string() : " (" + document.driver_from + ")")
                           : std::string("none found"),
                       document.machine.gpus.empty() ? std::string("none") : gpu_names(document.machine.gpus),
                       document.gpus_from.empty() ? std::string("nowhere") : document.gpus_from,
                       document.machine.glibc ? document.machine.glibc->to_string() : std::string("unknown"),
                       to_string(document.machine.machine));
    for (const std::string& note : document.notes) out << "note: " << printable(note) << '\n';
    for (const AdvisedEnvironment& environment : document.environments) {
        out << '\n' << printable(environment.label) << '\n';
        for (const BuildAdvice& advice : environment.advice) {
            const Status status = advice.fits() ? Status::pass : Status::fail;
            out << "  " << paint(color, status, fmt::format("{:<6}", status_word(status)))
                << fmt::format("{:<11}", to_string(advice.framework));
            if (advice.fits()) {
                out << printable(advice.build->name()) << '\n';
                out << "        install: " << printable(advice.command) << '\n';
                out << "        why: " << printable(advice.why) << '\n';
            } else {
                out << "no build runs here: " << printable(advice.problem) << '\n';
                if (advice.with_newer_driver)
                    out << "        with a newer driver: " << printable(advice.with_newer_driver->name())
                        << " (install driver " << printable(advice.driver_to_install) << ", then "
                        << printable(install_command(*advice.with_newer_driver)) << ")\n";
            }
        }
        for (const InstalledJudgement& judgement : environment.installed) {
            const Status status = installed_status(judgement.verdict);
            out << "  installed: " << paint(color, status, std::string(to_string(judgement.verdict))) << " — "
                << printable(judgement.message) << '\n';
            if (!judgement.fix.empty()) out << "        fix: " << printable(judgement.fix) << '\n';
        }
    }
    out << fmt::format("\n{} interpreter{} (exit {}) in {:.0f} ms\n", document.environments.size(),
                       document.environments.size() == 1 ? "" : "s", document.exit_code, document.duration_ms);
}

}  // namespace

ordered_json to_json(const AdviceDocument& document) {
    json environments = json::array();
    for (const AdvisedEnvironment& environment : document.environments) {
        json advice = json::array();
        for (const BuildAdvice& item : environment.advice) advice.push_back(advice_json(item));
        json installed = json::array();
        for (const InstalledJudgement& judgement : environment.installed)
            installed.push_back(installed_json(judgement));
        environments.push_back(json{{"label", environment.label},
                                    {"prefix", text_or_null(environment.prefix)},
                                    {"python", environment.python.to_string()},
                                    {"advice", advice},
                                    {"installed", installed}});
    }
    json gpus = json::array();
    for (const GpuArch& gpu : document.machine.gpus) gpus.push_back(gpu.sass_name());
    return json{{"schema_version", advice_json_schema_version},
                {"document", "advise"},
                {"tool", json{{"name", "cudacheck"}, {"version", document.tool_version}}},
                {"argv", document.argv},
                {"table", json{{"date", std::string(framework_table_date())}, {"age", document.table_age}}},
                {"machine",
                 json{{"driver_cuda",
                       document.machine.driver_cuda ? json(document.machine.driver_cuda->to_string()) : json(nullptr)},
                      {"driver_from", text_or_null(document.driver_from)},
                      {"gpus", gpus},
                      {"gpus_from", text_or_null(document.gpus_from)},
                      {"glibc", document.machine.glibc ? json(document.machine.glibc->to_string()) : json(nullptr)},
                      {"machine", std::string(to_string(document.machine.machine))}}},
                {"notes", document.notes},
                {"environments", environments},
                {"duration_ms", document.duration_ms},
                {"exit_code", document.exit_code}};
}

void render_advice(const AdviceDocument& document, Format format, RenderOptions options, std::ostream& out) {
    if (format == Format::json) {
        out << to_json(document).dump(2, ' ', false, json::error_handler_t::replace) << '\n';
        return;
    }
    render_table(document, options.color, out);
}

}  // namespace cudacheck
