// One root cause, one finding. On a machine where CUDA cannot work at all, because the
// NVIDIA kernel module is not loaded or its device files are missing or closed to this user (a
// container started without GPUs, a host without the driver), every check that needs the driver
// fails or is skipped for that one reason: driver.libcuda (CC210), driver.nvml (CC220) and every
// GPU check. The report then says it once: driver.kernel_module keeps its finding, and each check
// that needs the driver becomes a SKIP whose reason names that finding, in the same words for all
// of them. What a converted check had found stays in its evidence ("not_judged"), so `-v` and the
// JSON still show that libcuda.so.1 was absent. The report leads with the root cause: its check
// comes first.
#pragma once

#include "engine/check.hpp"
#include "report/result.hpp"

#include <vector>

namespace cudacheck {

// Rewrites `results` (of the checks in `checks`, run at `level`) as above; leaves them as they are
// unless driver.kernel_module failed with CC201, CC202 or CC203 for the whole machine and
// driver.libcuda failed too (a libcuda that works proves the module there). A check
// below the run's level keeps its own reason (it would not have run with a working driver either).
void attribute_to_root_cause(std::vector<CheckResult>& results, const std::vector<const Check*>& checks, Level level);

// The skip reason every check that needs the driver gets, e.g. "needs driver.kernel_module, which
// ended with fail (CC201)".
[[nodiscard]] std::string root_cause_reason(const CheckResult& root);

}  // namespace cudacheck
