#include "cli/fleet_command.hpp"

#include "cli/command_support.hpp"
#include "render/renderer.hpp"
#include "report/fleet.hpp"
#include "report/policy.hpp"
#include "report/report.hpp"
#include "report/report_json.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <exception>
#include <fmt/format.h>
#include <iostream>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace cudacheck {

CLI::App* setup_fleet(CLI::App& app, FleetCommandOptions& options) {
    CLI::App* fleet =
        app.add_subcommand("fleet",
                           "Summarise many nodes' JSON reports: versions, GPUs, failures, and the outliers among them "
                           "(exit 1 when a node failed or stands out)");
    fleet->add_option("paths", options.paths, "Report files, or directories of *.json reports (one per node)")
        ->required();
    fleet->add_option("--format", options.format, "table or json (default table)")
        ->check(CLI::IsMember({"table", "json"}));
    fleet
        ->add_option("--threshold", options.threshold_percent,
                     "A GPU is slow when a rate is more than PERCENT below the fleet's median (default 10)")
        ->check(CLI::Range(0.0, 100.0))
        ->check(finite_number);
    fleet->add_option("--expect", options.expect, "Check every node's report against this JSON policy too");
    fleet->footer("Exit codes: 0 every node passed and none stands out; 1 a node failed or stands out; 2 bad input.");
    return fleet;
}

namespace {

FleetNode read_fleet_node(const std::string& file, const std::optional<Policy>& policy) {
    std::string read_error;
    std::optional<Report> report;
    // A dangling or looping link would read as "No such file or directory": say what it is.
    if (const std::optional<std::string> why = broken_link(file)) {
        read_error = fmt::format("cannot read {}: {}", file, *why);
    } else if (Expected<Report> read = read_report_file(file)) {
        report = std::move(*read);
    } else {
        read_error = read.error().message;
    }
    FleetNode node = fleet_node(file, std::move(report), std::move(read_error));
    // The policy's expect.* results join the node's report, and its exit code, as in a run.
    if (policy && node.report) apply_policy(*policy, *node.report);
    if (node.report) keep_for_fleet(*node.report);
    return node;
}

}  // namespace

int run_fleet(const FleetCommandOptions& options) {
    std::optional<Policy> policy;
    if (!options.expect.empty()) {
        Expected<Policy> read = read_policy_file(options.expect);
        if (!read) {
            usage_error(read.error().message);
            return exit_usage;
        }
        policy = std::move(*read);
    }
    const Expected<std::vector<std::string>> files = fleet_files(options.paths);
    if (!files) {
        usage_error(files.error().message);
        return exit_usage;
    }
    // Each report is read, checked and trimmed on its own, so the files are shared out among a few
    // threads (parsing JSON is most of fleet's time: 10,000 reports of 41 kB took 6 s on one core).
    std::vector<FleetNode> nodes(files->size());
    std::atomic<std::size_t> next{0};
    std::mutex failed_lock;
    std::exception_ptr failed;  // what a helper thread threw (out of memory), thrown again here
    const auto read_nodes = [&] {
        try {
            for (std::size_t at = next++; at < files->size(); at = next++)
                nodes[at] = read_fleet_node((*files)[at], policy);
        } catch (...) {
            next = files->size();
            const std::lock_guard<std::mutex> hold(failed_lock);
            if (!failed) failed = std::current_exception();
        }
    };
    const unsigned threads =
        std::min<std::size_t>(std::clamp(std::thread::hardware_concurrency(), 1U, 8U), (files->size() + 63) / 64);
    std::vector<std::thread> helpers;
    for (unsigned extra = 1; extra < threads; ++extra) {
        try {
            helpers.emplace_back(read_nodes);
        } catch (const std::system_error&) {
            break;  // no thread to be had (RLIMIT_NPROC): this thread reads them all
        }
    }
    read_nodes();
    for (std::thread& helper : helpers) helper.join();
    if (failed) std::rethrow_exception(failed);
    const Fleet fleet = summarise_fleet(std::move(nodes), options.threshold_percent);
    render_fleet(fleet, *format_from_string(options.format), std::cout);
    std::cout.flush();
    return fleet.exit_code;
}

}  // namespace cudacheck
