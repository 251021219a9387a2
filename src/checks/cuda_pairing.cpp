// cuda.pairing: can this driver run the CUDA runtime cudacheck was built with, and what the nvcc on
// PATH builds? Verdicts follow NVIDIA's compatibility rules (docs.nvidia.com/deploy/cuda-compatibility):
// native (driver >= runtime), minor-version compatible (same major, older minor: runs, but PTX from
// the newer toolkit cannot be JIT-compiled and newer-driver features fail with error 36),
// forward compatibility (a cuda-compat libcuda), or insufficient (older major: error 35).
#include "checks/checks.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/probes.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION only: the runtime version cudacheck is built with
#include <fmt/format.h>

namespace cudacheck {

namespace {

std::string needs_text(CudaVersion runtime) {
    const auto family = family_minimum_driver(runtime.major);
    const auto full = minimum_driver_for(runtime);
    if (family && full)
        return fmt::format("needs driver >= {} (>= {} for all of {}'s features)", *family, *full, runtime.to_string());
    if (full) return fmt::format("needs driver >= {}", *full);
    return fmt::format("needs a driver that supports CUDA {}", runtime.to_string());
}

std::string driver_text(const PairingFacts& facts, CudaVersion driver) {
    if (facts.driver_version.empty()) return fmt::format("the driver supports CUDA <= {}", driver.to_string());
    return fmt::format("driver {} supports CUDA <= {}", facts.driver_version, driver.to_string());
}

}  // namespace

void judge_pairing(const PairingFacts& facts, ResultBuilder& result) {
    if (facts.driver_cuda <= 0) {
        result.skip("the driver did not report its CUDA version (cuDriverGetVersion failed)");
        return;
    }
    const CudaVersion driver = CudaVersion::from_encoded(facts.driver_cuda);
    const CudaVersion runtime = CudaVersion::from_encoded(facts.runtime_cuda);
    result.evidence("driver_cuda", driver.to_string());
    if (!facts.driver_version.empty()) result.evidence("driver_version", facts.driver_version);
    result.evidence("runtime_cuda", fmt::format("{} (cudacheck's own runtime)", runtime.to_string()));
    if (facts.nvcc) result.evidence("nvcc", facts.nvcc->full);

    std::string verdict;
    if (driver.major < runtime.major) {
        verdict = "insufficient";
        result.add(Code::driver_insufficient,
                   fmt::format("{}; the CUDA {} runtime {}", driver_text(facts, driver), runtime.to_string(),
                               needs_text(runtime)),
                   fmt::format("Install NVIDIA driver >= {} (e.g. `sudo apt install nvidia-driver-{}` or the CUDA "
                               "repository's cuda-drivers), "
                               "or on a data-center GPU install cuda-compat-{}-{}; or use software built for CUDA {}.",
                               minimum_driver_for(runtime).value_or(
                                   family_minimum_driver(runtime.major).value_or("newer")),
                               minimum_driver_for(runtime).value_or("580").substr(0, 3), runtime.major, runtime.minor,
                               driver.to_string()));
    } else if (facts.forward_compat) {
        verdict = "forward compatibility";
    } else if (driver < runtime) {
        verdict = "minor-version compatible";
    } else {
        verdict = "native";
    }
    result.evidence("verdict", verdict);

    // A release of digits too long for an int (a hostile nvcc on PATH) is no release to compare.
    if (const std::optional<CudaVersion> parsed = facts.nvcc ? CudaVersion::parse(facts.nvcc->release) : std::nullopt) {
        const CudaVersion nvcc = *parsed;
        if (nvcc.major > driver.major)
            result.add(Code::nvcc_newer_than_driver,
                       fmt::format("nvcc {} builds programs that need a CUDA {} driver; {}", facts.nvcc->full,
                                   nvcc.major, driver_text(facts, driver)),
                       fmt::format("Update the driver (CUDA {} {}), or build with a CUDA {}.x toolkit.",
                                   nvcc.to_string(), needs_text(nvcc), driver.major));
        else if (nvcc > driver)
            result.evidence("nvcc_note",
                            fmt::format("nvcc {} is newer than the driver's CUDA {}: programs run (minor-version "
                                        "compatibility), but PTX they embed cannot be JIT-compiled by this driver",
                                        facts.nvcc->full, driver.to_string()));
    }
    result.summary(fmt::format("{}: driver CUDA {}{}, runtime {}{}", verdict, driver.to_string(),
                               facts.driver_version.empty() ? "" : " (" + facts.driver_version + ")",
                               runtime.to_string(), facts.nvcc ? ", nvcc " + facts.nvcc->full : ""));
}

std::unique_ptr<Check> make_cuda_pairing_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "cuda.pairing",
                  .title = "Driver/runtime pairing",
                  .description = "Driver CUDA version vs cudacheck's runtime vs nvcc: native, minor-version "
                                 "compatible, forward-compat or insufficient",
                  .depends_on = {"driver.libcuda"},
                  .raises = {Code::driver_insufficient, Code::nvcc_newer_than_driver},
                  .answers =
                      "driver CUDA version vs cudacheck's runtime vs nvcc: native, minor-version compatible, forward "
                      "compatibility, or insufficient (with the minimum driver)"},
        [](CheckContext& context, ResultBuilder& result) {
            const DriverFacts& driver = context.probes.driver();
            PairingFacts facts;
            facts.driver_cuda = driver.driver_version.value_or(0);
            facts.driver_version = driver.library_file_version.empty()
                                       ? driver_package_version(&context.probes.kernel_module(), &driver)
                                       : driver.library_file_version;
            facts.forward_compat = driver.library.loaded_path().find("/compat/") != std::string::npos;
            facts.runtime_cuda = CUDART_VERSION;
            const ToolkitFacts& toolkits = context.probes.toolkits();
            if (!toolkits.path_nvcc.empty()) facts.nvcc = toolkits.nvcc_version;
            judge_pairing(facts, result);
            // At --level quick nvcc is not run: its version is what its toolkit's files say.
            if (facts.nvcc && !toolkits.nvcc_version_source.empty())
                result.evidence("nvcc_source", toolkits.nvcc_version_source + ": " + toolkits.nvcc_not_run);
        });
}

const CheckRegistration cuda_pairing_registration{800, make_cuda_pairing_check};

}  // namespace cudacheck
