// `cudacheck explain CODE` and `cudacheck explain --markdown`: the finding catalogue.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace cudacheck {

struct ExplainCommandOptions {
    std::string code;
    bool markdown = false;
};

CLI::App* setup_explain(CLI::App& app, ExplainCommandOptions& options);
[[nodiscard]] int run_explain(const ExplainCommandOptions& options);

}  // namespace cudacheck
