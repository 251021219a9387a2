// `cudacheck fleet FILES|DIRS`: many nodes' reports (one JSON report per node, gathered by Slurm or
// Kubernetes: docs/cluster.md) summarised as one table of nodes and the outliers among them: a
// node whose versions differ from the fleet's majority, a node with fewer GPUs than most, a GPU
// slower than the fleet's median beyond a threshold, and every node that failed.
#pragma once

#include "report/report.hpp"
#include "util/expected.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

struct FleetNode {
    std::string source;  // the report file
    std::string name;    // the report's host name; the file name when redacted or unreadable
    std::optional<Report> report;
    std::string error;  // why the file could not be read as a report
    // Per performance figure ("cublas.gemm gemm_bf16_8192"), the value of each device (or -1 for a host check).
    std::map<std::string, std::map<int, double>> figures;
    std::map<std::string, std::string> units;
    // The figures measured while another process used the GPU, with who it was: shown,
    // but neither part of the fleet median nor an outlier.
    std::map<std::string, std::map<int, std::string>> shared;
    // The version-like facts the fleet should agree on ("driver", "libcudnn.so.9", "GPU model").
    std::map<std::string, std::string> versions;
    // libraries.resolution ran but the report has no `libraries` section (schema before 1.10.0):
    // its libraries are not among `versions`, and the fleet says so.
    bool libraries_unrecorded = false;
    // The Xid events the driver logged since boot, summed over the node's GPUs (driver.kernel_log's
    // xid_events figures); empty when the check did not run or found the kernel log unreadable.
    std::optional<double> xid_events;
    // The node's one ordered fix (report/remedy.hpp), taken before the findings are dropped.
    Remedy remedy = Remedy::none;
    [[nodiscard]] bool failed() const { return !report || report->exit_code != exit_ok; }
};

struct FleetOutlier {
    std::string node;
    std::optional<int> device;
    std::string kind;     // "version", "gpu_count", "slow"
    std::string subject;  // "driver", "libcudnn.so.9", "cublas.gemm gemm_bf16_8192"
    std::string value;
    std::string fleet_value;  // the majority or the median it differs from
    std::string message;
};

struct Fleet {
    double threshold_percent = 10.0;
    std::vector<FleetNode> nodes;  // in the order of the files
    std::vector<FleetOutlier> outliers;
    // kind "shared": figures of a shared GPU; kind "libraries": a node whose report records no
    // library copies as data (older than schema 1.10.0). Neither is compared nor changes the exit code.
    std::vector<FleetOutlier> not_comparable;
    int exit_code = exit_ok;  // 1 when a node failed or is an outlier
};

// The JSON files named, and every *.json in the directories named (sorted), in order; the error
// names the first path that is neither, or a directory with no report. A symbolic link that leads
// nowhere (dangling, looping) is listed too, named or found: it becomes an unreadable node that
// says why (broken_link), not a node left out without a word.
[[nodiscard]] Expected<std::vector<std::string>> fleet_files(const std::vector<std::string>& paths);

// Why `path`, a symbolic link, cannot be followed: "a symbolic link to nothing (it points to
// gone.json)", "too many levels of symbolic links (it points to b.json)"; empty when `path` is no
// link or its target exists.
[[nodiscard]] std::optional<std::string> broken_link(const std::string& path);

// Drops from a node's report what neither the fleet's table nor its JSON shows (the evidence,
// findings, metrics and series of every check, the passing checks themselves, the Python, build
// and libraries sections), once its figures and versions are taken and its policy applied: 10,000 nodes then
// hold a few kB each, not the 70 kB of a whole report.
void keep_for_fleet(Report& report);

// Reads each file (an unreadable one is a failed node, not an error of the command) and finds the
// outliers. The reports may have been checked against a policy (--expect) by the caller.
[[nodiscard]] Fleet summarise_fleet(std::vector<FleetNode> nodes, double threshold_percent);

// A node from one report file (`report` empty and `error` set when it could not be read): named,
// figures collected.
[[nodiscard]] FleetNode fleet_node(const std::string& path, std::optional<Report> report, std::string error);

}  // namespace cudacheck
