// Hand-built facts and outcomes of GPU checks that more than one suite judges: a healthy H200 as
// NVML describes it (device.health) and a steady gpu.stress run at the GPU's power cap.
#pragma once

#include "checks/gpu_stress.hpp"
#include "probes/nvml/nvml_health.hpp"

#include <cstdint>
#include <vector>

namespace cudacheck::test {

// A healthy H200 as NVML describes it: ECC on without errors, no remaps, idle, link at maximum.
inline NvmlDeviceHealth healthy_h200() {
    NvmlDeviceHealth gpu;
    gpu.name = "NVIDIA H200";
    gpu.uuid = "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa";
    gpu.pci_bus_id = "00000000:00:06.0";
    gpu.ecc_current = gpu.ecc_pending = true;
    gpu.ecc_corrected_volatile = gpu.ecc_uncorrected_volatile = gpu.ecc_corrected_aggregate =
        gpu.ecc_uncorrected_aggregate = 0;
    gpu.remapped_rows_corrected = gpu.remapped_rows_uncorrected = 0;
    gpu.remap_pending = gpu.remap_failed = false;
    gpu.clocks_event_reasons = clocks_event::gpu_idle;
    gpu.temperature_c = 31;
    gpu.power_mw = 76000;
    gpu.power_limit_mw = 700000;
    gpu.pcie_generation = gpu.pcie_max_generation = 5;
    gpu.pcie_width = gpu.pcie_max_width = 16;
    gpu.persistence_mode = true;
    gpu.compute_mode = "default";
    gpu.mig_current = gpu.mig_pending = false;
    return gpu;
}

// What NVML answered at `seconds` into a gpu.stress run: 1980 MHz and 650 W, for `reasons`.
inline NvmlClockSample clock_sample(double seconds, std::uint64_t reasons, unsigned int temperature = 60) {
    NvmlClockSample result;
    result.seconds = seconds;
    result.sm_clock_mhz = 1980;
    result.clocks_event_reasons = reasons;
    result.temperature_c = temperature;
    result.power_mw = 650000;
    return result;
}

// 20 s of BF16 GEMMs at ~780 TFLOP/s, the reference product within tolerance, and NVML sampled
// every half second at the power cap.
inline StressOutcome healthy_stress() {
    StressOutcome outcome;
    outcome.work = "BF16 8192^3 GEMM (FP32 accumulation and output)";
    outcome.seconds = 20.1;
    outcome.results = 14000;
    outcome.words_per_result = 8192ull * 8192ull;
    outcome.reference.relative_error = 3e-6;
    outcome.reference.non_finite = 0;
    outcome.reference.count = 128;
    outcome.tolerance = 1e-3;
    outcome.tflops_per_second = {790, 785, 782, 780, 781, 779, 780, 778, 779, 780};
    outcome.samples = std::vector<NvmlClockSample>{};
    for (int i = 0; i < 40; ++i) outcome.samples->push_back(clock_sample(i * 0.5, clocks_event::sw_power_cap));
    return outcome;
}

}  // namespace cudacheck::test
