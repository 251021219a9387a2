// host.os: what the machine is — distribution, kernel, libc, CPU, memory, container, WSL.
#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/units.hpp"

#include <fmt/format.h>

namespace cudacheck {

void judge_host_os(const HostInfo& host, ResultBuilder& result) {
    result.evidence("os", host.os_pretty_name.empty() ? "unknown (no /etc/os-release)" : host.os_pretty_name);
    result.evidence("kernel", host.kernel_release);
    result.evidence("architecture", host.architecture);
    result.evidence("libc", host.libc_version);
    result.evidence("cpu", fmt::format("{} ({} logical CPUs)", host.cpu_model.empty() ? "unknown" : host.cpu_model,
                                       host.logical_cpus));
    result.evidence_bytes("memory", host.memory_bytes);
    result.evidence("container", host.container.empty() ? "none detected" : host.container);
    result.evidence("wsl", host.wsl.empty() ? "no" : host.wsl);

    std::string where;
    if (!host.container.empty()) where = fmt::format(", in a {} container", host.container);
    if (!host.wsl.empty()) where += fmt::format(", under {}", host.wsl);
    result.summary(fmt::format("{}, kernel {}, {}, {}{}",
                               host.os_pretty_name.empty() ? "unknown Linux" : host.os_pretty_name, host.kernel_release,
                               host.libc_version, host.architecture, where));
    if (host.wsl == "WSL1")
        result.add(Code::wsl1_no_gpu,
                   fmt::format("running under WSL 1 (kernel {}), which cannot reach the GPU", host.kernel_release));
}

std::unique_ptr<Check> make_host_os_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "host.os",
                  .title = "Host system",
                  .description = "Distribution, kernel, libc, CPU, memory, container and WSL detection",
                  .raises = {Code::wsl1_no_gpu},
                  .answers = "distribution, kernel, glibc, CPU, memory; container (docker, podman, Kubernetes) and WSL "
                             "detection"},
        [](CheckContext& context, ResultBuilder& result) { judge_host_os(context.probes.host(), result); });
}

const CheckRegistration host_os_registration{100, make_host_os_check};

}  // namespace cudacheck
