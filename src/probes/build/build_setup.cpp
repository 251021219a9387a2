#include "probes/build/build_setup.hpp"

#include "util/system.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace cudacheck {

namespace {

using namespace std::chrono_literals;

// A program named as a path is used as it is; a name is looked up on PATH.
std::string locate(const std::string& program, const Environment& environment) {
    if (program.find('/') != std::string::npos) return sys::is_executable_file(program) ? program : std::string();
    return sys::find_in_path(program, environment.get("PATH").value_or(""));
}

std::string first_line(std::string_view text) { return std::string(sys::trim(text.substr(0, text.find('\n')))); }

std::string quoted_output(const sys::CommandResult& run) {
    const std::string line = first_line(run.output);
    return line.empty() ? std::string("nothing") : fmt::format("\"{}\"", sys::printable(line.substr(0, 200)));
}

// Fills a pick's path, its --version line and its version as its predefined macros give it, and
// tells a program that is no compiler from one: nvcc asks its host compiler for its
// properties by preprocessing with it, and stops when that gives none ("Host compiler targets
// unsupported OS." for /bin/true, "Failed to preprocess host compiler properties." for a script
// that fails: nvcc 13.0).
void ask_compiler(HostCompilerPick& pick, const Environment& environment) {
    std::string program = pick.program;
    // -ccbin may name the directory the compiler is in (nvcc then runs gcc from it).
    if (sys::is_directory(program)) program += "/gcc";
    const std::string found = locate(program, environment);
    if (found.empty()) {
        pick.failure = program.find('/') != std::string::npos
                           ? fmt::format("{} does not exist or is not executable", program)
                           : fmt::format("{} is not on PATH", program);
        return;
    }
    pick.path = found;
    const sys::CommandResult version = sys::run_command({found, "--version"}, 10s);
    if (!version.started) {
        pick.failure = pick.unusable = fmt::format("it cannot be executed: {}", version.error);
        return;
    }
    if (version.timed_out) {
        // A build would wait on it the same way: no second question.
        pick.failure = pick.unusable =
            fmt::format("`{} --version` did not finish within 10 s and was killed: a build would wait on it too",
                        found);
        return;
    }
    pick.version_line = first_line(version.output);
    pick.identity = identify_compiler(version.output);
    const sys::CommandResult dump = sys::run_command({found, "-dM", "-E", "-x", "c++", "/dev/null"}, 10s);
    const std::string printed =
        fmt::format("`--version` printed {}{}", quoted_output(version),
                    version.exit_status == 0 ? std::string()
                                             : fmt::format(" and exited with status {}", version.exit_status));
    if (!dump.started) {
        pick.failure = pick.unusable = fmt::format("it cannot be executed: {}", dump.error);
    } else if (dump.timed_out) {
        pick.failure = pick.unusable = fmt::format(
            "`{} -dM -E -x c++ /dev/null` did not finish within 10 s and was killed: a build would wait on it too",
            found);
    } else if (dump.exit_status != 0) {
        pick.failure = fmt::format("`{} -dM -E -x c++ /dev/null` failed: {}", found, first_line(dump.output));
        // A compiler that cannot preprocess C++ (a gcc without cc1plus) stops nvcc as surely.
        pick.unusable =
            pick.identity.empty()
                ? fmt::format("it is no C++ compiler: {}, and `-dM -E -x c++ /dev/null` exited with status {} ({})",
                              printed, dump.exit_status, quoted_output(dump))
                : fmt::format("this {} cannot preprocess C++: `-dM -E -x c++ /dev/null` exited with status {} ({})",
                              pick.identity, dump.exit_status, quoted_output(dump));
    } else {
        const MacroValues macros = parse_predefined_macros(dump.output);
        if (!(pick.version = version_from_macros(macros))) {
            pick.failure = fmt::format("{} predefines neither __GNUC__ nor __clang_major__: not a gcc or clang", found);
            // Every C++ compiler predefines __cplusplus when asked for C++ (the C++ standard, [cpp.predefined]):
            // what `--version` says (coreutils' /bin/true names the Free Software Foundation too) does not outweigh
            // that.
            if (!macros.contains("__cplusplus"))
                pick.unusable = fmt::format(
                    "it is no C++ compiler: {}, and `-dM -E -x c++ /dev/null` printed {} with no compiler macro (not "
                    "even __cplusplus)",
                    printed, quoted_output(dump));
        }
    }
}

std::string toolkit_version_of(const std::string& root) {
    for (const char* file : {"/version.json", "/version.txt"})
        if (const auto text = sys::read_file(root + file)) {
            std::string version = parse_toolkit_version_file(*text);
            if (!version.empty()) return version;
        }
    return {};
}

ToolkitCompilerLimits limits_of(const std::string& root, std::string version, const BuildSetup& setup) {
    ToolkitCompilerLimits limits{.root = root, .version = std::move(version)};
    limits.missing_files = development_files(root).missing;
    const std::string header = root + "/include/crt/host_config.h";
    const auto text = sys::read_file(header);
    if (!text) {
        if (sys::exists(header)) limits.unreadable = fmt::format("{} cannot be read", header);
        return limits;
    }
    limits.host_config = header;
    const bool allow = setup.nvcc_flags.allow_unsupported_compiler;
    for (const HostCompiler& compiler : setup.compilers)
        limits.compilers.push_back(
            compiler.version ? judge_host_compiler(*text, *compiler.version, setup.machine, allow)
                             : CompilerAcceptance{.accepted = false, .error = {}, .unreadable = "version unknown"});
    const auto judge_pick = [&](const HostCompilerPick& pick) {
        return pick.version ? judge_host_compiler(*text, *pick.version, setup.machine, allow)
                            : CompilerAcceptance{.accepted = false, .error = {}, .unreadable = "version unknown"};
    };
    limits.nvcc_pick = judge_pick(setup.nvcc_host_compiler);
    if (setup.torch_host_compiler) limits.torch_pick = judge_pick(*setup.torch_host_compiler);
    if (setup.cmake.host_compiler) limits.cmake_pick = judge_pick(*setup.cmake.host_compiler);
    limits.gcc_newest = newest_accepted_major(*text, HostCompilerKind::gcc, setup.machine);
    limits.clang_newest = newest_accepted_major(*text, HostCompilerKind::clang, setup.machine);
    for (const CompilerAcceptance& acceptance : limits.compilers)
        if (!acceptance.unreadable.empty() && acceptance.unreadable != "version unknown")
            limits.unreadable = acceptance.unreadable;
    return limits;
}

NvccAnswers ask_nvcc(const std::string& nvcc, const ToolkitFacts& toolkits, const Environment& environment) {
    NvccAnswers answers;
    const std::optional<std::vector<std::string>> child_environment = environment_for_nvcc(environment);
    const std::vector<std::string>* child = child_environment ? &*child_environment : nullptr;
    // toolkit.nvcc's probe asked this nvcc already when it is the one on PATH (the usual case).
    if (toolkits.nvcc_version && !toolkits.used_nvcc.empty() &&
        sys::real_path(toolkits.used_nvcc) == sys::real_path(nvcc)) {
        answers.version = toolkits.nvcc_version;
    } else {
        const sys::CommandResult version = sys::run_command({nvcc, "--version"}, 20s, child);
        if (!version.started) answers.failure = version.error;
        else if (version.timed_out)
            answers.failure = "did not finish within 20 s and was killed: a build would wait on it too";
        else if (!(answers.version = parse_nvcc_version(version.output)))
            answers.failure = fmt::format("printed no version: {}", first_line(version.output));
        answers.timed_out = version.timed_out;
        if (answers.timed_out) return answers;  // it would hang a second time
    }
    const sys::CommandResult list = sys::run_command({nvcc, "--list-gpu-arch"}, 20s, child);
    if (list.started && !list.timed_out && list.exit_status == 0)
        for (const std::string& word : sys::split(list.output, '\n'))
            if (std::string_view item = sys::trim(word); item.starts_with("compute_"))
                answers.architectures.emplace_back(item);
    return answers;
}

// CMake's variables (probes/cmake_cuda), before the programs are asked.
void read_cmake_variables(CMakeCudaSetup& cmake, const Environment& environment) {
    cmake.cmake = sys::find_in_path("cmake", environment.get("PATH").value_or(""));
    cmake.compiler = cmake_cuda_compiler(environment);
    if (cmake.compiler.rule == "CUDACXX") {
        Environment without = environment;
        without.unset("CUDACXX");
        cmake.compiler_without_cudacxx = cmake_cuda_compiler(without);
    }
    if (!cmake.compiler.path.empty()) cmake.toolkit_root = toolkit_root_of_nvcc(cmake.compiler.path);
    if (const auto host = environment.get("CUDAHOSTCXX"); host && !host->empty())
        cmake.host_compiler = HostCompilerPick{program_word(*host), "CUDAHOSTCXX"};
    if (const auto architectures = environment.get("CUDAARCHS"); architectures && !architectures->empty())
        cmake.architectures = *architectures;
}

// CMake's toolkit among those judged (adding it when no other rule found it), and its nvcc's answers.
void resolve_cmake_toolkit(BuildSetup& setup, const ToolkitFacts& toolkits, const Environment& environment) {
    CMakeCudaSetup& cmake = setup.cmake;
    if (cmake.toolkit_root.empty()) return;
    cmake.same_toolkit = setup.choice_exists && sys::real_path(setup.choice.root) == cmake.toolkit_root;
    if (cmake.same_toolkit) {
        cmake.toolkit = 0;
        cmake.files = setup.files;
        cmake.nvcc =
            NvccAnswers{setup.nvcc_version, setup.nvcc_failure, setup.nvcc_architectures, setup.nvcc_timed_out};
        return;
    }
    cmake.files = development_files(cmake.toolkit_root);
    cmake.nvcc = ask_nvcc(cmake.compiler.path, toolkits, environment);
    for (std::size_t i = 0; i < setup.toolkits.size(); ++i)
        if (sys::real_path(setup.toolkits[i].root) == cmake.toolkit_root) cmake.toolkit = i;
    if (!cmake.toolkit) {
        setup.toolkits.push_back(
            limits_of(cmake.toolkit_root,
                      cmake.nvcc.version ? cmake.nvcc.version->full : toolkit_version_of(cmake.toolkit_root), setup));
        cmake.toolkit = setup.toolkits.size() - 1;
    }
}

}  // namespace

MacroValues parse_predefined_macros(std::string_view dump) {
    MacroValues macros;
    for (std::string_view rest = dump; !rest.empty();) {
        const std::size_t end = rest.find('\n');
        std::string_view line = sys::trim(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        constexpr std::string_view define = "#define ";
        if (!line.starts_with(define)) continue;
        line.remove_prefix(define.size());
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos) {
            macros[std::string(line)] = 1;  // "#define __linux__" has no value: defined() is what matters
            continue;
        }
        const std::string_view name = line.substr(0, space);
        if (name.find('(') != std::string_view::npos) continue;  // function-like
        std::string_view value = sys::trim(line.substr(space + 1));
        while (!value.empty() &&
               (value.back() == 'L' || value.back() == 'U' || value.back() == 'l' || value.back() == 'u'))
            value.remove_suffix(1);  // 201703L, 4294967295U
        long long number = 0;
        const auto [stop, error] = std::from_chars(value.data(), value.data() + value.size(), number);
        if (error == std::errc() && stop == value.data() + value.size()) macros[std::string(name)] = number;
    }
    return macros;
}

std::optional<HostCompilerVersion> version_from_macros(const MacroValues& macros) {
    const auto value = [&](const char* name) {
        const auto it = macros.find(name);
        return it == macros.end() ? 0 : static_cast<int>(it->second);
    };
    if (macros.contains("__clang_major__"))
        return HostCompilerVersion{HostCompilerKind::clang, value("__clang_major__"), value("__clang_minor__"),
                                   value("__clang_patchlevel__")};
    if (macros.contains("__GNUC__"))
        return HostCompilerVersion{HostCompilerKind::gcc, value("__GNUC__"), value("__GNUC_MINOR__"),
                                   value("__GNUC_PATCHLEVEL__")};
    return std::nullopt;
}

std::optional<NvccModeFlag> nvcc_mode_flag(std::string_view word) {
    struct Mode {
        std::string_view long_name, short_name, what;
        bool every_build;
    };
    // `nvcc --help` (13.0): each option's long and short name.
    static constexpr Mode modes[] = {
        {"--version", "-V", "prints nvcc's version and builds nothing", true},
        {"--help", "-h", "prints nvcc's help and builds nothing", true},
        {"--dryrun", "-dryrun", "lists the commands of a build without running them", true},
        {"--preprocess", "-E", "only preprocesses, and writes the preprocessed source where the program would go",
         true},
        {"--generate-dependencies", "-M", "only writes the build's dependencies", true},
        {"--generate-nonsystem-dependencies", "-MM", "only writes the build's dependencies", true},
        {"--list-gpu-arch", "-arch-ls", "lists GPU architectures and builds nothing", true},
        {"--list-gpu-code", "-code-ls", "lists GPU architectures and builds nothing", true},
        {"--cuda", "-cuda", "stops after translating CUDA to C++", true},
        {"--ptx", "-ptx", "stops at PTX", true},
        {"--cubin", "-cubin", "stops at a cubin", true},
        {"--fatbin", "-fatbin", "stops at a fatbinary", true},
        {"--optix-ir", "-optix-ir", "stops at OptiX IR", true},
        {"--ltoir", "-ltoir", "stops at LTO IR", true},
        {"--lib", "-lib", "builds a static library in place of a program", true},
        {"--device-link", "-dlink", "only device-links", true},
        {"--compile", "-c", "compiles to an object file and does not link", false},
        {"--device-c", "-dc", "compiles to a relocatable object file and does not link", false},
        {"--device-w", "-dw", "compiles to an object file and does not link", false},
    };
    for (const Mode& mode : modes)
        if (word == mode.long_name || word == mode.short_name)
            return NvccModeFlag{std::string(word), {}, std::string(mode.what), mode.every_build};
    return std::nullopt;
}

NvccFlagSettings nvcc_flag_settings(const Environment& environment) {
    NvccFlagSettings settings;
    for (const char* variable : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"}) {
        const std::string value = environment.get(variable).value_or("");
        if (!sys::trim(value).empty()) settings.variables.emplace_back(variable, value);
        std::vector<std::string> words;
        for (std::string& word : sys::split(value, ' '))
            if (!word.empty()) words.push_back(std::move(word));
        for (std::size_t i = 0; i < words.size(); ++i) {
            const std::string& word = words[i];
            if (std::optional<NvccModeFlag> mode = nvcc_mode_flag(word)) {
                mode->variable = variable;
                settings.mode_flags.push_back(std::move(*mode));
            }
            if (word == "-allow-unsupported-compiler" || word == "--allow-unsupported-compiler")
                settings.allow_unsupported_compiler = true;
            std::optional<std::string> ccbin;
            if ((word == "-ccbin" || word == "--compiler-bindir") && i + 1 < words.size()) ccbin = words[++i];
            else if (word.starts_with("-ccbin=")) ccbin = word.substr(7);
            else if (word.starts_with("--compiler-bindir=")) ccbin = word.substr(18);
            // NVCC_APPEND_FLAGS come last on the command line; the last -ccbin wins.
            if (ccbin && !ccbin->empty()) settings.ccbin = *ccbin, settings.ccbin_variable = variable;
        }
    }
    return settings;
}

CompilerAcceptance judge_host_compiler(std::string_view host_config, const HostCompilerVersion& version,
                                       std::string_view machine, bool allow_unsupported) {
    const HostConfigVerdict verdict =
        evaluate_host_config(host_config, host_compiler_macros(version, machine, allow_unsupported));
    CompilerAcceptance acceptance;
    if (verdict.unreadable) acceptance.unreadable = *verdict.unreadable;
    acceptance.accepted = verdict.errors.empty() && !verdict.unreadable;
    if (!verdict.errors.empty()) acceptance.error = verdict.errors.front();
    return acceptance;
}

std::optional<int> newest_accepted_major(std::string_view host_config, HostCompilerKind kind,
                                         std::string_view machine) {
    // From a major far above any toolkit's limit down: the first one accepted is the newest.
    for (int major = 40; major >= 1; --major) {
        const CompilerAcceptance acceptance = judge_host_compiler(host_config, {kind, major, 0, 0}, machine, false);
        if (!acceptance.unreadable.empty()) return std::nullopt;
        if (acceptance.accepted) return major;
    }
    return std::nullopt;
}

std::string temporary_directory_problem(const std::string& path, std::uint64_t minimum_free) {
    struct stat status{};
    if (::stat(path.c_str(), &status) != 0) return fmt::format("it cannot be used: {}", std::strerror(errno));
    if (!S_ISDIR(status.st_mode)) return "it is not a directory";
    // Creating a file is the test that counts: permission bits (which root passes), a read-only
    // mount, /proc, a full inode table all answer here as they would to nvcc.
    std::string probe = path + (path.ends_with('/') ? "" : "/") + ".cudacheck-tmpdir-XXXXXX";
    const int descriptor = ::mkostemp(probe.data(), O_CLOEXEC);
    if (descriptor < 0) return fmt::format("a file cannot be created in it: {}", std::strerror(errno));
    ::close(descriptor);
    ::unlink(probe.c_str());
    struct statvfs space{};
    if (::statvfs(path.c_str(), &space) == 0) {
        // What this user may fill: root also has the blocks reserved for it.
        const std::uint64_t free =
            static_cast<std::uint64_t>(::geteuid() == 0 ? space.f_bfree : space.f_bavail) * space.f_frsize;
        if (free < minimum_free)
            return fmt::format(
                "its file system has {} MiB free, and nvcc's intermediate files for one source file take several MiB",
                free >> 20);
    }
    return {};
}

TemporaryDirectory nvcc_temporary_directory(const Environment& environment) {
    const std::optional<std::string> tmpdir = environment.get("TMPDIR");
    if (!tmpdir) return {"/tmp", "/tmp (TMPDIR unset)", temporary_directory_problem("/tmp")};
    if (tmpdir->empty())
        // nvcc 13.0 then names its files "/tmpxft_..." (at the root); cc1plus fails to open them.
        return {"", "TMPDIR",
                "it is set but empty: nvcc then writes its intermediate files at the file system's root (/tmpxft_*)"};
    return {*tmpdir, "TMPDIR", temporary_directory_problem(*tmpdir)};
}

BuildSetup collect_build_setup(const Environment& environment, const ToolkitFacts& toolkits, const std::string& root) {
    const auto started = std::chrono::steady_clock::now();
    BuildSetup setup;
    utsname names{};
    if (::uname(&names) == 0) setup.machine = names.machine;
    setup.choice = torch_cuda_home(environment, root);
    setup.choice_exists = !setup.choice.root.empty() && sys::is_directory(setup.choice.root);
    Environment without = environment;
    without.unset("CUDA_HOME");
    without.unset("CUDA_PATH");
    setup.choice_without_variables = torch_cuda_home(without, root);
    setup.choice_without_variables_exists =
        !setup.choice_without_variables.root.empty() && sys::is_directory(setup.choice_without_variables.root);
    setup.nvcc_flags = nvcc_flag_settings(environment);
    setup.temporary = nvcc_temporary_directory(environment);

    // The programs to ask, all at once.
    std::future<std::vector<HostCompiler>> compilers =
        std::async(std::launch::async, [&] { return collect_host_compilers(environment); });
    if (setup.nvcc_flags.ccbin)
        setup.nvcc_host_compiler = {*setup.nvcc_flags.ccbin, "-ccbin in " + setup.nvcc_flags.ccbin_variable};
    else if (const auto ccbin = environment.get("NVCC_CCBIN"); ccbin && !ccbin->empty())
        setup.nvcc_host_compiler = {program_word(*ccbin), "NVCC_CCBIN"};
    else setup.nvcc_host_compiler = {"gcc", "nvcc's default (gcc on PATH)"};
    std::future<void> nvcc_pick =
        std::async(std::launch::async, [&] { ask_compiler(setup.nvcc_host_compiler, environment); });
    std::future<void> torch_pick;
    if (const auto cc = environment.get("CC"); cc && !cc->empty()) {
        // cpp_extension passes the whole value after -ccbin, and nvcc takes it as one path.
        setup.torch_host_compiler =
            HostCompilerPick{std::string(sys::trim(*cc)), "CC (PyTorch extension builds pass -ccbin $CC)"};
        torch_pick = std::async(std::launch::async, [&] { ask_compiler(*setup.torch_host_compiler, environment); });
    }
    read_cmake_variables(setup.cmake, environment);
    std::future<void> cmake_pick;
    if (setup.cmake.host_compiler)
        cmake_pick = std::async(std::launch::async, [&] { ask_compiler(*setup.cmake.host_compiler, environment); });
    const auto cxx = environment.get("CXX");
    setup.torch_cxx = {cxx && !cxx->empty() ? program_word(*cxx) : "c++",
                       cxx && !cxx->empty() ? "CXX" : "c++ on PATH (PyTorch's default)"};
    setup.torch_cxx.path = locate(setup.torch_cxx.program, environment);
    if (setup.torch_cxx.path.empty()) setup.torch_cxx.failure = fmt::format("{} is not found", setup.torch_cxx.program);

    std::future<void> nvcc;
    if (setup.choice_exists) {
        setup.files = development_files(setup.choice.root);
        setup.missing_torch_headers = missing_torch_library_headers(setup.choice.root, environment);
        if (!setup.files.nvcc.empty())
            nvcc = std::async(std::launch::async, [&] {
                NvccAnswers answers = ask_nvcc(setup.files.nvcc, toolkits, environment);
                setup.nvcc_version = std::move(answers.version);
                setup.nvcc_failure = std::move(answers.failure);
                setup.nvcc_architectures = std::move(answers.architectures);
                setup.nvcc_timed_out = answers.timed_out;
            });
    }
    std::future<void> ninja = std::async(std::launch::async, [&] {
        setup.ninja = sys::find_in_path("ninja", environment.get("PATH").value_or(""));
        if (setup.ninja.empty()) return;
        const sys::CommandResult version = sys::run_command({setup.ninja, "--version"}, 10s);
        if (version.started && !version.timed_out && version.exit_status == 0)
            setup.ninja_version = first_line(version.output);
    });
    setup.compilers = compilers.get();
    nvcc_pick.get();
    if (torch_pick.valid()) torch_pick.get();
    if (cmake_pick.valid()) cmake_pick.get();
    if (nvcc.valid()) nvcc.get();
    ninja.get();
    // A header the toolkit lacks may be where the host compiler looks by default: asked only then
    // (one compiler run, a few milliseconds).
    if (!setup.missing_torch_headers.empty()) {
        const HostCompilerPick& host =
            setup.torch_host_compiler ? *setup.torch_host_compiler : setup.nvcc_host_compiler;
        if (!host.path.empty() && host.unusable.empty()) {
            const sys::CommandResult run = sys::run_command({host.path, "-E", "-v", "-x", "c++", "/dev/null"}, 10s);
            if (run.started && !run.timed_out && run.exit_status == 0)
                setup.host_include_directories = parse_include_search_list(run.output);
            if (!setup.host_include_directories.empty())
                setup.missing_torch_headers =
                    missing_torch_library_headers(setup.choice.root, environment, setup.host_include_directories);
        }
    }

    if (setup.choice_exists)
        setup.toolkits.push_back(
            limits_of(setup.choice.root,
                      setup.nvcc_version ? setup.nvcc_version->full : toolkit_version_of(setup.choice.root), setup));
    const std::string chosen_real = setup.choice_exists ? sys::real_path(setup.choice.root) : std::string();
    for (const Toolkit& toolkit : toolkits.toolkits)
        if (toolkit.root != chosen_real) setup.toolkits.push_back(limits_of(toolkit.root, toolkit.version, setup));
    resolve_cmake_toolkit(setup, toolkits, environment);
    setup.gather_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return setup;
}

}  // namespace cudacheck
