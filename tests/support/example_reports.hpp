// The recorded example reports (docs/examples/) as tests edit them: a result or a metric by name,
// and a libraries.resolution result of a chosen cuDNN version.
#pragma once

#include "report/report.hpp"
#include "report/report_json.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cudacheck::test {

inline const std::string source_dir = CUDACHECK_SOURCE_DIR;

inline Report example_report(const std::string& relative) {
    Expected<Report> report = read_report_file(source_dir + "/docs/examples/" + relative);
    if (!report) throw std::runtime_error(report.error().message);
    return std::move(*report);
}

inline CheckResult* find_result(Report& report, std::string_view id) {
    for (CheckResult& result : report.checks)
        if (result.check_id == id) return &result;
    return nullptr;
}

inline Metric* find_metric(Report& report, std::string_view id, std::string_view name) {
    CheckResult* result = find_result(report, id);
    if (result == nullptr) return nullptr;
    for (Metric& metric : result->metrics)
        if (metric.name == name) return &metric;
    return nullptr;
}

// A libraries.resolution result as the check writes it (see checks/libraries_resolution.cpp).
inline CheckResult resolution_result(const std::string& cudnn_version) {
    CheckResult result;
    result.check_id = "libraries.resolution";
    result.message = "every CUDA library resolves once";
    result.evidence = {{"libcublas.so.13",
                        "13.0.2.14 toolkit /usr/local/cuda/lib64/libcublas.so.13 -> "
                        "/usr/local/cuda/lib64/libcublas.so.13.0.2.14 (ld.so.cache)"},
                       {"libcudnn.so.9",
                        cudnn_version + " system_package /usr/lib/x86_64-linux-gnu/libcudnn.so.9 (ld.so.cache)"},
                       {"libcudnn.so.9", "also 9.8.0.87 pip_wheel (nvidia-cudnn-cu12) /venv/lib/libcudnn.so.9"},
                       {"ld_so_cache", "read"}};
    return result;
}

// The `libraries` section written with resolution_result(cudnn_version): the same copies as data.
inline LibrariesInfo resolution_section(const std::string& cudnn_version) {
    const LibraryCopyInfo cublas{.soname = "libcublas.so.13",
                                 .path = "/usr/local/cuda/lib64/libcublas.so.13",
                                 .real_path = "/usr/local/cuda/lib64/libcublas.so.13.0.2.14",
                                 .version = "13.0.2.14",
                                 .origin = "toolkit",
                                 .package = ""};
    const LibraryCopyInfo system_cudnn{.soname = "libcudnn.so.9",
                                       .path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
                                       .real_path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
                                       .version = cudnn_version,
                                       .origin = "system_package",
                                       .package = ""};
    const LibraryCopyInfo wheel_cudnn{.soname = "libcudnn.so.9",
                                      .path = "/venv/lib/libcudnn.so.9",
                                      .real_path = "/venv/lib/libcudnn.so.9",
                                      .version = "9.8.0.87",
                                      .origin = "pip_wheel",
                                      .package = "nvidia-cudnn-cu12"};
    const auto picked = [](const LibraryCopyInfo& copy) {
        return LibraryResolutionInfo{.soname = copy.soname,
                                     .path = copy.path,
                                     .real_path = copy.real_path,
                                     .rule = "ld.so.cache",
                                     .version = copy.version,
                                     .origin = copy.origin,
                                     .package = copy.package};
    };
    return LibrariesInfo{.found = {LibraryInfo{.name = "cuBLAS",
                                               .sonames = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"},
                                               .resolved = {picked(cublas)},
                                               .copies = {cublas}},
                                   LibraryInfo{.name = "cuDNN",
                                               .sonames = {"libcudnn.so.9"},
                                               .resolved = {picked(system_cudnn)},
                                               .copies = {system_cudnn, wheel_cudnn}}},
                         .ld_so_cache = "read",
                         .directories_searched = 12,
                         .loaded_by_cudacheck = {}};
}

// The recorded report with its libraries.resolution replaced by resolution_result(cudnn_version),
// and the `libraries` section that goes with it.
inline Report example_with_resolution(const std::string& relative, const std::string& cudnn_version) {
    Report report = example_report(relative);
    if (CheckResult* recorded = find_result(report, "libraries.resolution"))
        *recorded = resolution_result(cudnn_version);
    else report.checks.push_back(resolution_result(cudnn_version));
    report.libraries = resolution_section(cudnn_version);
    return report;
}

}  // namespace cudacheck::test
