// The catalogue of findings: every problem cudacheck can report has a stable code, a severity, a
// one-line cause and a remediation. Codes are append-only: never renumber or reuse one, because
// scripts and support tickets refer to them. docs/errors.md is generated from this table
// (`cudacheck explain --markdown`) and a unit test fails when the two differ.
//
// Numbering: 1xx host and environment, 2xx driver, 3xx toolkit, 4xx CUDA pairing and devices,
// 5xx GPU work and CUDA libraries, 6xx where CUDA libraries resolve, 7xx expectations of a policy
// (--expect), 8xx `cudacheck inspect` input, 9xx cudacheck itself.
#pragma once

#include "cudacheck/result.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class Code : int {
    // host.os
    wsl1_no_gpu = 101,
    // env.variables
    cuda_home_missing = 110,
    cuda_home_differs_from_nvcc = 111,
    stub_dir_on_ld_library_path = 112,
    cuda_visible_devices_empty = 113,
    cuda_visible_devices_invalid = 114,
    cuda_launch_blocking = 115,
    cublas_workspace_config_invalid = 116,
    cuda_injection_path = 117,
    cuda_coredump_on_exception = 118,
    cuda_legacy_profiler = 119,
    cuda_cache_disabled = 120,
    cuda_module_loading_invalid = 121,
    cuda_device_order_invalid = 122,
    // driver.kernel_module
    kernel_module_not_loaded = 201,
    device_nodes_missing = 202,
    device_nodes_no_access = 203,
    nouveau_bound = 204,
    // driver.libcuda
    libcuda_not_found = 210,
    libcuda_stub = 211,
    cuinit_failed = 212,
    libcuda_module_mismatch = 213,
    libcuda_symbol_missing = 214,
    wsl_libcuda_not_from_windows = 215,
    // driver.nvml
    nvml_not_found = 220,
    nvml_version_mismatch = 221,
    nvml_init_failed = 222,
    // toolkit.nvcc
    nvcc_not_found = 301,
    nvcc_not_on_path = 302,
    nvcc_unusable = 303,
    cuda_symlink_differs = 304,
    // cuda.pairing
    driver_insufficient = 401,
    nvcc_newer_than_driver = 402,
    // cuda.devices
    no_device_visible = 410,
    no_device_present = 411,
    device_unsupported_by_runtime = 412,
    compute_mode_prohibited = 413,
    device_query_failed = 414,
    mig_without_instances = 415,
    device_exclusive_busy = 416,
    gpu_memory_held_by_others = 417,
    // device.health
    row_remap_failed = 420,
    row_remap_pending = 421,
    page_retirement_pending = 422,
    retired_pages_limit = 423,
    ecc_uncorrected_errors = 424,
    gpu_clocks_slowed = 425,
    pcie_link_degraded = 426,
    persistence_mode_off = 427,
    // GPU work: cuda.kernel, cuda.memory and the library checks
    cuda_call_failed = 501,
    gpu_out_of_memory = 502,
    no_kernel_image = 503,
    wrong_result = 504,
    library_not_found = 505,
    library_symbol_missing = 506,
    library_call_failed = 507,
    cudnn_sublibrary_missing = 508,
    cudnn_version_mismatch = 509,
    nvrtc_compile_failed = 510,
    ptx_too_new = 511,
    // cuda.p2p and nccl.allreduce: GPUs working together
    p2p_access_unavailable = 512,
    p2p_copy_corrupted = 513,
    p2p_bandwidth_low = 514,
    nccl_call_failed = 515,
    // gpu.stress and gpu.memtest: the GPU under sustained load (--level full)
    gpu_results_unstable = 516,
    gpu_throttled_under_load = 517,
    gpu_rate_dropped = 518,
    gpu_memory_pattern_mismatch = 519,
    // libraries.resolution
    library_outside_loader_path = 601,
    library_versions_differ = 602,
    cudnn_sublibraries_mixed = 603,
    library_cuda_major_mismatch = 604,
    // expect.* (--expect FILE: a CI job's or a cluster's policy, checked against the report)
    expect_driver_version = 701,
    expect_driver_cuda_version = 702,
    expect_runtime_version = 703,
    expect_toolkit_version = 704,
    expect_device_count = 705,
    expect_compute_capability = 706,
    expect_library_missing = 707,
    expect_library_version = 708,
    expect_performance_below_minimum = 709,
    expect_performance_not_measured = 710,
    expect_warning_not_allowed = 711,
    // cudacheck inspect: files it cannot read (its verdicts reuse CC503 and CC511)
    inspect_unreadable = 801,
    inspect_unrecognised = 802,
    inspect_malformed = 803,
    // cudacheck itself
    check_raised_exception = 901,
    check_crashed = 902,
    check_timed_out = 903,
};

struct CatalogEntry {
    Code code;
    std::string_view slug;         // stable kebab-case name, accepted by `explain` like the code
    Status severity;               // the usual status; a check may lower or raise it with a reason
    std::string_view title;        // a few words
    std::string_view cause;        // one line: why this happens
    std::string_view remediation;  // generic fix; checks give a specific one with the values found
    std::string_view raised_by;    // check ids, comma separated
};

// "CC201" for Code::kernel_module_not_loaded.
[[nodiscard]] std::string code_string(Code code);
[[nodiscard]] const CatalogEntry& catalog_entry(Code code);
[[nodiscard]] std::span<const CatalogEntry> catalog();
// Accepts "CC201", "cc201", "201" or the slug; empty when nothing matches.
[[nodiscard]] const CatalogEntry* find_catalog_entry(std::string_view code_or_slug);
// Up to `count` codes (with their slugs) closest to an unknown code or slug, e.g. "CC210 (libcuda-not-found)".
[[nodiscard]] std::string closest_catalog_codes(std::string_view code_or_slug, std::size_t count = 3);
// The docs anchor of a code in docs/errors.md, e.g. "docs/errors.md#cc201".
[[nodiscard]] std::string docs_anchor(Code code);

// A finding built from the catalog: status from the entry unless given, remediation required
// (specific to what was found; the catalog's generic text is the fallback).
[[nodiscard]] Finding make_finding(Code code, std::string message, std::string remediation = {},
                                   std::optional<Status> status = std::nullopt);

}  // namespace cudacheck
