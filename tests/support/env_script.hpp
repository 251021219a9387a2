// The plan behind `cudacheck env` (build/environment_plan.hpp) as the suites of the plan and of
// the subcommand read it: its comment lines, and the shell it is planned for when nothing CUDA is set.
#pragma once

#include "build/environment_plan.hpp"
#include "util/environment.hpp"

#include <functional>
#include <map>
#include <string>

namespace cudacheck::test {

// Every comment line of `script`, each ended by a newline.
inline std::string comments(const EnvScript& script) {
    std::string text;
    for (const ShellLine& line : script.lines)
        if (line.kind == ShellLine::Kind::comment) text += line.text + "\n";
    return text;
}

// A shell with a PATH of system directories only.
inline const Environment& plain_shell() {
    static const Environment plain(std::map<std::string, std::string, std::less<>>{{"PATH", "/usr/bin:/bin"}});
    return plain;
}

}  // namespace cudacheck::test
