#include "cli/command_support.hpp"

#include "util/system.hpp"

#include <cmath>
#include <exception>

#include <iostream>
#include <unistd.h>

namespace cudacheck {

// One line, whatever the message carries (a file name with a newline or an escape sequence).
void usage_error(const std::string& message) { std::cerr << "cudacheck: " << sys::printable(message) << '\n'; }

bool colour_wanted(bool no_color_option, const Environment& environment) {
    if (no_color_option) return false;
    if (auto no_color = environment.get("NO_COLOR"); no_color && !no_color->empty()) return false;  // no-color.org
    if (environment.get("TERM").value_or("") == "dumb") return false;
    return ::isatty(STDOUT_FILENO) == 1;
}

const CLI::Validator finite_number(
    [](std::string& text) -> std::string {
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (used == text.size() && std::isfinite(value)) return {};
        } catch (const std::exception&) {
        }
        return "'" + text + "' is not a finite number";
    },
    "FINITE");

}  // namespace cudacheck
