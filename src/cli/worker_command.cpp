#include "cli/worker_command.hpp"

#include "isolation/protocol.hpp"

#include <CLI/CLI.hpp>

namespace cudacheck {

CLI::App* setup_worker(CLI::App& app) {
    // No group: not listed in --help.
    return app.add_subcommand(protocol::worker_subcommand, "")->group("");
}

}  // namespace cudacheck
