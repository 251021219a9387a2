#include "probes/python/python_environments.hpp"

#include "probes/python/python_packages.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <pwd.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

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
        else if (key == "include-system-site-packages")
            config.include_system_site_packages = sys::to_lower(value) == "true";
    }
    return config;
}

std::string python_major_minor(std::string_view version) {
    const std::vector<std::string> parts = sys::split(version, '.');
    // The minor read as a number without exceptions, and a plausible one
    // (`lib/python3.<20 digits>` threw from std::stoi and ended `cudacheck env` with exit 3).
    if (parts.size() < 2 || parts[0] != "3" || !decimal_number(parts[1], 999)) return "";
    return parts[0] + "." + parts[1];
}

std::optional<int> python_minor_of(std::string_view major_minor) {
    if (major_minor.size() < 3 || python_major_minor(major_minor) != major_minor) return std::nullopt;
    const std::optional<long> minor = decimal_number(major_minor.substr(2), 999);
    if (!minor) return std::nullopt;
    return static_cast<int>(*minor);
}

namespace {

std::string owner_of(uid_t uid) {
    struct passwd entry{};
    struct passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
        found->pw_name != nullptr)
        return fmt::format("uid {} ({})", uid, sys::printable(found->pw_name));
    return fmt::format("uid {}", uid);
}

UnreadablePath describe_unreadable(const std::string& path, int error, const struct stat* status,
                                   std::string_view verb = "read") {
    UnreadablePath unreadable{.path = path, .message = {}, .remediation = {}};
    const std::string shown = sys::printable(path);
    if (status == nullptr) {
        unreadable.message = fmt::format("cannot {} {}: {}", verb, shown, std::strerror(error));
        unreadable.remediation =
            fmt::format("Give the user who runs Python (and cudacheck) access to {} and the directories above it.",
                        shown);
        return unreadable;
    }
    const bool directory = S_ISDIR(status->st_mode);
    unreadable.message = fmt::format("cannot {} {}: {} (mode {:03o}, owner {})", verb, shown, std::strerror(error),
                                     status->st_mode & 07777, owner_of(status->st_uid));
    // pip and venv create directories 0755 and files 0644 (under the usual umask 022).
    const std::string command = fmt::format("`chmod {} {}`", directory ? "755" : "644", shown);
    unreadable.remediation =
        status->st_uid == ::geteuid()
            ? fmt::format("Give it back the usual permissions: {}.", command)
            : fmt::format("As its owner ({}) or root: {}; or run cudacheck as a user who can read it.",
                          owner_of(status->st_uid), command);
    return unreadable;
}

}  // namespace

std::optional<UnreadablePath> unreadable_path(const std::string& path) {
    struct stat status{};
    if (::stat(path.c_str(), &status) != 0) {
        // Absent is not unreadable; a directory above that cannot be searched is.
        if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
        return describe_unreadable(path, errno, nullptr);
    }
    if (S_ISDIR(status.st_mode)) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return describe_unreadable(path, errno, &status);
        ::close(fd);
        // Listing needs read permission, reaching what is listed needs search permission:
        // "<dir>/." resolves only through a searchable directory (path_resolution(7)).
        struct stat inside{};
        if (::stat((path + "/.").c_str(), &inside) != 0) return describe_unreadable(path, errno, &status, "search");
        return std::nullopt;
    }
    if (!S_ISREG(status.st_mode)) {
        const std::string shown = sys::printable(path);
        return UnreadablePath{.path = path,
                              .message = fmt::format("cannot read {}: it is {}, not a regular file", shown,
                                                     sys::file_type_words(status.st_mode)),
                              .remediation =
                                  fmt::format("Remove it (`rm {}`), or put back the file that belongs there.", shown)};
    }
    // O_NONBLOCK: nothing here may wait (the file may have become a FIFO since the stat).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return describe_unreadable(path, errno, &status);
    ::close(fd);
    return std::nullopt;
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
        if (const std::string version = version_of_interpreter_name(name); !version.empty())
            versions.push_back(version);
    std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
        // python_major_minor made both "3.<at most 999>".
        return decimal_number(std::string_view(a).substr(2)).value_or(0) >
               decimal_number(std::string_view(b).substr(2)).value_or(0);
    });
    return versions;
}

void add_unreadable(PythonEnvironment& found, UnreadablePath unreadable) {
    const bool known = std::any_of(found.unreadable.begin(), found.unreadable.end(),
                                   [&](const UnreadablePath& other) { return other.path == unreadable.path; });
    if (!known) found.unreadable.push_back(std::move(unreadable));
}

// A site directory, when it exists: added when it can be read, noted as unreadable otherwise
// (a `chmod 000` site-packages would make its frameworks silently disappear).
void add_if_directory(PythonEnvironment& found, const std::string& path) {
    if (!sys::is_directory(path) ||
        std::find(found.site_packages.begin(), found.site_packages.end(), path) != found.site_packages.end())
        return;
    if (std::optional<UnreadablePath> unreadable = unreadable_path(path)) {
        add_unreadable(found, std::move(*unreadable));
        return;
    }
    found.site_packages.push_back(path);
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
        std::vector<std::string> chain;
        return from_prefix(prefix, std::move(found_by), std::move(version), chain);
    }

    // `chain`: the real prefixes of the environments whose `home` led here, first first. A home
    // that leads back onto it, or a chain of max_home_chain, is not followed (a venv whose
    // home is its own bin/ would recurse here until SIGSEGV).
    PythonEnvironment from_prefix(const std::string& prefix, std::string found_by, std::string version,
                                  std::vector<std::string>& chain) const {
        PythonEnvironment found;
        found.prefix = prefix;
        found.found_by.push_back(std::move(found_by));
        // A root that cannot be read or searched hides everything in it: say so rather than
        // report an empty environment.
        if (std::optional<UnreadablePath> unreadable = unreadable_path(prefix)) {
            found.problem = unreadable->message;
            add_unreadable(found, std::move(*unreadable));
            return found;
        }
        for (const char* name : {"/bin/python3", "/bin/python"})
            if (sys::exists(prefix + name)) {
                found.interpreter = prefix + name;
                break;
            }
        const std::string cfg = prefix + "/pyvenv.cfg";
        if (sys::exists(cfg)) {
            found.kind = PythonKind::venv;
            const std::optional<std::string> text = sys::read_file(cfg, 1 << 16);
            if (!text) {
                std::optional<UnreadablePath> unreadable = unreadable_path(cfg);
                if (!unreadable)
                    unreadable = UnreadablePath{.path = cfg,
                                                .message = fmt::format("cannot read {}", sys::printable(cfg)),
                                                .remediation = fmt::format("Check {} and the disk it is on.",
                                                                           sys::printable(cfg))};
                found.problem = unreadable->message;
                add_unreadable(found, std::move(*unreadable));
                return found;
            }
            const PyvenvConfig config = parse_pyvenv_cfg(*text);
            if (config.version) version = *config.version;
            if (config.home) found.base_prefix = directory_of(*config.home);
            found.python_version = version;
            add_site_packages(found, python_major_minor(version));
            if (!found.base_prefix) return found;
            const auto real = [](const std::string& path) {
                std::string resolved = sys::real_path(path);
                return resolved.empty() ? path : resolved;
            };
            const std::string here = real(prefix);
            const std::string base = real(*found.base_prefix);
            const bool loops = base == here || std::find(chain.begin(), chain.end(), base) != chain.end();
            // A home naming the environment itself is wrong whether or not its base's packages are
            // wanted: the file no longer says which installation the environment belongs to.
            if (!loops && !config.include_system_site_packages) return found;
            chain.push_back(here);
            // The installation whose site-packages come in through home: home's, unless it leads
            // back onto the chain (or the chain is too long); then, as CPython also finds its
            // standard library another way (its interpreter's link, or the prefix it was built with:
            // a Debian 3.11 venv whose home is its own bin/ starts with sys.base_prefix /usr), the
            // installation bin/python3 links to, when that is not on the chain either.
            std::optional<std::string> follow = found.base_prefix;
            if (loops || chain.size() >= max_home_chain) {
                std::string names;
                for (const std::string& link : chain) names += (names.empty() ? "" : " -> ") + sys::printable(link);
                names += " -> " + sys::printable(base);
                found.home_loop =
                    loops
                        ? fmt::format("home = {} in {} leads back to {}, an environment already on its home chain ({})",
                                      sys::printable(*config.home), sys::printable(cfg), sys::printable(base), names)
                        : fmt::format(
                              "home = {} in {} continues a chain of {} virtual environments, each the home of the one "
                              "before ({}), and "
                              "is not followed further",
                              sys::printable(*config.home), sys::printable(cfg), chain.size(), names);
                found.home_loop_file = cfg;
                follow.reset();
                found.base_prefix.reset();
                const std::string linked =
                    found.interpreter.empty() ? std::string() : sys::real_path(found.interpreter);
                const std::string installation = linked.empty() ? std::string() : directory_of(directory_of(linked));
                // (Past the bound no fallback either: every path here ends within 2 * max_home_chain.)
                if (!installation.empty() && chain.size() <= max_home_chain &&
                    std::find(chain.begin(), chain.end(), real(installation)) == chain.end()) {
                    found.home_loop +=
                        fmt::format("; cudacheck takes {}, where {} links to ({}), as its base installation instead",
                                    sys::printable(installation), sys::printable(found.interpreter),
                                    sys::printable(linked));
                    found.base_prefix = installation;
                    follow = installation;
                } else {
                    found.home_loop += "; its base installation is unknown, and only its own site-packages are read";
                }
            }
            if (follow && config.include_system_site_packages) {
                const PythonEnvironment base_environment = from_prefix(*follow, "base of " + prefix, version, chain);
                for (const std::string& directory : base_environment.site_packages) add_if_directory(found, directory);
                for (const UnreadablePath& unreadable : base_environment.unreadable) add_unreadable(found, unreadable);
                if (found.home_loop.empty() && !base_environment.home_loop.empty()) {
                    found.home_loop = base_environment.home_loop;
                    found.home_loop_file = base_environment.home_loop_file;
                }
            }
            chain.pop_back();
            return found;
        }
        found.kind = sys::is_directory(prefix + "/conda-meta")                    ? PythonKind::conda
                     : prefix.find("/.pyenv/versions/") != std::string::npos      ? PythonKind::pyenv
                     : prefix == root_ + "/usr" || prefix == root_ + "/usr/local" ? PythonKind::system
                                                                                  : PythonKind::other;
        if (version.empty()) {
            const std::vector<std::string> versions = versions_under(prefix);
            if (!versions.empty()) version = versions.front();
        }
        found.python_version = version;
        // The user site comes first on a non-virtual interpreter's sys.path.
        if (const std::string minor = python_major_minor(version); !minor.empty() && !home_.empty())
            add_if_directory(found, fmt::format("{}/.local/lib/python{}/site-packages", home_, minor));
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
        PythonEnvironment found = from_prefix(directory_of(directory_of(real)), std::move(found_by),
                                              version_of_interpreter_name(file_name_of(real)));
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
            if (sys::is_executable_file(candidate) && std::find(found.begin(), found.end(), candidate) == found.end())
                found.push_back(candidate);
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
                    if (const auto file = sys::read_file(pyenv_root + "/version", 4096); file)
                        version = std::string(sys::trim(file->substr(0, file->find('\n'))));
                if (version.empty() || version == "system") {
                    result_.notes.push_back(
                        fmt::format("{} is a pyenv shim selecting the system Python: the next python3 on PATH",
                                    interpreter));
                    continue;
                }
                const std::size_t index =
                    add(from_prefix(pyenv_root + "/versions/" + version, "python3 on PATH (pyenv shim)"));
                result_.notes.push_back(
                    fmt::format("{} is a pyenv shim; it runs version {} unless a .python-version file says otherwise",
                                interpreter, version));
                if (!bare_decided) result_.bare_python3 = index, bare_decided = true;
                continue;
            }
            const std::size_t index =
                add(from_interpreter(interpreter, bare_decided ? "python3 later on PATH" : "python3 on PATH"));
            if (!bare_decided) result_.bare_python3 = index, bare_decided = true;
        }
        if (auto venv = environment_.get("VIRTUAL_ENV"); venv && !venv->empty()) add(from_prefix(*venv, "VIRTUAL_ENV"));
        if (auto conda = environment_.get("CONDA_PREFIX"); conda && !conda->empty())
            add(from_prefix(*conda, "CONDA_PREFIX"));
        // conda's own list of environments, and each conda installation's envs/.
        if (!home_.empty())
            if (const auto listed = sys::read_file(home_ + "/.conda/environments.txt", 1 << 20); listed) {
                // Each line once: a megabyte of one repeated line is one environment, read once.
                std::set<std::string, std::less<>> seen;
                for (const std::string& line : sys::split(*listed, '\n'))
                    if (const std::string prefix(sys::trim(line));
                        !prefix.empty() && seen.insert(prefix).second && sys::is_directory(prefix))
                        add(from_prefix(prefix, "~/.conda/environments.txt"));
            }
        std::vector<std::string> conda_roots;
        if (auto exe = environment_.get("CONDA_EXE"); exe && !exe->empty())
            conda_roots.push_back(directory_of(directory_of(*exe)));
        conda_roots.push_back(root_ + "/opt/conda");
        if (!home_.empty())
            for (const char* name : {"/miniconda3", "/anaconda3", "/miniforge3"}) conda_roots.push_back(home_ + name);
        for (const std::string& conda_root : conda_roots) {
            if (!sys::is_directory(conda_root + "/conda-meta")) continue;
            add(from_prefix(conda_root, "conda installation"));
            for (const std::string& name : sys::list_directory(conda_root + "/envs"))
                if (sys::is_directory(conda_root + "/envs/" + name))
                    add(from_prefix(conda_root + "/envs/" + name, "conda installation"));
        }
        // pipx keeps one virtual environment per tool.
        std::string pipx = environment_.get("PIPX_HOME").value_or("");
        if (pipx.empty() && !home_.empty()) pipx = home_ + "/.local/share/pipx";
        if (!pipx.empty())
            for (const std::string& name : sys::list_directory(pipx + "/venvs"))
                add(from_prefix(pipx + "/venvs/" + name, "pipx"));
    }

    PythonEnvironments take() && { return std::move(result_); }

private:
    void add_site_packages(PythonEnvironment& found, const std::string& minor) const {
        // lib/ itself unreadable hides every site-packages below it.
        if (sys::is_directory(found.prefix + "/lib"))
            if (std::optional<UnreadablePath> unreadable = unreadable_path(found.prefix + "/lib")) {
                add_unreadable(found, std::move(*unreadable));
                return;
            }
        if (minor.empty()) {
            for (const std::string& version : versions_under(found.prefix))
                add_if_directory(found, fmt::format("{}/lib/python{}/site-packages", found.prefix, version));
            return;
        }
        if (found.kind == PythonKind::system && found.prefix == root_ + "/usr") {
            // Debian's patched site module.
            add_if_directory(found, fmt::format("{}/local/lib/python{}/dist-packages", found.prefix, minor));
            add_if_directory(found, found.prefix + "/lib/python3/dist-packages");
            add_if_directory(found, fmt::format("{}/lib/python{}/dist-packages", found.prefix, minor));
        }
        add_if_directory(found, fmt::format("{}/lib/python{}/site-packages", found.prefix, minor));
    }

    const Environment& environment_;
    const std::string& root_;
    std::string home_;
    PythonEnvironments result_;
    std::map<std::string, std::size_t> index_;
};

}  // namespace

PythonEnvironments find_python_environments(const Environment& environment, std::span<const std::string> extra,
                                            const std::string& root) {
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
        if (sys::starts_with(name, "python3") && sys::is_directory(lib + "/" + name + "/site-packages"))
            sites.push_back(lib + "/" + name + "/site-packages");
    std::sort(sites.begin(), sites.end());
    return sites;
}

}  // namespace cudacheck
