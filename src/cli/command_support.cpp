#include "cli/command_support.hpp"

#include <iostream>
#include <unistd.h>

namespace cudacheck {

void usage_error(const std::string& message) { std::cerr << "cudacheck: " << message << '\n'; }

bool colour_wanted(bool no_color_option, const Environment& environment) {
    if (no_color_option) return false;
    if (auto no_color = environment.get("NO_COLOR"); no_color && !no_color->empty()) return false;  // no-color.org
    if (environment.get("TERM").value_or("") == "dumb") return false;
    return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace cudacheck
