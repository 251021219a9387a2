// Collects what a check (or a policy's expectation) found and turns it into a CheckResult: the
// worst finding decides the status, code, message and remediation. Part of the report model, so
// that everything that makes results (checks, `--expect`) shares one rule.
#pragma once

#include "cudacheck/catalog.hpp"
#include "cudacheck/result.hpp"

#include <optional>
#include <string>
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
    void evidence(std::string key, std::string value) {
        evidence_.push_back({std::move(key), std::move(value)});
    }
    void metric(std::string name, double value, std::string unit) {
        metrics_.push_back({std::move(name), value, std::move(unit)});
    }
    // The check does not apply here (e.g. no GPU to query); the reason is shown to the user.
    void skip(std::string reason) { skip_reason_ = std::move(reason); }

    // Turns what was collected into a result: status and headline from the worst finding.
    [[nodiscard]] CheckResult finish(std::string check_id, std::optional<int> device) &&;

private:
    std::string summary_;
    std::vector<Finding> findings_;
    std::vector<Evidence> evidence_;
    std::vector<Metric> metrics_;
    std::optional<std::string> skip_reason_;
};

}  // namespace cudacheck
