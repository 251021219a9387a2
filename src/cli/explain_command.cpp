#include "cli/explain_command.hpp"

#include "cli/command_support.hpp"
#include "cudacheck/report.hpp"
#include "render/renderer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>

namespace cudacheck {

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
        render_catalog_entry(*entry, std::cout);
        return exit_ok;
    }
    usage_error(fmt::format("unknown code '{}'; closest: {} (`cudacheck explain --markdown` lists all)", options.code,
                            closest_catalog_codes(options.code)));
    return exit_usage;
}

}  // namespace cudacheck
