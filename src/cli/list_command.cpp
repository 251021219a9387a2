#include "cli/list_command.hpp"

#include "engine/registry.hpp"
#include "cudacheck/report.hpp"
#include "render/renderer.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

namespace cudacheck {

CLI::App* setup_list(CLI::App& app) {
    CLI::App* list = app.add_subcommand("list", "List the checks: id, scope, level, description");
    list->footer("Exit code: 0.");
    return list;
}

int run_list() {
    render_check_list(Registry(builtin_checks()), std::cout);
    return exit_ok;
}

}  // namespace cudacheck
