// The report's `libraries` section (schema 1.10.0): filled from the located libraries when
// libraries.resolution runs, written and read back, the one place policy, fleet, diff and the HTML
// page take library copies from, and what each of them says of a report written before it.
#include "checks/checks.hpp"
#include "engine/report_builder.hpp"
#include "probes/mapped_libraries.hpp"
#include "probes/probes.hpp"
#include "render/renderer.hpp"
#include "report/fleet.hpp"
#include "report/policy.hpp"
#include "report/redact.hpp"
#include "report/report_diff.hpp"
#include "report/report_json.hpp"
#include "report/report_query.hpp"
#include "support/example_reports.hpp"
#include "support/expected_support.hpp"
#include "support/library_tree.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::Machine;
using test::system_directory;

// What libraries.resolution's run leaves in the report: the check judges the probes' located
// libraries, and the report's facts are collected from the same probes (engine/report_builder).
Report report_of_resolution(const Machine& machine, bool with_result = true) {
    ProbeSettings settings;
    settings.root = machine.root();
    Probes probes(machine.environment(), std::move(settings));
    ResultBuilder builder;
    judge_library_resolution(probes.library_locations(), builder);
    std::vector<CheckResult> results;
    if (with_result) results.push_back(std::move(builder).finish("libraries.resolution", std::nullopt));
    return assemble_report(std::move(results), HostInfo{}, collect_report_facts(probes, machine.environment()),
                           RunMetadata{});
}

const LibraryInfo* library_named(const Report& report, std::string_view name) {
    if (!report.libraries) return nullptr;
    for (const LibraryInfo& library : report.libraries->found)
        if (library.name == name) return &library;
    return nullptr;
}

// The GPU machine's layout: the system cuDNN 9.14 for C/C++ programs, a wheel's 9.19
// in a virtual environment, and cudart.
TEST(LibrariesSection, libraries_resolution_fills_it_from_a_crafted_tree) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.system_cudnn("9.14.0");
    const std::string wheel =
        machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");
    const std::string lib = machine.root() + "/" + system_directory;

    const Report report = report_of_resolution(machine);
    ASSERT_TRUE(report.libraries);
    EXPECT_EQ(report.libraries->found.size(), 9u) << "cudart, cuDNN and its seven sub-libraries";
    EXPECT_GT(report.libraries->directories_searched, 0);
    EXPECT_TRUE(contains(report.libraries->ld_so_cache, "entries in " + machine.root() + "/etc/ld.so.cache"))
        << report.libraries->ld_so_cache;
    const LibraryInfo* cudnn = library_named(report, "cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->sonames, (std::vector<std::string>{"libcudnn.so.9"}));
    EXPECT_EQ(cudnn->resolved, (std::vector<LibraryResolutionInfo>{{.soname = "libcudnn.so.9",
                                                                    .path = lib + "/libcudnn.so.9",
                                                                    .real_path = lib + "/libcudnn.so.9.14.0",
                                                                    .rule = "ld.so.cache",
                                                                    .version = "9.14.0",
                                                                    .origin = "system",
                                                                    .package = ""}}));
    const LibraryCopyInfo wheel_copy{.soname = "libcudnn.so.9",
                                     .path = wheel + "/libcudnn.so.9",
                                     .real_path = wheel + "/libcudnn.so.9",
                                     .version = "9.19.0.56",
                                     .origin = "pip_wheel",
                                     .package = "nvidia-cudnn-cu13"};
    EXPECT_EQ(cudnn->copies.size(), 2u);
    EXPECT_NE(std::find(cudnn->copies.begin(), cudnn->copies.end(), wheel_copy), cudnn->copies.end());
    const LibraryInfo* cudart = library_named(report, "cudart");
    ASSERT_NE(cudart, nullptr);
    EXPECT_EQ(cudart->sonames.front(), "libcudart.so.13") << "newest CUDA first";

    // The evidence people read is unchanged, and says what the section says.
    const CheckResult& result = report.checks.front();
    const std::vector<Evidence> expected{
        {"libcudnn.so.9", "9.14.0 system " + lib + "/libcudnn.so.9 -> " + lib + "/libcudnn.so.9.14.0 (ld.so.cache)"},
        {"libcudnn.so.9", "also 9.19.0.56 pip_wheel (nvidia-cudnn-cu13) " + wheel + "/libcudnn.so.9"}};
    for (const Evidence& line : expected)
        EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(), line), result.evidence.end()) << line.value;
}

// A GPU check that could not open a library locates its copies too; without libraries.resolution
// the report has no section (a run of `--only cublas` says nothing about library copies).
TEST(LibrariesSection, is_absent_when_libraries_resolution_did_not_run) {
    Machine machine;
    machine.system_cudnn("9.14.0");
    const Report report = report_of_resolution(machine, false);
    EXPECT_FALSE(report.libraries);
    EXPECT_FALSE(libraries_predate_section(report));
    EXPECT_TRUE(resolved_libraries(report).empty());
}

TEST(LibrariesSection, round_trips_through_json_and_is_null_when_absent) {
    const Report report = test::example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    ASSERT_TRUE(report.libraries);
    const nlohmann::ordered_json document = to_json(report);
    EXPECT_EQ(document["libraries"]["found"][1]["copies"][1]["package"], "nvidia-cudnn-cu12");
    EXPECT_TRUE(document["libraries"]["found"][0]["resolved"][0]["package"].is_null())
        << "none: null, like every unknown text";
    const Expected<Report> read = parse_report(document.dump(), "report.json");
    ASSERT_TRUE(read) << test::error_of(read);
    EXPECT_EQ(read->libraries, report.libraries);

    Report without = report;
    without.libraries.reset();
    const nlohmann::ordered_json bare = to_json(without);
    ASSERT_TRUE(bare.contains("libraries"));
    EXPECT_TRUE(bare["libraries"].is_null());
    const Expected<Report> read_bare = parse_report(bare.dump(), "report.json");
    ASSERT_TRUE(read_bare) << test::error_of(read_bare);
    EXPECT_FALSE(read_bare->libraries);

    // A wrong type is named by its place.
    nlohmann::ordered_json broken = document;
    broken["libraries"]["found"][0]["resolved"][0]["rule"] = 3;
    const std::string error = test::error_of(parse_report(broken.dump(), "report.json"));
    EXPECT_TRUE(contains(error, "/libraries/found/0/resolved/0/rule")) << error;
}

// End to end, through the worker processes: the section, and the copy driver.libcuda opened.
TEST(LibrariesSection, the_binary_writes_it_with_the_copies_cudacheck_loaded) {
    const std::string fake_driver = std::filesystem::canonical(CUDACHECK_FAKE_DRIVER).string();
    const std::string fake_driver_dir = std::filesystem::path(CUDACHECK_FAKE_DRIVER).parent_path().string();
    test::TempDir dir;
    const std::string report_path = dir.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "driver.libcuda,libraries.resolution", "-o", report_path, "-q"},
                            {{"LD_LIBRARY_PATH", fake_driver_dir}});
    const nlohmann::json report = nlohmann::json::parse(test::read_text(report_path));
    ASSERT_TRUE(report["libraries"].is_object()) << run.output;
    const nlohmann::json* libcuda = nullptr;
    for (const nlohmann::json& library : report["libraries"]["found"])
        if (library["name"] == "libcuda") libcuda = &library;
    ASSERT_NE(libcuda, nullptr) << report["libraries"].dump(1);
    ASSERT_FALSE((*libcuda)["resolved"].empty());
    EXPECT_EQ((*libcuda)["resolved"][0]["rule"], "LD_LIBRARY_PATH entry " + fake_driver_dir);
    EXPECT_EQ((*libcuda)["resolved"][0]["real_path"], fake_driver);
    // driver.libcuda opened it in a worker process: the report says so.
    const auto& loaded = report["libraries"]["loaded_by_cudacheck"];
    EXPECT_NE(std::find(loaded.begin(), loaded.end(), fake_driver), loaded.end()) << loaded.dump();
    // And the page marks it in the cudacheck column.
    const Expected<Report> read = read_report_file(report_path);
    ASSERT_TRUE(read) << test::error_of(read);
    std::ostringstream page;
    make_renderer(Format::html, {})->render(*read, page);
    EXPECT_TRUE(contains(page.str(), "cudacheck loads")) << "a dot in the cudacheck column";
}

// --redact reaches the section: a wheel under a home directory names its user.
TEST(LibrariesSection, redaction_replaces_home_directories_in_its_paths) {
    Report report = test::example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    LibraryInfo& cudnn = report.libraries->found[1];
    cudnn.copies[1].path = cudnn.copies[1].real_path = "/home/alice/venv/lib/libcudnn.so.9";
    cudnn.resolved[0].rule = "LD_LIBRARY_PATH entry /home/alice/venv/lib";
    report.libraries->loaded_by_cudacheck = {"/home/alice/venv/lib/libcudnn.so.9"};
    RedactionTargets targets;
    targets.home_directories = {"/home/alice"};
    targets.user_names = {"alice"};
    redact(report, targets);
    const std::string written = to_json(report)["libraries"].dump();
    EXPECT_FALSE(contains(written, "alice")) << written;
    EXPECT_TRUE(contains(written, "$HOME/venv/lib/libcudnn.so.9")) << written;
}

TEST(MappedLibraries, names_files_of_the_library_table_only) {
    EXPECT_TRUE(is_cuda_library_file_name("libcublas.so.13"));
    EXPECT_TRUE(is_cuda_library_file_name("libcublas.so.13.1.0.3"));
    EXPECT_TRUE(is_cuda_library_file_name("libcudnn_ops.so.9"));
    EXPECT_TRUE(is_cuda_library_file_name("libcuda.so.1"));
    EXPECT_FALSE(is_cuda_library_file_name("libcublas.so.130"));
    EXPECT_FALSE(is_cuda_library_file_name("libcublas.so"));
    EXPECT_FALSE(is_cuda_library_file_name("libc.so.6"));
    // This test program loads no CUDA library.
    EXPECT_TRUE(mapped_cuda_libraries().empty());
}

// --- the readers: the same outcome from the section, whatever the evidence says -----------------

// Every word of libraries.resolution's evidence changed: policy, fleet and diff say the same.
TEST(LibrariesSection, rewording_the_evidence_changes_no_policy_fleet_or_diff_outcome) {
    const Report before = test::example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    Report after = test::example_with_resolution("h200/cudacheck.json", "9.12.0.46");
    const Policy policy = [] {
        Expected<Policy> read = parse_policy(R"({"schema_version": "1.0.0",
            "libraries": {"libcudnn.so.9": {"min": "9.11"}, "libcublas.so.13": {}, "libnccl.so.2": {}}})",
                                             "policy.json");
        if (!read) throw std::runtime_error(read.error().message);
        return *read;
    }();
    const auto outcome = [&](const Report& a, const Report& b) {
        std::vector<std::string> lines;
        for (const CheckResult& result : evaluate_policy(policy, b)) {
            lines.push_back(fmt::format("{} {}", result.check_id, to_string(result.status)));
            for (const Finding& finding : result.findings) lines.push_back(finding.code + " " + finding.message);
        }
        for (const Difference& difference : diff_reports(a, b, 10.0).differences)
            lines.push_back(
                fmt::format("{} {} {} {}", difference.kind, difference.subject, difference.before, difference.after));
        for (const auto& [name, value] : fleet_node("b.json", b, "").versions) lines.push_back(name + " " + value);
        return lines;
    };
    const std::vector<std::string> as_written = outcome(before, after);
    EXPECT_NE(std::find(as_written.begin(), as_written.end(), "libcudnn.so.9 9.12.0.46"), as_written.end())
        << "fleet: cuDNN's version";
    EXPECT_NE(std::find(as_written.begin(), as_written.end(),
                        "library libcudnn.so.9 9.10.2.21 system_package /usr/lib/x86_64-linux-gnu/libcudnn.so.9 "
                        "9.12.0.46 system_package /usr/lib/x86_64-linux-gnu/libcudnn.so.9"),
              as_written.end())
        << "diff: cuDNN changed";
    EXPECT_NE(std::find(as_written.begin(), as_written.end(),
                        "CC707 libnccl.so.2 does not resolve on this machine; the policy requires it (any version)"),
              as_written.end());

    Report reworded_before = before;
    Report reworded_after = after;
    for (Report* report : {&reworded_before, &reworded_after})
        for (Evidence& evidence : test::find_result(*report, "libraries.resolution")->evidence)
            evidence.value = "reworded: " + evidence.key;
    EXPECT_EQ(outcome(reworded_before, reworded_after), as_written);
    for (Report* report : {&reworded_before, &reworded_after})
        test::find_result(*report, "libraries.resolution")->evidence.clear();
    EXPECT_EQ(outcome(reworded_before, reworded_after), as_written);
}

// --- a report written before the section ---------------------------------------------------------

// The recorded H200 report (schema 1.9.0) ran libraries.resolution; its libraries are evidence only.
Report recorded_before_the_section() {
    Report report = test::example_report("h200/cudacheck.json");
    EXPECT_TRUE(has_check(report, "libraries.resolution"));
    EXPECT_FALSE(report.libraries);
    return report;
}

TEST(LibrariesSection, a_policy_that_requires_a_library_fails_on_a_report_before_the_section) {
    Report report = recorded_before_the_section();
    EXPECT_TRUE(libraries_predate_section(report));
    const Expected<Policy> policy =
        parse_policy(R"({"schema_version": "1.0.0", "libraries": {"libcudnn.so.9": {"min": "9"}}})", "policy.json");
    ASSERT_TRUE(policy) << test::error_of(policy);
    const CheckResult verdict = evaluate_policy(*policy, report).front();
    EXPECT_EQ(verdict.status, Status::fail) << "never a silent pass";
    EXPECT_EQ(verdict.code, "CC707");
    EXPECT_EQ(verdict.message,
              "libcudnn.so.9 cannot be judged: the report predates the `libraries` section (schema 1.10.0): its "
              "library copies are "
              "not recorded as data; the policy requires it (>= 9)");
    EXPECT_TRUE(contains(verdict.findings.front().remediation, "Check the machine again with this cudacheck"))
        << verdict.findings.front().remediation;
    apply_policy(*policy, report);
    EXPECT_EQ(report.exit_code, 1);
}

TEST(LibrariesSection, diff_says_a_report_before_the_section_cannot_be_compared) {
    const Report old_report = recorded_before_the_section();
    const Report new_report = test::example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    // Not a difference (a report still equals itself), but said beside them.
    const ReportDiff itself = diff_reports(old_report, old_report, 10.0);
    EXPECT_TRUE(itself.differences.empty());
    EXPECT_EQ(itself.not_compared, (std::vector<std::string>{"libraries: in A and B, the report predates the "
                                                             "`libraries` section (schema 1.10.0): its "
                                                             "library copies are not recorded as data"}));
    const ReportDiff mixed = diff_reports(new_report, old_report, 10.0);
    ASSERT_EQ(mixed.not_compared.size(), 1u);
    EXPECT_TRUE(mixed.not_compared.front().starts_with("libraries: in B, ")) << mixed.not_compared.front();
    for (const Difference& difference : mixed.differences) EXPECT_NE(difference.kind, "library") << difference.subject;
    // Two reports of this cudacheck: compared, nothing to say.
    EXPECT_TRUE(diff_reports(new_report, new_report, 10.0).not_compared.empty());
    std::ostringstream table;
    render_diff(itself, "old.json", "old.json", Format::table, table);
    EXPECT_TRUE(contains(table.str(), "Not compared: libraries: in A and B, the report predates")) << table.str();
    EXPECT_TRUE(contains(table.str(), "No differences.")) << table.str();
    std::ostringstream json;
    render_diff(itself, "old.json", "old.json", Format::json, json);
    EXPECT_EQ(nlohmann::json::parse(json.str())["not_compared"].size(), 1u) << json.str();
}

TEST(LibrariesSection, fleet_lists_a_node_whose_report_predates_the_section_as_not_compared) {
    std::vector<FleetNode> nodes;
    for (const char* name : {"a", "b"})
        nodes.push_back(fleet_node(std::string(name) + ".json",
                                   test::example_with_resolution("h200/cudacheck.json", "9.10.2.21"), ""));
    nodes.push_back(fleet_node("old.json", recorded_before_the_section(), ""));
    for (FleetNode& node : nodes) node.name = std::filesystem::path(node.source).stem().string();
    EXPECT_FALSE(nodes.back().versions.contains("libcudnn.so.9")) << "no version read from its evidence";
    const Fleet fleet = summarise_fleet(std::move(nodes), 10.0);
    ASSERT_EQ(fleet.not_comparable.size(), 1u);
    EXPECT_EQ(fleet.not_comparable.front().node, "old");
    EXPECT_EQ(fleet.not_comparable.front().kind, "libraries");
    EXPECT_TRUE(contains(fleet.not_comparable.front().message,
                         "libraries not compared: the report predates the `libraries` section"));
    EXPECT_EQ(fleet.exit_code, 0) << "not an outlier";
    std::ostringstream table;
    render_fleet(fleet, Format::table, table);
    EXPECT_TRUE(contains(table.str(), "\nNot compared:\n  old: libraries not compared")) << table.str();
    EXPECT_FALSE(contains(table.str(), "measured while another process")) << table.str();
}

TEST(LibrariesSection, the_html_page_says_a_report_before_the_section_has_no_library_copies) {
    std::ostringstream page;
    make_renderer(Format::html, {})->render(recorded_before_the_section(), page);
    EXPECT_TRUE(contains(page.str(),
                         "<section id=\"libraries\"><h2>Library copies</h2>\n<p class=\"note\">Not shown: the report "
                         "predates the "
                         "<code>libraries</code> section (schema 1.10.0)"))
        << page.str().substr(0, 2000);
    EXPECT_FALSE(contains(page.str(), "CUDA library copies and who loads them"));
}

}  // namespace
}  // namespace cudacheck
