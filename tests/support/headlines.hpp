// A finding's message is a headline (at most sys::max_headline characters); the paths, lists and
// quoted errors behind it are its result's evidence. account() is what a reader of `-v` sees of
// a result: the tests that look for a path or a list look there.
#pragma once

#include "report/report.hpp"

#include <string>

namespace cudacheck::test {

// The result's message, each finding's message and each evidence line ("key: value"), one a line.
[[nodiscard]] inline std::string account(const CheckResult& result) {
    std::string text = result.message + '\n';
    for (const Finding& finding : result.findings) text += finding.message + '\n';
    for (const Evidence& evidence : result.evidence) text += evidence.key + ": " + evidence.value + '\n';
    return text;
}

}  // namespace cudacheck::test
