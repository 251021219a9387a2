// Figures of reports written before schema 1.10.0, which have a flat name and a unit only
// ("gemm_fp16_8192", "gpu0.temperature"): read back, each takes the family, labels and help the
// check now writes for it, so that every consumer reads old and new reports alike from data.
// The names of those versions are a closed set: this table is frozen (a figure added since is
// written with its family and never comes here), and it is the one place a metric name is taken
// apart.
#pragma once

#include "report/result.hpp"

#include <string_view>

namespace cudacheck {

// Gives `metric` (of check `check_id`, read without a family) the family, labels and help of the
// name it was written under; leaves it without one when the name is none the checks wrote.
void upgrade_legacy_metric(std::string_view check_id, Metric& metric);

// The peaks older cublas.gemm and cuda.memory results gave as a share only (gemm_<precision>_peak,
// device_to_device_theoretical_bandwidth), as figures of their own after the share, as the checks
// now write them; a result that has them is left as it is. Only the HTML charts ask for them: a
// report read back keeps the figures it was written with, so that Prometheus, diff and fleet
// give for it what they always gave.
void add_legacy_peaks(CheckResult& result);

}  // namespace cudacheck
