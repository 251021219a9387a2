// host.limits: the process limits CUDA work runs under (ulimit, the control group's memory), each
// named as what it is before it shows up as a misleading CUDA error: an address-space
// limit makes cuInit fail with CUDA_ERROR_OUT_OF_MEMORY, a low open-files limit gives "Too many
// open files", a file-size limit kills a writer with SIGXFSZ, a tiny stack kills Python and nvcc as
// they start, and a process limit the user's threads fill makes every fork and thread fail.
#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/units.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

// Measured on the H200 machine (docs/examples/h200/issue18/limits-facts.txt, bench/limits_facts_on_gpu.sh):
// cuInit fails with CUDA_ERROR_OUT_OF_MEMORY under `ulimit -v` 8,000,000 KiB (7.6 GiB) and
// succeeds from 16,000,000 KiB (15.3 GiB), for one GPU; the reservation grows with the GPUs' and
// the host's memory, so any finite limit is a risk, and one below this is a failure.
constexpr std::uint64_t address_space_cuda_fails_below = std::uint64_t{16} << 30;
// The soft limit most distributions start with; PyTorch's DataLoader shares each batch's tensors
// through descriptors and exhausts less.
constexpr std::uint64_t open_files_wanted = 1024;
// RDMA registration pins a job's communication buffers: NCCL's and MPI's guides ask for unlimited.
constexpr std::uint64_t locked_memory_wanted = std::uint64_t{64} << 20;
// Measured on Debian 12: Python 3.11 and nvcc 13.0 die with SIGSEGV as they start under
// `ulimit -s 64` and run under 128 (KiB); compilers on large code and Python extensions need more,
// and the usual limit is 8 MiB. Below the first a failure, below the second a warning.
constexpr std::uint64_t stack_fails_below = std::uint64_t{256} << 10;
constexpr std::uint64_t stack_wanted = std::uint64_t{1} << 20;
// Processes and threads a run needs beyond what the user already runs. Measured as an ordinary user
// on a machine without a GPU: `--level full` ran every check under `ulimit -u 24` and not
// under 16 (the check process's threads, the compilers and interpreters it starts). With GPUs each
// per-device check takes a thread per GPU and CUDA starts threads of its own per context, and CUDA
// jobs start many more: 256 leaves room for eight GPUs.
constexpr std::uint64_t process_room_wanted = 256;
// Host memory a CUDA process needs besides its data: the CUDA libraries (cuBLAS(Lt) and cuDNN are
// hundreds of MiB each) and a framework.
constexpr std::uint64_t cgroup_headroom_wanted = std::uint64_t{4} << 30;

void evidence_limit(ResultBuilder& result, const char* name, const Limit& limit, bool bytes) {
    const auto text = [bytes](const std::optional<std::uint64_t>& value) {
        return bytes ? limit_bytes_text(value) : limit_count_text(value);
    };
    if (bytes && limit.soft && limit.soft == limit.hard) result.evidence_bytes(name, *limit.soft);
    else
        result.evidence(name, limit.soft == limit.hard
                                  ? text(limit.soft)
                                  : fmt::format("{} (hard limit {})", text(limit.soft), text(limit.hard)));
}

}  // namespace

bool explain_out_of_memory_init(const ProcessLimits& limits, ResultBuilder& result) {
    const bool address_space = limits.address_space.soft.has_value();
    if (!address_space && !limits.data.soft) return false;
    const char* which = address_space ? "address-space limit (ulimit -v)" : "data-segment limit (ulimit -d)";
    const std::uint64_t value = address_space ? *limits.address_space.soft : *limits.data.soft;
    result.evidence(address_space ? "address_space_limit" : "data_limit",
                    fmt::format("{} ({} KiB)", format_bytes(value), value >> 10));
    result.add(Code::address_space_limited,
               fmt::format("cuInit failed: CUDA_ERROR_OUT_OF_MEMORY under the {} of {}, though no memory is short",
                           which, format_bytes(value)),
               fmt::format("Lift the limit where the job starts (`ulimit {} unlimited`, or at least {} KiB for one "
                           "GPU); for a service remove "
                           "`{}=`.",
                           address_space ? "-v" : "-d", address_space_cuda_fails_below >> 10,
                           address_space ? "LimitAS" : "LimitDATA"));
    return true;
}

void judge_limits(const ProcessLimits& limits, const HostInfo& host, ResultBuilder& result) {
    evidence_limit(result, "address_space", limits.address_space, true);
    evidence_limit(result, "data", limits.data, true);
    evidence_limit(result, "open_files", limits.open_files, false);
    evidence_limit(result, "locked_memory", limits.locked_memory, true);
    evidence_limit(result, "file_size", limits.file_size, true);
    evidence_limit(result, "stack", limits.stack, true);
    evidence_limit(result, "processes", limits.processes, false);
    if (limits.user_tasks) result.evidence("user_processes_and_threads", std::to_string(*limits.user_tasks));
    if (limits.may_lock_past_limit)
        result.evidence("cap_ipc_lock", "yes: this process may lock memory past RLIMIT_MEMLOCK");
    if (!limits.rdma_devices.empty())
        result.evidence("rdma_devices", fmt::format("{}", fmt::join(limits.rdma_devices, ", ")));

    if (const auto& soft = limits.address_space.soft) {
        const bool fails = *soft < address_space_cuda_fails_below;
        result.add(Code::address_space_limited,
                   fmt::format("the address-space limit (ulimit -v) is {} ({} KiB): {}", format_bytes(*soft),
                               *soft >> 10,
                               fails ? fmt::format("under {} cuInit fails with CUDA_ERROR_OUT_OF_MEMORY",
                                                   format_bytes(address_space_cuda_fails_below))
                                     : "cuInit fails under it with more GPUs or host memory"),
                   {}, fails ? std::nullopt : std::optional<Status>(Status::warn));
    }
    if (const auto& soft = limits.open_files.soft; soft && *soft < open_files_wanted)
        result.add(Code::open_files_limited,
                   fmt::format("the open-files limit (ulimit -n) is {}{}: CUDA work needs more (\"Too many open "
                               "files\")",
                               *soft,
                               limits.open_files.hard ? fmt::format(", hard limit {}", *limits.open_files.hard)
                                                      : std::string(", no hard limit")));
    if (const auto& soft = limits.locked_memory.soft;
        soft && *soft < locked_memory_wanted && !limits.may_lock_past_limit && !limits.rdma_devices.empty())
        result.add(Code::locked_memory_limited, fmt::format("the locked-memory limit (ulimit -l) is {} on a host with "
                                                            "{} RDMA device{}: NCCL over InfiniBand fails under it",
                                                            format_bytes(*soft), limits.rdma_devices.size(),
                                                            limits.rdma_devices.size() == 1 ? "" : "s"));
    if (const auto& cgroup = limits.cgroup_memory;
        cgroup && (host.memory_bytes == 0 || cgroup->limit_bytes < host.memory_bytes)) {
        result.evidence("cgroup_memory",
                        fmt::format("{} limits memory to {} (cgroup v{}){}", cgroup->path,
                                    format_bytes(cgroup->limit_bytes), cgroup->version,
                                    cgroup->used_bytes ? fmt::format(", {} in use", format_bytes(*cgroup->used_bytes))
                                                       : ""));
        const std::uint64_t used = cgroup->used_bytes.value_or(0);
        const std::uint64_t left = cgroup->limit_bytes > used ? cgroup->limit_bytes - used : 0;
        if (left < cgroup_headroom_wanted)
            result.add(Code::cgroup_memory_limited, fmt::format("the control group limits memory to {} and {} of it is "
                                                                "left: CUDA libraries and a framework take several GiB",
                                                                format_bytes(cgroup->limit_bytes), format_bytes(left)));
    }
    if (const auto& soft = limits.file_size.soft)
        result.add(Code::file_size_limited,
                   fmt::format("the file-size limit (ulimit -f) is {}: a process writing past it is killed by SIGXFSZ",
                               format_bytes(*soft)));
    if (const auto& soft = limits.stack.soft; soft && *soft < stack_wanted) {
        const bool fails = *soft < stack_fails_below;
        result.add(Code::stack_limit_small,
                   fmt::format("the stack-size limit (ulimit -s) is {} KiB{}: {}", *soft >> 10,
                               limits.stack.hard ? fmt::format(", hard limit {} KiB", *limits.stack.hard >> 10) : "",
                               fails ? "Python and nvcc die with SIGSEGV under 128 KiB"
                                     : "too little for compilers and Python extensions (usually 8 MiB)"),
                   {}, fails ? std::optional<Status>(Status::fail) : std::nullopt);
    }
    if (const auto& soft = limits.processes.soft; soft && !limits.exempt_from_process_limit) {
        const std::uint64_t used = limits.user_tasks.value_or(0);
        const std::uint64_t room = *soft > used ? *soft - used : 0;
        if (room < process_room_wanted)
            result.add(Code::process_limit_low, fmt::format("the process limit (ulimit -u, {}) leaves room for {} more "
                                                            "processes and threads, fewer than the {} CUDA work "
                                                            "takes",
                                                            *soft, room, process_room_wanted));
    }
    result.summary(
        "no limit CUDA work runs into (address space, open files, locked memory, file size, stack, processes, cgroup "
        "memory)");
}

std::unique_ptr<Check> make_host_limits_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "host.limits",
                  .title = "Process limits",
                  .description =
                      "ulimit and control-group limits CUDA work runs into: address space, open files, locked "
                      "memory, file size, cgroup memory",
                  .raises = {Code::address_space_limited, Code::open_files_limited, Code::locked_memory_limited,
                             Code::cgroup_memory_limited, Code::file_size_limited, Code::stack_limit_small,
                             Code::process_limit_low},
                  .answers = "`ulimit -v` (cuInit's CUDA_ERROR_OUT_OF_MEMORY), `-n`, `-l` with RDMA, `-f`, `-s` (a "
                             "stack compilers and Python "
                             "cannot start with), `-u` against the processes and threads the user runs, the cgroup's "
                             "memory limit"},
        [](CheckContext& context, ResultBuilder& result) {
            judge_limits(context.probes.limits(), context.probes.host(), result);
        });
}

const CheckRegistration host_limits_registration{150, make_host_limits_check};

}  // namespace cudacheck
