// toolkit.tools: the developer tools of the installed CUDA toolkits (nsys, ncu, cuda-gdb,
// compute-sanitizer, cuobjdump, nvdisasm) and whether profiling can work here, and its pure judge
// (unit tests drive it with hand-built facts).
#pragma once

#include "probes/developer_tools.hpp"
#include "probes/toolkit_probe.hpp"
#include "report/result_builder.hpp"

#include <string>
#include <sys/types.h>
#include <vector>

namespace cudacheck {

// The toolkit whose tools a developer here reaches for first: the one the nvcc on PATH runs from,
// else the one /usr/local/cuda points to, else the first one found. `root` is empty when no
// toolkit is installed (the tools on PATH are then all there is).
struct ToolsToolkitChoice {
    std::string root;
    std::string why;  // "the nvcc on PATH runs from it", "/usr/local/cuda points to it", ...
};
[[nodiscard]] ToolsToolkitChoice choose_tools_toolkit(const ToolkitFacts& toolkits);

// One toolkit's developer tools, in developer_tool_names' order.
struct DeveloperToolSet {
    std::string toolkit;  // its root; empty: no toolkit, the tools found on PATH
    std::string version;  // the toolkit's ("13.0.2"); empty when unknown
    std::string chosen;   // for the toolkit builds use, why it is that one; empty for the others
    std::vector<DeveloperTool> tools;
};

struct DeveloperToolFacts {
    // The toolkit builds use first (its tools found in its bin/, else on PATH), then every other
    // installed toolkit (its bin/ only).
    std::vector<DeveloperToolSet> toolkits;
    ProfilingPermissions permissions;
    uid_t effective_uid = 0;  // geteuid(): root is not held to either profiling restriction
};

void judge_developer_tools(const DeveloperToolFacts& facts, ResultBuilder& result);

}  // namespace cudacheck
