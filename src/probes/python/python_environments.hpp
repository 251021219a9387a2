// The Python environments on this machine, found without running Python (an interpreter's start-up
// costs 50-70 ms and may run site hooks; `import torch` costs seconds): the interpreters on PATH and
// their prefixes, VIRTUAL_ENV, CONDA_PREFIX and conda's environment lists, pipx's virtual
// environments, and those named with `--python`. Each with its site-packages directories in the
// order its sys.path has them, where the frameworks' files are read from.
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

// "3.12" of "3.12.3"; "" when it is not a Python 3 version (a minor of more than three digits is
// none: `lib/python3.<20 digits>` is a name, not a release).
[[nodiscard]] std::string python_major_minor(std::string_view version);
// The minor number of a "3.X" from python_major_minor (12 of "3.12"); nullopt for anything else.
// Never throws (std::stoi on a file name's digits would).
[[nodiscard]] std::optional<int> python_minor_of(std::string_view major_minor);

// A part of an environment that exists but cannot be read by this process (a `chmod 000`
// site-packages, environment root or pyvenv.cfg made the environment look empty, and
// frameworks.builds said "no Python framework installed").
struct UnreadablePath {
    std::string path;
    std::string message;      // "cannot read /x/site-packages: Permission denied (mode 000, owner uid 1000 (bob))"
    std::string remediation;  // "`chmod 755 /x/site-packages` ..."
};
// Whether `path` (which must exist) can be read: a directory opened and searched, a file opened
// for reading, a FIFO or device refused as not a regular file. nullopt when readable or absent.
[[nodiscard]] std::optional<UnreadablePath> unreadable_path(const std::string& path);

struct PythonEnvironment {
    PythonKind kind = PythonKind::other;
    std::string prefix;          // sys.prefix: "/opt/torch/.venv"
    std::string interpreter;     // the interpreter it was found by, or <prefix>/bin/python3; "" when none
    std::string python_version;  // "3.12" or "3.12.3"; "" when unknown
    std::vector<std::string> site_packages;  // existing directories, in sys.path order
    std::optional<std::string> base_prefix;  // a virtual environment's base installation
    std::vector<std::string> found_by;       // "python3 on PATH", "VIRTUAL_ENV", "--python /x", ...
    std::string problem;  // what stops reading it ("pyvenv.cfg unreadable: ..."); "" when none
    // Parts that exist but cannot be read (the root, pyvenv.cfg, lib/, a site-packages directory):
    // what they hold is missing from the environment, and the report says why.
    std::vector<UnreadablePath> unreadable;
    // A `home` chain of pyvenv.cfg files that leads back to an environment already on it (a venv
    // whose home is its own bin/) or runs longer than max_home_chain: one line naming the chain;
    // "" when none. The chain is not followed further (it recursed until the stack ran out).
    std::string home_loop;
    std::string home_loop_file;  // the pyvenv.cfg whose home closes the loop
};
// How many pyvenv.cfg `home` links are followed from one environment: a venv of a venv of a venv is
// already unusual (`python -m venv` writes the base installation's directory, not a venv's).
inline constexpr std::size_t max_home_chain = 8;

struct PythonEnvironments {
    std::vector<PythonEnvironment> environments;  // distinct by real prefix, in the order found
    std::optional<std::size_t> bare_python3;      // the one `python3` on PATH runs
    std::vector<std::string> notes;               // how ambiguous cases were decided (pyenv shims)
};

// `extra` are `--python` arguments: an interpreter or an environment's root. Fixed paths (/usr,
// /opt/conda, ...) are looked up under `root` (tests); paths from the environment are used as they
// are. Never runs a program.
[[nodiscard]] PythonEnvironments find_python_environments(const Environment& environment,
                                                          std::span<const std::string> extra = {},
                                                          const std::string& root = "");

// Every user site-packages (~/.local/lib/python3.X/site-packages) that exists, whichever
// interpreter uses it: pip --user installs there, and no interpreter need be on PATH.
[[nodiscard]] std::vector<std::string> user_site_packages(const Environment& environment);

}  // namespace cudacheck
