// `cudacheck inspect FILE...`: which GPUs the code embedded in files can run on (inspect/inspection.hpp).
#pragma once

#include "engine/report_builder.hpp"
#include "inspect/inspection.hpp"
#include "probes/python/python_environments.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cudacheck {

struct InspectCommandOptions {
    std::vector<std::string> files;
    std::vector<std::string> arch;  // "sm_90", "8.6", ...; empty: the GPUs of this machine
    std::string format = "table";
    std::string color = "auto";  // --color auto|always|never (--no-color: never)
    bool verbose = false;  // every code object on its own table row
    // --python: environments whose installed distributions to inspect; the first is also the
    // interpreter wheels are judged installable on (else the python3 on PATH).
    std::vector<std::string> python;
};

// Targets from --arch values; the usage error when one is not an architecture.
[[nodiscard]] Expected<std::vector<InspectTarget>> targets_from_arch(const std::vector<std::string>& values);
// Targets from what the supervisor's worker found (cuda.devices at --level quick).
[[nodiscard]] std::vector<InspectTarget> targets_from_devices(const std::vector<DeviceInfo>& devices);

// The interpreter wheels are judged for: the first --python environment, else the python3 on PATH;
// none when neither is found (installability is then not judged).
[[nodiscard]] std::optional<PackageInterpreter> package_interpreter(const PythonEnvironments& environments,
                                                                    bool from_option);

CLI::App* setup_inspect(CLI::App& app, InspectCommandOptions& options);
// `argv`: the whole command line, for the report.
[[nodiscard]] int run_inspect(const InspectCommandOptions& options, const std::vector<std::string>& argv);

}  // namespace cudacheck
