// Which file `import X` loads in a Python environment, decided from files alone: the
// sys.path the interpreter builds in the caller's environment, then the import system's search of
// it. Nothing is run: no interpreter is started, no .pth line executed, no package imported.
//
// The rules, each from CPython's own sources and documentation (docs.python.org: "The initialization
// of the sys.path module search path", the `site` module, "The import system"; Modules/getpath.py
// and Lib/site.py, read for 3.8 to 3.13):
//  1. sys.path[0]: for `python3 -c` and the interactive prompt the current directory (a script's
//     own directory instead); none when PYTHONSAFEPATH is set (3.11+).
//  2. PYTHONPATH's entries, each made absolute (an empty entry is the current directory).
//  3. The standard library: <prefix>/lib/pythonXY.zip, <prefix>/lib/python3.X and its lib-dynload;
//     PYTHONHOME ("prefix[:exec_prefix]") replaces the installation's prefix.
//  4. site.main(): a virtual environment (pyvenv.cfg beside the interpreter or one directory up,
//     *as invoked*, symlinks not resolved) adds its own site-packages first; the user site
//     (PYTHONUSERBASE or ~/.local, lib/python3.X/site-packages) unless PYTHONNOUSERSITE is set, the
//     process runs set-uid, or the venv excludes system site-packages; then the installation's
//     site-packages (`include-system-site-packages` absent counts as true). Debian's patched site.py
//     (its text names "dist-packages") uses /usr/local/lib/python3.X/dist-packages,
//     /usr/lib/python3/dist-packages and /usr/lib/python3.X/dist-packages. Every site directory
//     appended is followed by its *.pth files in sorted order (names starting with "." skipped where
//     that site.py says so): a line starting with "import" is executed, any other non-comment line
//     is a path added when it exists and is not already there; a line that raises ends the file.
//  5. The import of a top-level name: sys.meta_path's PathFinder takes the first entry holding a
//     regular package (<name>/__init__ + a suffix) or a module (<name> + a suffix; suffixes in
//     order: extension modules, .py, .pyc); directories without __init__ anywhere form a namespace
//     package only when nothing else is found; finders that .pth import lines appended to
//     sys.meta_path (setuptools' editable installs: `MAPPING = {'pkg': '/src/pkg'}`) come after it.
// What cannot be read from files — a .pth import line other than a known editable finder, a
// sitecustomize or usercustomize module — is listed in `unmodelled`, so that the prediction says
// where it might be wrong.
#pragma once

#include "probes/library_locator.hpp"
#include "probes/python/python_environments.hpp"
#include "util/environment.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Why an entry is on sys.path.
enum class PathOrigin {
    current_directory,
    pythonpath,
    standard_library,
    venv_site,
    user_site,
    site_packages,
    pth_file,
    editable_finder
};
[[nodiscard]] std::string_view to_string(PathOrigin origin);  // "current directory", "PYTHONPATH", ...

struct SysPathEntry {
    std::string path;  // absolute, as sys.path holds it
    PathOrigin origin = PathOrigin::site_packages;
    std::string source;  // for pth_file: "<file>.pth line N"; for site directories: the prefix; "" otherwise
};

// A setuptools editable install's finder (`import __editable___pkg_1_0_finder; ...install()`): the
// top-level names it maps and where to, appended to sys.meta_path after the PathFinder.
struct EditableFinder {
    std::string pth;     // the .pth file that installs it
    std::string module;  // the finder's file
    std::map<std::string, std::string> mapping;
};

// A .pth line that makes site print "Error processing line N of X" at every start-up (the rest of
// that file is ignored), or a path line naming something that does not exist (an editable
// install whose source directory is gone).
struct PthProblem {
    std::string file;
    int line = 0;
    std::string text;     // the line, printable
    bool missing_path = false;  // a path line whose target does not exist (silently skipped by site)
    std::string why;      // "module __editable___x_finder is not on the path", "/src/x does not exist"
};

struct ImportModel {
    bool modelled = false;   // false: the interpreter's version or prefix is unknown (`why_not` says)
    std::string why_not;
    std::string python_version;  // "3.12"
    std::string prefix;          // sys.prefix
    std::string base_prefix;     // the installation's (PYTHONHOME's when set)
    std::string current_directory;  // the one relative entries were made absolute against
    bool debian_site = false;    // Debian's site.py (dist-packages)
    bool user_site_enabled = false;
    std::string user_site;       // the user site directory it would add ("" when disabled)
    std::vector<SysPathEntry> sys_path;
    std::vector<EditableFinder> finders;
    std::vector<PthProblem> pth_problems;
    std::vector<std::string> unmodelled;  // "import line of x.pth: ...", "sitecustomize.py at ..."
    std::vector<std::string> variables;   // "PYTHONPATH=/x" for each variable that changed the path
    // Set when the interpreter cannot start at all (PYTHONHOME without the standard library).
    std::string fatal;
};

// The inputs a model needs besides the environment's files.
struct ImportContext {
    const Environment& environment;
    std::string current_directory;  // where `python3 -c` would run: sys.path[0]
    bool set_uid = false;           // effective and real ids differ: no user site
    std::string root = {};          // tests: fixed paths (/usr) looked up under it
};

[[nodiscard]] ImportModel model_imports(const PythonEnvironment& python, const ImportContext& context);

// What `import <name>` loads.
enum class ImportKind { package, module, namespace_package, editable, not_found };
[[nodiscard]] std::string_view to_string(ImportKind kind);  // "package", "module", "namespace package", ...
struct ImportResolution {
    ImportKind kind = ImportKind::not_found;
    std::string file;  // its __file__ (".../torch/__init__.py"); "" for a namespace package or none
    std::string location;  // the package's directory or the module's file; namespace: its first portion
    std::optional<std::size_t> entry;  // the sys.path entry it came from
    std::vector<std::string> portions;  // a namespace package's directories
    const EditableFinder* finder = nullptr;  // when an editable finder answered
};
// `listings`, when given, are the directory listings shared by the look-ups of one run, as the
// import system's FileFinder caches each directory's names: a name absent from its entry's listing
// costs no further system call.
[[nodiscard]] ImportResolution resolve_import(const ImportModel& model, std::string_view name,
                                              DirectoryListings* listings = nullptr);

// The distribution metadata directories (*.dist-info) on the path, in sys.path order: where
// importlib.metadata finds installed distributions. Standard-library entries are not searched.
[[nodiscard]] std::vector<std::string> distribution_directories(const ImportModel& model);

// The interpreter a pip script runs, from its first lines: "#!/x/bin/python3.12" or pip's launcher
// for long paths ("#!/bin/sh" then "'''exec' '/x/bin/python' "$0" "$@""); "" when neither.
[[nodiscard]] std::string script_interpreter(std::string_view head);

}  // namespace cudacheck
