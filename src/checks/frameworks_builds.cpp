// frameworks.builds: the CUDA inside Python. For each framework of each environment:
// does the driver run the CUDA it was built for, does its GPU code run on each GPU, does its
// process load the libraries it was built for (and only one install of each), and do the
// frameworks and extensions of one environment agree. Everything is read from files
// (probes/frameworks_probe.hpp), so it runs at --level quick; frameworks.run (--level full)
// proves the verdicts with each framework's own interpreter.
#include "checks/frameworks_builds.hpp"

#include "cuda/arch_coverage.hpp"
#include "engine/check.hpp"
#include "engine/registry.hpp"
#include "engine/report_builder.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/path.hpp"
#include "util/python_packaging.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gnu/libc-version.h>
#include <map>
#include <set>
#include <sys/utsname.h>

namespace cudacheck {

namespace {

// The machine as cuda/framework_builds judges it: the driver's CUDA version (or the one a fix
// aims at), every visible GPU, the environment's Python, this glibc and machine.
MachineFacts machine_of(const FrameworkJudgeInput& input, std::optional<CudaVersion> driver_cuda, MajorMinor python) {
    MachineFacts machine;
    machine.driver_cuda = driver_cuda;
    machine.pythons = {python};
    machine.glibc = input.glibc;
    machine.machine = input.machine;
    for (const DeviceInfo& device : input.devices)
        machine.gpus.push_back(GpuArch{device.cc_major * 10 + device.cc_minor, ArchVariant::generic});
    return machine;
}

}  // namespace

ReleaseFit fit_within_release(const FrameworkBuildRow& installed, std::span<const FrameworkBuildRow> rows,
                              const MachineFacts& machine, MajorMinor python) {
    ReleaseFit fit;
    fit.installed_check = check_build(installed, machine, python);
    fit.installed_native = runs_natively(fit.installed_check);
    if (fit.installed_check.runs)
        for (const GpuRun& run : fit.installed_check.runs_on)
            if (run.kind == ImageKind::ptx_jit) fit.ptx_only.push_back(run.gpu);
    // The variant `cudacheck advise` would pick of this release (cuda/framework_builds'
    // preferred_variant): SASS for every GPU first, then PyPI's own build, else the newer CUDA.
    for (const FrameworkBuildRow& row : rows) {
        if (row.framework != installed.framework || row.machine != installed.machine ||
            row.version != installed.version)
            continue;
        BuildCheck check = &row == &installed ? fit.installed_check : check_build(row, machine, python);
        if (!check.runs) continue;
        if (fit.recommended == nullptr || preferred_variant(row, check, *fit.recommended, fit.recommended_check)) {
            fit.recommended = &row;
            fit.recommended_check = std::move(check);
        }
    }
    fit.recommended_native = fit.recommended != nullptr && runs_natively(fit.recommended_check);
    if (!fit.better_than(installed)) return fit;
    const FrameworkBuildRow& best = *fit.recommended;
    if (!fit.installed_check.runs) {
        fit.why = fmt::format("{} {}; {} runs: {}", installed.variant, fit.installed_check.reason, best.variant,
                              fit.recommended_check.why);
    } else {  // better_than: PTX JIT where the recommended build has SASS for every GPU
        std::vector<std::string> gpus;
        for (const GpuArch& gpu : fit.ptx_only) gpus.push_back(gpu.sass_name());
        fit.why =
            fmt::format("{} runs on {} only through PTX compiled at first use; {} carries SASS for every GPU here ({})",
                        installed.variant, fmt::join(gpus, ", "), best.variant, fit.recommended_check.why);
    }
    return fit;
}

namespace {

std::string pip(const EnvironmentFacts& environment) {
    const std::string& interpreter = environment.environment.interpreter;
    return fmt::format("{} -m pip", interpreter.empty() ? std::string("python3") : interpreter);
}

const FrameworkFacts* find_framework(const EnvironmentFacts& environment, std::string_view name) {
    for (const FrameworkFacts& framework : environment.frameworks)
        if (framework.build.framework == name) return &framework;
    return nullptr;
}

std::string driver_text(const FrameworkJudgeInput& input) {
    if (!input.driver_cuda) return "no driver answered";
    return input.driver_version.empty()
               ? fmt::format("the driver supports CUDA <= {}", input.driver_cuda->to_string())
               : fmt::format("driver {} supports CUDA <= {}", input.driver_version, input.driver_cuda->to_string());
}

// The libraries a CUDA wheel carries, by its distribution name: the table's wheel, bare for CUDA 13
// ("nvidia-cublas": cuBLAS and cuBLASLt) or with the CUDA major ("nvidia-cudnn-cu12").
std::vector<const LibraryFamily*> families_of_wheel(std::string_view distribution) {
    std::vector<const LibraryFamily*> families;
    for (const LibraryFamily& family : library_families()) {
        if (family.wheel.empty()) continue;
        const std::string stem = packaging::normalize_name(family.wheel);
        if (!sys::starts_with(distribution, stem)) continue;
        const std::string_view rest = distribution.substr(stem.size());
        if (rest.empty() || (sys::starts_with(rest, "-cu") && rest.size() > 3 &&
                             rest.find_first_not_of("0123456789", 3) == std::string_view::npos))
            families.push_back(&family);
    }
    return families;
}

// PyTorch's name for a CUDA release in its wheel indexes: "13.0" -> "130".
std::string cuda_tag(const std::string& cuda) {
    std::string tag = cuda;
    std::erase(tag, '.');
    return tag;
}

// Whether a torch release an extension names ("2.7", "2.7.0+cu126") is the installed one
// ("2.7.1"), in every component it gives: PEP 440's prefix match, "==2.7.*".
bool same_release_prefix(const std::string& built, const std::string& installed) {
    return satisfies(installed, "==" + built.substr(0, built.find('+')) + ".*");
}

std::string cuda_of(const FrameworkBuild& build) {
    return build.cuda ? *build.cuda : build.cuda_major ? std::to_string(*build.cuda_major) : std::string("?");
}

std::string environment_command(const EnvironmentFacts& environment, const FrameworkFacts& framework,
                                const FrameworkBuildRow& row);

// The command that installs the framework's CUDA build for a driver of `driver_cuda` (and, for
// PyTorch, the GPUs here); "" when the framework has none. PyTorch's is the build `cudacheck advise`
// names for that driver, every visible GPU and the environment's Python (cuda/framework_builds'
// table), installed by the environment's own pip over the one there.
std::string install_command(const EnvironmentFacts& environment, const FrameworkFacts& framework,
                            const FrameworkJudgeInput& input, std::optional<CudaVersion> driver_cuda) {
    const std::string& name = framework.build.framework;
    if (name == "PyTorch") {
        const std::optional<MajorMinor> python = MajorMinor::parse(environment.environment.python_version);
        if (!python || !driver_cuda) return {};
        const BuildAdvice advice = advise_build(machine_of(input, driver_cuda, *python), Framework::pytorch, *python);
        return advice.fits() ? environment_command(environment, framework, *advice.build) : std::string();
    }
    const int major = driver_cuda ? std::min(driver_cuda->major, 13) : 13;
    if (major < 12) return {};
    if (name == "JAX") return fmt::format("{} install -U \"jax[cuda{}]\"", pip(environment), major);
    if (name == "CuPy")
        return fmt::format("{} uninstall -y {} && {} install cupy-cuda{}x", pip(environment),
                           framework.build.distribution, pip(environment), major);
    if (name == "TensorFlow" && major == 12)
        return fmt::format("{} install -U \"tensorflow[and-cuda]\"", pip(environment));
    return {};
}

// The frameworks that decide which CUDA a process gets; the extensions follow torch.
bool is_framework(const FrameworkBuild& build) { return framework_named(build.framework).has_value(); }

// The table's command for `row` (install_command), run by the environment's own interpreter, and
// made to replace what is installed: pip keeps an installed torch 2.11.0+cu126 for
// "torch==2.11.0" (a local version satisfies a specifier without one, PEP 440), so torch is
// reinstalled, with torchvision/torchaudio to follow its variant; a JAX plugin or CuPy package of
// another CUDA major is a distribution of another name, which is uninstalled first.
std::string environment_command(const EnvironmentFacts& environment, const FrameworkFacts& framework,
                                const FrameworkBuildRow& row) {
    std::string command = install_command(row);
    constexpr std::string_view pip_install = "pip install ";
    if (!command.starts_with(pip_install)) return command;
    std::string rest = command.substr(pip_install.size());
    const std::string& distribution = framework.build.distribution;
    switch (row.framework) {
        case Framework::pytorch: {
            std::string packages = fmt::format("torch=={}", row.version);
            if (const std::size_t at = rest.find(packages); at != std::string::npos)
                for (const char* extension : {"torchaudio", "torchvision"})
                    if (find_framework(environment, extension) != nullptr)
                        rest.insert(at + packages.size(), std::string(" ") + extension);
            return fmt::format("{} install --force-reinstall {}", pip(environment), rest);
        }
        case Framework::jax:
            if (distribution.starts_with("jax-cuda") && distribution.find(row.variant) == std::string::npos) {
                std::string pjrt = distribution;
                if (pjrt.ends_with("-plugin")) pjrt.replace(pjrt.size() - 7, 7, "-pjrt");
                return fmt::format("{} uninstall -y {} {} && {} install {}", pip(environment), distribution, pjrt,
                                   pip(environment), rest);
            }
            break;
        case Framework::cupy:
            if (distribution != row.variant)
                return fmt::format("{} uninstall -y {} && {} install {}", pip(environment), distribution,
                                   pip(environment), rest);
            break;
        case Framework::tensorflow: break;
    }
    return fmt::format("{} install {}", pip(environment), rest);
}

class FrameworkJudge {
public:
    FrameworkJudge(const FrameworkJudgeInput& input, ResultBuilder& result) : input_(input), result_(result) {}

    void judge(const EnvironmentFacts& environment) {
        environment_access(environment);
        interpreter_path(environment);
        for (const FrameworkFacts& framework : environment.frameworks) {
            subject_ = framework_subject(environment, framework);
            raised_.clear();
            imported_copy(environment, framework);
            metadata(environment, framework);
            cpu_only(environment, framework);
            if (framework.build.accelerator != Accelerator::cuda) continue;
            const std::optional<TableFit> fit = table_fit(environment, framework);
            const bool driver_runs_it = driver(environment, framework);
            if (driver_runs_it) coverage(environment, framework, fit);
            libraries(environment, framework);
            mixed_copies(framework);
            if (fit) better_build(environment, framework, *fit);
        }
        subject_.clear();
        cuda_majors(environment);
        extensions(environment);
    }

private:
    const FrameworkJudgeInput& input_;
    ResultBuilder& result_;
    std::string subject_;
    std::set<std::string> reported_paths_;  // unreadable paths and looping pyvenv.cfg files already reported
    std::set<Code> raised_;                 // the codes raised for the framework being judged

    // An installed build judged against cudacheck's table of published builds.
    struct TableFit {
        Framework framework = Framework::pytorch;
        const FrameworkBuildRow* installed = nullptr;
        ReleaseFit release;
        BuildAdvice newest;  // advise_build's choice, any release
        std::string command;  // for release.recommended, in this environment
    };

public:
    std::size_t findings = 0;

    void add(Code code, std::string message, std::string remediation, std::optional<int> device = std::nullopt,
             std::optional<Status> status = std::nullopt) {
        ++findings;
        raised_.insert(code);
        // A message is a headline; one that a long path or version text makes longer is kept whole
        // in the evidence.
        if (message.size() > sys::max_headline) {
            detail(code, message);
            message = sys::clip(message, sys::max_headline);
        }
        Finding finding = make_finding(code, std::move(message), std::move(remediation), status);
        finding.device = device;
        if (!subject_.empty()) finding.subject = subject_;
        result_.add(std::move(finding));
    }

    // The whole account behind a headline, with its paths and lists: evidence under the finding's
    // code and subject (shown by -v and in the JSON report).
    void detail(Code code, std::string text) {
        result_.evidence(subject_.empty() ? code_string(code) : fmt::format("{} {}", code_string(code), subject_),
                         std::move(text));
    }

    // What kept the environment from being read: a pyvenv.cfg home chain that loops,
    // and a root, pyvenv.cfg, lib or site-packages this user cannot read (before, a `chmod 000`
    // site-packages made its frameworks vanish into "no Python framework installed"). A path shared
    // by several environments (a base installation's site-packages) is reported once.
    void environment_access(const EnvironmentFacts& environment) {
        const PythonEnvironment& python = environment.environment;
        subject_ = python.prefix;
        const std::string found_by = python.found_by.empty()
                                         ? std::string()
                                         : fmt::format(" (found by {})", sys::printable(python.found_by.front()));
        if (!python.home_loop.empty() && reported_paths_.insert(python.home_loop_file).second) {
            const std::string venv = sys::directory_of(python.home_loop_file);
            detail(Code::python_venv_home_loop,
                   fmt::format("{}{}: {}", sys::printable(python.prefix), found_by, python.home_loop));
            add(Code::python_venv_home_loop,
                fmt::format("the pyvenv.cfg home of {} leads back to a virtual environment",
                            sys::clip_path(sys::printable(python.prefix), 64)),
                fmt::format("Set `home` in {} to the bin directory of the Python the environment was made from (e.g. "
                            "/usr/bin), or make the "
                            "environment again with that Python (`/usr/bin/python3 -m venv {}` rewrites pyvenv.cfg and "
                            "keeps the installed "
                            "packages).",
                            sys::printable(python.home_loop_file), sys::printable(venv)));
        }
        for (const UnreadablePath& unreadable : python.unreadable) {
            if (!reported_paths_.insert(unreadable.path).second) continue;
            const bool whole = unreadable.path == python.prefix || unreadable.path == python.prefix + "/pyvenv.cfg";
            detail(Code::python_environment_unreadable,
                   fmt::format("{}{}: {}: {}", sys::printable(python.prefix), found_by, unreadable.message,
                               whole ? "the environment cannot be read, so its frameworks are not checked"
                                     : "the frameworks installed there are not checked, and Python run by this user "
                                       "cannot import them"));
            add(Code::python_environment_unreadable,
                fmt::format("{} cannot be read: {}", sys::clip_path(sys::printable(unreadable.path), 56),
                            whole ? "its frameworks are not checked" : "what is installed there is not checked"),
                unreadable.remediation);
        }
        // Other reasons it could not be read: a --python naming nothing, an interpreter link that
        // resolves nowhere.
        if (!python.problem.empty() && python.unreadable.empty())
            add(Code::python_environment_unreadable,
                fmt::format("{}{}: {}", sys::printable(python.prefix), found_by, sys::printable(python.problem)),
                "Name an interpreter or an environment's root that exists (`--python /path/to/venv` or `--python "
                "/path/to/venv/bin/python3`), "
                "or repair the link the message names.");
        subject_.clear();
    }

    // The interpreter's own path: a PYTHONHOME that stops it, .pth lines that fail or
    // name what is gone, and what the model could not follow.
    void interpreter_path(const EnvironmentFacts& environment) {
        const ImportModel& path = environment.path;
        const std::string& prefix = environment.environment.prefix;
        subject_ = prefix;
        if (!path.fatal.empty()) {
            detail(Code::python_home_invalid, fmt::format("{}: {}", prefix, path.fatal));
            add(Code::python_home_invalid,
                fmt::format("PYTHONHOME stops every Python started in {}", sys::clip_path(prefix, 72)),
                "Unset it: `unset PYTHONHOME`.");
        }
        for (const PthProblem& problem : path.pth_problems) {
            detail(problem.missing_path ? Code::python_pth_path_missing : Code::python_pth_error,
                   problem.missing_path ? fmt::format("{}: line {} of {} names {}, which does not exist", prefix,
                                                      problem.line, problem.file, problem.why)
                                        : fmt::format("{}: line {} of {} (`{}`): {}", prefix, problem.line,
                                                      problem.file, problem.text, problem.why));
            if (problem.missing_path)
                add(Code::python_pth_path_missing,
                    fmt::format("line {} of {} names a path that does not exist", problem.line,
                                sys::clip_path(problem.file, 64)),
                    fmt::format("Reinstall the package from its new location (`{} install -e <source>`) or uninstall "
                                "it; or delete the line "
                                "from {}.",
                                pip(environment), problem.file));
            else
                add(Code::python_pth_error,
                    fmt::format("line {} of {} fails at every interpreter start", problem.line,
                                sys::clip_path(problem.file, 56)),
                    fmt::format("Remove {} or reinstall the package that wrote it.", problem.file));
        }
        subject_.clear();
    }

    // Where the import of `framework` comes from, against the install the other verdicts read.
    void imported_copy(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
        if (!framework.import) return;
        const ImportFacts& imported = *framework.import;
        const FrameworkBuild& build = framework.build;
        const std::string installed =
            fmt::format("{} {} in {}", build.framework, build.version, framework.site_packages);
        const std::string where = fmt::format("`import {}` in {}", imported.module, environment.environment.prefix);
        if (imported.kind == ImportKind::not_found || imported.kind == ImportKind::namespace_package) {
            detail(Code::framework_import_fails,
                   imported.kind == ImportKind::not_found
                       ? fmt::format("{} fails (\"No module named '{}'\"): {} has an install record but no {} package "
                                     "is on the interpreter's path",
                                     where, imported.module, installed, imported.module)
                       : fmt::format("{} gives an empty namespace package (a directory without __init__.py: {}): {} "
                                     "has an install record but "
                                     "its files are gone",
                                     where, imported.location, installed));
            add(Code::framework_import_fails,
                imported.kind == ImportKind::not_found
                    ? fmt::format("`import {}` fails: {} {} has an install record but no package on the path",
                                  imported.module, build.framework, build.version)
                    : fmt::format("`import {}` gives an empty namespace package: the files of {} {} are gone",
                                  imported.module, build.framework, build.version),
                fmt::format("Reinstall it: `{} install --force-reinstall --no-deps {}`.", pip(environment),
                            build.distribution));
            return;
        }
        if (imported.own_copy) {
            if (!framework.shadowed_installs.empty() && imported.entry && outside_environment(imported.entry->origin)) {
                detail(Code::framework_installed_twice,
                       fmt::format("{} loads {} from the {} ({}), which shadows the install{} in {}", where,
                                   build.version, to_string(imported.entry->origin), imported.file,
                                   framework.shadowed_installs.size() == 1 ? "" : "s",
                                   fmt::join(framework.shadowed_installs, ", ")));
                add(Code::framework_installed_twice,
                    fmt::format("`import {}` loads {} {} from the {}, which shadows {} other install{}",
                                imported.module, build.framework, build.version, to_string(imported.entry->origin),
                                framework.shadowed_installs.size(), framework.shadowed_installs.size() == 1 ? "" : "s"),
                    take_off_path(environment, imported, build.distribution));
            }
            return;
        }
        const std::string copy =
            imported.other_version.empty() ? std::string("version unknown") : imported.other_version;
        const std::string why = imported.entry ? put_first_by(*imported.entry)
                                               : fmt::format("an editable finder installed by {}", imported.finder_pth);
        const Code code = imported.other_install ? Code::framework_installed_twice : Code::framework_import_shadowed;
        detail(code,
               fmt::format("{} loads {} ({}{}), put first by {}, not the installed {}", where, imported.file, copy,
                           imported.other_install ? "" : ", no install record: a stale copy or a source tree", why,
                           installed));
        add(code,
            fmt::format("`import {}` loads {} copy ({}), not the installed {} {}", imported.module,
                        imported.other_install ? "another installed" : "a stray", copy, build.framework, build.version),
            take_off_path(environment, imported, build.distribution));
    }

    static bool outside_environment(PathOrigin origin) {
        return origin == PathOrigin::pythonpath || origin == PathOrigin::user_site ||
               origin == PathOrigin::current_directory || origin == PathOrigin::pth_file;
    }

    static std::string put_first_by(const SysPathEntry& entry) {
        switch (entry.origin) {
            case PathOrigin::current_directory:
                return fmt::format("the current directory {} (sys.path[0] for `python3 -c` and the prompt)",
                                   entry.path);
            case PathOrigin::pythonpath: return fmt::format("PYTHONPATH (entry {})", entry.path);
            case PathOrigin::pth_file: return fmt::format("{} (it adds {})", entry.source, entry.path);
            case PathOrigin::user_site: return fmt::format("the user site {}", entry.path);
            default: return fmt::format("the {} {}", to_string(entry.origin), entry.path);
        }
    }

    // The fix for a copy that comes first: off the path it came from.
    std::string take_off_path(const EnvironmentFacts& environment, const ImportFacts& imported,
                              const std::string& distribution) const {
        if (!imported.entry)
            return fmt::format("Remove the editable install that {} belongs to, or reinstall it.", imported.finder_pth);
        const SysPathEntry& entry = *imported.entry;
        switch (entry.origin) {
            case PathOrigin::current_directory:
                return fmt::format(
                    "Run Python from another directory than {} (it looks there first), or move {} out of it.",
                    entry.path, imported.location);
            case PathOrigin::pythonpath: {
                std::vector<std::string> kept;
                for (const std::string& variable : environment.path.variables)
                    if (sys::starts_with(variable, "PYTHONPATH="))
                        for (const std::string& part : sys::split(variable.substr(11), ':'))
                            if (sys::absolute_path(part, environment.path.current_directory) != entry.path)
                                kept.push_back(part);
                return kept.empty() ? fmt::format("Take {} off PYTHONPATH: `unset PYTHONPATH`.", entry.path)
                                    : fmt::format("Take {} off PYTHONPATH: `export PYTHONPATH={}`.", entry.path,
                                                  fmt::join(kept, ":"));
            }
            case PathOrigin::pth_file:
                return fmt::format(
                    "Delete {} (or uninstall the package that wrote the .pth file), so that the installed copy is "
                    "imported.",
                    entry.source);
            case PathOrigin::user_site:
                return imported.other_install
                           ? fmt::format(
                                 "Remove the user site's copy: `{} uninstall {}` takes the first one found, the user "
                                 "site's (or set "
                                 "PYTHONNOUSERSITE=1).",
                                 pip(environment), distribution)
                           : fmt::format("Delete {}, which no install record names (or set PYTHONNOUSERSITE=1).",
                                         imported.location);
            default:
                return fmt::format(
                    "Delete {}, which no install record names, or reinstall: `{} install --force-reinstall --no-deps "
                    "{}`.",
                    imported.location, pip(environment), distribution);
        }
    }

    void metadata(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
        std::vector<std::string> problems = framework.build.problems;
        problems.insert(problems.end(), framework.load_problems.begin(), framework.load_problems.end());
        if (framework.gpu_code && !framework.gpu_code->problem.empty())
            problems.push_back(fmt::format("{}: {}", framework.gpu_code->path, framework.gpu_code->problem));
        for (const std::string& problem : problems) {
            // "<file>: <what is wrong>": the headline keeps the file's last components.
            const std::size_t colon = problem.find(": ");
            const std::string headline =
                colon == std::string::npos || problem.front() != '/'
                    ? problem
                    : fmt::format("{}: {}", sys::clip_path(problem.substr(0, colon), 40), problem.substr(colon + 2));
            if (headline != problem)
                detail(Code::framework_metadata_unreadable,
                       fmt::format("{} {}: {}", framework.build.framework, framework.build.version, problem));
            add(Code::framework_metadata_unreadable,
                fmt::format("{} {}: {}", framework.build.framework, framework.build.version, headline),
                fmt::format("Reinstall it: `{} install --force-reinstall --no-deps {}`.", pip(environment),
                            framework.build.distribution));
        }
    }

    void cpu_only(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
        if (framework.build.accelerator != Accelerator::cpu || !input_.gpu_present) return;
        if (framework.build.framework != "PyTorch" && framework.build.framework != "JAX" &&
            framework.build.framework != "TensorFlow")
            return;
        const std::string command = install_command(environment, framework, input_, input_.driver_cuda);
        add(Code::framework_cpu_only,
            fmt::format("{} {} in {} is a CPU-only build: it will not use the GPU{} here", framework.build.framework,
                        framework.build.version, sys::clip_path(environment.environment.prefix, 40),
                        input_.devices.size() == 1 ? "" : "s"),
            command.empty() ? std::string("Install the framework's CUDA build for this driver.")
                            : fmt::format("Install its CUDA build: `{}`.", command));
    }

    // false when the driver cannot run it at all (the coverage verdicts would only repeat that).
    bool driver(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
        const FrameworkBuild& build = framework.build;
        if (!input_.driver_cuda || !build.cuda_major) return true;
        if (*build.cuda_major <= input_.driver_cuda->major) return true;
        const std::string command = install_command(environment, framework, input_, input_.driver_cuda);
        const std::string needs = std::string(family_minimum_driver(*build.cuda_major).value_or("a newer one"));
        const std::string own_words =
            build.framework == "PyTorch"
                ? fmt::format(": torch.cuda says \"The NVIDIA driver on your system is too old (found version {})\"",
                              input_.driver_cuda->encoded())
                : "";
        detail(Code::framework_driver_too_old,
               fmt::format("{} {} in {} is built for CUDA {}; {}{}", build.framework, build.version,
                           environment.environment.prefix, cuda_of(build), driver_text(input_), own_words));
        add(Code::framework_driver_too_old,
            fmt::format("{} {} in {} is built for CUDA {}, which the driver (CUDA <= {}) does not run", build.framework,
                        build.version, sys::clip_path(environment.environment.prefix, 32), cuda_of(build),
                        input_.driver_cuda->to_string()),
            fmt::format("Install NVIDIA driver >= {} (CUDA {}){}.", needs, *build.cuda_major,
                        command.empty() ? std::string()
                                        : fmt::format(", or the build for this driver: `{}`", command)));
        return false;
    }

    void coverage(const EnvironmentFacts& environment, const FrameworkFacts& framework,
                  const std::optional<TableFit>& fit) {
        for (const DeviceInfo& device : input_.devices) {
            const GpuCoverage verdict =
                framework_gpu_coverage(framework, device.cc_major, device.cc_minor, input_.driver_cuda);
            const std::string gpu =
                fmt::format("GPU {} ({}, sm_{}{})", device.ordinal, device.name, device.cc_major, device.cc_minor);
            const std::string head = fmt::format("{} {} in {}", framework.build.framework, framework.build.version,
                                                 environment.environment.prefix);
            // The headline's shorter forms; the whole account is the finding's detail in the evidence.
            const std::string short_head =
                fmt::format("{} {} in {}", framework.build.framework, framework.build.version,
                            sys::clip_path(environment.environment.prefix, 32));
            const std::string short_gpu =
                fmt::format("GPU {} (sm_{}{})", device.ordinal, device.cc_major, device.cc_minor);
            std::string torch_table;
            if (const FrameworkBuildRow* row = fit ? fit->installed : nullptr;
                row != nullptr && row->framework == Framework::pytorch) {
                const EmbeddedTargets targets = row->targets();
                if (std::none_of(targets.sass.begin(), targets.sass.end(), [&](const GpuArch& sass) {
                        return sass_runs_on(sass, device.cc_major, device.cc_minor);
                    }))
                    torch_table = fmt::format(
                        "; PyTorch's own table lists no code for CC {}.{} in its {} build, and torch warns \"{} with "
                        "CUDA capability sm_{}{} is not compatible with the current PyTorch installation\"",
                        device.cc_major, device.cc_minor, row->name(), device.name, device.cc_major, device.cc_minor);
            }
            if (verdict.coverage == Coverage::none || verdict.coverage == Coverage::ptx_too_new) {
                std::string command;
                if (framework.build.framework == "PyTorch")
                    command = install_command(environment, framework, input_, input_.driver_cuda);
                const std::string cause = verdict.coverage == Coverage::none
                                              ? fmt::format(
                                                    "has no GPU code for {}: {}{}; its kernels fail with \"no kernel "
                                                    "image is available for execution on the device\"",
                                                    gpu, verdict.how, torch_table)
                                              : fmt::format(
                                                    "runs on {} only through {}, and {} cannot compile PTX that new "
                                                    "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)",
                                                    gpu, verdict.how, driver_text(input_));
                std::string remediation =
                    verdict.coverage == Coverage::ptx_too_new
                        ? fmt::format("Install NVIDIA driver >= {} (CUDA {}), or a build with SASS for sm_{}{}.",
                                      minimum_driver_for(*verdict.ptx_needs)
                                          .value_or(family_minimum_driver(verdict.ptx_needs->major).value_or("newer")),
                                      verdict.ptx_needs->to_string(), device.cc_major, device.cc_minor)
                    : !command.empty() ? fmt::format("Install the build that carries code for sm_{}{}: `{}`.",
                                                     device.cc_major, device.cc_minor, command)
                                       : fmt::format(
                                             "Install a build of {} whose architecture list includes sm_{}{} (or build "
                                             "it from source with "
                                             "TORCH_CUDA_ARCH_LIST=\"{}.{}\" / its own architecture option).",
                                             framework.build.framework, device.cc_major, device.cc_minor,
                                             device.cc_major, device.cc_minor);
                detail(Code::framework_no_kernel_image, fmt::format("{} {}", head, cause));
                add(Code::framework_no_kernel_image,
                    verdict.coverage == Coverage::none
                        ? fmt::format("{} has no GPU code for {}", short_head, short_gpu)
                        : fmt::format("{} runs on {} only through PTX newer than the driver compiles", short_head,
                                      short_gpu),
                    std::move(remediation), device.ordinal);
            } else if (verdict.coverage == Coverage::ptx_jit) {
                detail(Code::framework_ptx_jit, fmt::format("{} runs on {} only through {}: every kernel is compiled "
                                                            "at first use (minutes for a "
                                                            "large framework)",
                                                            head, gpu, verdict.how));
                // The build of the same release that carries SASS for this GPU, where the table knows one
                // (the installed variant itself when the table says its published wheel has SASS here:
                // these files are not that wheel's).
                std::string build;
                if (fit && fit->release.recommended != nullptr && fit->release.recommended_native &&
                    !fit->command.empty())
                    build = fmt::format(" (the {} build: `{}`)", fit->release.recommended->variant, fit->command);
                add(Code::framework_ptx_jit,
                    fmt::format("{} runs on {} only through PTX compiled at first use", short_head, short_gpu),
                    fmt::format("Install a build with SASS for sm_{}{}{}; keep the JIT cache meanwhile "
                                "(CUDA_CACHE_DISABLE unset, CUDA_CACHE_MAXSIZE "
                                "of a few GiB).",
                                device.cc_major, device.cc_minor, build),
                    device.ordinal);
            }
        }
    }

    // The installed build's row in cudacheck's table and the build of its release that fits this
    // driver, every visible GPU, the environment's Python and this glibc best. nullopt when there is
    // nothing to judge: an extension, no GPU visible or no driver (no finding about GPU fit), a
    // Python version the files do not give, or a release the table does not know (then the
    // evidence says so, with the table's age).
    std::optional<TableFit> table_fit(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
        const FrameworkBuild& build = framework.build;
        const std::optional<Framework> which = framework_named(build.framework);
        if (!which || input_.devices.empty() || !input_.driver_cuda) return std::nullopt;
        const std::optional<MajorMinor> python = MajorMinor::parse(environment.environment.python_version);
        if (!python) return std::nullopt;
        const MachineFacts machine = machine_of(input_, input_.driver_cuda, *python);
        InstalledJudgement judgement =
            judge_installed(machine, InstalledBuild{*which, build.version, build.distribution, *python});
        if (judgement.installed == nullptr) {
            result_.evidence(fmt::format("{} build table", subject_),
                             fmt::format("{} {} is {} cudacheck's table of published builds, so its fit here is not "
                                         "judged ({})",
                                         build.framework, build.version,
                                         newer_than_table(*which, build.version) ? "newer than" : "not in",
                                         describe_table_age(input_.today)));
            return std::nullopt;
        }
        TableFit fit;
        fit.framework = *which;
        fit.installed = judgement.installed;
        fit.release = fit_within_release(*judgement.installed, framework_build_table(), machine, *python);
        fit.newest = std::move(judgement.best);
        if (fit.release.recommended != nullptr)
            fit.command = environment_command(environment, framework, *fit.release.recommended);
        return fit;
    }

    // Whether `version` is a newer release than any of `framework`'s in the table (PEP 440 order,
    // the local part ignored: 2.12.0+cu130 > 2.11.0).
    static bool newer_than_table(Framework framework, const std::string& version) {
        const Expected<packaging::Version> installed = packaging::parse_version(version);
        if (!installed) return false;
        for (const FrameworkBuildRow& row : framework_build_table()) {
            if (row.framework != framework) continue;
            const Expected<packaging::Version> known = packaging::parse_version(row.version);
            if (known && !(installed->public_version() > *known)) return false;
        }
        return true;
    }

    // A build that is not the best of its release here: the CUDA variant of the release to install,
    // why, and its command. Not where frameworks.builds already said from the binaries that the
    // build does not run (CC620, CC621) or runs only through PTX (CC622, whose fix then names
    // the build): one finding per fact.
    void better_build(const EnvironmentFacts& environment, const FrameworkFacts& framework, const TableFit& fit) {
        const FrameworkBuild& build = framework.build;
        const ReleaseFit& release = fit.release;
        if (!release.better_than(*fit.installed) || fit.command.empty()) return;
        if (raised_.contains(Code::framework_driver_too_old) || raised_.contains(Code::framework_no_kernel_image) ||
            raised_.contains(Code::framework_ptx_jit))
            return;
        const FrameworkBuildRow& best = *release.recommended;
        std::string newest;
        if (fit.newest.fits() && fit.newest.build->version != best.version)
            newest = fmt::format(" The newest build that fits here is {}: `{}`.", fit.newest.build->name(),
                                 environment_command(environment, framework, *fit.newest.build));
        detail(Code::framework_better_build,
               fmt::format("{} {} in {} is the {} build of {}; the {} build fits here better: {}", build.framework,
                           build.version, environment.environment.prefix, fit.installed->variant,
                           fit.installed->version, best.variant, release.why));
        // The table says it does not run, and nothing read from its files said so (its GPU code
        // was not read): a failure, as CC620/CC621 would have been.
        const std::optional<Status> status =
            release.installed_check.runs ? std::nullopt : std::optional<Status>(Status::fail);
        add(Code::framework_better_build,
            release.installed_check.runs
                ? fmt::format("{} {} in {}: the {} build of {} fits here better (SASS for every GPU, not PTX JIT)",
                              build.framework, build.version, sys::clip_path(environment.environment.prefix, 32),
                              best.variant, best.version)
                : fmt::format("{} {} in {} does not run here; the {} build of {} does", build.framework, build.version,
                              sys::clip_path(environment.environment.prefix, 32), best.variant, best.version),
            fmt::format("Install the {} build: `{}`.{}", best.variant, fit.command, newest), std::nullopt, status);
    }

    // A pin or minimum on a CUDA wheel, against the copy the process loads.
    void libraries(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
        const FrameworkBuild& build = framework.build;
        for (const std::string& soname : framework.unresolved) {
            std::string wheel;
            for (const packaging::Requirement& requirement : build.cuda_wheels)
                for (const LibraryFamily* family : families_of_wheel(requirement.normalized_name()))
                    if (!family->cuda_majors_of(soname).empty())
                        wheel = requirement.name + requirement.specifier.text();
            detail(Code::framework_library_missing,
                   fmt::format("{} {} in {} needs {}, which resolves nowhere ({}; LD_LIBRARY_PATH, ld.so.cache and the "
                               "default directories): "
                               "importing it fails with \"{}: cannot open shared object file\"",
                               build.framework, build.version, environment.environment.prefix, soname,
                               framework.loader_model, soname));
            add(Code::framework_library_missing,
                fmt::format("{} {} in {} needs {}, which resolves nowhere", build.framework, build.version,
                            sys::clip_path(environment.environment.prefix, 32), soname),
                wheel.empty()
                    ? fmt::format("Reinstall {} with its CUDA dependencies: `{} install --force-reinstall {}`.",
                                  build.distribution, pip(environment), build.distribution)
                    : fmt::format("Install the wheel that carries it: `{} install \"{}\"`.", pip(environment), wheel));
        }
        for (const packaging::Requirement& requirement : build.cuda_wheels) {
            if (requirement.specifier.clauses.empty()) continue;
            const std::string specifier = requirement.specifier.text();
            for (const LibraryFamily* wheel_family : families_of_wheel(requirement.normalized_name())) {
                const LibraryFamily& family = *wheel_family;
                if (family.cudnn_sublibrary) continue;
                const FrameworkLibrary* loaded = framework.library(family.name);
                if (loaded == nullptr) continue;
                // As `pip check` compares an installed version (pre-releases allowed); a version
                // that is not PEP 440 claims nothing.
                const Expected<packaging::Version> version = packaging::parse_version(loaded->version);
                if (!version || packaging::specifier_allows(requirement.specifier, *version, true)) continue;
                const std::string own_words =
                    build.framework == "JAX"
                        ? fmt::format(": JAX says \"Outdated {} installation found\" and runs on the CPU", family.name)
                    : build.framework == "PyTorch" && family.name == "cuDNN"
                        ? ": torch refuses it (\"cuDNN version incompatibility\")"
                        : "";
                const bool shadowed = loaded->origin != LibraryOrigin::pip_wheel;
                detail(Code::framework_library_version,
                       fmt::format("{} {} in {} requires {}{} but its process loads {} {} from {} ({}){}",
                                   build.framework, build.version, environment.environment.prefix, requirement.name,
                                   specifier, family.name, loaded->version, loaded->object.resolution.path,
                                   loaded->object.resolution.rule, own_words));
                add(Code::framework_library_version,
                    fmt::format("{} {} requires {}{} but its process loads {} {}", build.framework, build.version,
                                requirement.name, specifier, family.name, loaded->version),
                    shadowed && sys::starts_with(loaded->object.resolution.rule, "LD_LIBRARY_PATH")
                        ? fmt::format("Take {} off LD_LIBRARY_PATH for this framework, and install the wheel it asks "
                                      "for: `{} install \"{}{}\"`.",
                                      sys::directory_of(loaded->object.resolution.path), pip(environment),
                                      requirement.name, specifier)
                        : fmt::format("Install the version it asks for: `{} install \"{}{}\"`.", pip(environment),
                                      requirement.name, specifier));
            }
        }
    }

    // cuDNN 9's shim opens its sub-libraries by soname: they must come from the shim's own install.
    void mixed_copies(const FrameworkFacts& framework) {
        const FrameworkLibrary* shim = framework.library("cuDNN");
        if (shim == nullptr) return;
        const std::string shim_directory = sys::directory_of(shim->object.resolution.real_path);
        std::vector<std::string> others;
        std::string other_directory;
        std::set<std::string> other_directories;  // for the headline
        for (const FrameworkLibrary& library : framework.libraries) {
            if (library.family == "cuDNN" || !sys::starts_with(library.family, "cuDNN ")) continue;
            const std::string directory = sys::directory_of(library.object.resolution.real_path);
            if (directory == shim_directory) continue;
            others.push_back(fmt::format("{} {} from {} ({})", library.object.soname,
                                         library.version.empty() ? "version unknown" : library.version,
                                         library.object.resolution.path, library.object.resolution.rule));
            other_directory = sys::directory_of(library.object.resolution.path);
            other_directories.insert(other_directory);
        }
        if (others.empty()) return;
        detail(Code::framework_loads_mixed_copies,
               fmt::format("{} {}'s process would take cuDNN {} from {} but {}", framework.build.framework,
                           framework.build.version, shim->version.empty() ? "(version unknown)" : shim->version,
                           shim->object.resolution.path, fmt::join(others, "; ")));
        add(Code::framework_loads_mixed_copies,
            fmt::format("{} {} would take {} cuDNN sub-librar{} from {}, not from its cuDNN's directory",
                        framework.build.framework, framework.build.version, others.size(),
                        others.size() == 1 ? "y" : "ies",
                        other_directories.size() == 1 ? sys::clip_path(other_directory, 40)
                                                      : fmt::format("{} other directories", other_directories.size())),
            fmt::format("Take {} off LD_LIBRARY_PATH when running {} (e.g. `env LD_LIBRARY_PATH= python ...`), so that "
                        "its own cuDNN in {} is "
                        "found for every part.",
                        other_directory, framework.build.framework, shim_directory));
    }

    void cuda_majors(const EnvironmentFacts& environment) {
        std::map<int, std::vector<std::string>> by_major;
        for (const FrameworkFacts& framework : environment.frameworks)
            if (is_framework(framework.build) && framework.build.accelerator == Accelerator::cuda &&
                framework.build.cuda_major)
                by_major[*framework.build.cuda_major].push_back(
                    fmt::format("{} {} (CUDA {})", framework.build.framework, framework.build.version,
                                cuda_of(framework.build)));
        if (by_major.size() < 2) return;
        std::vector<std::string> groups;
        for (const auto& [major, names] : by_major) groups.push_back(fmt::format("{}", fmt::join(names, ", ")));
        const int newest = by_major.rbegin()->first;
        const int target = input_.driver_cuda ? std::min(newest, input_.driver_cuda->major) : newest;
        std::vector<std::string> commands;
        for (const FrameworkFacts& framework : environment.frameworks)
            if (is_framework(framework.build) && framework.build.cuda_major && *framework.build.cuda_major != target)
                if (std::string command = install_command(environment, framework, input_, CudaVersion{target, 9});
                    !command.empty())
                    commands.push_back(fmt::format("`{}`", command));
        detail(Code::framework_cuda_majors_differ,
               fmt::format("{} holds frameworks built for different CUDA majors: {}; imported into one process, a "
                           "library whose soname both "
                           "majors share (libcudnn.so.9, libnccl.so.2) is loaded once, from whichever is imported "
                           "first",
                           environment.environment.prefix, fmt::join(groups, " and ")));
        std::vector<std::string> majors;
        for (const auto& [major, names] : by_major) majors.push_back(std::to_string(major));
        add(Code::framework_cuda_majors_differ,
            fmt::format("{} holds frameworks built for different CUDA majors ({})",
                        sys::clip_path(environment.environment.prefix, 56), sys::first_items(majors, 40)),
            commands.empty()
                ? fmt::format("Install the CUDA {} builds of all of them, or keep them in separate environments.",
                              target)
                : fmt::format("Install the CUDA {} builds: {}; or keep them in separate environments.", target,
                              fmt::join(commands, ", ")));
    }

    // torchvision/torchaudio/xformers/vLLM/flash-attn/bitsandbytes against the torch installed beside them.
    void extensions(const EnvironmentFacts& environment) {
        const FrameworkFacts* torch = find_framework(environment, "PyTorch");
        if (torch == nullptr) return;
        const std::string torch_version = torch->build.version;
        const std::string torch_release = torch_version.substr(0, torch_version.find('+'));
        for (const FrameworkFacts& extension : environment.frameworks) {
            const FrameworkBuild& build = extension.build;
            if (build.framework != "torchvision" && build.framework != "torchaudio" && build.framework != "xformers" &&
                build.framework != "vLLM" && build.framework != "flash-attn" && build.framework != "bitsandbytes")
                continue;
            subject_ = framework_subject(environment, extension);
            std::vector<std::string> differences;
            if (build.requires_torch && !build.requires_torch->empty() &&
                !satisfies(torch_release, *build.requires_torch))
                differences.push_back(fmt::format("requires torch{}", *build.requires_torch));
            if (build.built_with_torch && !same_release_prefix(*build.built_with_torch, torch_release))
                differences.push_back(fmt::format("was compiled against torch {}", *build.built_with_torch));
            if (build.accelerator == Accelerator::cuda && torch->build.accelerator == Accelerator::cuda &&
                build.cuda_major && torch->build.cuda_major && build.cuda_major != torch->build.cuda_major)
                differences.push_back(
                    fmt::format("is built for CUDA {} (torch for {})", cuda_of(build), cuda_of(torch->build)));
            else if (build.accelerator == Accelerator::cuda && torch->build.accelerator == Accelerator::cpu)
                differences.push_back(fmt::format("is a CUDA {} build beside a CPU-only torch", cuda_of(build)));
            // bitsandbytes loads libbitsandbytes_cuda<torch's CUDA>.so.
            if (!build.cuda_libraries.empty() && torch->build.cuda &&
                std::find(build.cuda_libraries.begin(), build.cuda_libraries.end(), *torch->build.cuda) ==
                    build.cuda_libraries.end())
                differences.push_back(
                    fmt::format("carries libraries for CUDA {} but none for torch's {} (libbitsandbytes_cuda{}.so)",
                                fmt::join(build.cuda_libraries, ", "), *torch->build.cuda,
                                cuda_tag(*torch->build.cuda)));
            if (differences.empty()) continue;
            const std::string own_words =
                build.framework == "xformers" ? "; it says \"xFormers can't load C++/CUDA extensions\"" : "";
            std::string remediation =
                build.framework == "bitsandbytes"
                    ? fmt::format(
                          "Install a bitsandbytes with a library for CUDA {}: `{} install -U bitsandbytes`; or set "
                          "BNB_CUDA_VERSION to one it "
                          "carries that the driver runs.",
                          *torch->build.cuda, pip(environment))
                    : fmt::format(
                          "Install the {} build for torch {}: `{} install --force-reinstall {} torch=={}{}` (one "
                          "command keeps them matched), "
                          "or the torch it was built for.",
                          build.framework, torch_release, pip(environment), build.distribution, torch_release,
                          torch->build.cuda ? fmt::format(" --index-url https://download.pytorch.org/whl/cu{}",
                                                          cuda_tag(*torch->build.cuda))
                                            : std::string());
            detail(Code::framework_extension_mismatch,
                   fmt::format("{} {} in {} {}, but torch {} is installed{}", build.framework, build.version,
                               environment.environment.prefix, fmt::join(differences, " and "), torch_version,
                               own_words));
            add(Code::framework_extension_mismatch,
                fmt::format("{} {} was built for another torch or CUDA than the torch {} installed", build.framework,
                            build.version, torch_version),
                std::move(remediation));
        }
        subject_.clear();
    }
};

std::string describe(const FrameworkFacts& framework) {
    std::vector<std::string> parts;
    const FrameworkBuild& build = framework.build;
    if (build.accelerator == Accelerator::cuda) parts.push_back(fmt::format("CUDA {}", cuda_of(build)));
    else if (build.accelerator == Accelerator::rocm) parts.push_back(fmt::format("ROCm {}", build.rocm.value_or("")));
    else parts.emplace_back(build.accelerator == Accelerator::cpu ? "CPU only" : "accelerator unknown");
    if (const FrameworkLibrary* cudnn = framework.library("cuDNN"); cudnn != nullptr && !cudnn->version.empty())
        parts.push_back(fmt::format("cuDNN {}", cudnn->version));
    return fmt::format("{} {} ({})", build.framework, build.version, fmt::join(parts, ", "));
}

}  // namespace

void judge_frameworks(const FrameworkJudgeInput& input, ResultBuilder& result) {
    FrameworkJudge judge(input, result);
    std::size_t count = 0;
    std::vector<std::string> environments;
    std::vector<std::string> names;  // "PyTorch 2.11.0+cu130", for the headline
    for (const EnvironmentFacts& environment : input.python.environments) {
        judge.judge(environment);
        if (environment.frameworks.empty()) continue;
        count += environment.frameworks.size();
        std::vector<std::string> frameworks;
        for (const FrameworkFacts& framework : environment.frameworks) {
            frameworks.push_back(describe(framework));
            for (const FrameworkLibrary& library : framework.libraries)
                if (!library.family.starts_with("cuDNN ") && !library.object.already_loaded)
                    result.evidence(framework_subject(environment, framework) + " " + library.family,
                                    fmt::format("{} {} ({})",
                                                library.version.empty() ? "version unknown" : library.version,
                                                library.object.resolution.path, library.object.resolution.rule));
        }
        environments.push_back(fmt::format("{}{}: {}", environment.environment.prefix,
                                           environment.bare_python3 ? " (python3)" : "", fmt::join(frameworks, ", ")));
        result.evidence(environment.environment.prefix + " frameworks", environments.back());
        for (const FrameworkFacts& framework : environment.frameworks)
            names.push_back(framework.build.framework + " " + framework.build.version);
    }
    for (const PipMismatch& mismatch : input.python.pip_mismatches) {
        judge.detail(Code::pip_other_environment,
                     fmt::format("{} on PATH install{} into {} (running {}), but the python3 first on PATH is {} ({}), "
                                 "which does not look there",
                                 mismatch.pip, mismatch.pip.find(" and ") == std::string::npos ? "s" : "",
                                 mismatch.pip_prefix, mismatch.interpreter, mismatch.python3, mismatch.python3_prefix));
        judge.add(Code::pip_other_environment,
                  fmt::format("{} on PATH install{} into {}, where the first python3 on PATH does not look",
                              sys::clip_path(mismatch.pip, 40),
                              mismatch.pip.find(" and ") == std::string::npos ? "s" : "",
                              sys::clip_path(mismatch.pip_prefix, 32)),
                  fmt::format("Install with the interpreter you run: `python3 -m pip install ...` (or activate the "
                              "environment of {}).",
                              mismatch.interpreter));
    }
    for (const EnvironmentFacts& environment : input.python.environments) {
        const ImportModel& path = environment.path;
        if (!path.variables.empty())
            result.evidence(environment.environment.prefix + " import variables",
                            fmt::format("{}", fmt::join(path.variables, " ")));
        for (const std::string& note : path.unmodelled)
            result.evidence(environment.environment.prefix + " not modelled", note);
        if (!path.modelled && !path.why_not.empty())
            result.evidence(environment.environment.prefix + " import path", "not modelled: " + path.why_not);
    }
    for (const std::string& note : input.python.notes) result.evidence("python_note", note);
    if (!input.python.cache_problem.empty()) result.evidence("gpu_code_cache", input.python.cache_problem);
    // The cache was not the user's own, or not a file (another user could have written it): the
    // binaries were read instead.
    if (const std::optional<GpuCodeCacheRefusal>& refused = input.python.cache_refused)
        judge.add(refused->not_a_file ? Code::gpu_code_cache_not_a_file : Code::gpu_code_cache_untrusted,
                  refused->message, refused->remediation);
    if (count == 0 && judge.findings > 0) {
        result.summary(fmt::format("no Python framework installed; {} problem{} with the Python environments",
                                   judge.findings, judge.findings == 1 ? "" : "s"));
        return;
    }
    if (count == 0) {
        result.skip(fmt::format("no Python framework installed ({} Python environment{} looked at)",
                                input.python.environments.size(), input.python.environments.size() == 1 ? "" : "s"));
        return;
    }
    // The headline names what fits; each environment's frameworks, versions and CUDA are evidence.
    const std::string head = fmt::format("{} framework{} in {} environment{}: ", count, count == 1 ? "" : "s",
                                         environments.size(), environments.size() == 1 ? "" : "s");
    result.summary(head + sys::first_items(names, sys::max_headline - head.size()));
}

namespace {

FrameworkJudgeInput judge_input(CheckContext& context, const PythonFacts& python) {
    FrameworkJudgeInput input{.python = python, .driver_cuda = std::nullopt};
    const DriverFacts& driver = context.probes.driver();
    if (driver.driver_version && *driver.driver_version > 0)
        input.driver_cuda = CudaVersion::from_encoded(*driver.driver_version);
    input.driver_version = driver.library_file_version.empty()
                               ? driver_package_version(&context.probes.kernel_module(), &driver)
                               : driver.library_file_version;
    if (!context.probes.initialises_cuda()) (void)context.probes.nvml();
    input.devices = report_devices(context.probes, context.environment);
    const KernelModuleFacts& module = context.probes.kernel_module();
    input.gpu_present = !input.devices.empty() || !module.gpus.empty() || !module.pci_devices.empty();
    const std::vector<std::string> glibc = sys::split(::gnu_get_libc_version(), '.');
    if (glibc.size() >= 2) input.glibc = MajorMinor::parse(glibc[0] + "." + glibc[1]);
    struct utsname names{};
    if (::uname(&names) == 0) input.machine = parse_machine(names.machine).value_or(Machine::x86_64);
    input.today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    return input;
}

}  // namespace

std::unique_ptr<Check> make_frameworks_builds_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "frameworks.builds",
                  .title = "Python frameworks",
                  .description = "What each Python framework (PyTorch, JAX, CuPy, TensorFlow, torch extensions) was "
                                 "built for, which CUDA libraries its "
                                 "process loads, and whether it runs on this driver and these GPUs",
                  .prepare = [](Probes& probes) { probes.prefetch([&probes] { (void)probes.python(); }); },
                  .raises = {Code::framework_driver_too_old,
                             Code::framework_no_kernel_image,
                             Code::framework_ptx_jit,
                             Code::framework_cpu_only,
                             Code::framework_library_missing,
                             Code::framework_library_version,
                             Code::framework_loads_mixed_copies,
                             Code::framework_cuda_majors_differ,
                             Code::framework_extension_mismatch,
                             Code::framework_metadata_unreadable,
                             Code::framework_import_shadowed,
                             Code::framework_installed_twice,
                             Code::pip_other_environment,
                             Code::python_pth_error,
                             Code::python_pth_path_missing,
                             Code::framework_import_fails,
                             Code::python_home_invalid,
                             Code::gpu_code_cache_untrusted,
                             Code::gpu_code_cache_not_a_file,
                             Code::python_venv_home_loop,
                             Code::python_environment_unreadable,
                             Code::framework_better_build},
                  .answers =
                      "for each Python environment (those on PATH, VIRTUAL_ENV, CONDA_PREFIX, conda's and pipx's, "
                      "`--python`): which copy "
                      "`import` loads (the interpreter's own sys.path rules: PYTHONPATH, the user site, .pth files, "
                      "editable installs), what "
                      "PyTorch, JAX, CuPy, TensorFlow, torchvision/torchaudio and xformers were built for (read from "
                      "their files, never imported), "
                      "which copy of each CUDA library their process loads (the loader's rules on their binaries), "
                      "whether the driver runs "
                      "their CUDA and their GPU code runs on each GPU, whether extensions match their torch, and "
                      "whether another CUDA variant of the installed release (cudacheck's table of published builds) "
                      "fits this driver and these GPUs better"},
        [](CheckContext& context, ResultBuilder& result) {
            const PythonFacts& python = context.probes.python();
            judge_frameworks(judge_input(context, python), result);
        });
}

const CheckRegistration frameworks_builds_registration{750, make_frameworks_builds_check};

}  // namespace cudacheck
