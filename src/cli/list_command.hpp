// `cudacheck list`: the checks, with their scope, level and description; with --markdown, the
// check index of README.md and docs/checks.md.
#pragma once

namespace CLI {
class App;
}

namespace cudacheck {

struct ListCommandOptions {
    bool markdown = false;
};

CLI::App* setup_list(CLI::App& app, ListCommandOptions& options);
[[nodiscard]] int run_list(const ListCommandOptions& options);

}  // namespace cudacheck
