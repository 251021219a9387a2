#include "probes/developer_tools.hpp"

#include "util/system.hpp"

#include <charconv>
#include <future>
#include <optional>
#include <string_view>

namespace cudacheck {

namespace {

// The end of the characters from `at` that `keep` accepts (`at` itself when there are none).
template <typename Keep>
std::size_t run_end(std::string_view text, std::size_t at, Keep&& keep) {
    while (at < text.size() && keep(text[at])) ++at;
    return at;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_digit_or_dot(char c) { return is_digit(c) || c == '.'; }
bool is_version_character(char c) {
    return is_digit_or_dot(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-';
}

// The first "<prefix><digit><more>*" in `text`: the version after the prefix, or nullopt. What
// std::regex_search found with `prefix([0-9][more]*)`, scanned by hand: libstdc++'s regex recurses
// once per character it repeats, and a tool that printed a long version ended the process with
// SIGSEGV.
template <typename More>
std::optional<std::string> version_after(std::string_view text, std::string_view prefix, More&& more) {
    for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
        const std::size_t start = at + prefix.size();
        if (start < text.size() && is_digit(text[start]))
            return std::string(text.substr(start, run_end(text, start + 1, more) - start));
    }
    return std::nullopt;
}

// "Cuda compilation tools, release 13.0, V13.0.88": the V number.
std::optional<std::string> compiler_tools_version(std::string_view text) {
    constexpr std::string_view banner = "Cuda compilation tools, release ";
    for (std::size_t at = text.find(banner); at != std::string_view::npos; at = text.find(banner, at + 1)) {
        const std::size_t release = at + banner.size();
        const std::size_t release_end = run_end(text, release, is_digit_or_dot);
        if (release_end == release || text.substr(release_end, 3) != ", V") continue;
        const std::size_t start = release_end + 3;
        if (start < text.size() && is_digit(text[start]))
            return std::string(text.substr(start, run_end(text, start + 1, is_digit_or_dot) - start));
    }
    return std::nullopt;
}

}  // namespace

std::string parse_tool_version(std::string_view output) {
    // Most specific first: the V number of the compiler tools' banner, then cuda-gdb's own line,
    // then Nsight's "Version X" / "version X".
    if (auto version = compiler_tools_version(output)) return *version;
    if (auto version = version_after(output, "NVIDIA (R) cuda-gdb ", is_digit_or_dot)) return *version;
    // "[Vv]ersion ": each "ersion " after a V or a v, leftmost first.
    constexpr std::string_view word = "ersion ";
    for (std::size_t at = output.find(word, 1); at != std::string_view::npos; at = output.find(word, at + 1)) {
        const std::size_t start = at + word.size();
        if ((output[at - 1] == 'V' || output[at - 1] == 'v') && start < output.size() && is_digit(output[start]))
            return std::string(output.substr(start, run_end(output, start + 1, is_version_character) - start));
    }
    return {};
}

std::optional<bool> parse_profiling_admin_only(std::string_view params) {
    constexpr std::string_view key = "RmProfilingAdminOnly:";
    const std::size_t at = params.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view value = sys::trim(params.substr(at + key.size(), params.find('\n', at) - at - key.size()));
    int number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc()) return std::nullopt;
    return number != 0;
}

ProfilingPermissions collect_profiling_permissions(const std::string& root) {
    ProfilingPermissions permissions;
    if (const auto params = sys::read_file(root + "/proc/driver/nvidia/params"))
        permissions.admin_only = parse_profiling_admin_only(*params);
    if (const auto paranoid = sys::read_file(root + "/proc/sys/kernel/perf_event_paranoid")) {
        const std::string_view value = sys::trim(*paranoid);
        int number = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
        if (error == std::errc()) permissions.perf_event_paranoid = number;
    }
    return permissions;
}

namespace {

DeveloperTool find_developer_tool(const char* name, const std::string& toolkit_root, const Environment& environment) {
    DeveloperTool tool{name, {}, {}, {}};
    const std::string in_toolkit = toolkit_root + "/bin/" + name;
    tool.path = !toolkit_root.empty() && sys::is_executable_file(in_toolkit)
                    ? in_toolkit
                    : sys::find_in_path(name, environment.get("PATH").value_or(""));
    if (tool.path.empty()) return tool;
    const sys::CommandResult run = sys::run_command({tool.path, "--version"}, std::chrono::seconds(20));
    if (!run.started) tool.failure = run.error;
    else if (run.timed_out) tool.failure = "`--version` did not answer within 20 s";
    else if ((tool.version = parse_tool_version(run.output)).empty()) {
        const std::string first_line(sys::trim(run.output.substr(0, run.output.find('\n'))));
        if (run.exit_status != 0)
            tool.failure = "`--version` exited with status " + std::to_string(run.exit_status) +
                           (first_line.empty() ? "" : ": " + first_line);
        else tool.failure = first_line.empty() ? "`--version` printed nothing" : first_line;
    }
    return tool;
}

}  // namespace

std::vector<DeveloperTool> collect_developer_tools(const std::string& toolkit_root, const Environment& environment) {
    // Each `--version` is its own process, independent of the others: asked all at once, the set
    // costs the slowest one instead of their sum.
    std::vector<std::future<DeveloperTool>> asked;
    for (const char* name : developer_tool_names)
        asked.push_back(std::async(std::launch::async, [name, &toolkit_root, &environment] {
            return find_developer_tool(name, toolkit_root, environment);
        }));
    std::vector<DeveloperTool> tools;
    for (std::future<DeveloperTool>& tool : asked) tools.push_back(tool.get());
    return tools;
}

}  // namespace cudacheck
