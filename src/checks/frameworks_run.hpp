// frameworks.run (--level full): each framework's own interpreter runs its smallest GPU operation,
// and what the framework says of itself is held against what frameworks.builds predicted from its
// files. The pure judge, for unit tests.
#pragma once

#include "cudacheck/result_builder.hpp"
#include "probes/frameworks_probe.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// What a framework's process reported, from the JSON line its script prints last.
struct FrameworkSelfReport {
    bool ok = false;             // the GPU operations ran and their results matched the CPU's
    std::string error;           // the exception, when not ok
    std::string version;         // torch.__version__, jax.__version__, cupy.__version__
    std::optional<std::string> cuda;   // torch.version.cuda; CuPy's runtime version as "13.2"
    std::optional<std::string> cudnn;  // torch.backends.cudnn.version() as "9.19.0"
    std::vector<std::string> arch_list;  // torch.cuda.get_arch_list()
    std::vector<std::string> devices;    // the framework's names of its GPU devices
    std::vector<std::string> mapped;     // CUDA library files mapped in the process (real paths)
    std::vector<std::string> checks;     // what it ran: "matmul", "conv2d (cuDNN)", ...
};

// The script each framework runs (Python source); "" for a framework without one.
[[nodiscard]] std::string framework_probe_script(std::string_view framework);

// The marker line's JSON out of the interpreter's output; nullopt when there is none.
[[nodiscard]] std::optional<FrameworkSelfReport> parse_self_report(std::string_view output, std::string& error);

struct FrameworkRunOutcome {
    bool started = false;
    bool timed_out = false;
    int exit_status = 0;
    std::string output_tail = {};  // the last lines of its output, for the message
    std::optional<FrameworkSelfReport> report = {};
    double seconds = 0.0;
};

// The last `lines` lines of a child's output, on one line (" | " between them), for a message.
[[nodiscard]] std::string tail_lines(const std::string& output, std::size_t lines);

void judge_framework_run(const std::string& subject, const FrameworkFacts& framework, const FrameworkRunOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
