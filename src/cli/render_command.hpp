// `cudacheck render REPORT.json`: a saved report in any format, without running the checks again.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace cudacheck {

struct RenderCommandOptions {
    std::string report;
    std::string format;  // empty: from -o's extension, else table
    std::string output;  // -o FILE; empty or "-": stdout
    bool verbose = false;
    std::string color = "auto";
};

CLI::App* setup_render(CLI::App& app, RenderCommandOptions& options);
[[nodiscard]] int run_render(const RenderCommandOptions& options);

}  // namespace cudacheck
