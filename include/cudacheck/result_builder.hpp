// Collects what a check (or a policy's expectation) found and turns it into a CheckResult: the
// worst finding decides the status, code, message and remediation. Part of the report model, so
// that everything that makes results (checks, `--expect`) shares one rule.
#pragma once

#include "cudacheck/catalog.hpp"
#include "cudacheck/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// The number and unit of evidence text that is exactly "<number> <unit>" with a unit of a figure
// ("61 C", "139.3 GiB", "4262 GB/s", "12 %"); nullopt for anything else, versions ("13.0") and
// bare numbers included, which are not measurements.
struct EvidenceFigure {
    double number = 0;
    std::string unit;
};
[[nodiscard]] std::optional<EvidenceFigure> evidence_figure(std::string_view text);

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
    // A fact as text. Text that is exactly a number and a unit ("61 C", "4.0 GiB") also carries them
    // as Evidence::number and unit (evidence_figure).
    void evidence(std::string key, std::string value);
    // A measured figure: the text a person reads, and the number and unit programs read.
    void evidence(std::string key, std::string value, double number, std::string unit);
    void metric(std::string name, double value, std::string unit) {
        metrics_.push_back({std::move(name), value, std::move(unit)});
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
