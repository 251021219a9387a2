// `cudacheck diff A.json B.json`: what changed between two reports (two machines, or one machine
// before and after an upgrade): versions, the libraries the loader resolves, devices and their
// properties, check statuses, and performance figures that moved by more than a threshold.
#pragma once

#include "report/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

struct Difference {
    std::string kind;     // "option" (level, strict), "version", "library", "device", "status", "metric"
    std::string subject;  // "driver", "libcudnn.so.9", "device 0 memory", "cuda.kernel[0]", "cublas.gemm[0]
                          // gemm_bf16_8192"
    std::string before;   // as in A; "absent" when A lacks it
    std::string after;    // as in B
    std::optional<double> change_percent;  // metrics: (B - A) / A in percent
};

struct ReportDiff {
    double threshold_percent = 10.0;
    std::vector<Difference> differences;
    // What could not be compared and why ("libraries: A predates the `libraries` section ..."):
    // said beside the differences, not counted among them (diff JSON 1.1.0).
    std::vector<std::string> not_compared;
};

// Devices are matched by CUDA ordinal and compared by what they are (name, compute capability,
// memory, clocks, ...), not by identity (UUID, PCI bus id): two nodes of one kind compare equal,
// and a redacted report compares with an unredacted one. Figures are performance figures only
// (not counts or error ratios, whose relative change means nothing).
[[nodiscard]] ReportDiff diff_reports(const Report& before, const Report& after, double threshold_percent);

}  // namespace cudacheck
