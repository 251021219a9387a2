// `cudacheck fleet`: one row per node (status, versions, GPUs, failed checks, the slowest GPU's
// key figures), an asterisk on every value that is an outlier, then the outliers in words.
#include "render/renderer.hpp"
#include "render/text_support.hpp"
#include "render/text_table.hpp"
#include "report/report_json.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <string_view>
#include <unordered_set>

namespace cudacheck {

namespace {

// The figures worth a column: GEMM BF16 and device-to-device bandwidth, when any node has them.
constexpr std::pair<const char*, const char*> key_columns[] = {{"cublas.gemm gemm_bf16_8192", "BF16 GEMM"},
                                                               {"cuda.memory device_to_device_bandwidth", "D2D"}};

std::string gpus_text(const Report& report) {
    if (report.devices.empty()) return "0";
    std::set<std::string> models;
    for (const DeviceInfo& device : report.devices) models.insert(device.name);
    return models.size() == 1 ? fmt::format("{} x {}", report.devices.size(), *models.begin())
                              : fmt::format("{} (mixed)", report.devices.size());
}

std::string failed_text(const Report& report) {
    std::vector<std::string> failed;
    for (const CheckResult& result : report.checks)
        if (result.status == Status::fail || result.status == Status::error || result.status == Status::timeout)
            failed.push_back(fmt::format("{} {}", check_label(result), result.code));
    if (failed.size() > 2) return fmt::format("{}, {} and {} more", failed[0], failed[1], failed.size() - 2);
    return fmt::format("{}", fmt::join(failed, ", "));
}

// The slowest device's value, for a column; "~" after it when measured on a shared GPU.
std::string figure_text(const FleetNode& node, const std::string& key) {
    const auto it = node.figures.find(key);
    if (it == node.figures.end() || it->second.empty()) return "-";
    auto slowest = it->second.begin();
    for (auto device = it->second.begin(); device != it->second.end(); ++device)
        if (device->second < slowest->second) slowest = device;
    const auto shared = node.shared.find(key);
    const bool on_shared_gpu = shared != node.shared.end() && shared->second.count(slowest->first) > 0;
    return fmt::format("{:.0f} {}{}", slowest->second, node.units.at(key), on_shared_gpu ? "~" : "");
}

// The outliers by node, kind and subject, looked up once per cell: a scan of every outlier for each
// cell made the table quadratic in a fleet of many outliers.
class OutlierIndex {
public:
    explicit OutlierIndex(const std::vector<FleetOutlier>& outliers) {
        for (const FleetOutlier& outlier : outliers) keys_.insert(key(outlier.node, outlier.kind, outlier.subject));
    }
    [[nodiscard]] bool contains(const std::string& node, std::string_view kind, std::string_view subject) const {
        return keys_.count(key(node, kind, subject)) > 0;
    }

private:
    // Node names and subjects come from reports: the lengths keep "a b" + "c" apart from "a" + "b c".
    static std::string key(std::string_view node, std::string_view kind, std::string_view subject) {
        return fmt::format("{}:{}{}:{}{}:{}", node.size(), node, kind.size(), kind, subject.size(), subject);
    }
    std::unordered_set<std::string> keys_;
};

void render_fleet_table(const Fleet& fleet, std::ostream& out) {
    std::vector<std::pair<std::string, std::string>> columns;  // figure key, heading
    for (const auto& [key, heading] : key_columns)
        if (std::any_of(fleet.nodes.begin(), fleet.nodes.end(),
                        [&](const FleetNode& node) { return node.figures.count(key) > 0; }))
            columns.emplace_back(key, heading);
    std::vector<TextTable::Column> headings{{"NODE"}, {"STATUS"}, {"DRIVER"}, {"RUNTIME"}, {"GPUS"}};
    for (const auto& column : columns) headings.push_back({column.second});
    // The Xid events each node's kernel log holds and the node's remedy, where any node has them.
    const bool xids = std::any_of(fleet.nodes.begin(), fleet.nodes.end(),
                                  [](const FleetNode& node) { return node.xid_events.has_value(); });
    const bool remedies = std::any_of(fleet.nodes.begin(), fleet.nodes.end(), [](const FleetNode& node) {
        return node.remedy != Remedy::none && node.remedy != Remedy::fix_config;
    });
    if (xids) headings.push_back({"XIDS"});
    if (remedies) headings.push_back({"REMEDY"});
    headings.push_back({"FAILED"});
    TextTable table(std::move(headings));
    const auto mark = [](std::string text, bool outlier) { return outlier ? text + "*" : text; };
    const OutlierIndex outliers(fleet.outliers);
    const auto is_outlier = [&outliers](const Fleet&, const std::string& node, std::string_view kind,
                                        std::string_view subject) { return outliers.contains(node, kind, subject); };
    for (const FleetNode& node : fleet.nodes) {
        if (!node.report) {
            std::vector<std::string> row{node.name, "UNREADABLE", "", "", ""};
            for (std::size_t i = 0; i < columns.size() + (xids ? 1 : 0) + (remedies ? 1 : 0); ++i) row.push_back("");
            row.push_back(node.error);
            table.add_row(std::move(row));
            continue;
        }
        const Report& report = *node.report;
        std::vector<std::string> row{node.name, status_word(report.summary.overall),
                                     mark(report.versions.driver.empty() ? "?" : report.versions.driver,
                                          is_outlier(fleet, node.name, "version", "driver")),
                                     mark(report.versions.runtime, is_outlier(fleet, node.name, "version", "runtime")),
                                     mark(gpus_text(report), is_outlier(fleet, node.name, "gpu_count", "GPUs") ||
                                                                 is_outlier(fleet, node.name, "version", "GPU model"))};
        for (const auto& [key, heading] : columns)
            row.push_back(mark(figure_text(node, key), is_outlier(fleet, node.name, "slow", key)));
        if (xids) row.push_back(node.xid_events ? fmt::format("{:g}", *node.xid_events) : "");
        if (remedies)
            row.push_back(node.remedy == Remedy::none || node.remedy == Remedy::fix_config
                              ? ""
                              : fmt::format("{} ({})", to_string(node.remedy), action_class(node.remedy)));
        row.push_back(failed_text(report));
        table.add_row(std::move(row));
    }
    out << fmt::format("cudacheck fleet · {} node(s) · slow = more than {:g}% below the fleet median\n",
                       fleet.nodes.size(), fleet.threshold_percent);
    // Trailing cells may be empty (an unreadable node has no figures): no trailing spaces.
    for (const std::string& line : table.lines()) out << line.substr(0, line.find_last_not_of(' ') + 1) << '\n';
    if (!fleet.outliers.empty()) {
        out << "\nOutliers (* above):\n";
        for (const FleetOutlier& outlier : fleet.outliers)
            out << "  " << sys::printable(outlier.node) << ": " << sys::printable(outlier.message) << '\n';
    }
    // Figures of a shared GPU (marked ~ in the table), then nodes whose report records no libraries.
    for (const bool shared : {true, false}) {
        std::string lines;
        for (const FleetOutlier& entry : fleet.not_comparable)
            if ((entry.kind == "shared") == shared)
                lines += "  " + sys::printable(entry.node) + ": " + sys::printable(entry.message) + '\n';
        if (!lines.empty())
            out << (shared ? "\nNot compared (~ above: measured while another process used the GPU):\n"
                           : "\nNot compared:\n")
                << lines;
    }
    const auto failed =
        std::count_if(fleet.nodes.begin(), fleet.nodes.end(), [](const FleetNode& node) { return node.failed(); });
    out << fmt::format("\n{} node(s): {} without failures, {} failed or unreadable; {} outlier(s) — {} (exit {})\n",
                       fleet.nodes.size(), fleet.nodes.size() - static_cast<std::size_t>(failed), failed,
                       fleet.outliers.size(), fleet.exit_code == exit_ok ? "PASS" : "FAIL", fleet.exit_code);
}

}  // namespace

void render_fleet(const Fleet& fleet, Format format, std::ostream& out) {
    if (format == Format::json) write_json(fleet, out);
    else render_fleet_table(fleet, out);
}

}  // namespace cudacheck
