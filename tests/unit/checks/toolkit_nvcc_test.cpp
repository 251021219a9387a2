// toolkit.nvcc (checks/toolkit_nvcc.cpp): nvcc off PATH, no toolkit, an nvcc that does not run.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;
using test::judge;

TEST(ToolkitCheck, warns_with_directory_to_add_when_nvcc_not_on_path) {
    ToolkitFacts facts;
    facts.toolkits.push_back(
        {"/usr/local/cuda-12.4", "12.4.1", "/usr/local/cuda-12.4/bin/nvcc", {"/usr/local/cuda-12.4"}});
    facts.used_nvcc = "/usr/local/cuda-12.4/bin/nvcc";
    facts.nvcc_version = NvccVersion{"12.4", "12.4.131"};
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(facts, r); });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC302");
    EXPECT_TRUE(contains(result.remediation, "export PATH=/usr/local/cuda-12.4/bin:$PATH"));
}

TEST(ToolkitCheck, warns_when_no_toolkit_anywhere) {
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(ToolkitFacts{}, r); });
    EXPECT_EQ(result.code, "CC301");
    EXPECT_EQ(result.status, Status::warn);
}

TEST(ToolkitCheck, warns_when_nvcc_does_not_run) {
    ToolkitFacts facts;
    facts.path_nvcc = facts.used_nvcc = "/opt/broken/bin/nvcc";
    facts.nvcc_failure = "exited with status 127";
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(facts, r); });
    EXPECT_EQ(result.code, "CC303");
    EXPECT_TRUE(contains(result.message, "status 127"));
}

}  // namespace
}  // namespace cudacheck
