#include "report/policy.hpp"

#include "report/catalog.hpp"
#include "report/report_query.hpp"
#include "report/result_builder.hpp"
// The policy is a JSON document read like a report: the same type checks and JSON pointers.
#include "util/json_read.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <initializer_list>

namespace cudacheck {

namespace {

using namespace json_read;

// --- reading ---------------------------------------------------------------------------------

// "CC115" or "cc115"; a slug or a bare number would be ambiguous in a policy that others read.
bool is_code_text(std::string_view text) {
    return text.size() == 5 && (text[0] == 'C' || text[0] == 'c') && (text[1] == 'C' || text[1] == 'c') &&
           std::all_of(text.begin() + 2, text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void only_keys(const json& object, std::initializer_list<std::string_view> allowed) {
    if (!object.is_object())
        throw JsonShapeError("", fmt::format("expected an object, found {}", describe_value(object)));
    for (const auto& [key, value] : object.items())
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            throw JsonShapeError(pointer_token(key),
                                 fmt::format("unknown key; expected one of {}", fmt::join(allowed, ", ")));
}

VersionBound read_bound(const json& object, std::string_view key) {
    const std::string text = read<std::string>(object, key);
    const auto parts = parse_dotted_version(text);
    if (!parts)
        throw JsonShapeError(pointer_token(key), fmt::format("'{}' is not a version such as 12.4 or 550.54.15", text));
    return VersionBound{text, *parts};
}

// `open`: an empty range ({}) is allowed, meaning any version.
VersionRange read_range(const json& object, bool open) {
    only_keys(object, {"min", "max"});
    VersionRange range;
    if (object.contains("min")) range.min = read_bound(object, "min");
    if (object.contains("max")) range.max = read_bound(object, "max");
    if (!open && !range.min && !range.max) throw JsonShapeError("", "expected \"min\", \"max\" or both");
    if (range.min && range.max && compare_with_bound(range.min->parts, range.max->parts) > 0)
        throw JsonShapeError("",
                             fmt::format("impossible range: min {} is above max {}", range.min->text, range.max->text));
    return range;
}

VersionRange read_closed_range(const json& object) { return read_range(object, false); }

CountRange read_count(const json& object) {
    only_keys(object, {"min", "max"});
    CountRange range;
    for (const char* key : {"min", "max"}) {
        if (!object.contains(key)) continue;
        const int value = read<int>(object, key);
        if (value < 0) throw JsonShapeError(pointer_token(key), fmt::format("{} is negative", value));
        (std::string_view(key) == "min" ? range.min : range.max) = value;
    }
    if (!range.min && !range.max) throw JsonShapeError("", "expected \"min\", \"max\" or both");
    if (range.min && range.max && *range.min > *range.max)
        throw JsonShapeError("", fmt::format("impossible range: min {} is above max {}", *range.min, *range.max));
    return range;
}

PerformanceExpectation read_performance(const json& object) {
    only_keys(object, {"check", "metric", "min", "unit"});
    PerformanceExpectation expectation;
    expectation.check_id = read<std::string>(object, "check");
    expectation.metric = read<std::string>(object, "metric");
    expectation.min = read<double>(object, "min");
    if (object.contains("unit")) expectation.unit = read<std::string>(object, "unit");
    if (expectation.check_id.find('.') == std::string::npos)
        throw JsonShapeError("/check", fmt::format("'{}' is not a check id such as cublas.gemm", expectation.check_id));
    if (expectation.metric.empty()) throw JsonShapeError("/metric", "empty");
    if (!std::isfinite(expectation.min) || expectation.min < 0)
        throw JsonShapeError("/min", fmt::format("{} is not a non-negative figure", expectation.min));
    return expectation;
}

Policy policy_from_json(const json& document) {
    only_keys(document, {"schema_version", "description", "driver", "driver_cuda", "runtime", "toolkit", "device_count",
                         "compute_capability", "libraries", "performance", "allowed_warnings"});
    const std::string version = read<std::string>(document, "schema_version");
    const std::optional<int> major = schema_major(version);
    if (!major)
        throw JsonShapeError("/schema_version", fmt::format("'{}' is not a MAJOR.MINOR.PATCH version", version));
    if (major != schema_major(policy_schema_version))
        throw JsonShapeError("/schema_version", fmt::format("policy schema {} is incompatible: this cudacheck reads "
                                                            "policies of schema {}.x",
                                                            version, *schema_major(policy_schema_version)));
    Policy policy;
    if (document.contains("description")) policy.description = read<std::string>(document, "description");
    const std::pair<const char*, std::optional<VersionRange>*> ranges[] = {{"driver", &policy.driver},
                                                                           {"driver_cuda", &policy.driver_cuda},
                                                                           {"runtime", &policy.runtime},
                                                                           {"toolkit", &policy.toolkit}};
    for (const auto& [key, range] : ranges)
        if (document.contains(key)) *range = read_part(document, key, read_closed_range);
    if (document.contains("device_count")) policy.device_count = read_part(document, "device_count", read_count);
    if (document.contains("compute_capability"))
        policy.min_compute_capability = read_part(document, "compute_capability", [](const json& object) {
            only_keys(object, {"min"});
            return read_bound(object, "min");
        });
    if (document.contains("libraries"))
        read_part(document, "libraries", [&](const json& libraries) {
            if (!libraries.is_object())
                throw JsonShapeError("",
                                     fmt::format("expected an object of sonames, found {}", describe_value(libraries)));
            // Each range read from the member in hand: looking each soname up again scanned every
            // key before it (quadratic in a policy of many libraries).
            for (const auto& [soname, range] : libraries.items()) {
                try {
                    policy.libraries.push_back({soname, read_range(range, true)});
                } catch (const JsonShapeError& error) {
                    throw error.within(pointer_token(soname));
                }
            }
        });
    if (document.contains("performance"))
        for_each_element(document, "performance",
                         [&](const json& item) { policy.performance.push_back(read_performance(item)); });
    if (document.contains("allowed_warnings")) {
        std::vector<std::string> codes = read_strings(document, "allowed_warnings");
        for (std::size_t i = 0; i < codes.size(); ++i) {
            const CatalogEntry* entry = find_catalog_entry(codes[i]);
            if (entry == nullptr || !is_code_text(codes[i]))
                throw JsonShapeError(
                    fmt::format("/allowed_warnings/{}", i),
                    fmt::format("'{}' is not a cudacheck code (`cudacheck explain --markdown` lists them)", codes[i]));
            codes[i] = code_string(entry->code);
        }
        policy.allowed_warnings = std::move(codes);
    }
    return policy;
}

// --- evaluating ------------------------------------------------------------------------------

CheckResult finished(ResultBuilder& builder, std::string_view id) {
    return std::move(builder).finish(fmt::format("expect.{}", id), std::nullopt);
}

// A version against a range: one result with the expected and found values as evidence.
CheckResult judge_version(std::string_view id, std::string_view what, const std::string& found,
                          const VersionRange& range, Code code) {
    ResultBuilder result;
    result.evidence("expected", range.describe());
    result.evidence("found", found.empty() ? "unknown" : found);
    const auto version = parse_dotted_version(found);
    if (!version)
        result.add(code, fmt::format("{} is unknown{}; the policy expects {}", what,
                                     found.empty() ? "" : fmt::format(" ('{}')", found), range.describe()));
    else if (!range.contains(*version))
        result.add(code, fmt::format("{} {} is outside the policy's range: expected {}, found {}", what, found,
                                     range.describe(), found));
    else result.summary(fmt::format("{} {} is within the policy's range ({})", what, found, range.describe()));
    return finished(result, id);
}

std::string describe_count(const CountRange& range) {
    if (range.min && range.max && *range.min == *range.max) return fmt::format("exactly {}", *range.min);
    if (range.min && range.max) return fmt::format("{} to {}", *range.min, *range.max);
    return range.min ? fmt::format("at least {}", *range.min) : fmt::format("at most {}", *range.max);
}

CheckResult judge_device_count(const CountRange& range, const Report& report) {
    ResultBuilder result;
    const int found = static_cast<int>(report.devices.size());
    result.evidence("expected", describe_count(range));
    result.evidence("found", std::to_string(found));
    if ((range.min && found < *range.min) || (range.max && found > *range.max))
        result.add(Code::expect_device_count,
                   fmt::format("{} CUDA device(s) visible; the policy expects {}", found, describe_count(range)));
    else
        result.summary(
            fmt::format("{} CUDA device(s) visible, as the policy expects ({})", found, describe_count(range)));
    return finished(result, "device_count");
}

CheckResult judge_compute_capability(const VersionBound& minimum, const Report& report) {
    ResultBuilder result;
    result.evidence("expected", ">= " + minimum.text);
    if (report.devices.empty())
        result.add(Code::expect_compute_capability,
                   fmt::format("no CUDA device visible; the policy expects compute capability >= {}", minimum.text));
    for (const DeviceInfo& device : report.devices) {
        const std::string found = fmt::format("{}.{}", device.cc_major, device.cc_minor);
        result.evidence(fmt::format("device{}", device.ordinal), fmt::format("{} {}", device.name, found));
        if (compare_with_bound({device.cc_major, device.cc_minor}, minimum.parts) < 0)
            result.add(Code::expect_compute_capability,
                       fmt::format("device {} ({}) has compute capability {}; the policy expects >= {}", device.ordinal,
                                   device.name, found, minimum.text));
    }
    result.summary(fmt::format("every device has compute capability >= {}", minimum.text));
    return finished(result, "compute_capability");
}

CheckResult judge_libraries(const std::vector<LibraryExpectation>& expectations, const Report& report) {
    ResultBuilder result;
    const bool resolved = has_check(report, "libraries.resolution");
    // An older report's libraries are evidence text, not data: no verdict either way, and no pass.
    const bool unrecorded = libraries_predate_section(report);
    const std::vector<const LibraryResolutionInfo*> libraries = resolved_libraries(report);
    for (const LibraryExpectation& expectation : expectations) {
        const std::string expected =
            expectation.versions.min || expectation.versions.max ? expectation.versions.describe() : "any version";
        const auto found = std::find_if(libraries.begin(), libraries.end(), [&](const LibraryResolutionInfo* library) {
            return library->soname == expectation.soname;
        });
        if (found == libraries.end()) {
            result.evidence(expectation.soname, fmt::format("expected {}, found none", expected));
            result.add(Code::expect_library_missing,
                       unrecorded ? fmt::format("{} cannot be judged: {}; the policy requires it ({})",
                                                expectation.soname, libraries_predate_section_text, expected)
                       : resolved ? fmt::format("{} does not resolve on this machine; the policy requires it ({})",
                                                expectation.soname, expected)
                                  : fmt::format("{} was not looked for: libraries.resolution did not run; the policy "
                                                "requires it ({})",
                                                expectation.soname, expected),
                       unrecorded ? "Check the machine again with this cudacheck (libraries.resolution runs at every "
                                    "level), then apply the policy "
                                    "to the new report."
                                  : std::string());
            continue;
        }
        const LibraryResolutionInfo& library = **found;
        result.evidence(expectation.soname,
                        fmt::format("expected {}, found {}", expected, describe_resolution(library)));
        if (!expectation.versions.min && !expectation.versions.max) continue;
        const auto version = parse_dotted_version(library.version);
        if (!version || !expectation.versions.contains(*version))
            result.add(Code::expect_library_version,
                       fmt::format("{} resolves to version {} ({}); the policy expects {}", expectation.soname,
                                   library.version.empty() ? "unknown" : library.version, library.real_path, expected));
    }
    result.summary(fmt::format("{} required librar{} resolve{} as the policy expects", expectations.size(),
                               expectations.size() == 1 ? "y" : "ies", expectations.size() == 1 ? "s" : ""));
    return finished(result, "libraries");
}

// "GPU 0: pid 477 python3 (SM 99%)" for each GPU a result was measured on while shared.
std::string shared_text(const CheckResult& check) {
    std::vector<std::string> parts;
    for (const GpuSharing& sharing : check.shared_gpu)
        parts.push_back(fmt::format("GPU {}: {}", sharing.device, describe_sharing(sharing)));
    return fmt::format("{}", fmt::join(parts, "; "));
}

// Whether `wanted` names `metric` at another size: the figure has a `size` label, and the two
// names differ only where that label's value stands in the figure's name, where `wanted` has
// another number. A policy names a figure by its flat name (the report's `name`, what --expect
// matches), so the policy's text is compared with the figure's name; which part of the name may
// differ comes from the figure's label, not from the name's shape, and nothing is read out of a name.
bool names_another_size(const Metric& metric, std::string_view wanted) {
    const std::string* size = metric.label("size");
    if (size == nullptr || size->empty()) return false;
    const std::string_view name = metric.name;
    // The span where the names differ: after their common beginning, before their common end.
    std::size_t same_start = 0;
    while (same_start < name.size() && same_start < wanted.size() && name[same_start] == wanted[same_start])
        ++same_start;
    std::size_t same_end = 0;
    while (same_end < name.size() - same_start && same_end < wanted.size() - same_start &&
           name[name.size() - 1 - same_end] == wanted[wanted.size() - 1 - same_end])
        ++same_end;
    // An occurrence of the size in the figure's name that covers that span; `wanted` has a number there.
    for (std::size_t at = name.find(*size); at != std::string_view::npos; at = name.find(*size, at + 1)) {
        const std::size_t end = at + size->size();
        if (at > same_start || end < name.size() - same_end) continue;
        if (wanted.size() + size->size() <= name.size()) continue;
        const std::string_view other = wanted.substr(at, wanted.size() + size->size() - name.size());
        if (std::all_of(other.begin(), other.end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
            return true;
    }
    return false;
}

// A figure measured at another size than the policy names (cublas.gemm measured gemm_fp32_8192
// until it chose 4096^3 for FP32): "; it measured gemm_fp32_4096 instead", so the policy can be fixed.
std::string measured_instead(const CheckResult& check, const std::string& wanted) {
    std::vector<std::string> similar;
    for (const Metric& metric : check.metrics)
        if (names_another_size(metric, wanted)) similar.push_back(metric.name);
    if (similar.empty()) return {};
    return fmt::format("; it measured {} instead", fmt::join(similar, ", "));
}

CheckResult judge_performance(const std::vector<PerformanceExpectation>& expectations, const Report& report) {
    ResultBuilder result;
    for (const PerformanceExpectation& expectation : expectations) {
        const std::string expected =
            fmt::format(">= {:g}{}{}", expectation.min, expectation.unit.empty() ? "" : " ", expectation.unit);
        bool ran = false;
        for (const CheckResult& check : report.checks) {
            if (check.check_id != expectation.check_id) continue;
            ran = true;
            const std::string label =
                fmt::format("{}{} {}", check.check_id, check.device ? fmt::format("[{}]", *check.device) : "",
                            expectation.metric);
            const auto metric = std::find_if(check.metrics.begin(), check.metrics.end(),
                                             [&](const Metric& m) { return m.name == expectation.metric; });
            if (metric == check.metrics.end()) {
                result.evidence(label,
                                fmt::format("expected {}, not measured ({})", expected, to_string(check.status)));
                result.add(Code::expect_performance_not_measured,
                           fmt::format("{} was not measured ({} {}); the policy expects {}{}", label,
                                       to_string(check.status), check.message, expected,
                                       measured_instead(check, expectation.metric)));
            } else if (!expectation.unit.empty() && metric->unit != expectation.unit) {
                result.evidence(label,
                                fmt::format("expected {}, found {:g} {}", expected, metric->value, metric->unit));
                result.add(Code::expect_performance_not_measured,
                           fmt::format("{} is measured in {}, the policy's minimum is in {}", label, metric->unit,
                                       expectation.unit));
            } else if (!check.shared_gpu.empty()) {
                // Measured while another process used the GPU: neither held to the minimum nor passed.
                result.evidence(label, fmt::format("expected {}, found {:.4g} {} on a shared GPU", expected,
                                                   metric->value, metric->unit));
                result.add(Code::expect_performance_not_comparable,
                           fmt::format("{} is {:.4g} {}, measured while another process used the GPU ({}): not "
                                       "compared with the policy's "
                                       "minimum {:g}",
                                       label, metric->value, metric->unit, shared_text(check), expectation.min));
            } else {
                result.evidence(label,
                                fmt::format("expected {}, found {:.4g} {}", expected, metric->value, metric->unit));
                if (!(metric->value >= expectation.min))
                    result.add(Code::expect_performance_below_minimum,
                               fmt::format("{} is {:.4g} {}, below the policy's minimum {:g}", label, metric->value,
                                           metric->unit, expectation.min));
            }
        }
        if (!ran)
            result.add(Code::expect_performance_not_measured,
                       fmt::format("{} {} was not measured: {} did not run; the policy expects {}",
                                   expectation.check_id, expectation.metric, expectation.check_id, expected));
    }
    result.summary(fmt::format("{} performance figure(s) at or above the policy's minimum", expectations.size()));
    return finished(result, "performance");
}

CheckResult judge_warnings(const std::vector<std::string>& allowed, const Report& report) {
    ResultBuilder result;
    result.evidence("allowed", allowed.empty() ? "none" : fmt::format("{}", fmt::join(allowed, ", ")));
    for (const CheckResult& check : report.checks)
        for (const Finding& finding : check.findings)
            if (finding.status == Status::warn &&
                std::find(allowed.begin(), allowed.end(), finding.code) == allowed.end())
                result.add(Code::expect_warning_not_allowed,
                           fmt::format("{}{} warned {} ({}), which the policy does not allow", check.check_id,
                                       check.device ? fmt::format("[{}]", *check.device) : "", finding.code,
                                       finding.message));
    result.summary("every warning is one the policy allows");
    return finished(result, "warnings");
}

}  // namespace

bool VersionRange::contains(const std::vector<long>& version) const {
    return (!min || compare_with_bound(version, min->parts) >= 0) &&
           (!max || compare_with_bound(version, max->parts) <= 0);
}

std::string VersionRange::describe() const {
    if (min && max) return fmt::format(">= {} and <= {}", min->text, max->text);
    if (min) return ">= " + min->text;
    if (max) return "<= " + max->text;
    return "any version";
}

Expected<Policy> parse_policy(std::string_view text, const std::string& name) {
    return parse_text_as(text, name, policy_from_json);
}

Expected<Policy> read_policy_file(const std::string& path) { return read_file_as(path, policy_from_json); }

std::vector<CheckResult> evaluate_policy(const Policy& policy, const Report& report) {
    std::vector<CheckResult> results;
    if (policy.driver)
        results.push_back(judge_version("driver_version", "driver", report.versions.driver, *policy.driver,
                                        Code::expect_driver_version));
    if (policy.driver_cuda)
        results.push_back(judge_version("driver_cuda_version", "the driver's CUDA version", report.versions.driver_cuda,
                                        *policy.driver_cuda, Code::expect_driver_cuda_version));
    if (policy.runtime)
        results.push_back(judge_version("runtime_version", "CUDA runtime", report.versions.runtime, *policy.runtime,
                                        Code::expect_runtime_version));
    if (policy.toolkit)
        results.push_back(judge_version("toolkit_version", "nvcc", report.versions.nvcc, *policy.toolkit,
                                        Code::expect_toolkit_version));
    if (policy.device_count) results.push_back(judge_device_count(*policy.device_count, report));
    if (policy.min_compute_capability)
        results.push_back(judge_compute_capability(*policy.min_compute_capability, report));
    if (!policy.libraries.empty()) results.push_back(judge_libraries(policy.libraries, report));
    if (!policy.performance.empty()) results.push_back(judge_performance(policy.performance, report));
    if (policy.allowed_warnings) results.push_back(judge_warnings(*policy.allowed_warnings, report));
    return results;
}

void apply_policy(const Policy& policy, Report& report) {
    std::vector<CheckResult> results = evaluate_policy(policy, report);
    report.checks.insert(report.checks.end(), std::make_move_iterator(results.begin()),
                         std::make_move_iterator(results.end()));
    report.summary = summarize(report.checks);
    report.exit_code = exit_code_for(report.summary, report.strict);
}

}  // namespace cudacheck
