#include "probes/build/host_compilers.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <future>
#include <set>

namespace cudacheck {

namespace {

// "12.2.0" -> {12, 2, 0}; nullopt unless it starts with digits and a dot.
std::optional<HostCompilerVersion> dotted(std::string_view text, HostCompilerKind kind) {
    HostCompilerVersion version{kind, 0, 0, 0};
    int* parts[] = {&version.major, &version.minor, &version.patch};
    std::size_t read = 0;
    for (int* part : parts) {
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *part);
        if (error != std::errc()) break;
        ++read;
        text.remove_prefix(static_cast<std::size_t>(end - text.data()));
        if (text.empty() || text.front() != '.') break;
        text.remove_prefix(1);
    }
    if (read < 2) return std::nullopt;
    return version;
}

// `^([a-z0-9_]+-[a-z0-9_]+-[a-z0-9_]+-)?(gcc|g\+\+|clang|clang\+\+)-[0-9]+$`: the program's name
// is one dash-free word, so the name splits at its dashes into the program and its version, with
// three triplet words before them or none.
bool is_versioned_compiler_name(std::string_view name) {
    std::vector<std::string_view> words;
    for (std::size_t start = 0;;) {
        const std::size_t dash = name.find('-', start);
        words.push_back(name.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start));
        if (dash == std::string_view::npos || words.size() > 5) break;
        start = dash + 1;
    }
    if (words.size() != 2 && words.size() != 5) return false;
    const std::string_view version = words.back();
    if (version.empty() || !std::all_of(version.begin(), version.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    const std::string_view program = words[words.size() - 2];
    if (program != "gcc" && program != "g++" && program != "clang" && program != "clang++") return false;
    for (std::size_t i = 0; i + 2 < words.size(); ++i)
        if (words[i].empty() || !std::all_of(words[i].begin(), words[i].end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
            }))
            return false;
    return true;
}

// GCC's `--version`: "<program> (<package version>) X.Y.Z ..." and the Free Software Foundation's
// copyright. Other GNU programs print the same copyright with "(GNU <package>)" in the first line
// (/bin/true: "true (GNU coreutils) 9.1"), which GCC's package version (its --with-pkgversion:
// "GCC", "Debian 12.2.0-14", "conda-forge gcc 12.3.0-3") is not.
bool gcc_banner(std::string_view output) {
    if (output.substr(0, 4096).find("Free Software Foundation") == std::string_view::npos) return false;
    const std::string_view line = output.substr(0, output.find('\n'));
    const std::size_t open = line.find(" (");
    const std::size_t close = line.find(')');
    return open != std::string_view::npos && close != std::string_view::npos && close > open &&
           !line.substr(open + 2).starts_with("GNU ");
}

}  // namespace

std::optional<HostCompilerVersion> parse_compiler_version(std::string_view output) {
    const std::string_view line = output.substr(0, output.find('\n'));
    // clang, whatever vendor prefix: "... clang version X.Y.Z ..."
    if (const std::size_t clang = line.find("clang version "); clang != std::string_view::npos)
        return dotted(line.substr(clang + 14), HostCompilerKind::clang);
    // GCC: "<program> (<package version>) X.Y.Z [date] [(vendor)]"; the copyright line says it is GCC.
    if (!gcc_banner(output)) return std::nullopt;
    const std::size_t close = line.find(')');
    std::string_view rest = line.substr(close + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return dotted(rest, HostCompilerKind::gcc);
}

std::string identify_compiler(std::string_view output) {
    output = output.substr(0, 4096);
    const auto has = [&](std::string_view text) { return output.find(text) != std::string_view::npos; };
    // Intel's and IBM's LLVM-based compilers also print "clang version" on some releases: asked first.
    if (has("Intel(R) oneAPI")) return "Intel icx/icpx";
    if (has("(ICC)") || has("Intel Corporation")) return "Intel icc";
    if (has("IBM XL") || has("IBM Open XL")) return "IBM XL C/C++";
    if (has("NVIDIA Compilers and Tools") || has("nvc++ ") || has("nvc ")) return "NVIDIA nvc++";
    if (has("Arm C/C++")) return "Arm C/C++";
    if (has("clang version")) return "clang";
    if (gcc_banner(output)) return "gcc";
    return {};
}

std::vector<std::string> versioned_compiler_names(const std::vector<std::string>& entries) {
    // An optional target triplet, the program, a dash and a major version: g++-13, clang-18,
    // x86_64-linux-gnu-gcc-12 (Debian's and Ubuntu's alternatives, RHEL's gcc-toolset has plain names).
    // Read by hand, not by std::regex, whose matcher recurses per character (SIGSEGV on a long name).
    std::vector<std::string> names;
    for (const std::string& entry : entries)
        if (is_versioned_compiler_name(entry)) names.push_back(entry);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<HostCompiler> collect_host_compilers(const Environment& environment) {
    // First every candidate (files only), then one `--version` each, all at once: clang's takes
    // ~25 ms (it loads libLLVM), gcc's ~2 ms.
    std::vector<HostCompiler> compilers;
    std::vector<std::string> runs;  // what to run for each entry of `compilers`; "" when nothing
    std::set<std::string> asked;
    const std::string path_list = environment.get("PATH").value_or("");
    const auto add = [&](std::string name, std::string source) {
        HostCompiler compiler{std::move(name), std::move(source), {}, {}, std::nullopt, {}};
        // A variable may hold a path or a name to look up, with flags after it ("gcc -m64"): the first word runs.
        const std::string program = compiler.name.substr(0, compiler.name.find(' '));
        const std::string found =
            program.find('/') != std::string::npos ? program : sys::find_in_path(program, path_list);
        compiler.path = found.empty() ? std::string() : sys::real_path(found);
        if (compiler.path.empty()) {
            compiler.failure = program.find('/') != std::string::npos ? fmt::format("{} does not exist", program)
                                                                      : fmt::format("{} is not on PATH", program);
        } else if (!asked.insert(compiler.path + "\n" + compiler.source).second) {
            return;
        }
        runs.push_back(compiler.path.empty() ? std::string() : found);
        compilers.push_back(std::move(compiler));
    };
    for (const char* variable : {"NVCC_CCBIN", "CXX", "CC"})
        if (const auto value = environment.get(variable); value && !value->empty()) add(*value, variable);
    for (const char* name : {"gcc", "g++", "clang", "clang++"})
        if (!sys::find_in_path(name, path_list).empty()) add(name, "PATH");
    std::set<std::string> seen;
    for (std::string_view rest = path_list; !rest.empty();) {
        const std::string directory(rest.substr(0, rest.find(':')));
        rest = rest.find(':') == std::string_view::npos ? std::string_view() : rest.substr(rest.find(':') + 1);
        if (directory.empty() || !seen.insert(directory).second) continue;
        for (const std::string& name : versioned_compiler_names(sys::list_directory(directory)))
            if (sys::find_in_path(name, path_list) == directory + "/" + name) add(name, "PATH");
    }
    std::vector<std::future<sys::CommandResult>> answers;
    for (const std::string& run : runs)
        answers.push_back(std::async(std::launch::async, [run] {
            return run.empty() ? sys::CommandResult{} : sys::run_command({run, "--version"}, std::chrono::seconds(10));
        }));
    for (std::size_t i = 0; i < compilers.size(); ++i) {
        const sys::CommandResult answer = answers[i].get();
        if (runs[i].empty()) continue;
        HostCompiler& compiler = compilers[i];
        if (!answer.started) compiler.failure = answer.error;
        else if (answer.timed_out)
            compiler.failure = fmt::format("`{} --version` did not finish within 10 s and was killed", runs[i]);
        compiler.version_line = std::string(sys::trim(answer.output.substr(0, answer.output.find('\n'))));
        compiler.version = parse_compiler_version(answer.output);
        compiler.identity = identify_compiler(answer.output);
        if (compiler.failure.empty() && compiler.identity.empty())
            compiler.failure = compiler.version_line.empty() ? "`--version` printed nothing: not a compiler"
                                                             : fmt::format("`--version` names no compiler (\"{}\")",
                                                                           sys::printable(compiler.version_line));
    }
    return compilers;
}

}  // namespace cudacheck
