// The renderers' golden files (tests/golden/). A fixed report exercises every field; the rendered
// table and JSON must equal tests/golden/report.{txt,json}. The JSON's layout (its key paths and
// types) is pinned to json_schema_version in tests/golden/report.shape, so the layout cannot change
// without a version bump. Set CUDACHECK_UPDATE_GOLDEN=1 to rewrite the golden files after an
// intended change (the shape file is only rewritten when the version was bumped).
#pragma once

#include "render/renderer.hpp"
#include "report/report.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace cudacheck::test {

inline const std::string golden_dir = CUDACHECK_SOURCE_DIR "/tests/golden/";

inline Report golden_report() {
    Report report;
    report.tool_version = "0.1.0";
    report.timestamp_utc = "2026-11-30T01:40:00Z";
    report.argv = {"cudacheck", "--format", "json"};
    report.level = "standard";
    report.host = HostInfo{"node-7", "Ubuntu 24.04.3 LTS", "6.8.0-45-generic",
                           "x86_64", "glibc 2.39",         "AMD EPYC 9654 96-Core Processor",
                           16,       137438953472ULL,      "docker",
                           ""};
    report.versions = VersionInfo{"580.159.04", "13.0", "13.0", ""};
    DeviceInfo device;
    device.name = "NVIDIA H200";
    device.uuid = "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa";
    device.pci_bus_id = "00000000:00:06.0";
    device.cc_major = 9;
    device.architecture = "Hopper";
    device.total_memory_bytes = 150109880320ULL;
    device.multiprocessors = 132;
    device.sm_clock_khz = 1980000;
    device.memory_clock_khz = 3201000;
    device.memory_bus_width_bits = 6144;
    device.l2_cache_bytes = 62914560;
    device.ecc_enabled = true;
    device.compute_mode = "default";
    device.theoretical_bandwidth_gbps = 4917.1;
    device.fp32_peak_tflops = 66.9;
    device.source = "driver_api";
    device.nvml_index = 0;
    device.framebuffer_bytes = 150754820096ULL;
    report.devices = {device};

    CheckResult host;
    host.check_id = "host.os";
    host.message = "Ubuntu 24.04.3 LTS, kernel 6.8.0-45-generic, glibc 2.39, x86_64";
    host.evidence = {{"os", "Ubuntu 24.04.3 LTS"}};
    host.duration_ms = 0.5;
    CheckResult env;
    env.check_id = "env.variables";
    env.status = Status::warn;
    env.code = "CC115";
    env.message = "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for completion";
    env.remediation = "`unset CUDA_LAUNCH_BLOCKING` outside debugging sessions.";
    env.findings = {{Status::warn, env.code, env.message, env.remediation, std::nullopt},
                    {Status::warn, "CC117", "CUDA_INJECTION64_PATH=/opt/x.so is injected into every CUDA process",
                     "`unset CUDA_INJECTION64_PATH`.", std::nullopt}};
    env.duration_ms = 1.25;
    CheckResult devices;
    devices.check_id = "cuda.devices";
    devices.message = "1 x NVIDIA H200 (CC 9.0 Hopper, 132 SMs, 140.4 GiB)";
    devices.metrics = {{"device0.theoretical_memory_bandwidth",
                        4917.1,
                        "GB/s",
                        "gpu_theoretical_memory_bandwidth",
                        {{"device", "0"}},
                        "Theoretical memory bandwidth, from the memory clock and bus width."}};
    devices.duration_ms = 2.0;
    CheckResult kernel;
    kernel.check_id = "gpu.example";
    kernel.device = 0;
    kernel.status = Status::fail;
    kernel.code = "CC210";
    kernel.message = "libcuda.so.1 cannot be loaded";
    kernel.remediation = "Install the NVIDIA driver.";
    kernel.findings = {{Status::fail, kernel.code, kernel.message, kernel.remediation, 0}};
    CheckResult skipped;
    skipped.check_id = "cuda.pairing";
    skipped.status = Status::skip;
    skipped.message = skipped.skip_reason = "needs driver.libcuda, which ended with fail (CC210)";
    CheckResult frameworks;
    frameworks.check_id = "frameworks.builds";
    frameworks.status = Status::warn;
    frameworks.code = "CC622";
    frameworks.message =
        "PyTorch 2.11.0+cu130 in /opt/torch/.venv runs on GPU 0 (NVIDIA H200, sm_90) only through compute_80 PTX";
    frameworks.remediation = "Install a build with SASS for sm_90.";
    frameworks.findings = {
        {Status::warn, frameworks.code, frameworks.message, frameworks.remediation, 0, "/opt/torch/.venv: PyTorch"}};
    frameworks.duration_ms = 3.0;
    report.checks = {host, env, devices, kernel, skipped, frameworks};
    report.frameworks = std::vector<PythonEnvironmentInfo>{
        {.prefix = "/opt/torch/.venv",
         .kind = "virtual environment",
         .interpreter = "/opt/torch/.venv/bin/python3",
         .python_version = "3.12.3",
         .bare_python3 = true,
         .found_by = {"python3 on PATH"},
         .frameworks = {{.subject = "/opt/torch/.venv: PyTorch",
                         .framework = "PyTorch",
                         .distribution = "torch",
                         .version = "2.11.0+cu130",
                         .accelerator = "cuda",
                         .cuda = "13.0",
                         .gpu_code = {"compute_80"},
                         .libraries = {{"cuDNN", "libcudnn.so.9",
                                        "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
                                        "9.19.0.56", "pip_wheel", "nvidia-cudnn-cu13", "DT_RPATH of libtorch_cuda.so"}},
                         .unresolved = {},
                         .gpus = {{0, "ptx_jit", "compute_80 PTX, JIT-compiled by the driver"}},
                         .files = {"/opt/torch/.venv/lib/python3.12/site-packages/torch/version.py"},
                         .status = "warn",
                         .codes = {"CC622"}}}}};
    // Every field of the `libraries` section: a copy the loader picks, one it does not, one of a
    // wheel with its package, one of unknown version.
    report.libraries = LibrariesInfo{
        .found = {{.name = "cuDNN",
                   .sonames = {"libcudnn.so.9"},
                   .resolved = {{.soname = "libcudnn.so.9",
                                 .path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
                                 .real_path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0",
                                 .rule = "ld.so.cache",
                                 .version = "9.14.0",
                                 .origin = "system",
                                 .package = ""}},
                   .copies = {{.soname = "libcudnn.so.9",
                               .path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
                               .real_path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0",
                               .version = "9.14.0",
                               .origin = "system",
                               .package = ""},
                              {.soname = "libcudnn.so.9",
                               .path = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
                               .real_path = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/"
                                            "libcudnn.so.9",
                               .version = "9.19.0.56",
                               .origin = "pip_wheel",
                               .package = "nvidia-cudnn-cu13"}}},
                  {.name = "libcuda",
                   .sonames = {"libcuda.so.1"},
                   .resolved = {},
                   .copies = {{.soname = "libcuda.so.1",
                               .path = "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so",
                               .real_path = "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so",
                               .version = "",
                               .origin = "stub",
                               .package = ""}}}},
        .ld_so_cache = "649 entries in /etc/ld.so.cache",
        .directories_searched = 23,
        .loaded_by_cudacheck = {"/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0"}};
    report.summary = summarize(report.checks);
    report.exit_code = exit_code_for(report.summary, false);
    report.duration_ms = 42.0;
    report.redaction = Redaction{{"hostname", "device_ids"}, {"HF_TOKEN"}, 3};
    return report;
}

inline std::string render(Format format) {
    std::ostringstream out;
    make_renderer(format, RenderOptions{false, true})->render(golden_report(), out);
    return out.str();
}

inline bool updating() { return std::getenv("CUDACHECK_UPDATE_GOLDEN") != nullptr; }

inline void compare_with_golden(const std::string& name, const std::string& actual) {
    if (updating()) std::ofstream(golden_dir + name, std::ios::binary) << actual;
    EXPECT_EQ(test::read_text(golden_dir + name), actual)
        << "tests/golden/" << name << " differs (CUDACHECK_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace cudacheck::test
