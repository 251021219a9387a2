// A check's context for unit tests that run a check's entry point directly: the process's
// environment, default options, probes that have gathered nothing yet, and the devices given.
#pragma once

#include "engine/check.hpp"
#include "probes/probes.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace cudacheck::test {

struct CheckHarness {
    Environment environment;
    RunOptions options;
    Probes probes{environment};
    [[nodiscard]] CheckContext make(std::vector<int> devices) {
        return CheckContext{options, environment, probes, std::nullopt, std::move(devices)};
    }
};

}  // namespace cudacheck::test
