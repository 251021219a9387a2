// `cudacheck list`: the checks, with their scope, level and description; with --markdown, the
// check index of README.md and docs/checks.md; with --format json, the document
// docs/list.schema.json describes.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace cudacheck {

struct ListCommandOptions {
    bool markdown = false;
    std::string format = "table";  // table or json
};

CLI::App* setup_list(CLI::App& app, ListCommandOptions& options);
[[nodiscard]] int run_list(const ListCommandOptions& options);

}  // namespace cudacheck
