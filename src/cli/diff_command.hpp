// `cudacheck diff A B`: what changed between two JSON reports.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace cudacheck {

struct DiffCommandOptions {
    std::string before;
    std::string after;
    std::string format = "table";
    double threshold_percent = 10.0;
};

CLI::App* setup_diff(CLI::App& app, DiffCommandOptions& options);
[[nodiscard]] int run_diff(const DiffCommandOptions& options);

}  // namespace cudacheck
