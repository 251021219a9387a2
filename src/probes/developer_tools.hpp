// A toolkit's developer tools: Nsight Systems (nsys), Nsight Compute (ncu), cuda-gdb,
// compute-sanitizer, cuobjdump and nvdisasm, each found in the toolkit's bin/ (else on PATH) and
// asked for its version; and what decides whether profiling GPU counters works here: the driver's
// RmProfilingAdminOnly (the module parameter NVreg_RestrictProfilingToAdminUsers, shown in
// /proc/driver/nvidia/params; 1 gives ncu's ERR_NVGPUCTRPERM to anyone but root) and
// /proc/sys/kernel/perf_event_paranoid (nsys's CPU sampling needs it at most 2).
#pragma once

#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

inline constexpr const char* developer_tool_names[] = {"nsys",      "ncu",     "cuda-gdb", "compute-sanitizer",
                                                       "cuobjdump", "nvdisasm"};

struct DeveloperTool {
    std::string name;     // "ncu"
    std::string path;     // empty when not found
    std::string version;  // "2025.3.1.0", "13.0", "13.0.85"; empty when it said none
    // Why it could not be asked, or what it printed instead of a version (its first line, after
    // "`--version` exited with status N: " when it failed too); empty when it has a version.
    std::string failure;
};

// The version in a tool's `--version` output: "Version 2025.3.1.0 (build ...)" (ncu,
// compute-sanitizer), "NVIDIA (R) cuda-gdb 13.0", "Cuda compilation tools, release 13.0, V13.0.85"
// (cuobjdump, nvdisasm: the V number), "NVIDIA Nsight Systems version 2025.3.2.474-..." (nsys).
[[nodiscard]] std::string parse_tool_version(std::string_view output);

struct ProfilingPermissions {
    std::optional<bool> admin_only;          // RmProfilingAdminOnly; none without the driver's params file
    std::optional<int> perf_event_paranoid;  // none when the file is absent
};
// "RmProfilingAdminOnly: 1" among /proc/driver/nvidia/params' lines.
[[nodiscard]] std::optional<bool> parse_profiling_admin_only(std::string_view params);
// Files under `root` ("" is the real system).
[[nodiscard]] ProfilingPermissions collect_profiling_permissions(const std::string& root = "");

// Each of developer_tool_names, in the toolkit at `toolkit_root` first, else on PATH; their
// `--version` calls run at once.
[[nodiscard]] std::vector<DeveloperTool> collect_developer_tools(const std::string& toolkit_root,
                                                                 const Environment& environment);

}  // namespace cudacheck
