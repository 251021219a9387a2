// `cudacheck completion bash|zsh|fish`: a completion script for the shell, generated from the
// command line cudacheck itself parses (every subcommand, option, and the choices of those that
// take one of a set), so it cannot drift from it. Packages install its output.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace cudacheck {

struct CompletionCommandOptions {
    std::string shell;
};

CLI::App* setup_completion(CLI::App& app, CompletionCommandOptions& options);
// The script for `shell` ("bash", "zsh" or "fish"), describing `app` as it is when called (all
// subcommands set up).
[[nodiscard]] std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace cudacheck
