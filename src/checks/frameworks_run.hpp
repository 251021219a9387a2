// frameworks.run (--level full): each framework's own interpreter runs its smallest GPU operation,
// and what the framework says of itself is held against what frameworks.builds predicted from its
// files. The pure judge, for unit tests.
#pragma once

#include "probes/python/frameworks_probe.hpp"
#include "report/result_builder.hpp"
#include "util/expected.hpp"

#include <chrono>
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

// The marker line's JSON out of the interpreter's output; the error when there is none, or it is
// not a JSON object.
[[nodiscard]] Expected<FrameworkSelfReport> parse_self_report(std::string_view output);

// A framework child's output as it streams (were only the first MiB kept, a report
// line printed after 1 MiB of warnings would read as "exited before reporting"). All of it is read, up
// to output_limit bytes, and what is kept is bounded: the last line holding the report marker,
// wherever it is (at most report_line_limit bytes of it), and the last tail_limit bytes for the
// message when there is no report.
class FrameworkOutput {
public:
    static constexpr std::size_t output_limit = std::size_t{256} << 20;  // read no more than this
    static constexpr std::size_t report_line_limit = std::size_t{1} << 20;
    static constexpr std::size_t tail_limit = std::size_t{64} << 10;

    // False once output_limit is reached: the rest is not read.
    bool add(std::string_view chunk);
    void finish();  // the end of output: a last line without newline counts
    [[nodiscard]] const std::string& report_line() const { return report_line_; }  // "" when none
    [[nodiscard]] const std::string& tail() const { return tail_; }
    [[nodiscard]] std::size_t bytes() const { return bytes_; }
    [[nodiscard]] bool over_limit() const { return bytes_ >= output_limit; }

private:
    void end_line();
    std::string line_;         // the line being read: from its marker on, or a bounded end of it
    bool line_marked_ = false;  // line_ starts at a marker
    bool line_cut_ = false;     // the marked line ran past report_line_limit
    std::string report_line_;
    std::string tail_;
    std::size_t bytes_ = 0;
};

struct FrameworkRunOutcome {
    bool started = false;
    bool timed_out = false;
    int exit_status = 0;
    std::string output_tail = {};  // the last lines of its output, for the message
    std::size_t output_bytes = 0;  // how much it printed (read up to FrameworkOutput::output_limit)
    std::string report_error = {};  // why its report line could not be read; "" when there was none
    std::optional<FrameworkSelfReport> report = {};
    double seconds = 0.0;
};

// Runs a framework's child (`argv`: the interpreter, "-c", the script) within `limit`, reading all
// of its output through FrameworkOutput; its report parsed where it printed one.
[[nodiscard]] FrameworkRunOutcome run_framework_child(const std::vector<std::string>& argv,
                                                      std::chrono::milliseconds limit);

// The last `lines` lines of a child's output, on one line (" | " between them), for a message.
[[nodiscard]] std::string tail_lines(const std::string& output, std::size_t lines);

void judge_framework_run(const std::string& subject, const FrameworkFacts& framework,
                         const FrameworkRunOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
