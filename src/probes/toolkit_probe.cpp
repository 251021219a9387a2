#include "probes/toolkit_probe.hpp"

#include "util/system.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace cudacheck {

namespace {

// The versions below are scanned by hand, not with std::regex: libstdc++ matches a repetition by
// recursion, one level per character, so a long run of digits in a toolkit's version.txt or in
// what an `nvcc --version` printed ended the process with SIGSEGV. Each scan is linear.

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The end of the decimal digits from `at` (`at` itself when there are none).
std::size_t digits_end(std::string_view text, std::size_t at) {
    while (at < text.size() && is_digit(text[at])) ++at;
    return at;
}

// The end of `parts` dot-separated numbers from `at` ("13.0" is 2 parts), or npos.
std::size_t numbers_end(std::string_view text, std::size_t at, int parts) {
    for (int part = 0; part < parts; ++part) {
        if (part > 0) {
            if (at >= text.size() || text[at] != '.') return std::string_view::npos;
            ++at;
        }
        const std::size_t end = digits_end(text, at);
        if (end == at) return std::string_view::npos;
        at = end;
    }
    return at;
}

}  // namespace

std::optional<NvccVersion> parse_nvcc_version(std::string_view output) {
    // The first "release 13.0, V13.0.88" (what the pattern `release (\d+\.\d+), V(\d+\.\d+\.\d+)` found).
    constexpr std::string_view release = "release ", marker = ", V";
    for (std::size_t at = output.find(release); at != std::string_view::npos; at = output.find(release, at + 1)) {
        const std::size_t start = at + release.size();
        const std::size_t end = numbers_end(output, start, 2);
        if (end == std::string_view::npos || output.substr(end, marker.size()) != marker) continue;
        const std::size_t full_end = numbers_end(output, end + marker.size(), 3);
        if (full_end == std::string_view::npos) continue;
        return NvccVersion{std::string(output.substr(start, end - start)),
                           std::string(output.substr(end + marker.size(), full_end - end - marker.size()))};
    }
    return std::nullopt;
}

std::optional<NvccVersion> parse_nvcc_component_version(std::string_view version_json) {
    const auto json = nlohmann::json::parse(version_json, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) return std::nullopt;
    const auto nvcc = json.find("cuda_nvcc");
    if (nvcc == json.end() || !nvcc->is_object()) return std::nullopt;
    const auto version = nvcc->find("version");
    if (version == nvcc->end() || !version->is_string()) return std::nullopt;
    const std::string full = version->get<std::string>();
    const std::size_t release_end = numbers_end(full, 0, 2);
    if (release_end == std::string_view::npos || numbers_end(full, 0, 3) != full.size()) return std::nullopt;
    return NvccVersion{full.substr(0, release_end), full};
}

std::optional<NvccVersion> parse_cuda_h_version(std::string_view cuda_h) {
    constexpr std::string_view marker = "#define CUDA_VERSION ";
    const std::size_t at = cuda_h.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    const std::size_t start = at + marker.size();
    const std::size_t end = digits_end(cuda_h, start);
    if (end == start || end - start > 6) return std::nullopt;  // 13000: major * 1000 + minor * 10
    const int encoded = std::stoi(std::string(cuda_h.substr(start, end - start)));
    const std::string release = std::to_string(encoded / 1000) + "." + std::to_string(encoded % 1000 / 10);
    return NvccVersion{release, release};
}

std::string parse_toolkit_version_file(std::string_view text) {
    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_object()) {
        const auto cuda = json.find("cuda");
        if (cuda != json.end() && cuda->is_object() && cuda->contains("version") && (*cuda)["version"].is_string())
            return (*cuda)["version"].get<std::string>();
        return {};
    }
    // The first "CUDA Version 10.2.89": a number, then any ".number" after it.
    constexpr std::string_view marker = "CUDA Version ";
    for (std::size_t at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
        const std::size_t start = at + marker.size();
        std::size_t end = digits_end(text, start);
        if (end == start) continue;
        while (end + 1 < text.size() && text[end] == '.' && is_digit(text[end + 1])) end = digits_end(text, end + 1);
        return std::string(text.substr(start, end - start));
    }
    return {};
}

const Toolkit* ToolkitFacts::toolkit_at(std::string_view root) const {
    for (const Toolkit& toolkit : toolkits)
        if (toolkit.root == root) return &toolkit;
    return nullptr;
}

std::string toolkit_root_of(const std::string& nvcc_path) {
    const std::string real = sys::real_path(nvcc_path);
    const std::string& path = real.empty() ? nvcc_path : real;
    const std::size_t bin = path.rfind("/bin/");
    if (bin == std::string::npos) return {};
    const std::string root = path.substr(0, bin);
    const std::string real_root = sys::real_path(root);
    return real_root.empty() ? root : real_root;
}

std::string parse_nvcc_dryrun_here(std::string_view output) {
    for (const std::string& line : sys::split(std::string(output), '\n')) {
        constexpr std::string_view prefix = "#$ _HERE_=";
        if (sys::starts_with(line, prefix)) return std::string(sys::trim(std::string_view(line).substr(prefix.size())));
    }
    return {};
}

std::optional<std::vector<std::string>> environment_for_nvcc(const Environment& environment) {
    const std::optional<std::string> tmpdir = environment.get("TMPDIR");
    if (!tmpdir || !tmpdir->empty()) return std::nullopt;
    std::vector<std::string> entries;
    for (const auto& [name, value] : environment.all())
        if (name != "TMPDIR") entries.push_back(name + "=" + value);
    return entries;
}

std::string resolve_nvcc_root(const std::string& nvcc_path, const Environment& environment) {
    const std::string real = sys::real_path(nvcc_path);
    const std::string& path = real.empty() ? nvcc_path : real;
    const std::size_t slash = path.rfind('/');
    if (slash != std::string::npos && sys::read_file(path.substr(0, slash) + "/nvcc.profile"))
        return toolkit_root_of(nvcc_path);
    // -E on an empty file with --dryrun only prints the steps; it compiles nothing (~60 ms).
    const std::optional<std::vector<std::string>> child = environment_for_nvcc(environment);
    const sys::CommandResult run = sys::run_command({nvcc_path, "--dryrun", "-E", "-x", "cu", "/dev/null"},
                                                    std::chrono::seconds(10), child ? &*child : nullptr);
    const std::string here = run.started && !run.timed_out ? parse_nvcc_dryrun_here(run.output) : std::string();
    if (here.empty()) return toolkit_root_of(nvcc_path);
    return toolkit_root_of(here + "/nvcc");
}

namespace {

void add_toolkit(ToolkitFacts& facts, const std::string& candidate_root, const std::string& found_as) {
    if (candidate_root.empty() || !sys::is_directory(candidate_root)) return;
    const std::string root = sys::real_path(candidate_root);
    for (Toolkit& toolkit : facts.toolkits) {
        if (toolkit.root != root) continue;
        toolkit.found_as.push_back(found_as);
        return;
    }
    Toolkit toolkit;
    toolkit.root = root;
    toolkit.found_as.push_back(found_as);
    if (auto text = sys::read_file(root + "/version.json")) toolkit.version = parse_toolkit_version_file(*text);
    else if (auto legacy = sys::read_file(root + "/version.txt")) toolkit.version = parse_toolkit_version_file(*legacy);
    if (sys::is_executable_file(root + "/bin/nvcc")) toolkit.nvcc = root + "/bin/nvcc";
    // A directory with neither a version file nor nvcc is not a toolkit (e.g. a stray CUDA_HOME).
    if (toolkit.version.empty() && toolkit.nvcc.empty()) return;
    facts.toolkits.push_back(std::move(toolkit));
}

}  // namespace

namespace {

// The toolkit a real nvcc belongs to (nvcc.profile beside it), without running it; "" for anything
// else named nvcc (a wrapper), which only `nvcc --dryrun` sees through.
std::string nvcc_root_from_files(const std::string& nvcc_path) {
    const std::string real = sys::real_path(nvcc_path);
    const std::string& path = real.empty() ? nvcc_path : real;
    const std::size_t slash = path.rfind('/');
    if (slash != std::string::npos && sys::read_file(path.substr(0, slash) + "/nvcc.profile"))
        return toolkit_root_of(nvcc_path);
    return {};
}

// nvcc's version from the files of the toolkit at `toolkit_root`, and which file said it.
std::optional<NvccVersion> nvcc_version_from_files(const std::string& toolkit_root, std::string& source) {
    if (toolkit_root.empty()) return std::nullopt;
    if (const auto text = sys::read_file(toolkit_root + "/version.json", 1 << 20))
        if (auto version = parse_nvcc_component_version(*text)) {
            source = "version.json (cuda_nvcc)";
            return version;
        }
    // CUDA_VERSION is defined near cuda.h's top (line 263 of CUDA 13.0's, 12 KB in): its first 64 KiB.
    if (const auto text = sys::read_file(toolkit_root + "/include/cuda.h", 64 << 10))
        if (auto version = parse_cuda_h_version(*text)) {
            source = "include/cuda.h (CUDA_VERSION)";
            return version;
        }
    return std::nullopt;
}

}  // namespace

ToolkitFacts collect_toolkits(const Environment& environment, const std::string& root, bool run_nvcc) {
    ToolkitFacts facts;
    facts.path_nvcc = sys::find_in_path("nvcc", environment.get("PATH").value_or(""));
    if (!facts.path_nvcc.empty()) {
        facts.path_nvcc_root =
            run_nvcc ? resolve_nvcc_root(facts.path_nvcc, environment) : nvcc_root_from_files(facts.path_nvcc);
        add_toolkit(facts, facts.path_nvcc_root, "PATH");
    }
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (auto value = environment.get(variable); value && !value->empty()) add_toolkit(facts, *value, variable);
    facts.cuda_symlink = sys::real_path(root + "/usr/local/cuda");
    add_toolkit(facts, root + "/usr/local/cuda", "/usr/local/cuda");
    for (const std::string& name : sys::list_directory(root + "/usr/local"))
        if (sys::starts_with(name, "cuda-")) add_toolkit(facts, root + "/usr/local/" + name, "/usr/local/" + name);
    add_toolkit(facts, root + "/opt/cuda", "/opt/cuda");

    facts.used_nvcc = facts.path_nvcc;
    if (facts.used_nvcc.empty())
        for (const Toolkit& toolkit : facts.toolkits)
            if (!toolkit.nvcc.empty()) {
                facts.used_nvcc = toolkit.nvcc;
                break;
            }
    if (facts.used_nvcc.empty()) return facts;
    if (!run_nvcc) {
        facts.nvcc_not_run = "--level quick reads files only (--level standard runs `nvcc --version`)";
        const std::string used_root =
            facts.used_nvcc == facts.path_nvcc ? facts.path_nvcc_root : toolkit_root_of(facts.used_nvcc);
        facts.nvcc_version = nvcc_version_from_files(used_root, facts.nvcc_version_source);
    } else {
        // nvcc --version answers in ~10 ms; the limit only guards against a broken install hanging.
        const std::optional<std::vector<std::string>> child = environment_for_nvcc(environment);
        const sys::CommandResult run =
            sys::run_command({facts.used_nvcc, "--version"}, std::chrono::seconds(10), child ? &*child : nullptr);
        if (!run.started) facts.nvcc_failure = "could not run: " + run.error;
        else if (run.timed_out) facts.nvcc_failure = "did not answer within 10 s";
        else if (run.exit_status != 0)
            facts.nvcc_failure =
                "exited with status " + std::to_string(run.exit_status) + ": " + std::string(sys::trim(run.output));
        else if (!(facts.nvcc_version = parse_nvcc_version(run.output)))
            facts.nvcc_failure = "unrecognised output: " + std::string(sys::trim(run.output)).substr(0, 200);
    }
    // Toolkits without version.json (some container images) take the version of their nvcc.
    if (facts.nvcc_version) {
        const std::string used_root =
            facts.used_nvcc == facts.path_nvcc ? facts.path_nvcc_root : toolkit_root_of(facts.used_nvcc);
        for (Toolkit& toolkit : facts.toolkits)
            if (toolkit.version.empty() && toolkit.root == used_root) toolkit.version = facts.nvcc_version->full;
    }
    return facts;
}

}  // namespace cudacheck
