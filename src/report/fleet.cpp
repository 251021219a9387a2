#include "report/fleet.hpp"

#include "cuda/library_families.hpp"
#include "report/remedy.hpp"
#include "report/report_query.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <map>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>

namespace cudacheck {

namespace {

namespace fs = std::filesystem;

// Rates are compared for slowness (a GPU below the median); times and counts are not.
// Read through the unit's name (unit_from_string), not its spelling: a unit cudacheck never wrote
// is no rate.
bool is_rate(const Metric& metric) {
    const std::optional<Unit> unit = unit_from_string(metric.unit);
    return unit == Unit::tflops || unit == Unit::gflops || unit == Unit::gb_per_s || unit == Unit::gsamples_per_s;
}

// 0 for none (every node's figure measured on a shared GPU): no median to be below.
double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
}

// The most common value and how many nodes have it; no value (count 0) when the most common are
// tied: two nodes of four on each driver is a split fleet, and neither half is the outlier.
// Counted in a hash map, once per fact (a scan of the values seen so far, for each node,
// made 10,000 nodes take a minute).
std::pair<std::string, std::size_t> majority(const std::vector<std::string>& values) {
    std::unordered_map<std::string_view, std::size_t> tally;
    for (const std::string& value : values) ++tally[value];
    std::vector<std::pair<std::string, std::size_t>> counts;
    for (const auto& [value, count] : tally) counts.emplace_back(std::string(value), count);
    if (counts.empty()) return {{}, 0};
    auto top = *std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (std::count_if(counts.begin(), counts.end(), [&](const auto& entry) { return entry.second == top.second; }) > 1)
        return {{}, 0};
    return top;
}

// cuDNN 9 is libcudnn.so.9 and seven sub-libraries (libcudnn_ops.so.9, ...), one install: a node
// with another cuDNN is one outlier, not eight. A sub-library counts under cuDNN's own soname, as
// the library table (cuda/library_families.hpp) says which sonames are its sub-libraries.
std::string library_family(const std::string& soname) {
    const LibraryFamily* family = family_of_soname(soname);
    const LibraryFamily* cudnn = find_library_family("cuDNN");
    if (family == nullptr || !family->cudnn_sublibrary || cudnn == nullptr) return soname;
    const std::vector<int> majors = family->cuda_majors_of(soname);
    return majors.empty() ? soname : std::string(cudnn->soname_for(majors.front()));
}

// The version-like facts of a node that the fleet should agree on, by name.
std::map<std::string, std::string> versions_of(const Report& report) {
    std::map<std::string, std::string> versions;
    const auto add = [&](const std::string& name, const std::string& value) {
        if (!value.empty()) versions[name] = value;
    };
    add("driver", report.versions.driver);
    add("driver CUDA", report.versions.driver_cuda);
    add("runtime", report.versions.runtime);
    add("nvcc", report.versions.nvcc);
    // One entry per library family; members that disagree with each other show as "9.1.0 + 9.19.0".
    std::map<std::string, std::vector<std::string>> families;
    for (const LibraryResolutionInfo* library : resolved_libraries(report))
        if (!library->version.empty()) {
            std::vector<std::string>& family = families[library_family(library->soname)];
            if (std::find(family.begin(), family.end(), library->version) == family.end())
                family.push_back(library->version);
        }
    for (const auto& [family, family_versions] : families)
        add(family, fmt::format("{}", fmt::join(family_versions, " + ")));
    std::vector<std::string> models;
    for (const DeviceInfo& device : report.devices)
        if (std::find(models.begin(), models.end(), device.name) == models.end()) models.push_back(device.name);
    add("GPU model", fmt::format("{}", fmt::join(models, " + ")));
    return versions;
}

}  // namespace

Expected<std::vector<std::string>> fleet_files(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code ignored;
        if (fs::is_directory(path, ignored)) {
            std::vector<std::string> found;
            for (const auto& entry : fs::directory_iterator(path, ignored))
                if (entry.path().extension() == ".json" &&
                    (entry.is_regular_file(ignored) || broken_link(entry.path().string())))
                    found.push_back(entry.path().string());
            if (found.empty()) return Error{fmt::format("{}: no *.json report in this directory", path)};
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::exists(path, ignored) || broken_link(path)) {
            files.push_back(path);
        } else {
            return Error{fmt::format("{}: no such file or directory", path)};
        }
    }
    return files;
}

std::optional<std::string> broken_link(const std::string& path) {
    struct stat status{};
    if (::lstat(path.c_str(), &status) != 0 || !S_ISLNK(status.st_mode)) return std::nullopt;
    if (::stat(path.c_str(), &status) == 0) return std::nullopt;
    const int error = errno;
    const std::string target = sys::read_link(path);
    if (error == ENOENT) return fmt::format("a symbolic link to nothing (it points to {})", target);
    if (error == ELOOP) return fmt::format("too many levels of symbolic links (it points to {})", target);
    return fmt::format("a symbolic link that cannot be followed: {} (it points to {})", std::strerror(error), target);
}

FleetNode fleet_node(const std::string& path, std::optional<Report> report, std::string error) {
    FleetNode node;
    node.source = path;
    node.name = fs::path(path).stem().string();
    node.report = std::move(report);
    node.error = std::move(error);
    if (!node.report) return node;
    // A redacted report's host name says nothing; Slurm's %N file name still names the node.
    if (!node.report->host.hostname.empty() && !node.report->redaction) node.name = node.report->host.hostname;
    node.versions = versions_of(*node.report);
    node.libraries_unrecorded = libraries_predate_section(*node.report);
    node.remedy = plan_remedy(*node.report).step;
    for (const CheckResult& result : node.report->checks) {
        for (const Metric& metric : result.metrics)
            if (metric.family == xid_events_family) node.xid_events = node.xid_events.value_or(0) + metric.value;
        if (result.check_id == "driver.kernel_log" && result.status != Status::skip && !node.xid_events)
            node.xid_events = 0;
        std::vector<std::string> sharing;
        for (const GpuSharing& shared : result.shared_gpu)
            sharing.push_back(fmt::format("GPU {} shared with {}", shared.device, describe_sharing(shared)));
        for (const Metric& metric : result.metrics)
            if (is_rate(metric)) {
                const std::string key = fmt::format("{} {}", result.check_id, metric.name);
                node.figures[key][result.device.value_or(-1)] = metric.value;
                node.units[key] = metric.unit;
                // A peak is the GPU's, not the run's: sharing the GPU does not change it.
                if (!sharing.empty() && metric.measured)
                    node.shared[key][result.device.value_or(-1)] = fmt::format("{}", fmt::join(sharing, "; "));
            }
    }
    return node;
}

void keep_for_fleet(Report& report) {
    std::erase_if(report.checks, [](const CheckResult& result) {
        return result.status != Status::fail && result.status != Status::error && result.status != Status::timeout;
    });
    for (CheckResult& result : report.checks) {
        result.findings = {};
        result.evidence = {};
        result.metrics = {};
        result.series = {};
        result.shared_gpu = {};
        result.message = {};
        result.remediation = {};
    }
    report.checks.shrink_to_fit();
    report.argv = {};
    report.frameworks.reset();
    report.build.reset();
    report.libraries.reset();
}

Fleet summarise_fleet(std::vector<FleetNode> nodes, double threshold_percent) {
    Fleet fleet;
    fleet.threshold_percent = threshold_percent;
    fleet.nodes = std::move(nodes);
    // Names must tell the nodes apart (containers and VMs often share a host name): every node of a
    // shared name gets its file's name, and where even those agree (two directories), its path.
    const auto distinguish = [&fleet](const std::function<std::string(const FleetNode&)>& label) {
        std::map<std::string, std::size_t> uses;
        for (const FleetNode& node : fleet.nodes) ++uses[node.name];
        for (FleetNode& node : fleet.nodes)
            if (uses[node.name] > 1) node.name = fmt::format("{} ({})", node.name, label(node));
    };
    distinguish([](const FleetNode& node) { return fs::path(node.source).stem().string(); });
    distinguish([](const FleetNode& node) { return node.source; });
    std::vector<const FleetNode*> readable;
    for (const FleetNode& node : fleet.nodes)
        if (node.report) readable.push_back(&node);

    // Versions: the majority of the nodes that know the fact.
    // Each fact's majority is found once, not once per node, so that it stays linear in the nodes.
    std::map<std::string, std::vector<std::string>> seen;
    for (const FleetNode* node : readable)
        for (const auto& [name, value] : node->versions) seen[name].push_back(value);
    std::map<std::string, std::pair<std::string, std::size_t>> majorities;
    for (const auto& [name, values] : seen) majorities[name] = majority(values);
    for (const FleetNode* node : readable)
        for (const auto& [name, value] : node->versions) {
            const auto& [common, count] = majorities.at(name);
            if (count == 0 || value == common) continue;
            fleet.outliers.push_back(FleetOutlier{node->name, std::nullopt, "version", name, value, common,
                                                  fmt::format("{} {} differs from the fleet's {} ({} of {} nodes)",
                                                              name, value, common, count, seen[name].size())});
        }

    // GPU count: most nodes of a fleet have the same number; one with fewer lost a GPU.
    std::vector<std::string> counts;
    for (const FleetNode* node : readable) counts.push_back(std::to_string(node->report->devices.size()));
    const auto [common_count, nodes_with_it] = majority(counts);
    for (const FleetNode* node : readable)
        if (nodes_with_it > 0 && std::to_string(node->report->devices.size()) != common_count)
            fleet.outliers.push_back(
                FleetOutlier{node->name, std::nullopt, "gpu_count", "GPUs",
                             std::to_string(node->report->devices.size()), common_count,
                             fmt::format("{} GPU(s) where {} of {} nodes have {}", node->report->devices.size(),
                                         nodes_with_it, readable.size(), common_count)});

    // Rates: each GPU against the median of every GPU in the fleet. A figure measured while another
    // process used the GPU is the share it got: it is left out of the median and not compared.
    const auto shared_with = [](const FleetNode& node, const std::string& key, int device) -> const std::string* {
        const auto figure = node.shared.find(key);
        if (figure == node.shared.end()) return nullptr;
        const auto on_device = figure->second.find(device);
        return on_device == figure->second.end() ? nullptr : &on_device->second;
    };
    std::map<std::string, std::vector<double>> all_values;
    for (const FleetNode* node : readable)
        for (const auto& [key, by_device] : node->figures)
            for (const auto& [device, value] : by_device)
                if (shared_with(*node, key, device) == nullptr) all_values[key].push_back(value);
    // Each figure's median once, not once per node (a sort of every node's values for
    // each node was most of the minute 10,000 nodes took).
    std::map<std::string, double> medians;
    for (auto& [key, values] : all_values) medians[key] = median(std::move(values));
    for (const FleetNode* node : readable)
        for (const auto& [key, by_device] : node->figures) {
            const auto found_median = medians.find(key);
            const double fleet_median = found_median == medians.end() ? 0.0 : found_median->second;
            const std::string& unit = node->units.at(key);
            for (const auto& [device, value] : by_device) {
                if (const std::string* sharing = shared_with(*node, key, device)) {
                    fleet.not_comparable.push_back(FleetOutlier{
                        node->name, device >= 0 ? std::optional<int>(device) : std::nullopt, "shared", key,
                        fmt::format("{:.4g} {}", value, unit), fmt::format("{:.4g} {}", fleet_median, unit),
                        fmt::format("{}{}: {:.4g} {}, not compared: {}",
                                    device >= 0 ? fmt::format("GPU {} ", device) : "", key, value, unit, *sharing)});
                    continue;
                }
                if (fleet_median <= 0 || value >= fleet_median * (1.0 - threshold_percent / 100.0)) continue;
                const double below = 100.0 * (fleet_median - value) / fleet_median;
                fleet.outliers.push_back(
                    FleetOutlier{node->name, device >= 0 ? std::optional<int>(device) : std::nullopt, "slow", key,
                                 fmt::format("{:.4g} {}", value, unit), fmt::format("{:.4g} {}", fleet_median, unit),
                                 fmt::format("{}{}: {:.4g} {}, {:.0f}% below the fleet median {:.4g} {}",
                                             device >= 0 ? fmt::format("GPU {} ", device) : "", key, value, unit, below,
                                             fleet_median, unit)});
            }
        }

    // A node whose report predates the `libraries` section has no library versions to compare: said,
    // not taken for a node that agrees with the fleet.
    for (const FleetNode* node : readable)
        if (node->libraries_unrecorded)
            fleet.not_comparable.push_back(
                FleetOutlier{node->name,
                             std::nullopt,
                             "libraries",
                             "libraries",
                             "not recorded",
                             {},
                             fmt::format("libraries not compared: {}", libraries_predate_section_text)});

    const bool any_failed =
        std::any_of(fleet.nodes.begin(), fleet.nodes.end(), [](const FleetNode& node) { return node.failed(); });
    fleet.exit_code = any_failed || !fleet.outliers.empty() ? exit_check_failed : exit_ok;
    return fleet;
}

}  // namespace cudacheck
