// The Python environments on this machine, found without running Python (an interpreter's start-up
// costs 50-70 ms and may run site hooks; `import torch` costs seconds): the interpreters on PATH and
// their prefixes, VIRTUAL_ENV, CONDA_PREFIX and conda's environment lists, pipx's virtual
// environments, and those named with `--python`. Each with its site-packages directories in the
// order its sys.path has them, where the frameworks' files are read from (issue 17).
//
// How CPython decides (docs.python.org, "sys.prefix" and the venv and site modules): a
// `pyvenv.cfg` beside the interpreter's directory (or one above) makes that directory the prefix of
// a virtual environment, whose `home` key is the base interpreter's directory and whose
// `include-system-site-packages` key adds the base's site-packages; otherwise the prefix is two
// levels above the real interpreter (/usr/bin/python3.12 -> /usr). Debian's system Python reads
// /usr/local/lib/python3.X/dist-packages, /usr/lib/python3/dist-packages and
// /usr/lib/python3.X/dist-packages; others <prefix>/lib/python3.X/site-packages. The user site
// (~/.local/lib/python3.X/site-packages) comes first for a non-virtual interpreter.
#pragma once

#include "util/environment.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class PythonKind { venv, conda, pyenv, system, other };
[[nodiscard]] std::string_view to_string(PythonKind kind);

// The key = value lines of a pyvenv.cfg; unknown keys are kept, malformed lines counted.
struct PyvenvConfig {
    std::optional<std::string> home;     // the base interpreter's directory, "/usr/bin"
    std::optional<std::string> version;  // "3.12.3": version_info (uv) or version (venv)
    // site.venv() reads an absent key as "true" (Lib/site.py); `python -m venv` always writes it.
    bool include_system_site_packages = true;
    std::size_t malformed_lines = 0;
};
[[nodiscard]] PyvenvConfig parse_pyvenv_cfg(std::string_view text);

// "3.12" of "3.12.3"; "" when it is not a Python 3 version.
[[nodiscard]] std::string python_major_minor(std::string_view version);

struct PythonEnvironment {
    PythonKind kind = PythonKind::other;
    std::string prefix;          // sys.prefix: "/opt/torch/.venv"
    std::string interpreter;     // the interpreter it was found by, or <prefix>/bin/python3; "" when none
    std::string python_version;  // "3.12" or "3.12.3"; "" when unknown
    std::vector<std::string> site_packages;  // existing directories, in sys.path order
    std::optional<std::string> base_prefix;  // a virtual environment's base installation
    std::vector<std::string> found_by;       // "python3 on PATH", "VIRTUAL_ENV", "--python /x", ...
    std::string problem;  // what stops reading it ("pyvenv.cfg unreadable: ..."); "" when none
};

struct PythonEnvironments {
    std::vector<PythonEnvironment> environments;  // distinct by real prefix, in the order found
    std::optional<std::size_t> bare_python3;      // the one `python3` on PATH runs
    std::vector<std::string> notes;               // how ambiguous cases were decided (pyenv shims)
};

// `extra` are `--python` arguments: an interpreter or an environment's root. Fixed paths (/usr,
// /opt/conda, ...) are looked up under `root` (tests); paths from the environment are used as they
// are. Never runs a program.
[[nodiscard]] PythonEnvironments find_python_environments(const Environment& environment, std::span<const std::string> extra = {},
                                                          const std::string& root = "");

// Every user site-packages (~/.local/lib/python3.X/site-packages) that exists, whichever
// interpreter uses it: pip --user installs there, and no interpreter need be on PATH.
[[nodiscard]] std::vector<std::string> user_site_packages(const Environment& environment);

}  // namespace cudacheck
