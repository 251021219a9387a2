// toolkit.nvcc: is there a CUDA compiler, is it on PATH, which version, and which other toolkits
// are installed.
#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

void judge_toolkits(const ToolkitFacts& toolkits, ResultBuilder& result) {
    for (const Toolkit& toolkit : toolkits.toolkits)
        result.evidence("toolkit",
                        fmt::format("{} {} (found as {}){}", toolkit.root,
                                    toolkit.version.empty() ? "(version unknown)" : toolkit.version,
                                    fmt::join(toolkit.found_as, ", "), toolkit.nvcc.empty() ? ", no nvcc" : ""));
    if (!toolkits.cuda_symlink.empty())
        result.evidence("usr_local_cuda", "/usr/local/cuda -> " + toolkits.cuda_symlink);
    if (toolkits.path_nvcc.empty()) result.evidence("nvcc_on_path", "none");
    else if (toolkits.path_nvcc_root.empty())
        result.evidence("nvcc_on_path",
                        fmt::format("{} (not a toolkit's own nvcc: the toolkit it runs is found with "
                                    "`nvcc --dryrun`, which {})",
                                    toolkits.path_nvcc,
                                    toolkits.nvcc_not_run.empty() ? std::string("did not tell")
                                                                  : "is not run: " + toolkits.nvcc_not_run));
    else if (toolkit_root_of(toolkits.path_nvcc) != toolkits.path_nvcc_root)
        result.evidence("nvcc_on_path", fmt::format("{} (a wrapper that runs {}/bin/nvcc)", toolkits.path_nvcc,
                                                    toolkits.path_nvcc_root));
    else result.evidence("nvcc_on_path", toolkits.path_nvcc);

    if (toolkits.path_nvcc.empty()) {
        const Toolkit* with_nvcc = nullptr;
        for (const Toolkit& toolkit : toolkits.toolkits)
            if (!toolkit.nvcc.empty()) {
                with_nvcc = &toolkit;
                break;
            }
        if (with_nvcc == nullptr) {
            result.add(Code::nvcc_not_found,
                       toolkits.toolkits.empty()
                           ? "no CUDA toolkit found (PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda*, /opt/cuda)"
                           : "CUDA toolkit directories exist but none contains bin/nvcc");
            return;
        }
        result.add(Code::nvcc_not_on_path,
                   fmt::format("nvcc {} is installed at {} but not on PATH",
                               toolkits.nvcc_version ? toolkits.nvcc_version->full : with_nvcc->version,
                               with_nvcc->nvcc),
                   fmt::format("Add it to PATH: `export PATH={}/bin:$PATH` (put the line in ~/.bashrc to keep it).",
                               with_nvcc->root));
    }
    // --level quick: nvcc is not run, so whether it runs (CC nvcc_unusable) is left to --level
    // standard; its version is what its toolkit's files say, and the summary says so.
    if (!toolkits.nvcc_not_run.empty()) {
        result.evidence("nvcc_version",
                        toolkits.nvcc_version
                            ? fmt::format("{} ({}; nvcc not run: {})", toolkits.nvcc_version->full,
                                          toolkits.nvcc_version_source, toolkits.nvcc_not_run)
                            : "unknown: no version.json or include/cuda.h beside it, and nvcc not run: " +
                                  toolkits.nvcc_not_run);
        if (!toolkits.path_nvcc_root.empty() && !toolkits.cuda_symlink.empty() &&
            toolkits.path_nvcc_root != toolkits.cuda_symlink)
            result.add(Code::cuda_symlink_differs,
                       fmt::format("nvcc on PATH belongs to {} but /usr/local/cuda points to {}",
                                   toolkits.path_nvcc_root, toolkits.cuda_symlink));
        result.summary(
            fmt::format("nvcc {}at {}; {} toolkit(s) installed; not run at --level quick",
                        toolkits.nvcc_version
                            ? toolkits.nvcc_version->full + " (" +
                                  toolkits.nvcc_version_source.substr(0, toolkits.nvcc_version_source.find(' ')) + ") "
                            : std::string(),
                        sys::clip_path(toolkits.used_nvcc, 40), toolkits.toolkits.size()));
        return;
    }
    if (!toolkits.nvcc_failure.empty()) {
        result.add(Code::nvcc_unusable, fmt::format("`{} --version` {}", toolkits.used_nvcc, toolkits.nvcc_failure));
        return;
    }
    if (toolkits.nvcc_version) result.evidence("nvcc_version", toolkits.nvcc_version->full);

    if (!toolkits.path_nvcc.empty() && !toolkits.cuda_symlink.empty()) {
        const std::string& path_root = toolkits.path_nvcc_root;
        if (path_root != toolkits.cuda_symlink)
            result.add(Code::cuda_symlink_differs,
                       fmt::format("nvcc on PATH belongs to {} but /usr/local/cuda points to {}", path_root,
                                   toolkits.cuda_symlink));
    }
    if (toolkits.nvcc_version)
        result.summary(fmt::format("nvcc {} at {}; {} toolkit(s) installed", toolkits.nvcc_version->full,
                                   sys::clip_path(toolkits.used_nvcc, 64), toolkits.toolkits.size()));
}

std::unique_ptr<Check> make_toolkit_nvcc_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "toolkit.nvcc",
                  .title = "CUDA compiler",
                  .description = "nvcc on PATH and its version; every installed toolkit; /usr/local/cuda",
                  .raises = {Code::nvcc_not_found, Code::nvcc_not_on_path, Code::nvcc_unusable,
                             Code::cuda_symlink_differs},
                  .answers = "nvcc on `PATH` and its version, every installed toolkit, where `/usr/local/cuda` points"},
        [](CheckContext& context, ResultBuilder& result) { judge_toolkits(context.probes.toolkits(), result); });
}

const CheckRegistration toolkit_nvcc_registration{600, make_toolkit_nvcc_check};

}  // namespace cudacheck
