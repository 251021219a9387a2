// What the subcommands share: how a usage error is told, and whether to colour the output.
#pragma once

#include "util/environment.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace cudacheck {

// "cudacheck: MESSAGE" on stderr; the caller returns exit_usage.
void usage_error(const std::string& message);

// Refuses "nan" and infinities, which CLI::Range lets through (every comparison with nan is false):
// `fleet --threshold nan` flagged every figure (issue 18).
extern const CLI::Validator finite_number;

// Colours only on a terminal, and not when --no-color, NO_COLOR (no-color.org) or TERM=dumb say otherwise.
[[nodiscard]] bool colour_wanted(bool no_color_option, const Environment& environment);

}  // namespace cudacheck
