// `cudacheck __worker`: the supervisor's worker process (isolation/worker.hpp); not for people,
// hence hidden from --help. It takes no options (its job comes on stdin); run_worker() runs it.
#pragma once

namespace CLI {
class App;
}

namespace cudacheck {

CLI::App* setup_worker(CLI::App& app);

}  // namespace cudacheck
