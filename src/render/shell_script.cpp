// `cudacheck env`'s lines (build/environment_plan's EnvScript) as a shell reads them: bash (whose
// lines sh and zsh read too) or fish, every value single-quoted, PATH-like variables prepended
// without an empty entry.
#include "render/shell_script.hpp"

#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

Shell default_shell(const Environment& environment) {
    const std::string shell = environment.get("SHELL").value_or("");
    return shell == "fish" || shell.ends_with("/fish") ? Shell::fish : Shell::bash;
}

std::string shell_quote(std::string_view value, Shell shell) {
    std::string quoted = "'";
    for (const char c : value) {
        if (c == '\'') quoted += shell == Shell::fish ? "\\'" : "'\\''";
        else if (c == '\\' && shell == Shell::fish) quoted += "\\\\";
        else quoted += c;
    }
    return quoted + "'";
}

std::string render_script(const EnvScript& script, Shell shell) {
    std::string text;
    const bool fish = shell == Shell::fish;
    for (const ShellLine& line : script.lines) {
        switch (line.kind) {
            case ShellLine::Kind::comment: text += "# " + sys::printable(line.text) + "\n"; break;
            case ShellLine::Kind::set:
                text += (fish ? "set -gx " + line.name + " " : "export " + line.name + "=") +
                        shell_quote(line.values.front(), shell) + "\n";
                break;
            case ShellLine::Kind::prepend: {
                if (fish) {
                    // fish keeps variables whose names end in PATH as lists, joined with ':' for children.
                    std::string words;
                    for (const std::string& directory : line.values) words += shell_quote(directory, shell) + " ";
                    text += fmt::format("set -gx {} {}${}\n", line.name, words, line.name);
                } else {
                    // No trailing ':' when the variable is empty: an empty entry is the current directory.
                    text += fmt::format("export {0}={1}\"${{{0}:+:${0}}}\"\n", line.name,
                                        shell_quote(fmt::format("{}", fmt::join(line.values, ":")), shell));
                }
                break;
            }
            case ShellLine::Kind::unset:
                if (fish)
                    for (const std::string& name : line.values) text += fmt::format("set -e {}\n", name);
                else text += fmt::format("unset {}\n", fmt::join(line.values, " "));
                break;
        }
    }
    return text;
}

}  // namespace cudacheck
