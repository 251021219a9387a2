// What device.health reads (probes/nvml/nvml_health.cpp): nvidia-persistenced found in a crafted
// /proc and run directory, the fabric health mask decoded as nvml.h packs it, nvidia-smi's words,
// and every new query asked of the fake NVML (tests/support/fake_nvml.cpp) in this process.
#include "probes/nvml/nvml_health.hpp"

#include "bind/dynamic_library.hpp"
#include "bind/symbols.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// A listening Unix socket at `path`, as nvidia-persistenced makes its own; closed on destruction.
class UnixSocket {
public:
    explicit UnixSocket(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_STREAM, 0)) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        EXPECT_LT(path.size(), sizeof address.sun_path) << path;
        path.copy(address.sun_path, sizeof address.sun_path - 1);
        EXPECT_EQ(::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0) << path;
    }
    UnixSocket(const UnixSocket&) = delete;
    UnixSocket& operator=(const UnixSocket&) = delete;
    ~UnixSocket() { ::close(fd_); }

private:
    int fd_;
};

TEST(ProcessRunning, finds_a_process_by_its_comm_cut_to_fifteen_characters) {
    TempDir root;
    root.write("proc/1/comm", "systemd\n");
    root.write("proc/812/comm", "nvidia-persiste\n");  // the kernel's TASK_COMM_LEN cut
    root.write("proc/self/comm", "cudacheck\n");         // not a pid: skipped
    EXPECT_EQ(process_running(root.path() + "/proc", "nvidia-persistenced"), true);
    EXPECT_EQ(process_running(root.path() + "/proc", "nv-fabricmanager"), false);
    EXPECT_EQ(process_running(root.path() + "/proc", "nvidia-persistenced", 1), false) << "only one entry read";
    EXPECT_EQ(process_running(root.path() + "/no-proc", "nvidia-persistenced"), std::nullopt);
}

TEST(PersistencedRunning, believes_its_socket_or_its_pid_file_else_looks_for_the_process) {
    TempDir root;
    root.write("proc/1/comm", "systemd\n");
    const NvmlHealthSettings host{.root = root.path(), .in_container = false};
    const NvmlHealthSettings container{.root = root.path(), .in_container = true};
    EXPECT_EQ(persistenced_running(host), false);
    EXPECT_EQ(persistenced_running(container), std::nullopt) << "the host's processes are not in a container's /proc";
    // An image that placed a plain file where the socket would be mounted.
    root.write("var/run/nvidia-persistenced/socket", "");
    EXPECT_EQ(persistenced_running(host), false);
    {
        root.make_dir("run/nvidia-persistenced");
        const UnixSocket socket(root.path() + "/run/nvidia-persistenced/socket");
        EXPECT_EQ(persistenced_running(container), true) << "the runtime mounts the daemon's socket";
    }
    fs::remove(root.path() + "/run/nvidia-persistenced/socket");
    root.write("var/run/nvidia-persistenced/nvidia-persistenced.pid", "4242\n");
    EXPECT_EQ(persistenced_running(host), false) << "a stale pid file";
    root.write("proc/4242/comm", "nvidia-persiste\n");
    EXPECT_EQ(persistenced_running(container), true);
}

TEST(FabricHealth, decodes_each_field_of_the_mask_as_nvml_h_packs_it) {
    // bandwidth degraded (1 at bit 0), route recovery false (2 at bit 2), route unhealthy true (1 at
    // bit 4), access timeout recovery not supported (0 at bit 6), configuration "no partition" (4 at
    // bit 8), partition assigned true (1 at bit 12).
    const FabricHealthBits bits = decode_fabric_health(0x1 | (0x2 << 2) | (0x1 << 4) | (0x4 << 8) | (0x1 << 12));
    EXPECT_EQ(bits.degraded_bandwidth, 1u);
    EXPECT_EQ(bits.route_recovery, 2u);
    EXPECT_EQ(bits.route_unhealthy, 1u);
    EXPECT_EQ(bits.access_timeout_recovery, 0u);
    EXPECT_EQ(bits.incorrect_configuration, 4u);
    EXPECT_EQ(bits.partition_assigned, 1u);
    NvmlFabricHealth fabric;
    fabric.state = nvml::NVML_GPU_FABRIC_STATE_COMPLETED;
    fabric.health_mask = 0x1 | (0x2 << 2) | (0x1 << 4) | (0x4 << 8);
    EXPECT_EQ(fabric_health_problems(fabric), (std::vector<std::string>{"bandwidth degraded", "route unhealthy",
                                                                        "incorrect configuration: no partition"}));
    fabric.health_mask.reset();  // the unversioned query of drivers before r550 has no mask
    EXPECT_TRUE(fabric_health_problems(fabric).empty());
    fabric.health_summary = nvml::NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY;
    EXPECT_EQ(fabric_health_problems(fabric), std::vector<std::string>{"health summary Limited Capacity"});
}

TEST(FabricHealth, is_described_as_nvidia_smi_q_shows_it) {
    NvmlFabricHealth fabric;
    EXPECT_EQ(describe_fabric(fabric), "state N/A, status N/A");
    fabric.state = nvml::NVML_GPU_FABRIC_STATE_NOT_STARTED;
    EXPECT_EQ(describe_fabric(fabric), "state Not Started, status N/A");
    fabric.state = nvml::NVML_GPU_FABRIC_STATE_COMPLETED;
    fabric.status = nvml::NVML_ERROR_INSUFFICIENT_RESOURCES;
    fabric.clique_id = 0;
    fabric.cluster_uuid = "00000000-0000-0000-0000-000000000000";
    EXPECT_EQ(describe_fabric(fabric),
              "state Completed, status NVML_ERROR_INSUFFICIENT_RESOURCES, clique 0, cluster "
              "00000000-0000-0000-0000-000000000000");
}

TEST(RecoveryAction, is_named_as_nvidia_smi_names_it) {
    EXPECT_EQ(recovery_action_name(nvml::NVML_GPU_RECOVERY_ACTION_NONE), "None");
    EXPECT_EQ(recovery_action_name(nvml::NVML_GPU_RECOVERY_ACTION_GPU_RESET), "Reset");
    EXPECT_EQ(recovery_action_name(nvml::NVML_GPU_RECOVERY_ACTION_NODE_REBOOT), "Reboot");
    EXPECT_EQ(recovery_action_name(nvml::NVML_GPU_RECOVERY_ACTION_DRAIN_P2P), "Drain P2P");
    EXPECT_EQ(recovery_action_name(nvml::NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET), "Drain and Reset");
    EXPECT_EQ(recovery_action_name(9), "unknown (9)");
}

// --- against the fake NVML, in this process -----------------------------------------------------

const std::string fake_nvml = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string() + "/libnvidia-ml.so.1";

// Sets a FAKE_* variable for one test (the fake reads them at each call), restoring it after.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;
    ~ScopedVariable() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

// NVML bound to the fake, listing GPU 0 as the NVML probe would.
NvmlFacts fake_facts() {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open(fake_nvml);
    EXPECT_TRUE(nvml.library.ok()) << nvml.library.error();
    EXPECT_TRUE(bind_symbols(nvml.library, nvml_symbols, nvml.api).empty());
    nvml.init_result = nvml.api.init();
    DeviceInfo gpu;
    gpu.nvml_index = 0;
    gpu.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    nvml.devices.push_back(gpu);
    return nvml;
}

NvmlDeviceHealth collect_one(const NvmlFacts& nvml) {
    TempDir root;  // no /proc: the daemon is unknown
    std::vector<NvmlDeviceHealth> health = collect_nvml_health(nvml, NvmlHealthSettings{.root = root.path()});
    EXPECT_EQ(health.size(), 1u);
    return health.empty() ? NvmlDeviceHealth{} : health.front();
}

TEST(NvmlHealthCollection, reads_recovery_action_fabric_nvlink_replays_and_memory_repair) {
    const NvmlFacts nvml = fake_facts();
    ASSERT_TRUE(nvml.initialised());
    const ScopedVariable action("FAKE_NVML_RECOVERY_ACTION", "4");
    const ScopedVariable fabric("FAKE_NVML_FABRIC", "3,0,7,0x1,2");
    const ScopedVariable links("FAKE_NVML_NVLINK", "1,1,0,1");
    const ScopedVariable errors("FAKE_NVML_NVLINK_ERRORS", "3:5,1,20,2");
    const ScopedVariable replays("FAKE_NVML_PCIE_REPLAY", "9");
    const ScopedVariable unrepairable("FAKE_NVML_UNREPAIRABLE", "1");
    const NvmlDeviceHealth gpu = collect_one(nvml);
    EXPECT_EQ(gpu.recovery_action, nvml::NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET);
    ASSERT_TRUE(gpu.fabric.has_value());
    EXPECT_EQ(gpu.fabric->state, nvml::NVML_GPU_FABRIC_STATE_COMPLETED);
    EXPECT_EQ(gpu.fabric->clique_id, 7u);
    EXPECT_EQ(gpu.fabric->health_mask, 0x1u);
    EXPECT_EQ(gpu.fabric->health_summary, nvml::NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY);
    EXPECT_EQ(gpu.fabric->cluster_uuid, "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
    ASSERT_EQ(gpu.nvlinks.size(), 4u) << "the link count field bounds the links asked";
    EXPECT_FALSE(gpu.nvlinks[2].active);
    EXPECT_FALSE(gpu.nvlinks[2].replay.has_value()) << "an inactive link's counters are not asked";
    EXPECT_EQ(gpu.nvlinks[3].replay, 5u);
    EXPECT_EQ(gpu.nvlinks[3].recovery, 1u);
    EXPECT_EQ(gpu.nvlinks[3].crc_flit, 20u);
    EXPECT_EQ(gpu.nvlinks[3].crc_data, 2u);
    EXPECT_EQ(gpu.nvlinks[0].replay, 0u);
    EXPECT_EQ(gpu.pcie_replay_count, 9u);
    EXPECT_EQ(gpu.memory_unrepairable, true);
    EXPECT_TRUE(gpu.lost_by.empty());
}

TEST(NvmlHealthCollection, falls_back_to_the_v2_fabric_struct_for_a_driver_that_predates_v3) {
    const NvmlFacts nvml = fake_facts();
    const ScopedVariable fabric("FAKE_NVML_FABRIC", "1,0,0,0,0");
    const ScopedVariable version("FAKE_NVML_FABRIC_VERSION", "2");
    const NvmlDeviceHealth gpu = collect_one(nvml);
    ASSERT_TRUE(gpu.fabric.has_value());
    EXPECT_EQ(gpu.fabric->state, nvml::NVML_GPU_FABRIC_STATE_NOT_STARTED);
    EXPECT_TRUE(gpu.fabric->health_mask.has_value());
    EXPECT_FALSE(gpu.fabric->health_summary.has_value()) << "_v2 has no summary";
}

TEST(NvmlHealthCollection, leaves_unsupported_queries_unknown_as_on_a_gpu_without_them) {
    const NvmlFacts nvml = fake_facts();
    const ScopedVariable action("FAKE_NVML_RECOVERY_ACTION", "unsupported");
    const ScopedVariable links("FAKE_NVML_NVLINK", "1,1");
    const ScopedVariable errors("FAKE_NVML_NVLINK_ERRORS", "unsupported");  // Blackwell
    const NvmlDeviceHealth gpu = collect_one(nvml);
    EXPECT_FALSE(gpu.recovery_action.has_value());
    EXPECT_FALSE(gpu.fabric.has_value());
    EXPECT_FALSE(gpu.memory_unrepairable.has_value());
    ASSERT_EQ(gpu.nvlinks.size(), 2u);
    EXPECT_TRUE(gpu.nvlinks[1].active);
    EXPECT_FALSE(gpu.nvlinks[1].replay.has_value());
}

TEST(NvmlHealthCollection, records_a_lost_gpu_and_asks_it_nothing_more) {
    const NvmlFacts nvml = fake_facts();
    const ScopedVariable answer("FAKE_NVML_ANSWER", "15");
    const NvmlDeviceHealth gpu = collect_one(nvml);
    EXPECT_EQ(gpu.lost_by, "nvmlDeviceGetHandleByIndex_v2");
    EXPECT_FALSE(gpu.ecc_current.has_value());
    EXPECT_FALSE(gpu.temperature_c.has_value());
}

TEST(NvmlHealthCollection, records_the_first_query_that_answered_reset_required) {
    const NvmlFacts nvml = fake_facts();
    const ScopedVariable answer("FAKE_NVML_ANSWER", "16");
    const NvmlDeviceHealth gpu = collect_one(nvml);
    EXPECT_TRUE(gpu.lost_by.empty());
    EXPECT_EQ(gpu.reset_required_by, "nvmlDeviceGetFieldValues");
    EXPECT_FALSE(gpu.persistence_mode.has_value());
}

TEST(NvmlHealthCollection, lists_the_mig_devices_with_their_uuids) {
    const NvmlFacts nvml = fake_facts();
    const ScopedVariable mig("FAKE_NVML_MIG", "1");
    const ScopedVariable devices("FAKE_NVML_MIG_DEVICES", "2");
    const NvmlDeviceHealth gpu = collect_one(nvml);
    EXPECT_EQ(gpu.mig_current, true);
    EXPECT_EQ(gpu.mig_devices, 2u);
    EXPECT_EQ(gpu.mig_device_uuids, (std::vector<std::string>{"MIG-00000000-0000-0000-0001-000000000000",
                                                              "MIG-00000000-0000-0000-0001-000000000001"}));
}

TEST(NvmlHealthCollection, asks_for_the_daemon_only_when_persistence_mode_is_on) {
    const NvmlFacts nvml = fake_facts();
    TempDir root;
    root.write("proc/1/comm", "init\n");
    const NvmlHealthSettings host{.root = root.path(), .in_container = false};
    EXPECT_EQ(collect_nvml_health(nvml, host).front().persistenced_running, false);
    const ScopedVariable off("FAKE_NVML_PERSISTENCE", "0");
    EXPECT_FALSE(collect_nvml_health(nvml, host).front().persistenced_running.has_value());
}

}  // namespace
}  // namespace cudacheck
