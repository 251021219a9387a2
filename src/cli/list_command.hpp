// `cudacheck list`: the checks, with their scope, level and description.
#pragma once

namespace CLI {
class App;
}

namespace cudacheck {

CLI::App* setup_list(CLI::App& app);
[[nodiscard]] int run_list();

}  // namespace cudacheck
