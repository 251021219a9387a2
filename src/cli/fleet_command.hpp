// `cudacheck fleet PATH...`: many nodes' JSON reports summarised, and the outliers among them.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cudacheck {

struct FleetCommandOptions {
    std::vector<std::string> paths;  // report files and directories of them
    std::string format = "table";
    double threshold_percent = 10.0;
    std::string expect;  // a policy every node's report is checked against
};

CLI::App* setup_fleet(CLI::App& app, FleetCommandOptions& options);
[[nodiscard]] int run_fleet(const FleetCommandOptions& options);

}  // namespace cudacheck
