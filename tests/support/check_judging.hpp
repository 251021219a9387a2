// Judging a check without a machine: judge() and judged() run a judge as its check does, on
// hand-built facts (an Ubuntu host with one H200) or a hand-built outcome of a GPU check, and
// CheckHarness gives a check's entry point a context (tests/unit/checks/).
#pragma once

#include "engine/check.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/probes.hpp"
#include "report/report.hpp"
#include "report/result_builder.hpp"
#include "support/test_support.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck::test {

// Runs a judge as check `check_id` does, and fails when it raised a code the check does not declare.
template <typename Judge>
CheckResult judge(std::string check_id, Judge&& run) {
    ResultBuilder builder;
    run(builder);
    CheckResult result = std::move(builder).finish(std::move(check_id), std::nullopt);
    test::expect_codes_declared(result);
    return result;
}

// A GPU check's pure judge on a hand-built outcome, as judge() runs a host check's judge.
//   CheckResult judged(const FftOutcome& outcome) { return test::judged("cufft.fft", judge_fft, outcome); }
template <typename Outcome, typename Judge>
[[nodiscard]] CheckResult judged(std::string check_id, Judge judge_outcome, const Outcome& outcome) {
    return judge(std::move(check_id), [&](ResultBuilder& builder) { judge_outcome(outcome, builder); });
}

// The process's environment, default options, probes that have gathered nothing yet, and the
// devices given.
struct CheckHarness {
    Environment environment;
    RunOptions options;
    Probes probes{environment};
    [[nodiscard]] CheckContext make(std::vector<int> devices) {
        return CheckContext{options, environment, probes, std::nullopt, std::move(devices)};
    }
};

inline const Finding* finding_with(const CheckResult& result, std::string_view code) {
    for (const Finding& finding : result.findings)
        if (finding.code == code) return &finding;
    return nullptr;
}

inline const Metric* metric(const CheckResult& result, std::string_view name) {
    for (const Metric& entry : result.metrics)
        if (entry.name == name) return &entry;
    return nullptr;
}

inline HostInfo bare_host() {
    HostInfo host;
    host.os_pretty_name = "Ubuntu 24.04.3 LTS";
    host.kernel_release = "6.8.0-45-generic";
    host.architecture = "x86_64";
    host.libc_version = "glibc 2.39";
    return host;
}

inline KernelModuleFacts loaded_module(std::string version = "580.159.04") {
    KernelModuleFacts facts;
    facts.module = ModuleVersion{std::move(version), true, "x86_64"};
    facts.gpus.push_back({"0000:00:06.0", "NVIDIA H200", "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa"});
    facts.nodes = {{"/dev/nvidiactl", true, true, ""},
                   {"/dev/nvidia0", true, true, ""},
                   {"/dev/nvidia-uvm", true, true, ""}};
    facts.pci_devices.push_back({"0000:00:06.0", "nvidia"});
    return facts;
}

inline DeviceInfo h200(int ordinal = 0) {
    DeviceInfo device;
    device.ordinal = ordinal;
    device.name = "NVIDIA H200";
    device.cc_major = 9;
    device.cc_minor = 0;
    device.architecture = "Hopper";
    device.multiprocessors = 132;
    device.total_memory_bytes = 150754820096ULL;
    device.compute_mode = "default";
    device.pci_bus_id = "00000000:00:06.0";
    return device;
}

}  // namespace cudacheck::test
