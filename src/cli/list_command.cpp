#include "cli/list_command.hpp"

#include "engine/registry.hpp"
#include "cudacheck/report.hpp"
#include "render/renderer.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

namespace cudacheck {

CLI::App* setup_list(CLI::App& app, ListCommandOptions& options) {
    CLI::App* list = app.add_subcommand("list", "List the checks: id, scope, level, description");
    list->add_flag("--markdown", options.markdown, "Print the check index as Markdown (README.md and docs/checks.md)");
    list->footer("Exit code: 0.");
    return list;
}

int run_list(const ListCommandOptions& options) {
    const Registry registry(builtin_checks());
    if (options.markdown) render_check_index_markdown(registry, std::cout);
    else render_check_list(registry, std::cout);
    return exit_ok;
}

}  // namespace cudacheck
