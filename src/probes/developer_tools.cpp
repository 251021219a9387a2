#include "probes/developer_tools.hpp"

#include "util/system.hpp"

#include <charconv>
#include <future>
#include <regex>

namespace cudacheck {

std::string parse_tool_version(std::string_view output) {
    const std::string text(output);
    // Most specific first: the V number of the compiler tools' banner, then cuda-gdb's own line,
    // then Nsight's "Version X" / "version X".
    static const std::regex compiler_tools(R"(Cuda compilation tools, release [0-9.]+, V([0-9][0-9.]*))");
    static const std::regex cuda_gdb(R"(NVIDIA \(R\) cuda-gdb ([0-9][0-9.]*))");
    static const std::regex nsight(R"([Vv]ersion ([0-9][0-9A-Za-z.\-]*))");
    std::smatch match;
    for (const std::regex* pattern : {&compiler_tools, &cuda_gdb, &nsight})
        if (std::regex_search(text, match, *pattern)) return match[1];
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
    if (const auto params = sys::read_file(root + "/proc/driver/nvidia/params")) permissions.admin_only = parse_profiling_admin_only(*params);
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
    tool.path = !toolkit_root.empty() && sys::is_executable_file(in_toolkit) ? in_toolkit
                                                                             : sys::find_in_path(name, environment.get("PATH").value_or(""));
    if (tool.path.empty()) return tool;
    const sys::CommandResult run = sys::run_command({tool.path, "--version"}, std::chrono::seconds(20));
    if (!run.started) tool.failure = run.error;
    else if (run.timed_out) tool.failure = "`--version` did not answer within 20 s";
    else if ((tool.version = parse_tool_version(run.output)).empty()) {
        const std::string first_line(sys::trim(run.output.substr(0, run.output.find('\n'))));
        if (run.exit_status != 0)
            tool.failure = "`--version` exited with status " + std::to_string(run.exit_status) + (first_line.empty() ? "" : ": " + first_line);
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
        asked.push_back(std::async(std::launch::async, [name, &toolkit_root, &environment] { return find_developer_tool(name, toolkit_root, environment); }));
    std::vector<DeveloperTool> tools;
    for (std::future<DeveloperTool>& tool : asked) tools.push_back(tool.get());
    return tools;
}

}  // namespace cudacheck
