// `cudacheck advise`'s document: per interpreter, the build of each framework that fits this
// machine (cuda/framework_builds.hpp's chooser) and what is installed against it, as a table or JSON.
#pragma once

#include "cuda/framework_builds.hpp"
#include "render/renderer.hpp"
#include "util/json_read.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cudacheck {

struct AdvisedEnvironment {
    std::string label;   // "/opt/torch/.venv (Python 3.12.3)"; "Python 3.12 (--python-version)" when given by hand
    std::string prefix;  // the environment's root; "" when none
    MajorMinor python;
    std::vector<BuildAdvice> advice;             // one per framework asked for
    std::vector<InstalledJudgement> installed;   // the frameworks installed there, judged
};

struct AdviceDocument {
    std::string tool_version;
    std::vector<std::string> argv;
    MachineFacts machine;
    std::string gpus_from;    // "the GPUs of this machine", "--arch"
    std::string driver_from;  // "this machine's driver", "--driver-cuda", "" when none
    std::string table_age;    // describe_table_age
    std::vector<AdvisedEnvironment> environments;
    std::vector<std::string> notes;  // why something is not advised (no interpreter found, no GPU)
    double duration_ms = 0;
    int exit_code = 0;
};

inline constexpr std::string_view advice_json_schema_version = "1.0.0";
[[nodiscard]] ordered_json to_json(const AdviceDocument& document);
void render_advice(const AdviceDocument& document, Format format, RenderOptions options, std::ostream& out);

}  // namespace cudacheck
