// `cudacheck advise` end to end: the options reach the chooser (cuda/framework_builds, whose own
// tests hold its table to the projects' published files), and the table and JSON say its answer.
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

using test::BinaryRun;
using test::run_cudacheck;

nlohmann::json advise_json(const std::vector<std::string>& arguments) {
    std::vector<std::string> argv{"advise", "--format", "json"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const BinaryRun run = run_cudacheck(argv);
    EXPECT_EQ(run.exit_status, 0) << run.output;
    return nlohmann::json::parse(run.output.substr(run.output.find('{')));
}

const nlohmann::json& pytorch_advice(const nlohmann::json& document) {
    const nlohmann::json& environment = document["environments"].at(0);
    for (const nlohmann::json& advice : environment["advice"])
        if (advice["framework"] == "PyTorch") return advice;
    throw std::runtime_error("no PyTorch advice");
}

TEST(AdviseCommand, a_blackwell_gpu_on_a_cuda_12_8_driver_gets_the_newest_cuda_12_build_with_sm_120) {
    // sm_120 needs CUDA 12.8 or newer; a 12.8 driver cannot run the CUDA 13 builds (driver >= 580).
    // PyTorch 2.14 and 2.15 build CUDA 12 only as 12.6, without sm_120; 2.13.0's cu129 has it and
    // runs on a 12.8 driver (minor-version compatibility). cuda/framework_builds_test.cpp holds the
    // table to the wheels' own PYTORCH_RELEASES_CODE_CC.
    const nlohmann::json document =
        advise_json({"--arch", "sm_120", "--driver-cuda", "12.8", "--python-version", "3.12", "--framework", "torch"});
    EXPECT_EQ(document["document"], "advise");
    EXPECT_EQ(document["machine"]["driver_cuda"], "12.8");
    EXPECT_EQ(document["machine"]["gpus"], nlohmann::json::array({"sm_120"}));
    ASSERT_EQ(document["environments"].size(), 1u);
    const nlohmann::json& advice = pytorch_advice(document);
    ASSERT_TRUE(advice["fits"].get<bool>()) << advice.dump();
    EXPECT_EQ(advice["build"]["variant"], "cu129");
    EXPECT_EQ(advice["command"], "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu129");
    EXPECT_FALSE(advice["passed_over"].empty());  // the newer CUDA 13 builds, for the driver
    EXPECT_EQ(advice["runs"].at(0)["gpu"], "sm_120");
}

TEST(AdviseCommand, no_driver_means_no_build_runs_and_names_the_driver_to_install) {
    // --driver-cuda is not given and this machine (the build machine) has no driver; with one, the
    // test still holds for a driver too old for every build only by chance, so it is given as 11.0.
    const nlohmann::json document =
        advise_json({"--arch", "sm_90", "--driver-cuda", "11.0", "--python-version", "3.12", "--framework", "torch"});
    const nlohmann::json& advice = pytorch_advice(document);
    EXPECT_FALSE(advice["fits"].get<bool>()) << advice.dump();
    EXPECT_FALSE(advice["problem"].get<std::string>().empty());
    ASSERT_FALSE(advice["with_newer_driver"].is_null());
    EXPECT_FALSE(advice["driver_to_install"].get<std::string>().empty());
    EXPECT_NE(advice["with_newer_driver"]["install"].get<std::string>().find("pip install torch=="), std::string::npos);
}

TEST(AdviseCommand, the_table_prints_the_command_and_the_tables_age) {
    const BinaryRun run = run_cudacheck(
        {"advise", "--arch", "9.0", "--driver-cuda", "13.0", "--python-version", "3.12", "--framework", "torch,cupy"});
    ASSERT_EQ(run.exit_status, 0) << run.output;
    EXPECT_NE(run.output.find("table of framework builds as of"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("pip install torch"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("cupy-cuda13x"), std::string::npos) << run.output;
    // Only the header's list of what the table knows names TensorFlow: no advice for it.
    EXPECT_EQ(run.output.find("TensorFlow"), run.output.rfind("TensorFlow")) << run.output;
}

TEST(AdviseCommand, bad_values_are_usage_errors) {
    for (const std::vector<std::string>& arguments : {std::vector<std::string>{"advise", "--framework", "caffe"},
                                                      {"advise", "--driver-cuda", "twelve"},
                                                      {"advise", "--python-version", "2.7"},
                                                      {"advise", "--arch", "sm_x"}}) {
        const BinaryRun run = run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << run.output;
    }
}

}  // namespace
}  // namespace cudacheck
