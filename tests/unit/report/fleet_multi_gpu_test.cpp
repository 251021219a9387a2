// `cudacheck fleet` over nodes of two GPUs each (the 2 x H200 recording, docs/examples/h200x2):
// a figure that stands out is blamed on its own node and GPU, never on the node's other GPU, and a
// node that lost a GPU stands out by its count (fleet over several runs' per-GPU outputs).
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudacheck {
namespace {

const std::string two_gpu_report = CUDACHECK_SOURCE_DIR "/docs/examples/h200x2/cudacheck.json";

nlohmann::json two_gpu_node(const std::string& hostname) {
    nlohmann::json report = nlohmann::json::parse(test::read_text(two_gpu_report));
    report["host"]["hostname"] = hostname;
    return report;
}

// Scales metric `name` of `check`'s result on CUDA device `device` by `factor`.
void scale_on_device(nlohmann::json& report, const std::string& check, int device, const std::string& name,
                     double factor) {
    for (auto& result : report["checks"])
        if (result["id"] == check && result["device"] == device)
            for (auto& metric : result["metrics"])
                if (metric["name"] == name) metric["value"] = metric["value"].get<double>() * factor;
}

TEST(FleetMultiGpu, blames_the_slow_gpu_of_a_two_gpu_node_and_not_its_other_gpu) {
    test::TempDir dir;
    for (const char* name : {"node-01", "node-02", "node-03", "node-04"}) {
        nlohmann::json node = two_gpu_node(name);
        // node-03's second GPU runs BF16 GEMMs 30% slower; its first GPU is as fast as the rest.
        if (std::string(name) == "node-03") scale_on_device(node, "cublas.gemm", 1, "gemm_bf16_8192", 0.7);
        dir.write(std::string(name) + ".json", node.dump());
    }
    nlohmann::json one_gpu_left = two_gpu_node("node-05");
    one_gpu_left["devices"].erase(1);
    dir.write("node-05.json", one_gpu_left.dump());

    const test::BinaryRun run = test::run_cudacheck({"fleet", dir.path(), "--format", "json"});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const nlohmann::json document = nlohmann::json::parse(run.output);
    ASSERT_EQ(document["nodes"].size(), 5u);
    // The recording's small workloads differ between its own two GPUs (cudnn.conv 16.7 against 169.5
    // GFLOP/s, cuFFT n=1000 49.8 against 85.8), and those stand out on every node alike: only the
    // BF16 GEMM, measured alike on both GPUs, and the GPU count are this test's subject.
    std::vector<std::string> outliers;
    for (const auto& entry : document["outliers"])
        if (entry["kind"] == "gpu_count" || entry["subject"].get<std::string>().starts_with("cublas.gemm"))
            outliers.push_back(
                entry["node"].get<std::string>() + " " + entry["kind"].get<std::string>() + " " +
                (entry["device"].is_null() ? std::string("-") : std::to_string(entry["device"].get<int>())) + " " +
                entry["subject"].get<std::string>());
    // The one slow GEMM, on GPU 1 of node-03 (the median of the nine other GPUs is the recording's),
    // and node-05's count of one GPU where four nodes have two.
    EXPECT_EQ(outliers,
              (std::vector<std::string>{"node-05 gpu_count - GPUs", "node-03 slow 1 cublas.gemm gemm_bf16_8192"}))
        << document["outliers"].dump(1);
}

}  // namespace
}  // namespace cudacheck
