// The limits this process runs under, as CUDA work meets them: getrlimit(2) for the address space,
// data segment, open files, locked memory, file size, stack and processes (with how many tasks the
// user already runs), whether the process may lock memory past
// its limit (CAP_IPC_LOCK), and the memory limit of its control group (cgroup v2 memory.max, or
// v1 memory.limit_in_bytes), the lowest on the way from its cgroup to the root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// A soft and a hard limit; nullopt is unlimited (RLIM_INFINITY).
struct Limit {
    std::optional<std::uint64_t> soft;
    std::optional<std::uint64_t> hard;
};

struct CgroupMemory {
    std::string path;                    // the cgroup whose limit binds: "/user.slice/job_42"
    std::uint64_t limit_bytes = 0;
    std::optional<std::uint64_t> used_bytes;  // memory.current / memory.usage_in_bytes
    int version = 2;
};

struct ProcessLimits {
    Limit address_space;   // RLIMIT_AS, bytes (`ulimit -v` is KiB)
    Limit data;            // RLIMIT_DATA, bytes (`ulimit -d`)
    Limit open_files;      // RLIMIT_NOFILE (`ulimit -n`)
    Limit locked_memory;   // RLIMIT_MEMLOCK, bytes (`ulimit -l` is KiB)
    Limit file_size;       // RLIMIT_FSIZE, bytes (`ulimit -f` is 1 KiB blocks in bash)
    Limit stack;           // RLIMIT_STACK, bytes (`ulimit -s` is KiB)
    Limit processes;       // RLIMIT_NPROC (`ulimit -u`): processes and threads of the real user
    std::optional<std::uint64_t> user_tasks;  // the real user's processes and threads now (/proc), when readable
    // Real uid 0, or CAP_SYS_RESOURCE or CAP_SYS_ADMIN in the effective set: fork(2) does not hold
    // such a process to RLIMIT_NPROC (kernel/fork.c, copy_process).
    bool exempt_from_process_limit = false;
    bool may_lock_past_limit = false;  // CAP_IPC_LOCK in the effective set (/proc/self/status CapEff)
    std::optional<CgroupMemory> cgroup_memory;  // none when no cgroup limits memory
    // RDMA devices (/sys/class/infiniband): what registers memory against RLIMIT_MEMLOCK (NCCL
    // over InfiniBand/RoCE, GPUDirect RDMA). CUDA's own pinned memory is not charged to it.
    std::vector<std::string> rdma_devices;
};

// The cgroup paths of /proc/self/cgroup: the v2 one ("0::/path") and the v1 memory controller's
// ("7:memory:/path"); empty when absent.
struct CgroupPaths {
    std::string unified;
    std::string memory_v1;
};
[[nodiscard]] CgroupPaths parse_proc_cgroup(std::string_view text);
// memory.max ("max" is none) or memory.limit_in_bytes (v1 writes a number near 2^63 for none).
[[nodiscard]] std::optional<std::uint64_t> parse_cgroup_memory_limit(std::string_view text);
// Bit 14 (CAP_IPC_LOCK, linux/capability.h) of the CapEff line of /proc/<pid>/status.
[[nodiscard]] bool parse_cap_ipc_lock(std::string_view status);
// Bit `capability` (linux/capability.h: CAP_SYS_ADMIN 21, CAP_SYS_RESOURCE 24) of CapEff.
[[nodiscard]] bool parse_capability(std::string_view status, int capability);

// getrlimit(2) of `resource` (RLIMIT_NOFILE, ...), soft and hard.
[[nodiscard]] Limit read_limit(int resource);

// Reads the live process (cgroup and /proc files under `root`, "" for the real /).
[[nodiscard]] ProcessLimits collect_process_limits(const std::string& root = "");

// "unlimited", "3.8 GiB": a limit for a message (bytes) or a count.
[[nodiscard]] std::string limit_bytes_text(const std::optional<std::uint64_t>& bytes);
[[nodiscard]] std::string limit_count_text(const std::optional<std::uint64_t>& count);

}  // namespace cudacheck
