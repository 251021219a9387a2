#include "cli/list_command.hpp"

#include "engine/registry.hpp"
#include "render/renderer.hpp"
#include "report/report.hpp"
#include "util/build_info.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

namespace cudacheck {

CLI::App* setup_list(CLI::App& app, ListCommandOptions& options) {
    CLI::App* list = app.add_subcommand("list", "List the checks: id, scope, level, description");
    CLI::Option* markdown = list->add_flag("--markdown", options.markdown,
                                           "Print the check index as Markdown (README.md and docs/checks.md)");
    // What scripts and other tools read, described by docs/list.schema.json.
    list->add_option("--format", options.format,
                     "table, or json: every check's id, title, scope, level, needs and the codes it raises, as "
                     "docs/list.schema.json "
                     "describes (default table)")
        ->check(CLI::IsMember({"table", "json"}))
        ->excludes(markdown);
    list->footer("Exit code: 0.");
    return list;
}

int run_list(const ListCommandOptions& options) {
    const Registry registry(builtin_checks());
    if (options.markdown) render_check_index_markdown(registry, std::cout);
    else if (options.format == "json") render_check_list_json(registry, build_info::version, std::cout);
    else render_check_list(registry, std::cout);
    return exit_ok;
}

}  // namespace cudacheck
