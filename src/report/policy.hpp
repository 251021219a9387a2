// `--expect FILE`: what a CI job or a cluster's admission script requires of a machine (driver and
// CUDA versions, GPUs, libraries, performance, acceptable warnings), as a JSON policy. Evaluated in
// the parent process after the run: each expectation becomes a result `expect.<name>` appended to
// the report, failed with a CC7xx code and the expected and found values when unmet, so the
// summary, the exit code, the table, JSON and JUnit all carry it. docs/policies/ has examples.
#pragma once

#include "report/report.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Bumped like the report's schema: major for removals and renames, minor for additions. A policy
// of another major version is refused; one of a newer minor version may use keys this cudacheck
// does not know, which are then refused by name.
inline constexpr std::string_view policy_schema_version = "1.0.0";

struct VersionBound {
    std::string text;  // as written, "12.4"
    std::vector<long> parts;
};

// Inclusive; a missing side is open. A bound matches every version it prefixes (max 12.9 admits 12.9.86).
struct VersionRange {
    std::optional<VersionBound> min;
    std::optional<VersionBound> max;
    [[nodiscard]] bool contains(const std::vector<long>& version) const;
    [[nodiscard]] std::string describe() const;  // ">= 12.4 and <= 12.9"
};

struct CountRange {
    std::optional<int> min;
    std::optional<int> max;
};

struct LibraryExpectation {
    std::string soname;  // "libcudnn.so.9", as libraries.resolution names it
    VersionRange versions;
};

struct PerformanceExpectation {
    std::string check_id;  // "cublas.gemm"
    std::string metric;    // "gemm_bf16_8192"
    double min = 0.0;
    std::string unit;  // optional: when given, the report's unit must be the same
};

struct Policy {
    std::string description;
    std::optional<VersionRange> driver;       // driver package version, "580.159.04"
    std::optional<VersionRange> driver_cuda;  // highest CUDA the driver supports
    std::optional<VersionRange> runtime;      // CUDA runtime
    std::optional<VersionRange> toolkit;      // nvcc
    std::optional<CountRange> device_count;
    std::optional<VersionBound> min_compute_capability;
    std::vector<LibraryExpectation> libraries;
    std::vector<PerformanceExpectation> performance;
    std::optional<std::vector<std::string>> allowed_warnings;  // codes; other warnings fail
};

// Reads and validates a policy: unknown keys, wrong types, versions that are not dotted numbers,
// unknown warning codes and impossible ranges (min above max) are refused, with the error (one line
// naming the file and the JSON pointer) of the first problem.
[[nodiscard]] Expected<Policy> read_policy_file(const std::string& path);
// The same from text in memory (`name` stands for the file in messages).
[[nodiscard]] Expected<Policy> parse_policy(std::string_view text, const std::string& name);

// One result per expectation the policy sets (ids expect.<name>), in a fixed order.
[[nodiscard]] std::vector<CheckResult> evaluate_policy(const Policy& policy, const Report& report);
// Appends evaluate_policy's results and recomputes the summary and exit code from all results.
void apply_policy(const Policy& policy, Report& report);

}  // namespace cudacheck
