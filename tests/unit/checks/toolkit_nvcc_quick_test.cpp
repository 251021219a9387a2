// toolkit.nvcc at --level quick (checks/toolkit_nvcc.cpp): nvcc was not run (ToolkitFacts::
// nvcc_not_run), so its version is its toolkit's files' and whether it runs is left to
// --level standard; the summary says so, and nothing is judged that only running it could tell.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;
using test::judge;

const std::string not_run = "--level quick reads files only (--level standard runs `nvcc --version`)";

ToolkitFacts quick_facts() {
    ToolkitFacts facts;
    facts.toolkits.push_back({"/usr/local/cuda-13.0", "13.0.2", "/usr/local/cuda-13.0/bin/nvcc", {"PATH"}});
    facts.path_nvcc = facts.used_nvcc = "/usr/local/cuda-13.0/bin/nvcc";
    facts.path_nvcc_root = "/usr/local/cuda-13.0";
    facts.cuda_symlink = "/usr/local/cuda-13.0";
    facts.nvcc_version = NvccVersion{"13.0", "13.0.88"};
    facts.nvcc_version_source = "version.json (cuda_nvcc)";
    facts.nvcc_not_run = not_run;
    return facts;
}

std::string evidence(const CheckResult& result, const std::string& key) {
    for (const Evidence& item : result.evidence)
        if (item.key == key) return item.value;
    return {};
}

TEST(ToolkitCheckQuick, passes_with_the_files_version_and_says_nvcc_was_not_run) {
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(quick_facts(), r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(evidence(result, "nvcc_version"), "13.0.88 (version.json (cuda_nvcc); nvcc not run: " + not_run + ")");
    EXPECT_EQ(result.message,
              "nvcc 13.0.88 (version.json) at /usr/local/cuda-13.0/bin/nvcc; 1 toolkit(s) installed; not run at "
              "--level quick");
}

// /usr/local/cuda pointing elsewhere than the nvcc on PATH is a fact of files: still judged.
TEST(ToolkitCheckQuick, still_judges_the_cuda_symlink) {
    ToolkitFacts facts = quick_facts();
    facts.cuda_symlink = "/usr/local/cuda-12.4";
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(facts, r); });
    EXPECT_EQ(result.code, "CC304");
}

// A wrapper on PATH is not seen through without running it: no CC304 from the wrapper's own
// directory, and the evidence says why.
TEST(ToolkitCheckQuick, does_not_judge_a_wrapper_it_could_not_follow) {
    ToolkitFacts facts = quick_facts();
    facts.path_nvcc = facts.used_nvcc = "/usr/local/bin/nvcc";
    facts.path_nvcc_root.clear();
    facts.nvcc_version.reset();
    facts.nvcc_version_source.clear();
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(evidence(result, "nvcc_on_path"), "not a toolkit's own nvcc"))
        << evidence(result, "nvcc_on_path");
    EXPECT_TRUE(contains(evidence(result, "nvcc_version"), "unknown")) << evidence(result, "nvcc_version");
    EXPECT_TRUE(contains(result.message, "not run at --level quick")) << result.message;
}

}  // namespace
}  // namespace cudacheck
