// Facts read back out of a finished Report, for `diff`, `fleet`, `--expect` and the HTML page:
// which copy of each CUDA library the loader resolves (from the report's `libraries` section), and
// dotted version numbers compared as numbers.
#pragma once

#include "report/report.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One copy of a library as the report's `libraries` section records it, for the views that list
// copies (HTML): the loader's pick of each soname first, then the other copies.
struct LibraryCopyView {
    std::string library;    // the library table's name, "cuDNN"
    std::string soname;     // "libcudnn.so.9"
    std::string version;    // "9.19.0.56"; empty when unknown
    std::string origin;     // "system", "toolkit", "pip_wheel", ...
    std::string path;       // as the loader opens it, or as the copy was found
    std::string real_path;  // symbolic links resolved
    bool loaded_by_loader = false;  // the copy ld.so gives a C/C++ program for this soname
};

// The family of driver.kernel_log's figures, one per GPU and Xid: the Xid events the driver logged
// since boot (labels `gpu`, an NVML index or a PCI address, and `xid`). Fleet sums them per node;
// Prometheus exports them although they are counts.
inline constexpr std::string_view xid_events_family = "xid_events";

// Whether libraries.resolution ran but the report has no `libraries` section: a report written
// before schema 1.10.0, whose library facts are only evidence text, which is not read back.
[[nodiscard]] bool libraries_predate_section(const Report& report);
// Said wherever such a report's libraries would have been compared or judged.
inline constexpr std::string_view libraries_predate_section_text =
    "the report predates the `libraries` section (schema 1.10.0): its library copies are not recorded as data";
// The loader's pick of each soname, library by library; empty without a `libraries` section.
[[nodiscard]] std::vector<const LibraryResolutionInfo*> resolved_libraries(const Report& report);
// Every copy, the loader's pick of each soname first; empty without a `libraries` section.
[[nodiscard]] std::vector<LibraryCopyView> library_copies(const Report& report);
// The loader's pick as libraries.resolution's evidence says it:
// "9.14.0 system /lib/libcudnn.so.9 -> /lib/libcudnn.so.9.14.0 (ld.so.cache)".
[[nodiscard]] std::string describe_resolution(const LibraryResolutionInfo& resolution);
// A copy as that evidence says it: "9.19.0.56 pip_wheel (nvidia-cudnn-cu13) /site/nvidia/cudnn/lib/libcudnn.so.9".
[[nodiscard]] std::string describe_copy(const LibraryCopyInfo& copy);
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
