// The one ordered fix (report/remedy.hpp): each finding's remedy from the catalogue or from its
// check, each GPU's step the most disruptive of the ladder its findings call for, the node's the
// strongest action class, configuration fixes apart; the remedy and gpu survive JSON, an older
// report's findings take their code's remedy, and the table, Prometheus and HTML say it.
#include "report/remedy.hpp"
#include "render/renderer.hpp"
#include "report/catalog.hpp"
#include "report/fleet.hpp"
#include "report/report_json.hpp"
#include "report/report_query.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace cudacheck {
namespace {

Finding finding_of(Code code, std::string gpu = {}, std::optional<Remedy> remedy = std::nullopt) {
    Finding finding = make_finding(code, "message of " + code_string(code));
    finding.gpu = std::move(gpu);
    if (remedy) finding.remedy = *remedy;
    return finding;
}

CheckResult result_of(std::string id, std::vector<Finding> findings) {
    CheckResult result;
    result.check_id = std::move(id);
    result.status = Status::pass;
    for (const Finding& finding : findings)
        if (severity_rank(finding.status) > severity_rank(result.status)) result.status = finding.status;
    result.findings = std::move(findings);
    return result;
}

Report two_gpu_report() {
    Report report;
    report.level = "quick";
    for (int i = 0; i < 2; ++i) {
        DeviceInfo device;
        device.ordinal = i;
        device.nvml_index = i;
        device.uuid = "GPU-" + std::to_string(i);
        device.pci_bus_id = "00000000:0" + std::to_string(i) + ":00.0";
        report.devices.push_back(device);
    }
    return report;
}

TEST(Remedy, names_and_action_classes_are_the_json_spelling) {
    EXPECT_EQ(to_string(Remedy::reset_gpu), "reset_gpu");
    EXPECT_EQ(remedy_from_string("drain_p2p"), Remedy::drain_p2p);
    EXPECT_FALSE(remedy_from_string("reset"));
    EXPECT_EQ(action_class(Remedy::fix_config), "config");
    EXPECT_EQ(action_class(Remedy::investigate), "triage");
    EXPECT_EQ(action_class(Remedy::restart_app), "app");
    EXPECT_EQ(action_class(Remedy::bus_reset), "reset");
    EXPECT_EQ(action_class(Remedy::reboot), "reset");
    EXPECT_EQ(action_class(Remedy::service), "isolate");
    EXPECT_TRUE(on_gpu_ladder(Remedy::restart_app));
    EXPECT_FALSE(on_gpu_ladder(Remedy::investigate));
    // The ladder is ordered least to most disruptive.
    EXPECT_LT(Remedy::restart_app, Remedy::reset_gpu);
    EXPECT_LT(Remedy::reset_gpu, Remedy::drain_p2p);
    EXPECT_LT(Remedy::drain_p2p, Remedy::bus_reset);
    EXPECT_LT(Remedy::bus_reset, Remedy::reboot);
    EXPECT_LT(Remedy::reboot, Remedy::service);
}

TEST(Remedy, a_finding_takes_its_codes_remedy_from_the_catalogue) {
    EXPECT_EQ(make_finding(Code::row_remap_pending, "x").remedy, Remedy::reset_gpu);
    EXPECT_EQ(make_finding(Code::row_remap_failed, "x").remedy, Remedy::service);
    EXPECT_EQ(make_finding(Code::kernel_module_not_loaded, "x").remedy, Remedy::fix_config);
    EXPECT_EQ(make_finding(Code::gpu_shared_during_measurement, "x").remedy, Remedy::none);
    EXPECT_EQ(make_finding(Code::xid_application_fault, "x").remedy, Remedy::restart_app);
    EXPECT_EQ(make_finding(Code::gpu_fallen_off_bus, "x").remedy, Remedy::reboot);
}

TEST(Remedy, each_gpu_gets_its_most_disruptive_step_and_the_node_the_strongest_class) {
    Report report = two_gpu_report();
    report.checks.push_back(result_of("device.health", {finding_of(Code::row_remap_pending, "GPU-1"),
                                                        finding_of(Code::pcie_replay_errors, "GPU-1")}));
    report.checks.push_back(result_of("driver.kernel_log", {finding_of(Code::xid_application_fault, "GPU-0"),
                                                            finding_of(Code::gpu_fallen_off_bus, "00000000:01:00.0")}));
    report.checks.push_back(result_of("env.variables", {finding_of(Code::cuda_launch_blocking)}));
    const RemedyPlan plan = plan_remedy(report);
    EXPECT_EQ(plan.step, Remedy::reboot);
    ASSERT_EQ(plan.gpus.size(), 2u);
    EXPECT_EQ(plan.gpus[0].gpu, "GPU-0");
    EXPECT_EQ(plan.gpus[0].step, Remedy::restart_app);
    // GPU 1 named by UUID and by PCI bus id is one GPU; the reboot outranks the reset.
    EXPECT_EQ(plan.gpus[1].gpu, "GPU-1");
    EXPECT_EQ(plan.gpus[1].nvml_index, 1);
    EXPECT_EQ(plan.gpus[1].step, Remedy::reboot);
    ASSERT_EQ(plan.gpus[1].because.size(), 3u);
    EXPECT_EQ(plan.gpus[1].because.front().code, "CC240");
    ASSERT_EQ(plan.configuration.size(), 1u);
    EXPECT_EQ(plan.configuration.front().code, "CC115");
    EXPECT_TRUE(plan.node.empty());
}

TEST(Remedy, service_outranks_reboot_and_triage_outranks_configuration_for_the_node) {
    Report report = two_gpu_report();
    report.checks.push_back(result_of("driver.libcuda", {finding_of(Code::cuinit_failed)}));
    report.checks.push_back(result_of("env.variables", {finding_of(Code::cuda_launch_blocking)}));
    EXPECT_EQ(plan_remedy(report).step, Remedy::investigate);
    ASSERT_EQ(plan_remedy(report).node.size(), 1u);
    report.checks.push_back(result_of("device.health", {finding_of(Code::retired_pages_limit, "GPU-0"),
                                                        finding_of(Code::gpu_lost, "GPU-1")}));
    EXPECT_EQ(plan_remedy(report).step, Remedy::service);
    // A check may name another step than its code's: NVML's recovery action says which.
    Report drained = two_gpu_report();
    drained.checks.push_back(
        result_of("device.health", {finding_of(Code::gpu_recovery_action, "GPU-0", Remedy::drain_p2p)}));
    EXPECT_EQ(plan_remedy(drained).step, Remedy::drain_p2p);
    EXPECT_EQ(plan_remedy(drained).gpus.at(0).step, Remedy::drain_p2p);
}

TEST(Remedy, a_report_of_configuration_alone_asks_for_no_ladder_step) {
    Report report = two_gpu_report();
    report.checks.push_back(result_of("driver.kernel_module", {finding_of(Code::kernel_module_not_loaded)}));
    const RemedyPlan plan = plan_remedy(report);
    EXPECT_EQ(plan.step, Remedy::fix_config);
    EXPECT_TRUE(plan.gpus.empty());
    // The table shows no Remedy line then: the finding's own fix says it all.
    std::ostringstream text;
    make_renderer(Format::table, {})->render(report, text);
    EXPECT_EQ(text.str().find("Remedy:"), std::string::npos) << text.str();
}

TEST(Remedy, remedy_and_gpu_survive_json_and_an_older_report_takes_the_catalogues) {
    Report report = two_gpu_report();
    report.checks.push_back(
        result_of("device.health", {finding_of(Code::gpu_recovery_action, "GPU-1", Remedy::reboot)}));
    const std::string text = to_json(report).dump();
    const Expected<Report> back = parse_report(text, "report.json");
    ASSERT_TRUE(back) << back.error().message;
    const Finding& finding = back->checks.at(0).findings.at(0);
    EXPECT_EQ(finding.remedy, Remedy::reboot);
    EXPECT_EQ(finding.gpu, "GPU-1");
    const auto document = ordered_json::parse(text);
    EXPECT_EQ(document["remedy"]["step"], "reboot");
    EXPECT_EQ(document["remedy"]["action_class"], "reset");
    EXPECT_EQ(document["remedy"]["gpus"][0]["nvml_index"], 1);
    EXPECT_EQ(document["checks"][0]["findings"][0]["action_class"], "reset");
    // A 1.10.0 finding has no remedy: its code's, from the catalogue.
    auto older = document;
    older["schema_version"] = "1.10.0";
    older["checks"][0]["findings"][0].erase("remedy");
    older["checks"][0]["findings"][0].erase("gpu");
    older["checks"][0]["findings"][0]["code"] = "CC421";
    const Expected<Report> old_back = parse_report(older.dump(), "old.json");
    ASSERT_TRUE(old_back) << old_back.error().message;
    EXPECT_EQ(old_back->checks.at(0).findings.at(0).remedy, Remedy::reset_gpu);
    // A remedy this build does not know is a shape error, not a silent none.
    auto unknown = document;
    unknown["checks"][0]["findings"][0]["remedy"] = "pray";
    EXPECT_FALSE(parse_report(unknown.dump(), "unknown.json"));
}

TEST(Remedy, table_prometheus_and_html_carry_the_ladder_step) {
    Report report = two_gpu_report();
    report.host.hostname = "node7";
    report.checks.push_back(result_of("device.health", {finding_of(Code::row_remap_pending, "GPU-1")}));
    std::ostringstream table, prometheus, html;
    make_renderer(Format::table, {})->render(report, table);
    make_renderer(Format::prometheus, {})->render(report, prometheus);
    make_renderer(Format::html, {})->render(report, html);
    EXPECT_NE(table.str().find("Remedy: drain the GPU's work and reset it"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("[action class reset]"), std::string::npos);
    EXPECT_NE(table.str().find("GPU 1 (GPU-1): drain GPU 1's work and reset it (`sudo nvidia-smi -r -i 1`)"),
              std::string::npos)
        << table.str();
    EXPECT_NE(prometheus.str().find("cudacheck_gpu_remedy{gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:01:00.0\","
                                    "hostname=\"node7\",Hostname=\"node7\",level=\"quick\",step=\"reset_gpu\","
                                    "action_class=\"reset\"} 1"),
              std::string::npos)
        << prometheus.str();
    EXPECT_NE(prometheus.str().find("remedy=\"reset_gpu\",action_class=\"reset\"} 1"), std::string::npos);
    EXPECT_NE(html.str().find("<section id=\"remedy\">"), std::string::npos);
}

// Fleet: each node's Xid events (driver.kernel_log's xid_events figures, summed) and its remedy, in
// the table and the JSON; a node whose kernel log was not read has none.
TEST(Remedy, fleet_counts_each_nodes_xids_and_shows_its_remedy) {
    Report sick = two_gpu_report();
    sick.host.hostname = "node-a";
    CheckResult log = result_of("driver.kernel_log", {finding_of(Code::xid_reset_gpu, "GPU-1")});
    const MetricFamily xids{xid_events_family, "gpu{gpu}.xid{xid}", Unit::count, "Xid events.", false};
    log.metrics = {make_metric(xids, 3, {{"gpu", "1"}, {"xid", "48"}}),
                   make_metric(xids, 2, {{"gpu", "0"}, {"xid", "31"}})};
    sick.checks.push_back(log);
    Report quiet = two_gpu_report();
    quiet.host.hostname = "node-b";
    const Fleet fleet = summarise_fleet({fleet_node("a.json", sick, ""), fleet_node("b.json", quiet, "")}, 10.0);
    ASSERT_EQ(fleet.nodes.size(), 2u);
    EXPECT_EQ(fleet.nodes[0].xid_events, 5.0);
    EXPECT_EQ(fleet.nodes[0].remedy, Remedy::reset_gpu);
    EXPECT_FALSE(fleet.nodes[1].xid_events.has_value()) << "driver.kernel_log did not run there";
    std::ostringstream table, json;
    render_fleet(fleet, Format::table, table);
    render_fleet(fleet, Format::json, json);
    EXPECT_NE(table.str().find("XIDS"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("reset_gpu (reset)"), std::string::npos) << table.str();
    const auto document = ordered_json::parse(json.str());
    EXPECT_EQ(document["nodes"][0]["xid_events"], 5);
    EXPECT_EQ(document["nodes"][0]["action_class"], "reset");
    EXPECT_TRUE(document["nodes"][1]["xid_events"].is_null());
}

}  // namespace
}  // namespace cudacheck
