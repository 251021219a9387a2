// Collects what a check (or a policy's expectation) found and turns it into a CheckResult: the
// worst finding decides the status, code, message and remediation. Part of the report model, so
// that everything that makes results (checks, `--expect`) shares one rule.
#pragma once

#include "report/catalog.hpp"
#include "report/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Collects what a check found. The engine adds the id, device, timing and final status.
class ResultBuilder {
public:
    // The one-line summary shown when the check passes (or as context for its findings).
    void summary(std::string message) { summary_ = std::move(message); }
    void add(Finding finding) { findings_.push_back(std::move(finding)); }
    void add(Code code, std::string message, std::string remediation = {},
             std::optional<Status> status = std::nullopt) {
        add(make_finding(code, std::move(message), std::move(remediation), status));
    }
    // A finding about one CUDA device only (Finding::device).
    void add_for_device(int device, Code code, std::string message, std::string remediation = {}) {
        Finding finding = make_finding(code, std::move(message), std::move(remediation));
        finding.device = device;
        add(std::move(finding));
    }
    // A fact as text, with no number: text that looks like a figure ("61 C") is still only text.
    void evidence(std::string key, std::string value);
    // A measured figure: the text a person reads, and the number and unit programs read
    // (evidence("gpu0_temperature", "61 C", 61, Unit::celsius)).
    void evidence(std::string key, std::string value, double number, Unit unit);
    // A figure that has no unit (a test statistic).
    void evidence(std::string key, std::string value, double number);
    // A byte count, written as format_bytes writes it ("23.5 GiB") with the number and unit the text
    // shows (23.5, Unit::gib); a count below 1 KiB ("512 B") is text only, as reports always had it.
    void evidence_bytes(std::string key, std::uint64_t bytes);
    // A fact made elsewhere (a worker's, a sub-verdict's), relayed with its number and unit.
    void evidence(Evidence item);
    // A figure of a family the check declares (result.hpp's MetricFamily), with what varies within
    // the family as labels: metric(gemm_rate, 796.2, {{"precision", "bf16"}, {"size", "8192"}}).
    void metric(const MetricFamily& family, double value, MetricLabels labels = {}) {
        metrics_.push_back(make_metric(family, value, std::move(labels)));
    }
    // A table of figures (gpu.stress per second, gpu.memtest per pattern).
    void series(Series table) { series_.push_back(std::move(table)); }
    // A GPU another process used while this check timed its work (the engine adds it).
    void shared_gpu(GpuSharing sharing) { shared_gpu_.push_back(std::move(sharing)); }
    // The check does not apply here (e.g. no GPU to query); the reason is shown to the user.
    void skip(std::string reason) { skip_reason_ = std::move(reason); }

    // Turns what was collected into a result: status and headline from the worst finding.
    [[nodiscard]] CheckResult finish(std::string check_id, std::optional<int> device) &&;

private:
    std::string summary_;
    std::vector<Finding> findings_;
    std::vector<Evidence> evidence_;
    std::vector<Metric> metrics_;
    std::vector<Series> series_;
    std::vector<GpuSharing> shared_gpu_;
    std::optional<std::string> skip_reason_;
};

}  // namespace cudacheck
