// `cudacheck fleet` (report/fleet.cpp) on the recorded reports and on copies edited to stand out.
#include "report/report_json.hpp"
#include "support/recorded_libraries.hpp"
#include "support/test_support.hpp"

#include <fstream>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;

const std::string h200_report = CUDACHECK_SOURCE_DIR "/docs/examples/h200/cudacheck.json";

nlohmann::json h200_node(const std::string& hostname) {
    nlohmann::json report = nlohmann::json::parse(test::read_text(h200_report));
    report["host"]["hostname"] = hostname;
    // As a node of this cudacheck reports it: with the `libraries` section the recording predates.
    Report recorded = report_from_json(report);
    test::add_recorded_libraries_section(recorded);
    report["libraries"] = to_json(*recorded.libraries);
    return report;
}

// Scales one metric of one check by `factor`.
void scale_metric(nlohmann::json& report, const std::string& check, const std::string& name, double factor) {
    for (auto& result : report["checks"])
        if (result["id"] == check)
            for (auto& metric : result["metrics"])
                if (metric["name"] == name) metric["value"] = metric["value"].get<double>() * factor;
}

struct FleetRun {
    int exit_status = -1;
    nlohmann::json document;
    std::string table;
};

FleetRun run_fleet(const test::TempDir& dir, std::vector<std::string> extra = {}) {
    std::vector<std::string> arguments{"fleet", dir.path(), "--format", "json"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const test::BinaryRun json_run = test::run_cudacheck(arguments);
    FleetRun run;
    run.exit_status = json_run.exit_status;
    run.document = nlohmann::json::parse(json_run.output);
    run.table = test::run_cudacheck({"fleet", dir.path()}).output;
    return run;
}

const nlohmann::json* outlier(const nlohmann::json& document, const std::string& node, const std::string& kind) {
    for (const auto& entry : document["outliers"])
        if (entry["node"] == node && entry["kind"] == kind) return &entry;
    return nullptr;
}

TEST(Fleet, passes_identical_healthy_nodes) {
    test::TempDir dir;
    for (const char* name : {"node-01", "node-02", "node-03"})
        dir.write(std::string(name) + ".json", h200_node(name).dump());
    const FleetRun run = run_fleet(dir);
    EXPECT_EQ(run.exit_status, 0) << run.table;
    EXPECT_EQ(run.document["nodes"].size(), 3u);
    EXPECT_TRUE(run.document["outliers"].empty());
    EXPECT_TRUE(contains(run.table, "node-02")) << run.table;
}

TEST(Fleet, marks_driver_drift_a_slow_gpu_a_missing_gpu_and_failed_nodes) {
    test::TempDir dir;
    for (const char* name : {"node-01", "node-02", "node-03", "node-04"})
        dir.write(std::string(name) + ".json", h200_node(name).dump());
    nlohmann::json old_driver = h200_node("node-05");
    old_driver["versions"]["driver"] = "570.86.15";
    dir.write("node-05.json", old_driver.dump());
    nlohmann::json slow = h200_node("node-06");
    scale_metric(slow, "cublas.gemm", "gemm_bf16_8192", 0.7);
    dir.write("node-06.json", slow.dump());
    nlohmann::json lost_gpu = h200_node("node-07");
    lost_gpu["devices"] = nlohmann::json::array();
    dir.write("node-07.json", lost_gpu.dump());
    dir.write(
        "node-08.json",
        nlohmann::json::parse(test::read_text(CUDACHECK_SOURCE_DIR "/docs/examples/no-driver/cudacheck.json")).dump());
    dir.write("node-09.json", "{\"truncated\": ");

    const FleetRun run = run_fleet(dir);
    EXPECT_EQ(run.exit_status, 1);
    const nlohmann::json& document = run.document;
    ASSERT_EQ(document["nodes"].size(), 9u);

    const auto* drift = outlier(document, "node-05", "version");
    ASSERT_NE(drift, nullptr) << document["outliers"].dump(1);
    EXPECT_EQ((*drift)["subject"], "driver");
    EXPECT_EQ((*drift)["value"], "570.86.15");
    EXPECT_EQ((*drift)["fleet_value"], "580.159.04");

    const auto* slow_gpu = outlier(document, "node-06", "slow");
    ASSERT_NE(slow_gpu, nullptr) << document["outliers"].dump(1);
    EXPECT_EQ((*slow_gpu)["subject"], "cublas.gemm gemm_bf16_8192");
    EXPECT_EQ((*slow_gpu)["device"], 0);
    EXPECT_TRUE(contains((*slow_gpu)["message"].get<std::string>(), "30% below the fleet median"))
        << (*slow_gpu)["message"];
    EXPECT_EQ(outlier(document, "node-01", "slow"), nullptr) << "the healthy GPUs are at the median";

    EXPECT_NE(outlier(document, "node-07", "gpu_count"), nullptr);

    const auto& failed_node = document["nodes"][7];
    EXPECT_EQ(failed_node["exit_code"], 1);
    EXPECT_FALSE(failed_node["failed"].empty());
    const auto& unreadable = document["nodes"][8];
    EXPECT_TRUE(unreadable["exit_code"].is_null());
    EXPECT_TRUE(contains(unreadable["error"].get<std::string>(), "node-09.json")) << unreadable["error"];

    EXPECT_TRUE(contains(run.table, "570.86.15*")) << run.table;
    EXPECT_TRUE(contains(run.table, "UNREADABLE")) << run.table;
}

// A node whose GEMM ran while another process used its GPU: its figure is the share it
// got, left out of the fleet median and listed as not compared, not as a slow GPU; the exit stays 0.
TEST(Fleet, a_figure_measured_on_a_shared_gpu_is_not_compared) {
    test::TempDir dir;
    for (const char* name : {"node-01", "node-02", "node-03", "node-04"})
        dir.write(std::string(name) + ".json", h200_node(name).dump());
    nlohmann::json shared = h200_node("node-05");
    scale_metric(shared, "cublas.gemm", "gemm_bf16_8192", 0.33);
    for (auto& result : shared["checks"])
        if (result["id"] == "cublas.gemm")
            result["shared_gpu"] = nlohmann::json::parse(
                R"([{"device": 0, "method": "per-process utilization", "processes": [{"pid": 477, "name": "python3", "sm_percent": 99, "memory_bytes": 1184890880}]}])");
    dir.write("node-05.json", shared.dump());
    const FleetRun run = run_fleet(dir);
    EXPECT_EQ(run.exit_status, 0) << run.table;
    EXPECT_EQ(outlier(run.document, "node-05", "slow"), nullptr) << run.document["outliers"].dump(1);
    // Every rate of that check: FP32, TF32, FP16 and BF16.
    ASSERT_EQ(run.document["not_comparable"].size(), 4u) << run.document.dump(1);
    const nlohmann::json* found = nullptr;
    for (const auto& candidate : run.document["not_comparable"]) {
        EXPECT_EQ(candidate["node"], "node-05");
        EXPECT_EQ(candidate["kind"], "shared");
        if (candidate["subject"] == "cublas.gemm gemm_bf16_8192") found = &candidate;
    }
    ASSERT_NE(found, nullptr) << run.document["not_comparable"].dump(1);
    const auto& entry = *found;
    EXPECT_TRUE(contains(entry["message"].get<std::string>(),
                         "not compared: GPU 0 shared with pid 477 python3 (SM 99%, 1.1 GiB)"))
        << entry["message"];
    EXPECT_EQ(run.document["schema_version"], "1.2.0");
    EXPECT_TRUE(contains(run.table, "Not compared (~ above: measured while another process used the GPU):"))
        << run.table;
    EXPECT_TRUE(contains(run.table, " TFLOP/s~")) << "the shared figure marked in the table: " << run.table;
}

TEST(Fleet, fails_nodes_that_break_a_policy) {
    test::TempDir dir;
    for (const char* name : {"node-01", "node-02"}) dir.write(std::string(name) + ".json", h200_node(name).dump());
    const std::string policy =
        dir.write("policy/strict.json", R"({"schema_version": "1.0.0", "device_count": {"min": 8}})");
    EXPECT_EQ(run_fleet(dir).exit_status, 0);
    const FleetRun run = run_fleet(dir, {"--expect", policy});
    EXPECT_EQ(run.exit_status, 1);
    EXPECT_EQ(run.document["nodes"][0]["failed"][0]["id"], "expect.device_count") << run.document["nodes"][0].dump(1);
}

TEST(Fleet, rejects_paths_that_hold_no_report_with_exit_2) {
    test::TempDir dir;
    const test::BinaryRun empty = test::run_cudacheck({"fleet", dir.path()});
    EXPECT_EQ(empty.exit_status, 2);
    EXPECT_TRUE(contains(empty.output, "no *.json report")) << empty.output;
    const test::BinaryRun missing = test::run_cudacheck({"fleet", dir.path() + "/absent.json"});
    EXPECT_EQ(missing.exit_status, 2);
    EXPECT_TRUE(contains(missing.output, "no such file")) << missing.output;
}

}  // namespace
}  // namespace cudacheck

namespace cudacheck {
namespace {

// Shared host names all get labels; a 2-2 split has no outlier; another cuDNN is one
// line per node, not one per sub-library.
TEST(Fleet, labels_shared_names_ignores_ties_and_groups_cudnn) {
    test::TempDir dir;
    for (const char* file : {"a.json", "b.json", "c.json"}) dir.write(file, h200_node("container").dump());
    const FleetRun shared = run_fleet(dir);
    std::vector<std::string> names;
    for (const auto& node : shared.document["nodes"]) names.push_back(node["node"]);
    EXPECT_EQ(names, (std::vector<std::string>{"container (a)", "container (b)", "container (c)"}));

    test::TempDir split;
    for (const char* name : {"node-01", "node-02"}) split.write(std::string(name) + ".json", h200_node(name).dump());
    for (const char* name : {"node-03", "node-04"}) {
        nlohmann::json other = h200_node(name);
        other["versions"]["driver"] = "570.86.15";
        split.write(std::string(name) + ".json", other.dump());
    }
    const FleetRun tie = run_fleet(split);
    EXPECT_EQ(outlier(tie.document, "node-03", "version"), nullptr) << tie.document["outliers"].dump(1);
    EXPECT_EQ(outlier(tie.document, "node-01", "version"), nullptr);

    test::TempDir libraries;
    const auto with_cudnn = [](const std::string& name, const std::string& version) {
        nlohmann::json report = h200_node(name);
        for (auto& library : report["libraries"]["found"])
            for (auto& resolved : library["resolved"])
                if (resolved["soname"].get<std::string>().starts_with("libcudnn")) resolved["version"] = version;
        return report;
    };
    for (const char* name : {"node-01", "node-02", "node-03"})
        libraries.write(std::string(name) + ".json", with_cudnn(name, "9.14.0").dump());
    libraries.write("node-04.json", with_cudnn("node-04", "9.1.0.70").dump());
    const FleetRun cudnn = run_fleet(libraries);
    std::size_t lines = 0;
    for (const auto& entry : cudnn.document["outliers"])
        if (entry["node"] == "node-04" && entry["kind"] == "version" &&
            entry["subject"].get<std::string>().starts_with("libcudnn"))
            ++lines;
    EXPECT_EQ(lines, 1u) << cudnn.document["outliers"].dump(1);
}

}  // namespace
}  // namespace cudacheck
