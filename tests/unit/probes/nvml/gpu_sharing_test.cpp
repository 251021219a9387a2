// Who else used a GPU while a check timed its work (probes/nvml/gpu_sharing.cpp): judged from NVML's
// process lists and per-process utilization samples as the H200 machine gives them
// (docs/examples/h200/issue21/sharing-facts.json), and described for a person.
#include "probes/nvml/gpu_sharing.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

constexpr unsigned int self = 475;        // the process timing (cudacheck's worker)
constexpr unsigned int supervisor = 474;  // its parent
const std::vector<unsigned int> own{self, supervisor};
constexpr std::int64_t second = 1'000'000;
constexpr std::int64_t start = 1'796'240'374'000'000;  // a CLOCK_REALTIME time stamp in microseconds, as NVML's

// One timed span on device 0, two seconds long.
std::vector<TimedSpan> two_seconds_on(int device = 0) { return {{device, start, start + 2 * second}}; }

GpuProcess process(unsigned int pid, std::string name, std::uint64_t mib) {
    return GpuProcess{pid, mib << 20, std::move(name)};
}

// As NVML answered on the H200 while a bf16 GEMM loop ran beside a process holding only a context.
SharingSnapshot busy_neighbour() {
    SharingSnapshot snapshot;
    snapshot.processes = std::vector<GpuProcess>{process(self, "cudacheck", 900), process(477, "python3", 1130),
                                                 process(503, "python3", 612)};
    snapshot.samples = std::vector<ProcessUtilizationSample>{{self, start + second, 60}, {477, start + second, 99}};
    return snapshot;
}

TEST(GpuSharing, a_busy_process_beside_the_timing_is_named_with_its_use) {
    const std::optional<GpuSharing> sharing = judge_sharing(0, busy_neighbour(), two_seconds_on(), own);
    ASSERT_TRUE(sharing);
    EXPECT_EQ(sharing->device, 0);
    EXPECT_EQ(sharing->method, "per-process utilization");
    ASSERT_EQ(sharing->processes.size(), 1u) << "cudacheck itself and the idle context holder are not named";
    EXPECT_EQ(sharing->processes[0], (SharingProcess{477, "python3", 99.0, 1130ull << 20}));
    EXPECT_EQ(describe_sharing(*sharing), "pid 477 python3 (SM 99%, 1.1 GiB)");
}

TEST(GpuSharing, an_idle_gpu_or_cudacheck_alone_is_not_shared) {
    SharingSnapshot alone;
    alone.processes = std::vector<GpuProcess>{process(self, "cudacheck", 900)};
    alone.samples = std::vector<ProcessUtilizationSample>{{self, start + second, 97}};
    EXPECT_FALSE(judge_sharing(0, alone, two_seconds_on(), own));
    SharingSnapshot idle_holder = alone;  // another process holds a context but used no SM time
    idle_holder.processes->push_back(process(503, "python3", 612));
    EXPECT_FALSE(judge_sharing(0, idle_holder, two_seconds_on(), own));
    SharingSnapshot no_samples = alone;  // NVML_ERROR_NOT_FOUND: nobody used the GPU since
    no_samples.samples = std::vector<ProcessUtilizationSample>{};
    EXPECT_FALSE(judge_sharing(0, no_samples, two_seconds_on(), own));
}

TEST(GpuSharing, only_samples_within_a_timed_window_count) {
    SharingSnapshot snapshot = busy_neighbour();
    // More than a sample period before the window or after it: the neighbour ran, but not then.
    (*snapshot.samples)[1].timestamp_us = start - utilization_sample_period_us - 1;
    EXPECT_FALSE(judge_sharing(0, snapshot, two_seconds_on(), own));
    // Within a period before it: the last sample taken before a window shorter than the period.
    (*snapshot.samples)[1].timestamp_us = start - utilization_sample_period_us / 2;
    EXPECT_TRUE(judge_sharing(0, snapshot, two_seconds_on(), own));
    (*snapshot.samples)[1].timestamp_us = start + 2 * second + utilization_sample_period_us + 1;
    EXPECT_FALSE(judge_sharing(0, snapshot, two_seconds_on(), own));
    // Within a period after the end: the sample covers the window's last moments.
    (*snapshot.samples)[1].timestamp_us = start + 2 * second + utilization_sample_period_us / 2;
    EXPECT_TRUE(judge_sharing(0, snapshot, two_seconds_on(), own));
    // A window on another GPU says nothing of this one.
    EXPECT_FALSE(judge_sharing(0, busy_neighbour(), two_seconds_on(1), own));
    (*snapshot.samples)[1].sm_percent = 0;
    EXPECT_FALSE(judge_sharing(0, snapshot, two_seconds_on(), own)) << "a sample of 0% is no use";
}

// NVML's pids of another PID namespace (a container without the host's): cudacheck's own is not
// among those listed; two busy pids in a window mean cudacheck and someone else.
TEST(GpuSharing, in_another_pid_namespace_two_busy_processes_mean_a_neighbour) {
    SharingSnapshot snapshot;
    snapshot.processes = std::vector<GpuProcess>{process(91234, "", 900)};
    snapshot.samples = std::vector<ProcessUtilizationSample>{{91234, start + second, 97}};
    EXPECT_FALSE(judge_sharing(0, snapshot, two_seconds_on(), own))
        << "cudacheck alone, under a number this namespace does not know";
    snapshot.processes->push_back(process(91300, "", 4000));
    snapshot.samples->push_back({91300, start + second, 45});
    const std::optional<GpuSharing> sharing = judge_sharing(0, snapshot, two_seconds_on(), own);
    ASSERT_TRUE(sharing);
    EXPECT_EQ(sharing->method, "per-process utilization, other PID namespace");
    EXPECT_EQ(sharing->processes.size(), 2u);
    EXPECT_EQ(describe_sharing(*sharing), "pid 91234 (SM 97%), pid 91300 (SM 45%)");
}

// Without per-process utilization (NVML_ERROR_NOT_SUPPORTED), the process list is the evidence.
TEST(GpuSharing, without_utilization_samples_the_process_list_decides) {
    SharingSnapshot snapshot = busy_neighbour();
    snapshot.samples.reset();
    const std::optional<GpuSharing> sharing = judge_sharing(0, snapshot, two_seconds_on(), own);
    ASSERT_TRUE(sharing);
    EXPECT_EQ(sharing->method, "process list");
    EXPECT_EQ(describe_sharing(*sharing), "pid 477 python3 (1.1 GiB), pid 503 python3 (612.0 MiB)");
    snapshot.processes =
        std::vector<GpuProcess>{process(91234, "", 900)};  // pids of another namespace: nothing to tell
    EXPECT_FALSE(judge_sharing(0, snapshot, two_seconds_on(), own));
    snapshot.processes.reset();  // NVML cannot list them either
    EXPECT_FALSE(judge_sharing(0, snapshot, two_seconds_on(), own));
}

}  // namespace
}  // namespace cudacheck
