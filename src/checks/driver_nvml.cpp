// driver.nvml: can NVML (the library nvidia-smi and monitoring tools use) start, and does it agree
// with the kernel module. At --level quick it is also how devices are listed.
#include "bind/nvml.hpp"
#include "checks/checks.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/probes.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cudacheck {

void judge_nvml(const NvmlFacts& nvml, const KernelModuleFacts& kernel_module, const HostInfo& host,
                ResultBuilder& result, const NvmlStubContext& stub) {
    result.evidence("requested", nvml.library.requested());
    if (nvml.step_failure) {
        result.add(nvml.step_failure->timed_out ? Code::step_timed_out : Code::step_crashed,
                   fmt::format("{} {} earlier in this run, so it was not tried again", nvml.failed_step,
                               nvml.step_failure->how));
        return;
    }
    if (!nvml.library.ok()) {
        result.evidence("loader_error", nvml.library.error());
        std::string remediation;  // the catalog's (install the utilities) fits when the driver is otherwise there
        if (!kernel_module.module && host.wsl.empty())
            remediation = host.container.empty() ? "No NVIDIA driver is installed: install it (libnvidia-ml.so.1 comes "
                                                   "with it), see driver.kernel_module."
                                                 : fmt::format(
                                                       "This {} container has no driver libraries: start it with "
                                                       "`--gpus all` (NVIDIA Container Toolkit).",
                                                       host.container);
        result.add(Code::nvml_not_found, fmt::format("libnvidia-ml.so.1 cannot be loaded: {}", nvml.library.error()),
                   remediation);
        return;
    }
    result.evidence("loaded_path", nvml.library.loaded_path());
    if (!nvml.missing_symbols.empty()) {
        result.add(Code::nvml_init_failed, fmt::format("{} lacks {} (driver older than NVML r450?)",
                                                       nvml.library.loaded_path(), nvml.missing_symbols.front()));
        return;
    }
    if (!nvml.initialised() && nvml.stub) {
        const std::string& path = nvml.library.loaded_path();
        const std::string directory =
            !stub.picked_from.empty() ? stub.picked_from : path.substr(0, path.find_last_of('/'));
        const std::vector<std::string>& driver_copies = stub.driver_copies;
        result.evidence("stub_banner", nvml.stub_banner);
        result.evidence("stub_path", path);
        for (const std::string& copy : driver_copies) result.evidence("driver_copy", copy);
        result.add(Code::nvml_stub,
                   fmt::format("the libnvidia-ml.so.1 loaded is the toolkit's stub (nvmlInit: {}); {}", nvml.init_error,
                               driver_copies.empty() ? "the driver has none here" : "the driver's is elsewhere"),
                   driver_copies.empty() ? fmt::format("Take {} off LD_LIBRARY_PATH (the stub is for linking only) and "
                                                       "install the driver, which provides "
                                                       "libnvidia-ml.so.1 (see driver.kernel_module).",
                                                       directory)
                                         : fmt::format("Take {} off LD_LIBRARY_PATH (the stub is for linking only); "
                                                       "the driver's {} then loads.",
                                                       directory, driver_copies.front()));
        return;
    }
    if (!nvml.initialised()) {
        if (nvml.init_result == nvml::NVML_ERROR_LIB_RM_VERSION_MISMATCH)
            result.add(Code::nvml_version_mismatch,
                       fmt::format("nvmlInit: {}: the loaded kernel module{} differs from the user-space driver {}",
                                   nvml.init_error, kernel_module.module ? " " + kernel_module.module->version : "",
                                   nvml.library.loaded_path().substr(nvml.library.loaded_path().find_last_of('/') +
                                                                     1)));
        else result.add(Code::nvml_init_failed, fmt::format("nvmlInit failed: {}", nvml.init_error));
        return;
    }
    result.evidence("driver_version", nvml.driver_version);
    if (nvml.cuda_driver_version)
        result.evidence("cuda_driver_version", CudaVersion::from_encoded(*nvml.cuda_driver_version).to_string());
    for (const std::string& error : nvml.device_errors) result.evidence("device_error", error);
    result.summary(
        fmt::format("NVML up: driver {}, CUDA {}, {} GPU(s)", nvml.driver_version,
                    nvml.cuda_driver_version ? CudaVersion::from_encoded(*nvml.cuda_driver_version).to_string() : "?",
                    nvml.devices.size()));
}

namespace {

// The libnvidia-ml.so.1 copies the loader knows of (ld.so.cache, then its default directories)
// that are not a toolkit's stub, real paths, without the one loaded.
std::vector<std::string> driver_nvml_copies(const LoaderSearch& search, const std::string& loaded) {
    std::vector<std::string> candidates;
    for (const LdCacheEntry& entry : search.cache)
        if (entry.soname == "libnvidia-ml.so.1") candidates.push_back(entry.path);
    for (const std::string& directory : search.default_directories)
        candidates.push_back(directory + "/libnvidia-ml.so.1");
    std::vector<std::string> copies;
    const std::string loaded_real = sys::real_path(loaded);
    for (const std::string& candidate : candidates) {
        const std::string real = sys::real_path(candidate);
        if (real.empty() || real == loaded_real || real.find("/stubs/") != std::string::npos) continue;
        if (std::find(copies.begin(), copies.end(), real) == copies.end()) copies.push_back(real);
    }
    return copies;
}

}  // namespace

std::unique_ptr<Check> make_driver_nvml_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "driver.nvml",
                  .title = "NVML",
                  .description =
                      "Loads and initialises NVML (libnvidia-ml.so.1): driver version, GPU count, version mismatch",
                  .raises = {Code::nvml_not_found, Code::nvml_version_mismatch, Code::nvml_init_failed,
                             Code::nvml_stub},
                  .answers = "NVML loads and initialises; \"Driver/library version mismatch\""},
        [](CheckContext& context, ResultBuilder& result) {
            const NvmlFacts& nvml = context.probes.nvml();
            NvmlStubContext stub;
            if (nvml.stub) {
                const LoaderSearch& search = context.probes.loader_search();
                stub.driver_copies = driver_nvml_copies(search, nvml.library.loaded_path());
                DirectoryListings listings;
                const Resolution picked = resolve("libnvidia-ml.so.1", search, listings);
                if (picked.found()) stub.picked_from = picked.path.substr(0, picked.path.find_last_of('/'));
            }
            judge_nvml(nvml, context.probes.kernel_module(), context.probes.host(), result, stub);
        });
}

const CheckRegistration driver_nvml_registration{500, make_driver_nvml_check};

}  // namespace cudacheck
