// `cudacheck env`'s script (build/environment_plan's EnvScript) as text for a shell.
#pragma once

#include "build/environment_plan.hpp"
#include "util/environment.hpp"

#include <string>
#include <string_view>

namespace cudacheck {

enum class Shell { bash, fish };

// fish when $SHELL ends in /fish, else bash (whose lines sh and zsh read too).
[[nodiscard]] Shell default_shell(const Environment& environment);

// `value` as one word of the shell: in single quotes, each ' (and, for fish, each \) escaped.
[[nodiscard]] std::string shell_quote(std::string_view value, Shell shell);
// The script's text, one complete line each.
[[nodiscard]] std::string render_script(const EnvScript& script, Shell shell);

}  // namespace cudacheck
