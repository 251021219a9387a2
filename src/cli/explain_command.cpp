#include "cli/explain_command.hpp"

#include "cli/command_support.hpp"
#include "render/renderer.hpp"
#include "report/report.hpp"
#include "util/system.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <system_error>

namespace cudacheck {

namespace fs = std::filesystem;

std::string documentation_for(std::string_view code, const std::string& executable) {
    const fs::path binary(executable);
    if (!executable.empty() && binary.has_parent_path()) {
        const fs::path installed = binary.parent_path().parent_path() / installed_errors_md;
        std::error_code error;
        if (fs::is_regular_file(installed, error)) return fmt::format("{} (section {})", installed.string(), code);
    }
    return fmt::format("{}/blob/main/{}", project_home_url, docs_anchor(code));
}

CLI::App* setup_explain(CLI::App& app, ExplainCommandOptions& options) {
    CLI::App* explain = app.add_subcommand("explain", "Explain a finding code: cause, remediation, docs");
    explain->add_option("code", options.code, "A code such as CC210, or its name (libcuda-not-found)");
    explain->add_flag("--markdown", options.markdown, "Print the whole catalogue as Markdown (docs/errors.md)");
    explain->footer("Exit codes: 0 printed; 2 unknown code or nothing asked.");
    return explain;
}

int run_explain(const ExplainCommandOptions& options) {
    if (options.markdown) {
        render_catalog_markdown(std::cout);
        return exit_ok;
    }
    if (options.code.empty()) {
        usage_error("explain needs a code (e.g. `cudacheck explain CC210`) or --markdown");
        return exit_usage;
    }
    if (const CatalogEntry* entry = find_catalog_entry(options.code)) {
        render_catalog_entry(*entry, documentation_for(code_string(entry->code), sys::real_path("/proc/self/exe")),
                             std::cout);
        return exit_ok;
    }
    usage_error(fmt::format("unknown code '{}'; closest: {} (`cudacheck explain --markdown` lists all)", options.code,
                            closest_catalog_codes(options.code)));
    return exit_usage;
}

}  // namespace cudacheck
