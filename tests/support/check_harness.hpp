// What unit tests of a check need: a context to run a check's entry point directly, and the
// result a pure judge gives a hand-built outcome.
#pragma once

#include "engine/check.hpp"
#include "probes/probes.hpp"
#include "support/test_support.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck::test {

// The process's environment, default options, probes that have gathered nothing yet, and the
// devices given.
struct CheckHarness {
    Environment environment;
    RunOptions options;
    Probes probes{environment};
    [[nodiscard]] CheckContext make(std::vector<int> devices) {
        return CheckContext{options, environment, probes, std::nullopt, std::move(devices)};
    }
};

// `judge` on `outcome`, finished as the engine finishes a check's result; every code it raised
// must be one that check declares.
//   CheckResult judged(const FftOutcome& outcome) { return test::judged("cufft.fft", judge_fft, outcome); }
template <typename Outcome, typename Judge>
[[nodiscard]] CheckResult judged(std::string check_id, Judge judge, const Outcome& outcome, std::optional<int> device = 0) {
    ResultBuilder builder;
    judge(outcome, builder);
    CheckResult result = std::move(builder).finish(std::move(check_id), device);
    expect_codes_declared(result);
    return result;
}

}  // namespace cudacheck::test
