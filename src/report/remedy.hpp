// One ordered fix per GPU and for the node, joined from every finding's remedy (result.hpp's
// Remedy): for each GPU the most disruptive step of the GPU ladder its findings call for, with the
// findings as the evidence; for the node the step with the strongest action class over all
// findings, and the configuration fixes apart. A pure function of the report: the JSON's `remedy`
// section, the table's "Remedy" lines, the HTML report, Prometheus and the Slurm health check all
// read this one answer.
#pragma once

#include "report/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// A finding that calls for a step, as the plan names it.
struct RemedyReason {
    std::string check_id;
    std::string code;  // "CC233"
    Status status = Status::warn;
    Remedy remedy = Remedy::none;
    std::string message;
    bool operator==(const RemedyReason&) const = default;
};

// What one GPU needs: its strongest ladder step (restart_app and above; none when its findings ask
// for nothing on the ladder) and every finding about it that asks for something.
struct GpuRemedy {
    std::string gpu;          // Finding::gpu: the UUID, or the PCI bus id when the UUID is unknown
    std::string pci_bus_id;   // from the report's devices, when it lists the GPU
    std::optional<int> nvml_index;
    std::optional<int> cuda_device;
    Remedy step = Remedy::none;
    std::vector<RemedyReason> because;
    bool operator==(const GpuRemedy&) const = default;
};

struct RemedyPlan {
    // The node's step: the remedy of the strongest action class (isolate > reset > triage > config >
    // app > none), the most disruptive one within the class.
    Remedy step = Remedy::none;
    std::vector<GpuRemedy> gpus;             // GPUs with at least one finding that asks for something
    std::vector<RemedyReason> node;          // findings of no one GPU that ask for a ladder step or triage
    std::vector<RemedyReason> configuration;  // findings whose remedy is fix_config
    bool operator==(const RemedyPlan&) const = default;
};

// Rank of an action class for the node: none 0, app 1, config 2, triage 3, reset 4, isolate 5.
[[nodiscard]] int action_class_rank(Remedy remedy);
[[nodiscard]] RemedyPlan plan_remedy(const Report& report);
// "reset GPU 0 (`sudo nvidia-smi -r -i 0`)", "drain the node and reboot it": the step in words,
// for a GPU of that nvml index when given.
[[nodiscard]] std::string describe_step(Remedy step, std::optional<int> nvml_index = std::nullopt);

}  // namespace cudacheck
