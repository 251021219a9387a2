#include "probes/process_limits.hpp"

#include "util/process.hpp"
#include "util/system.hpp"
#include "util/units.hpp"

#include <charconv>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {

Limit read_limit(int resource) {
    rlimit value{};
    if (::getrlimit(resource, &value) != 0) return {};
    const auto bound = [](rlim_t limit) {
        return limit == RLIM_INFINITY ? std::nullopt : std::optional<std::uint64_t>(limit);
    };
    return Limit{bound(value.rlim_cur), bound(value.rlim_max)};
}

namespace {

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    text = sys::trim(text);
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// The lowest memory limit from `path` up to the hierarchy's root, with its cgroup.
std::optional<CgroupMemory> binding_limit(const std::string& mount, std::string path, const char* limit_file,
                                          const char* usage_file, int version) {
    std::optional<CgroupMemory> lowest;
    while (true) {
        const std::string directory = mount + (path == "/" ? "" : path);
        if (auto limit = parse_cgroup_memory_limit(sys::read_file(directory + "/" + limit_file).value_or(""));
            limit && (!lowest || *limit < lowest->limit_bytes)) {
            lowest = CgroupMemory{path, *limit,
                                  parse_unsigned(sys::read_file(directory + "/" + usage_file).value_or("")), version};
        }
        if (path.empty() || path == "/") break;
        const std::size_t slash = path.find_last_of('/');
        path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
    return lowest;
}

}  // namespace

CgroupPaths parse_proc_cgroup(std::string_view text) {
    CgroupPaths paths;
    for (const std::string& whole : sys::split(text, '\n')) {
        const std::string_view line = whole;
        // hierarchy-ID:controller-list:cgroup-path (cgroups(7))
        const std::size_t first = line.find(':');
        const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos) continue;
        const std::string_view id = line.substr(0, first);
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        const std::string path(line.substr(second + 1));
        if (id == "0" && controllers.empty()) paths.unified = path;
        for (std::string_view rest = controllers; !rest.empty();) {
            const std::size_t comma = rest.find(',');
            if (rest.substr(0, comma) == "memory") paths.memory_v1 = path;
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    return paths;
}

std::optional<std::uint64_t> parse_cgroup_memory_limit(std::string_view text) {
    text = sys::trim(text);
    if (text.empty() || text == "max") return std::nullopt;
    const std::optional<std::uint64_t> value = parse_unsigned(text);
    // cgroup v1 writes PAGE_COUNTER_MAX in bytes (0x7FFFFFFFFFFFF000 on 4 KiB pages) for "no limit".
    if (!value || *value >= (std::uint64_t{1} << 62)) return std::nullopt;
    return value;
}

bool parse_capability(std::string_view status, int capability) {
    for (const std::string& whole : sys::split(status, '\n')) {
        const std::string_view line = whole;
        if (!line.starts_with("CapEff:")) continue;
        const std::string_view hex = sys::trim(line.substr(7));
        std::uint64_t mask = 0;
        const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), mask, 16);
        return error == std::errc() && capability >= 0 && capability < 64 && (mask >> capability & 1U) != 0;
    }
    return false;
}

bool parse_cap_ipc_lock(std::string_view status) {
    constexpr int cap_ipc_lock = 14;
    return parse_capability(status, cap_ipc_lock);
}

ProcessLimits collect_process_limits(const std::string& root) {
    ProcessLimits limits;
    limits.address_space = read_limit(RLIMIT_AS);
    limits.data = read_limit(RLIMIT_DATA);
    limits.open_files = read_limit(RLIMIT_NOFILE);
    limits.locked_memory = read_limit(RLIMIT_MEMLOCK);
    limits.file_size = read_limit(RLIMIT_FSIZE);
    limits.stack = read_limit(RLIMIT_STACK);
    limits.processes = read_limit(RLIMIT_NPROC);
    const std::string status = sys::read_file(root + "/proc/self/status").value_or("");
    limits.may_lock_past_limit = parse_cap_ipc_lock(status);
    constexpr int cap_sys_admin = 21;
    constexpr int cap_sys_resource = 24;
    limits.exempt_from_process_limit =
        ::getuid() == 0 || parse_capability(status, cap_sys_admin) || parse_capability(status, cap_sys_resource);
    // Only worth the /proc walk (a few ms) when there is a limit that binds this process to compare it with.
    if (limits.processes.soft && !limits.exempt_from_process_limit && root.empty())
        limits.user_tasks = sys::user_task_count(::getuid());
    const CgroupPaths paths = parse_proc_cgroup(sys::read_file(root + "/proc/self/cgroup").value_or(""));
    if (!paths.unified.empty())
        limits.cgroup_memory = binding_limit(root + "/sys/fs/cgroup", paths.unified, "memory.max", "memory.current", 2);
    if (!limits.cgroup_memory && !paths.memory_v1.empty())
        limits.cgroup_memory = binding_limit(root + "/sys/fs/cgroup/memory", paths.memory_v1, "memory.limit_in_bytes",
                                             "memory.usage_in_bytes", 1);
    limits.rdma_devices = sys::list_directory(root + "/sys/class/infiniband");
    return limits;
}

std::string limit_bytes_text(const std::optional<std::uint64_t>& bytes) {
    return bytes ? format_bytes(*bytes) : "unlimited";
}
std::string limit_count_text(const std::optional<std::uint64_t>& count) {
    return count ? std::to_string(*count) : "unlimited";
}

}  // namespace cudacheck
