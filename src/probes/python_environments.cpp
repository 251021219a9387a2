#include "probes/python_environments.hpp"

#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace cudacheck {

using sys::directory_of;
using sys::file_name_of;

std::string_view to_string(PythonKind kind) {
    switch (kind) {
        case PythonKind::venv: return "virtual environment";
        case PythonKind::conda: return "conda environment";
        case PythonKind::pyenv: return "pyenv installation";
        case PythonKind::system: return "system Python";
        case PythonKind::other: return "Python installation";
    }
    return "";
}

PyvenvConfig parse_pyvenv_cfg(std::string_view text) {
    PyvenvConfig config;
    for (const std::string& raw : sys::split(text, '\n')) {
        const std::string_view line = sys::trim(raw);
        if (line.empty() || line.front() == '#') continue;
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) {
            ++config.malformed_lines;
            continue;
        }
        const std::string key = sys::to_lower(sys::trim(line.substr(0, equals)));
        const std::string value(sys::trim(line.substr(equals + 1)));
        if (key == "home") config.home = value;
        else if (key == "version_info" || (key == "version" && !config.version)) config.version = value;
        else if (key == "include-system-site-packages") config.include_system_site_packages = sys::to_lower(value) == "true";
    }
    return config;
}

std::string python_major_minor(std::string_view version) {
    const std::vector<std::string> parts = sys::split(version, '.');
    if (parts.size() < 2 || parts[0] != "3" || parts[1].empty() || !std::all_of(parts[1].begin(), parts[1].end(), ::isdigit)) return "";
    return parts[0] + "." + parts[1];
}

namespace {

// "3.12" of an interpreter's file name "python3.12"; "" for "python3" or "python".
std::string version_of_interpreter_name(std::string_view name) {
    if (!sys::starts_with(name, "python")) return "";
    return python_major_minor(name.substr(6));
}

// The python3.X directories under <prefix>/lib, newest first: where a prefix without a known
// version keeps its site-packages.
std::vector<std::string> versions_under(const std::string& prefix) {
    std::vector<std::string> versions;
    for (const std::string& name : sys::list_directory(prefix + "/lib"))
        if (const std::string version = version_of_interpreter_name(name); !version.empty()) versions.push_back(version);
    std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
        return std::stoi(a.substr(2)) > std::stoi(b.substr(2));
    });
    return versions;
}

void add_if_directory(std::vector<std::string>& directories, const std::string& path) {
    if (sys::is_directory(path) && std::find(directories.begin(), directories.end(), path) == directories.end()) directories.push_back(path);
}

class Finder {
public:
    Finder(const Environment& environment, const std::string& root) : environment_(environment), root_(root) {
        if (auto home = environment.get("HOME"); home && !home->empty()) home_ = *home;
    }

    // Adds the environment (or the reason to an existing one with the same real prefix); its index.
    std::size_t add(PythonEnvironment found) {
        const std::string key = sys::real_path(found.prefix).empty() ? found.prefix : sys::real_path(found.prefix);
        if (const auto seen = index_.find(key); seen != index_.end()) {
            PythonEnvironment& existing = result_.environments[seen->second];
            for (std::string& reason : found.found_by)
                if (std::find(existing.found_by.begin(), existing.found_by.end(), reason) == existing.found_by.end())
                    existing.found_by.push_back(std::move(reason));
            return seen->second;
        }
        index_[key] = result_.environments.size();
        result_.environments.push_back(std::move(found));
        return result_.environments.size() - 1;
    }

    // The environment whose root is `prefix`: a virtual environment when pyvenv.cfg is there.
    PythonEnvironment from_prefix(const std::string& prefix, std::string found_by, std::string version = "") const {
        PythonEnvironment found;
        found.prefix = prefix;
        found.found_by.push_back(std::move(found_by));
        for (const char* name : {"/bin/python3", "/bin/python"})
            if (sys::exists(prefix + name)) {
                found.interpreter = prefix + name;
                break;
            }
        if (sys::exists(prefix + "/pyvenv.cfg")) {
            found.kind = PythonKind::venv;
            const std::optional<std::string> text = sys::read_file(prefix + "/pyvenv.cfg", 1 << 16);
            if (!text) {
                found.problem = fmt::format("{}/pyvenv.cfg cannot be read", prefix);
                return found;
            }
            const PyvenvConfig config = parse_pyvenv_cfg(*text);
            if (config.version) version = *config.version;
            if (config.home) found.base_prefix = directory_of(*config.home);
            found.python_version = version;
            add_site_packages(found, python_major_minor(version));
            if (config.include_system_site_packages && found.base_prefix) {
                const PythonEnvironment base = from_prefix(*found.base_prefix, "base of " + prefix, version);
                for (const std::string& directory : base.site_packages) add_if_directory(found.site_packages, directory);
            }
            return found;
        }
        found.kind = sys::is_directory(prefix + "/conda-meta")                                  ? PythonKind::conda
                     : prefix.find("/.pyenv/versions/") != std::string::npos                       ? PythonKind::pyenv
                     : prefix == root_ + "/usr" || prefix == root_ + "/usr/local"                 ? PythonKind::system
                                                                                                    : PythonKind::other;
        if (version.empty()) {
            const std::vector<std::string> versions = versions_under(prefix);
            if (!versions.empty()) version = versions.front();
        }
        found.python_version = version;
        // The user site comes first on a non-virtual interpreter's sys.path.
        if (const std::string minor = python_major_minor(version); !minor.empty() && !home_.empty())
            add_if_directory(found.site_packages, fmt::format("{}/.local/lib/python{}/site-packages", home_, minor));
        add_site_packages(found, python_major_minor(version));
        return found;
    }

    // The environment an interpreter belongs to.
    PythonEnvironment from_interpreter(const std::string& interpreter, std::string found_by) const {
        const std::string bin = directory_of(interpreter);
        for (const std::string& candidate : std::vector<std::string>{directory_of(bin), bin})
            if (sys::exists(candidate + "/pyvenv.cfg")) {
                PythonEnvironment found = from_prefix(candidate, std::move(found_by));
                found.interpreter = interpreter;
                return found;
            }
        const std::string real = sys::real_path(interpreter);
        if (real.empty()) {
            PythonEnvironment broken;
            broken.prefix = directory_of(bin);
            broken.interpreter = interpreter;
            broken.found_by.push_back(std::move(found_by));
            broken.problem = fmt::format("{} is a broken link or cannot be resolved", interpreter);
            return broken;
        }
        PythonEnvironment found = from_prefix(directory_of(directory_of(real)), std::move(found_by), version_of_interpreter_name(file_name_of(real)));
        found.interpreter = interpreter;
        return found;
    }

    // The python3 executables on PATH, in order (`python3`, not `python`: the name a user types
    // and pip's shebang uses).
    std::vector<std::string> interpreters_on_path() const {
        std::vector<std::string> found;
        for (const std::string& directory : sys::split(environment_.get("PATH").value_or(""), ':')) {
            if (directory.empty()) continue;
            const std::string candidate = directory + "/python3";
            if (sys::is_executable_file(candidate) && std::find(found.begin(), found.end(), candidate) == found.end()) found.push_back(candidate);
        }
        return found;
    }

    void find(std::span<const std::string> extra) {
        for (const std::string& named : extra) {
            const std::string reason = "--python " + named;
            if (sys::is_directory(named)) add(from_prefix(named, reason));
            else if (sys::exists(named)) add(from_interpreter(named, reason));
            else {
                PythonEnvironment missing;
                missing.prefix = named;
                missing.found_by.push_back(reason);
                missing.problem = fmt::format("{} does not exist", named);
                add(std::move(missing));
            }
        }
        bool bare_decided = false;
        for (const std::string& interpreter : interpreters_on_path()) {
            const std::string bin = directory_of(interpreter);
            if (file_name_of(bin) == "shims") {
                // pyenv: the shim runs the version PYENV_VERSION or <pyenv root>/version names (a
                // .python-version file in the working directory can override both).
                const std::string pyenv_root = directory_of(bin);
                std::string version = environment_.get("PYENV_VERSION").value_or("");
                if (version.empty())
                    if (const auto file = sys::read_file(pyenv_root + "/version", 4096); file) version = std::string(sys::trim(file->substr(0, file->find('\n'))));
                if (version.empty() || version == "system") {
                    result_.notes.push_back(fmt::format("{} is a pyenv shim selecting the system Python: the next python3 on PATH", interpreter));
                    continue;
                }
                const std::size_t index = add(from_prefix(pyenv_root + "/versions/" + version, "python3 on PATH (pyenv shim)"));
                result_.notes.push_back(fmt::format("{} is a pyenv shim; it runs version {} unless a .python-version file says otherwise", interpreter, version));
                if (!bare_decided) result_.bare_python3 = index, bare_decided = true;
                continue;
            }
            const std::size_t index = add(from_interpreter(interpreter, bare_decided ? "python3 later on PATH" : "python3 on PATH"));
            if (!bare_decided) result_.bare_python3 = index, bare_decided = true;
        }
        if (auto venv = environment_.get("VIRTUAL_ENV"); venv && !venv->empty()) add(from_prefix(*venv, "VIRTUAL_ENV"));
        if (auto conda = environment_.get("CONDA_PREFIX"); conda && !conda->empty()) add(from_prefix(*conda, "CONDA_PREFIX"));
        // conda's own list of environments, and each conda installation's envs/.
        if (!home_.empty())
            if (const auto listed = sys::read_file(home_ + "/.conda/environments.txt", 1 << 20); listed)
                for (const std::string& line : sys::split(*listed, '\n'))
                    if (const std::string prefix(sys::trim(line)); !prefix.empty() && sys::is_directory(prefix))
                        add(from_prefix(prefix, "~/.conda/environments.txt"));
        std::vector<std::string> conda_roots;
        if (auto exe = environment_.get("CONDA_EXE"); exe && !exe->empty()) conda_roots.push_back(directory_of(directory_of(*exe)));
        conda_roots.push_back(root_ + "/opt/conda");
        if (!home_.empty())
            for (const char* name : {"/miniconda3", "/anaconda3", "/miniforge3"}) conda_roots.push_back(home_ + name);
        for (const std::string& conda_root : conda_roots) {
            if (!sys::is_directory(conda_root + "/conda-meta")) continue;
            add(from_prefix(conda_root, "conda installation"));
            for (const std::string& name : sys::list_directory(conda_root + "/envs"))
                if (sys::is_directory(conda_root + "/envs/" + name)) add(from_prefix(conda_root + "/envs/" + name, "conda installation"));
        }
        // pipx keeps one virtual environment per tool.
        std::string pipx = environment_.get("PIPX_HOME").value_or("");
        if (pipx.empty() && !home_.empty()) pipx = home_ + "/.local/share/pipx";
        if (!pipx.empty())
            for (const std::string& name : sys::list_directory(pipx + "/venvs")) add(from_prefix(pipx + "/venvs/" + name, "pipx"));
    }

    PythonEnvironments take() && { return std::move(result_); }

private:
    void add_site_packages(PythonEnvironment& found, const std::string& minor) const {
        if (minor.empty()) {
            for (const std::string& version : versions_under(found.prefix))
                add_if_directory(found.site_packages, fmt::format("{}/lib/python{}/site-packages", found.prefix, version));
            return;
        }
        if (found.kind == PythonKind::system && found.prefix == root_ + "/usr") {
            // Debian's patched site module.
            add_if_directory(found.site_packages, fmt::format("{}/local/lib/python{}/dist-packages", found.prefix, minor));
            add_if_directory(found.site_packages, found.prefix + "/lib/python3/dist-packages");
            add_if_directory(found.site_packages, fmt::format("{}/lib/python{}/dist-packages", found.prefix, minor));
        }
        add_if_directory(found.site_packages, fmt::format("{}/lib/python{}/site-packages", found.prefix, minor));
    }

    const Environment& environment_;
    const std::string& root_;
    std::string home_;
    PythonEnvironments result_;
    std::map<std::string, std::size_t> index_;
};

}  // namespace

PythonEnvironments find_python_environments(const Environment& environment, std::span<const std::string> extra, const std::string& root) {
    Finder finder(environment, root);
    finder.find(extra);
    return std::move(finder).take();
}

std::vector<std::string> user_site_packages(const Environment& environment) {
    std::vector<std::string> sites;
    const std::optional<std::string> home = environment.get("HOME");
    if (!home || home->empty()) return sites;
    const std::string lib = *home + "/.local/lib";
    for (const std::string& name : sys::list_directory(lib))
        if (sys::starts_with(name, "python3") && sys::is_directory(lib + "/" + name + "/site-packages")) sites.push_back(lib + "/" + name + "/site-packages");
    std::sort(sites.begin(), sites.end());
    return sites;
}

}  // namespace cudacheck
