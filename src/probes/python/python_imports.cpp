#include "probes/python/python_imports.hpp"

#include "probes/python/python_packages.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>

namespace cudacheck {

using sys::directory_of;

std::string_view to_string(PathOrigin origin) {
    switch (origin) {
        case PathOrigin::current_directory: return "current directory";
        case PathOrigin::pythonpath: return "PYTHONPATH";
        case PathOrigin::standard_library: return "standard library";
        case PathOrigin::venv_site: return "virtual environment's site-packages";
        case PathOrigin::user_site: return "user site-packages";
        case PathOrigin::site_packages: return "site-packages";
        case PathOrigin::pth_file: return ".pth file";
        case PathOrigin::editable_finder: return "editable finder";
    }
    return "";
}

std::string_view to_string(ImportKind kind) {
    switch (kind) {
        case ImportKind::package: return "package";
        case ImportKind::module: return "module";
        case ImportKind::namespace_package: return "namespace package";
        case ImportKind::editable: return "editable install";
        case ImportKind::not_found: return "not found";
    }
    return "";
}

namespace {

bool is_regular_file(const std::string& path) {
    struct stat status{};
    return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// The multiarch part of CPython's extension-module suffix on this machine (sysconfig's
// MULTIARCH, in EXTENSION_SUFFIXES: ".cpython-312-x86_64-linux-gnu.so").
constexpr std::string_view multiarch() {
#if defined(__aarch64__)
    return "aarch64-linux-gnu";
#elif defined(__powerpc64__)
    return "powerpc64le-linux-gnu";
#else
    return "x86_64-linux-gnu";
#endif
}

// importlib.machinery: EXTENSION_SUFFIXES, then SOURCE_SUFFIXES, then BYTECODE_SUFFIXES (the
// order of _get_supported_file_loaders).
std::vector<std::string> module_suffixes(const std::string& version) {
    const std::string digits = version.substr(0, 1) + version.substr(2);
    return {fmt::format(".cpython-{}-{}.so", digits, multiarch()), ".abi3.so", ".so", ".py", ".pyc"};
}

// A Python string literal at the start of `text` ('x' or "x", backslash escapes of the quote and
// backslash); its value and the length read, or nullopt.
std::optional<std::pair<std::string, std::size_t>> leading_string(std::string_view text) {
    if (text.empty() || (text.front() != '\'' && text.front() != '"')) return std::nullopt;
    const char quote = text.front();
    std::string value;
    for (std::size_t at = 1; at < text.size(); ++at) {
        if (text[at] == '\\' && at + 1 < text.size()) value += text[++at];
        else if (text[at] == quote) return std::pair{value, at + 1};
        else value += text[at];
    }
    return std::nullopt;
}

// setuptools' editable finder module: `MAPPING: dict[str, str] = {'pkg': '/src/pkg', ...}` (its
// template in setuptools/command/editable_wheel.py writes the dict on one line).
std::map<std::string, std::string> parse_editable_mapping(std::string_view text) {
    std::map<std::string, std::string> mapping;
    for (const std::string& raw : sys::split(text, '\n')) {
        std::string_view line = raw;
        if (!sys::starts_with(line, "MAPPING")) continue;
        const std::size_t open = line.find('{');
        if (open == std::string_view::npos) return mapping;
        std::string_view rest = line.substr(open + 1);
        while (true) {
            rest = sys::trim(rest);
            const auto key = leading_string(rest);
            if (!key) break;
            rest = sys::trim(rest.substr(key->second));
            if (rest.empty() || rest.front() != ':') break;
            rest = sys::trim(rest.substr(1));
            const auto value = leading_string(rest);
            if (!value) break;
            mapping[key->first] = value->first;
            rest = sys::trim(rest.substr(value->second));
            if (rest.empty() || rest.front() != ',') break;
            rest = rest.substr(1);
        }
        return mapping;
    }
    return mapping;
}

// The first module an import line names: "import a.b, c; a.b.x()" -> "a".
std::string first_imported_module(std::string_view line) {
    std::string_view rest = sys::trim(line.substr(6));
    std::size_t end = 0;
    while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_')) ++end;
    return std::string(rest.substr(0, end));
}

// Modules built into the interpreter (sys.builtin_module_names of a Linux CPython 3.8-3.13 that a
// .pth line is likely to name): found without any sys.path entry.
bool is_builtin_module(std::string_view name) {
    static const std::set<std::string_view> builtins{"sys",       "builtins",  "marshal", "posix",        "time",
                                                     "errno",     "itertools", "gc",      "atexit",       "pwd",
                                                     "_imp",      "_io",       "_thread", "_weakref",     "_warnings",
                                                     "_signal",   "_abc",      "_codecs", "_collections", "_functools",
                                                     "_operator", "_sre",      "_stat",   "_string"};
    return builtins.contains(name);
}

class Modeller {
public:
    Modeller(const PythonEnvironment& python, const ImportContext& context) : python_(python), context_(context) {}

    ImportModel build() {
        model_.prefix = python_.prefix;
        model_.current_directory = context_.current_directory;
        model_.python_version = python_major_minor(python_.python_version);
        const bool venv = python_.kind == PythonKind::venv;
        if (!find_base(venv)) return std::move(model_);
        if (model_.python_version.empty()) {
            model_.why_not = "the interpreter's version is unknown";
            return std::move(model_);
        }
        model_.modelled = true;
        suffixes_ = module_suffixes(model_.python_version);
        read_site_rules();
        initial_path();
        // site.main(): venv(), the user site, then PREFIXES' site-packages.
        bool system_site = true;
        if (venv) {
            system_site = include_system_site_packages();
            for (const std::string& directory : site_packages_of(model_.prefix, true))
                add_site_directory(directory, PathOrigin::venv_site);
        }
        user_site(venv && !system_site);
        std::vector<std::string> prefixes;
        if (venv) prefixes.push_back(model_.prefix);
        if (!venv || system_site) {
            prefixes.push_back(model_.base_prefix);
            prefixes.push_back(exec_prefix_);
        }
        std::set<std::string> seen;
        for (const std::string& prefix : prefixes)
            if (seen.insert(prefix).second)
                for (const std::string& directory : site_packages_of(prefix, venv))
                    add_site_directory(directory, PathOrigin::site_packages);
        customize_modules();
        return std::move(model_);
    }

private:
    const PythonEnvironment& python_;
    const ImportContext& context_;
    ImportModel model_;
    std::string exec_prefix_;
    std::vector<std::string> suffixes_;
    std::string platlibdir_ = "lib";
    bool skips_hidden_pth_ = false;
    std::set<std::string> known_;
    // Bounds on what .pth files may make the model do: each import line searches the
    // whole path, so paths and import lines without limit would make the work quadratic in a
    // hostile file's size. Real environments have a few dozen .pth lines.
    static constexpr std::size_t max_pth_paths = 1000;
    static constexpr std::size_t max_pth_imports = 1000;
    std::size_t pth_paths_ = 0;
    std::size_t pth_imports_ = 0;
    bool pth_bounded_ = false;

    // False, and a note once, when a .pth file asks for more than the bounds allow.
    bool within_pth_bounds(const std::string& file, int number) {
        if (pth_paths_ < max_pth_paths && pth_imports_ < max_pth_imports) return true;
        if (!pth_bounded_)
            model_.unmodelled.push_back(
                fmt::format("{} line {} and the .pth lines after it: not followed, past {} paths or {} import lines",
                            file, number, max_pth_paths, max_pth_imports));
        pth_bounded_ = true;
        return false;
    }

    std::string variable(std::string_view name) const { return context_.environment.get(name).value_or(""); }

    std::string stdlib(const std::string& prefix, const std::string& libdir) const {
        return fmt::format("{}/{}/python{}", prefix, libdir, model_.python_version);
    }

    // getpath's landmark search: the directory at or above `start` holding lib/python3.X/os.py.
    std::string search_up(std::string start) const {
        for (std::string directory = start; !directory.empty() && directory != "/"; directory = directory_of(directory))
            if (!model_.python_version.empty() && sys::exists(stdlib(directory, "lib") + "/os.py")) return directory;
        return directory_of(start);
    }

    // The installation the interpreter runs from (sys.base_prefix), or PYTHONHOME's.
    bool find_base(bool venv) {
        const std::string home = variable("PYTHONHOME");
        if (!home.empty()) {
            const std::size_t colon = home.find(':');
            model_.base_prefix = sys::absolute_path(home.substr(0, colon), context_.current_directory);
            exec_prefix_ = colon == std::string::npos
                               ? model_.base_prefix
                               : sys::absolute_path(home.substr(colon + 1), context_.current_directory);
            model_.variables.push_back("PYTHONHOME=" + home);
            if (!model_.python_version.empty() && !sys::exists(stdlib(model_.base_prefix, "lib") + "/os.py") &&
                !sys::exists(fmt::format("{}/lib/python{}.zip", model_.base_prefix,
                                         model_.python_version.substr(0, 1) + model_.python_version.substr(2))))
                model_.fatal = fmt::format(
                    "PYTHONHOME={} holds no Python {} standard library ({}/os.py): the interpreter stops at start-up "
                    "with \"Fatal Python "
                    "error: init_fs_encoding: failed to get the Python codec of the filesystem encoding\"",
                    home, model_.python_version, stdlib(model_.base_prefix, "lib"));
        } else if (venv && python_.base_prefix) {
            model_.base_prefix = search_up(*python_.base_prefix + "/bin");
            exec_prefix_ = model_.base_prefix;
        } else if (!python_.interpreter.empty()) {
            const std::string real = sys::real_path(python_.interpreter);
            if (real.empty()) {
                model_.why_not = fmt::format("{} cannot be resolved", python_.interpreter);
                return false;
            }
            model_.base_prefix = search_up(directory_of(real));
            exec_prefix_ = model_.base_prefix;
        } else {
            model_.base_prefix = python_.prefix;
            exec_prefix_ = python_.prefix;
        }
        if (!venv) model_.prefix = model_.base_prefix;
        return true;
    }

    // What this installation's own site.py does: Debian's dist-packages layout, and whether names
    // starting with "." are skipped (gh-113659, in 3.13 and some 3.11/3.12 patch releases).
    void read_site_rules() {
        if (const std::string value = variable("PYTHONPLATLIBDIR"); !value.empty()) {
            platlibdir_ = value;
            model_.variables.push_back("PYTHONPLATLIBDIR=" + value);
        } else if (sys::exists(stdlib(model_.base_prefix, "lib64") + "/os.py")) {
            platlibdir_ = "lib64";
        }
        const std::optional<std::string> site = sys::read_file(stdlib(model_.base_prefix, "lib") + "/site.py", 1 << 20);
        if (!site) return;
        model_.debian_site = site->find("\"dist-packages\"") != std::string::npos;
        skips_hidden_pth_ = site->find("not name.startswith(\".\")") != std::string::npos;
    }

    void append(std::string path, PathOrigin origin, std::string source = {}) {
        known_.insert(path);
        model_.sys_path.push_back({std::move(path), origin, std::move(source)});
    }

    // getpath: sys.path[0], PYTHONPATH, the standard library; site's removeduppaths() then drops
    // repeats (sys.path[0] is inserted after site has run, so it is not among them).
    void initial_path() {
        const std::string& cwd = context_.current_directory;  // "" when it cannot be named (removed)
        if (!variable("PYTHONSAFEPATH").empty() &&
            decimal_number(std::string_view(model_.python_version).substr(2)).value_or(0) >= 11)
            model_.variables.push_back("PYTHONSAFEPATH=" + variable("PYTHONSAFEPATH"));
        else if (!cwd.empty()) model_.sys_path.push_back({cwd, PathOrigin::current_directory, {}});
        if (const std::optional<std::string> pythonpath = context_.environment.get("PYTHONPATH");
            pythonpath && !pythonpath->empty()) {
            model_.variables.push_back("PYTHONPATH=" + *pythonpath);
            for (const std::string& entry : sys::split(*pythonpath, ':'))
                if (cwd.empty() && (entry.empty() || entry.front() != '/')) continue;
                else if (const std::string path = sys::absolute_path(entry, context_.current_directory);
                         !known_.contains(path))
                    append(path, PathOrigin::pythonpath);
        }
        const std::string digits = model_.python_version.substr(0, 1) + model_.python_version.substr(2);
        for (std::string path :
             {fmt::format("{}/{}/python{}.zip", model_.base_prefix, platlibdir_, digits),
              stdlib(model_.base_prefix, platlibdir_), stdlib(exec_prefix_, platlibdir_) + "/lib-dynload"})
            if (!known_.contains(path)) append(std::move(path), PathOrigin::standard_library);
    }

    bool include_system_site_packages() const {
        // site.venv(): the pyvenv.cfg beside the interpreter's directory or in it, as invoked.
        const std::string directory =
            directory_of(python_.interpreter.empty() ? python_.prefix + "/bin/python3" : python_.interpreter);
        for (const std::string& candidate : {directory + "/pyvenv.cfg", directory_of(directory) + "/pyvenv.cfg"})
            if (is_regular_file(candidate)) {
                const std::optional<std::string> text = sys::read_file(candidate, 1 << 16);
                return !text || parse_pyvenv_cfg(*text).include_system_site_packages;
            }
        return true;
    }

    // site.getsitepackages() for one prefix (Debian's patched version where site.py is Debian's).
    std::vector<std::string> site_packages_of(const std::string& prefix, bool in_venv) const {
        const std::string version = model_.python_version;
        std::vector<std::string> libdirs{platlibdir_};
        if (platlibdir_ != "lib") libdirs.emplace_back("lib");
        std::vector<std::string> directories;
        if (model_.debian_site) {
            if (in_venv) directories.push_back(fmt::format("{}/lib/python{}/site-packages", prefix, version));
            directories.push_back(fmt::format("{}/local/lib/python{}/dist-packages", prefix, version));
            directories.push_back(prefix + "/lib/python3/dist-packages");
            for (const std::string& libdir : libdirs)
                directories.push_back(fmt::format("{}/{}/python{}/dist-packages", prefix, libdir, version));
            return directories;
        }
        for (const std::string& libdir : libdirs)
            directories.push_back(fmt::format("{}/{}/python{}/site-packages", prefix, libdir, version));
        return directories;
    }

    void user_site(bool excluded_by_venv) {
        std::string base = variable("PYTHONUSERBASE");
        if (!base.empty()) model_.variables.push_back("PYTHONUSERBASE=" + base);
        else if (const std::string home = variable("HOME"); !home.empty()) base = home + "/.local";
        if (!variable("PYTHONNOUSERSITE").empty())
            model_.variables.push_back("PYTHONNOUSERSITE=" + variable("PYTHONNOUSERSITE"));
        if (base.empty()) return;
        model_.user_site = fmt::format("{}/lib/python{}/site-packages", base, model_.python_version);
        model_.user_site_enabled = !excluded_by_venv && variable("PYTHONNOUSERSITE").empty() && !context_.set_uid;
        if (model_.user_site_enabled && sys::is_directory(model_.user_site))
            add_site_directory(model_.user_site, PathOrigin::user_site);
    }

    // site.addsitedir(): the directory, then its .pth files in sorted order.
    void add_site_directory(const std::string& directory, PathOrigin origin) {
        if (!sys::is_directory(directory)) return;
        if (!known_.contains(directory)) append(directory, origin, model_.prefix);
        for (const std::string& name : sys::list_directory(directory)) {
            if (name.size() <= 4 || name.substr(name.size() - 4) != ".pth") continue;
            if (skips_hidden_pth_ && name.front() == '.') continue;
            read_pth(directory, directory + "/" + name);
        }
    }

    // site.addpackage(): one .pth file's lines.
    void read_pth(const std::string& directory, const std::string& file) {
        const std::optional<std::string> text = sys::read_file(file, 1 << 20);
        if (!text) return;
        int number = 0;
        for (std::string line : sys::split(*text, '\n')) {
            ++number;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (sys::starts_with(line, "#") || sys::trim(line).empty()) continue;
            if (!within_pth_bounds(file, number)) return;
            if (sys::starts_with(line, "import ") || sys::starts_with(line, "import\t")) {
                ++pth_imports_;
                if (!import_line(file, number, line)) return;  // site: "Remainder of file ignored"
                continue;
            }
            ++pth_paths_;
            while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
            const std::string path = sys::absolute_path(line, directory);
            if (known_.contains(path)) continue;
            if (!sys::exists(path)) {
                model_.pth_problems.push_back(
                    {file, number, sys::printable(line), true, fmt::format("{} does not exist", path)});
                continue;
            }
            append(path, PathOrigin::pth_file, fmt::format("{} line {}", file, number));
        }
    }

    // An `import` line: setuptools' editable finder is read; a line whose first module cannot be
    // found raises at start-up (false: the rest of the file is ignored); anything else runs code
    // the model cannot follow.
    bool import_line(const std::string& file, int number, const std::string& line) {
        const std::string module = first_imported_module(line);
        const ImportResolution found =
            module.empty() || is_builtin_module(module) ? ImportResolution{} : resolve(module);
        if (!module.empty() && !is_builtin_module(module) && found.kind == ImportKind::not_found) {
            model_.pth_problems.push_back(
                {file, number, sys::printable(line), false,
                 fmt::format("module {} is not on the path: site prints \"Error processing line {} of {}\" at every "
                             "start-up and ignores the rest of the file",
                             module, number, file)});
            return false;
        }
        if (sys::starts_with(module, "__editable__") && found.kind == ImportKind::module) {
            if (const std::optional<std::string> text = sys::read_file(found.file, 1 << 20)) {
                EditableFinder finder{file, found.file, parse_editable_mapping(*text)};
                const bool installed =
                    std::any_of(model_.finders.begin(), model_.finders.end(),
                                [&](const EditableFinder& other) { return other.module == finder.module; });
                if (!installed) {
                    for (const auto& [name, path] : finder.mapping)
                        if (!sys::exists(path) && !sys::exists(path + ".py"))
                            model_.pth_problems.push_back({file, number, sys::printable(line), true,
                                                           fmt::format("{} (editable {}) does not exist", path, name)});
                    model_.finders.push_back(std::move(finder));
                }
                return true;
            }
        }
        // setuptools' distutils-precedence.pth and virtualenv's _virtualenv.pth only touch distutils.
        if (line.find("_distutils_hack") != std::string::npos || module == "_virtualenv") return true;
        model_.unmodelled.push_back(
            fmt::format("{} line {} runs code at start-up (`{}`)", file, number, sys::printable(line.substr(0, 120))));
        return true;
    }

    // What `import name` finds on the path as built so far (model_.finders may still grow, so no
    // pointer into it is kept).
    ImportResolution resolve(const std::string& name) const {
        ImportResolution found = resolve_import(model_, name);
        found.finder = nullptr;
        return found;
    }

    void customize_modules() {
        for (const char* module : {"sitecustomize", "usercustomize"}) {
            if (std::string_view(module) == "usercustomize" && !model_.user_site_enabled) continue;
            const ImportResolution found = resolve(module);
            if (found.kind != ImportKind::not_found)
                model_.unmodelled.push_back(fmt::format("{} runs at start-up and may change sys.path",
                                                        found.file.empty() ? found.location : found.file));
        }
    }
};

}  // namespace

ImportModel model_imports(const PythonEnvironment& python, const ImportContext& context) {
    if (!python.problem.empty()) {
        ImportModel model;
        model.why_not = python.problem;
        return model;
    }
    return Modeller(python, context).build();
}

ImportResolution resolve_import(const ImportModel& model, std::string_view name, DirectoryListings* listings) {
    ImportResolution resolution;
    if (!model.modelled || name.empty()) return resolution;
    const std::vector<std::string> suffixes = module_suffixes(model.python_version);
    const std::string module(name);
    // PathFinder: a regular package or a module in the first entry that has one; namespace
    // portions only when no entry has.
    for (std::size_t index = 0; index < model.sys_path.size(); ++index) {
        const std::string& entry = model.sys_path[index].path;
        if (listings != nullptr) {
            const bool candidate = listings->contains(entry, module) ||
                                   std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string& suffix) {
                                       return listings->contains(entry, module + suffix);
                                   });
            if (!candidate) continue;
        } else if (!sys::is_directory(entry)) {
            continue;
        }
        const std::string base = entry + "/" + module;
        if (sys::is_directory(base)) {
            for (const std::string& suffix : suffixes)
                if (is_regular_file(base + "/__init__" + suffix))
                    return {ImportKind::package, base + "/__init__" + suffix, base, index, {}, nullptr};
        }
        for (const std::string& suffix : suffixes)
            if (is_regular_file(base + suffix))
                return {ImportKind::module, base + suffix, base + suffix, index, {}, nullptr};
        if (sys::is_directory(base)) {
            if (resolution.portions.empty()) resolution.entry = index, resolution.location = base;
            resolution.portions.push_back(base);
        }
    }
    if (!resolution.portions.empty()) {
        resolution.kind = ImportKind::namespace_package;
        return resolution;
    }
    // Finders appended to sys.meta_path by .pth lines, in the order they were installed.
    for (const EditableFinder& finder : model.finders) {
        const auto mapped = finder.mapping.find(module);
        if (mapped == finder.mapping.end()) continue;
        // setuptools' _EditableFinder._find_spec: <path>/__init__.py, then <path> + each suffix.
        const std::string& path = mapped->second;
        if (sys::exists(path + "/__init__.py"))
            return {ImportKind::editable, path + "/__init__.py", path, std::nullopt, {}, &finder};
        for (const std::string& suffix : suffixes)
            if (sys::exists(path + suffix))
                return {ImportKind::editable, path + suffix, path + suffix, std::nullopt, {}, &finder};
        return {};
    }
    return {};
}

std::vector<std::string> distribution_directories(const ImportModel& model) {
    std::vector<std::string> directories;
    for (const SysPathEntry& entry : model.sys_path)
        if (entry.origin != PathOrigin::standard_library && sys::is_directory(entry.path) &&
            std::find(directories.begin(), directories.end(), entry.path) == directories.end())
            directories.push_back(entry.path);
    return directories;
}

std::string script_interpreter(std::string_view head) {
    const std::vector<std::string> lines = sys::split(head.substr(0, 4096), '\n');
    if (lines.empty() || !sys::starts_with(lines[0], "#!")) return "";
    std::string_view shebang = sys::trim(std::string_view(lines[0]).substr(2));
    std::string first(shebang.substr(0, shebang.find_first_of(" \t")));
    if (first != "/bin/sh") return first;
    // pip's launcher for interpreter paths too long for a shebang or with spaces (distlib's
    // ScriptMaker): "'''exec' "/long/path/bin/python" "$0" "$@"".
    for (std::size_t index = 1; index < lines.size() && index < 4; ++index) {
        std::string_view line = lines[index];
        if (!sys::starts_with(line, "'''exec' ")) continue;
        line = sys::trim(line.substr(9));
        if (const auto quoted = leading_string(line)) return quoted->first;
        return std::string(line.substr(0, line.find(' ')));
    }
    return "";
}

}  // namespace cudacheck
