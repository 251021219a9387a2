// Facts read back out of a finished Report, for `diff` and `--expect`: which copy of each CUDA
// library the loader resolves (from the libraries.resolution check's evidence), and dotted
// version numbers compared as numbers.
#pragma once

#include "cudacheck/report.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One soname as libraries.resolution found it: "9.19.0.56 pip_wheel /x/libcudnn.so.9 (LD_LIBRARY_PATH)".
struct ResolvedLibrary {
    std::string soname;   // "libcudnn.so.9"
    std::string version;  // "9.19.0.56"; empty when unknown
    std::string origin;   // "system_package", "toolkit", "pip_wheel", ...
    std::string path;     // where the loader finds it (after "->": the file it resolves to)
    std::string listed_path;  // as listed, before any "->"
    std::string text;     // the whole evidence value
    bool loaded_by_loader = true;  // false for the copies ld.so does not pick ("also ...")
};

// The libraries the loader resolves, in the check's order; empty when libraries.resolution did
// not run. Copies off the loader's path ("also ...", "not on the loader's path: ...") are left out.
[[nodiscard]] std::vector<ResolvedLibrary> resolved_libraries(const Report& report);
// Every copy libraries.resolution found, the loader's pick of each soname first.
[[nodiscard]] std::vector<ResolvedLibrary> library_copies(const Report& report);
// The processes that shared a GPU with a check: "pid 477 python3 (SM 99%, 1.1 GiB)", several
// joined with ", ".
[[nodiscard]] std::string describe_sharing(const GpuSharing& sharing);
// "driver.libcuda", or "cuda.kernel[0]" for a per-device result.
[[nodiscard]] std::string check_label(const CheckResult& result);
// Whether a metric measures performance (a rate, bandwidth, time or share of a peak) rather than
// counting elements or measuring an error: only those are compared by `diff` and shown as figures.
[[nodiscard]] bool is_performance_figure(const Metric& metric);
// Whether the report contains a result of this check (any device).
[[nodiscard]] bool has_check(const Report& report, std::string_view check_id);

// "580.159.04" -> {580, 159, 4}; empty when not dotted numbers (a leading "v" is accepted).
[[nodiscard]] std::optional<std::vector<long>> parse_dotted_version(std::string_view text);
// Compares `version` with a bound, on the bound's components only: 12.9.86 equals the bound 12.9,
// so "at most 12.9" admits every 12.9.x. Negative, zero or positive like strcmp.
[[nodiscard]] int compare_with_bound(const std::vector<long>& version, const std::vector<long>& bound);

}  // namespace cudacheck
