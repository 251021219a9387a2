// probes/process_limits: reading /proc/self/cgroup, cgroup memory limits (v2 "max", v1's huge
// number for none), CAP_IPC_LOCK, and the binding limit the lowest on the way to the root.
#include "probes/process_limits.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(ProcessLimits, reads_the_v2_and_v1_memory_paths_of_proc_self_cgroup) {
    const CgroupPaths v2 = parse_proc_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n");
    EXPECT_EQ(v2.unified, "/user.slice/user-1000.slice/session-3.scope");
    EXPECT_EQ(v2.memory_v1, "");
    const CgroupPaths v1 = parse_proc_cgroup(
        "12:pids:/slurm/uid_1000/job_42\n7:cpu,cpuacct:/x\n4:memory:/slurm/uid_1000/job_42\n1:name=systemd:/y\n");
    EXPECT_EQ(v1.unified, "");
    EXPECT_EQ(v1.memory_v1, "/slurm/uid_1000/job_42");
    EXPECT_EQ(parse_proc_cgroup("garbage\n\n::\n").memory_v1, "");
}

TEST(ProcessLimits, memory_limits_of_none_read_as_none) {
    EXPECT_EQ(parse_cgroup_memory_limit("max\n"), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("9223372036854771712\n"), std::nullopt);  // v1 without a limit
    EXPECT_EQ(parse_cgroup_memory_limit("4294967296\n"), std::optional<std::uint64_t>(4294967296ULL));
    EXPECT_EQ(parse_cgroup_memory_limit(""), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("12abc"), std::nullopt);
}

TEST(ProcessLimits, cap_ipc_lock_is_bit_14_of_the_effective_set) {
    EXPECT_TRUE(parse_cap_ipc_lock("Name:\tx\nCapEff:\t000001ffffffffff\n"));
    EXPECT_FALSE(parse_cap_ipc_lock("CapEff:\t0000000000000000\n"));
    EXPECT_TRUE(parse_cap_ipc_lock("CapEff:\t0000000000004000\n"));
    EXPECT_FALSE(parse_cap_ipc_lock("no such line"));
}

TEST(ProcessLimits, the_lowest_limit_on_the_way_to_the_root_binds) {
    test::TempDir root;
    root.write("proc/self/cgroup", "0::/system.slice/job.service\n");
    root.write("sys/fs/cgroup/system.slice/job.service/memory.max", "max\n");
    root.write("sys/fs/cgroup/system.slice/job.service/memory.current", "1000\n");
    root.write("sys/fs/cgroup/system.slice/memory.max", "2147483648\n");
    root.write("sys/fs/cgroup/system.slice/memory.current", "1073741824\n");
    const ProcessLimits limits = collect_process_limits(root.path());
    ASSERT_TRUE(limits.cgroup_memory.has_value());
    EXPECT_EQ(limits.cgroup_memory->path, "/system.slice");
    EXPECT_EQ(limits.cgroup_memory->limit_bytes, 2147483648ULL);
    EXPECT_EQ(limits.cgroup_memory->used_bytes, std::optional<std::uint64_t>(1073741824ULL));
    EXPECT_EQ(limits.cgroup_memory->version, 2);

    test::TempDir none;
    none.write("proc/self/cgroup", "0::/\n");
    none.write("sys/fs/cgroup/memory.max", "max\n");
    EXPECT_FALSE(collect_process_limits(none.path()).cgroup_memory.has_value());
}

TEST(ProcessLimits, reads_this_process_rlimits) {
    const ProcessLimits limits = collect_process_limits();
    // Whatever the limits here, a soft limit never exceeds its hard one.
    for (const Limit* limit : {&limits.address_space, &limits.open_files, &limits.file_size}) {
        if (limit->soft && limit->hard) {
            EXPECT_LE(*limit->soft, *limit->hard);
        }
    }
    EXPECT_TRUE(limits.open_files.soft.has_value()) << "every Linux process has a finite descriptor limit";
}

}  // namespace
}  // namespace cudacheck
