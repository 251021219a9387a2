// driver.libcuda: can the CUDA driver library be loaded and initialised, which file is it, and
// does it match the kernel module.
#include "bind/cuda_driver.hpp"
#include "checks/checks.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

// A libcuda whose version differs from the kernel module is legitimate only when it comes from
// NVIDIA's forward-compatibility package (cuda-compat-<major>-<minor>, installed under .../compat/).
bool from_compat_package(std::string_view path) { return path.find("/compat/") != std::string_view::npos; }

std::string init_remediation(int result, const LibcudaContext& context) {
    switch (result) {
        case CUDA_ERROR_NO_DEVICE:
            if (!context.kernel_module.gpus.empty() && context.visible_devices.set)
                return fmt::format(
                    "The driver has {} GPU(s) but CUDA_VISIBLE_DEVICES='{}' hides them: unset it or name existing "
                    "devices.",
                    context.kernel_module.gpus.size(), context.visible_devices.raw);
            return "The driver sees no CUDA GPU: check `nvidia-smi`; in a container pass GPUs with `--gpus all`; in a "
                   "VM enable passthrough.";
        case CUDA_ERROR_OPERATING_SYSTEM:
            return "An operating-system call failed during initialisation: usually the nvidia-uvm module is not loaded "
                   "(`sudo modprobe nvidia-uvm`) or /dev/nvidia-uvm is not accessible.";
        case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
            return "The forward-compatibility libcuda (cuda-compat) is not supported on this GPU (only data-center "
                   "GPUs): remove the "
                   "compat directory from LD_LIBRARY_PATH / ld.so.conf so the system driver's libcuda loads.";
        case CUDA_ERROR_SYSTEM_NOT_READY:
            return "The system is not ready (on NVSwitch systems the fabric manager is not running): `sudo systemctl "
                   "start nvidia-fabricmanager`.";
        case CUDA_ERROR_UNKNOWN:
            return "Unknown error from the driver: check `dmesg | grep -i -e nvrm -e xid`; a reboot after a driver "
                   "update often fixes it.";
        default: return {};
    }
}

// Entries of CUDA_VISIBLE_DEVICES naming no GPU the driver has: ordinals past the GPU count, GPU
// UUID prefixes matching none of the GPUs' UUIDs. Empty when the GPUs are unknown.
std::vector<std::string> nonexistent_visible_entries(const VisibleDevicesSpec& spec,
                                                     const KernelModuleFacts& kernel_module) {
    std::vector<std::string> missing;
    if (kernel_module.gpus.empty()) return missing;
    for (const VisibleEntry& entry : spec.entries) {
        if (entry.kind == VisibleEntryKind::ordinal && entry.ordinal >= static_cast<int>(kernel_module.gpus.size()))
            missing.push_back(entry.text);
        if (entry.kind == VisibleEntryKind::gpu_uuid &&
            std::none_of(kernel_module.gpus.begin(), kernel_module.gpus.end(),
                         [&](const ProcGpu& gpu) { return gpu.uuid.rfind(entry.text, 0) == 0; }))
            missing.push_back(entry.text);
    }
    return missing;
}

}  // namespace

void judge_libcuda(const DriverFacts& driver, const LibcudaContext& context, ResultBuilder& result) {
    const DynamicLibrary& library = driver.library;
    result.evidence("requested", library.requested());
    if (driver.step_failure) {
        result.add(driver.step_failure->timed_out ? Code::step_timed_out : Code::step_crashed,
                   fmt::format("{} {} earlier in this run, so it was not tried again", driver.failed_step,
                               driver.step_failure->how));
        return;
    }
    if (!library.ok()) {
        result.evidence("loader_error", library.error());
        std::string remediation;
        if (!context.host.container.empty())
            remediation = fmt::format(
                "This is a {} container without the driver's libraries: start it with `--gpus all` "
                "(NVIDIA Container Toolkit), which mounts libcuda.so.1 from the host.",
                context.host.container);
        else if (context.kernel_module.module)
            remediation = fmt::format(
                "The kernel module {} is loaded but its user-space library is missing: install the matching "
                "package (Debian/Ubuntu: libnvidia-compute-{}; RHEL: nvidia-driver-cuda-libs), then `sudo ldconfig`.",
                context.kernel_module.module->version,
                context.kernel_module.module->version.substr(0, context.kernel_module.module->version.find('.')));
        result.add(Code::libcuda_not_found, fmt::format("libcuda.so.1 cannot be loaded: {}", library.error()),
                   remediation);
        return;
    }
    result.evidence("loaded_path", library.loaded_path());
    if (!driver.library_file_version.empty()) result.evidence("library_version", driver.library_file_version);
    if (driver.driver_version)
        result.evidence("driver_cuda_version", CudaVersion::from_encoded(*driver.driver_version).to_string());

    if (driver.stub_path || driver.init_result == CUDA_ERROR_STUB_LIBRARY) {
        result.add(Code::libcuda_stub,
                   fmt::format("the libcuda loaded is the toolkit's stub: {}{}",
                               sys::clip_path(library.loaded_path(), 56),
                               driver.init_result == CUDA_ERROR_STUB_LIBRARY ? " (cuInit: CUDA_ERROR_STUB_LIBRARY)"
                                                                             : ""),
                   fmt::format("Remove {} from LD_LIBRARY_PATH (it is for linking only); the real libcuda.so.1 comes "
                               "with the driver.",
                               library.loaded_path().substr(0, library.loaded_path().find_last_of('/'))));
        return;
    }
    if (!driver.missing_symbols.empty()) {
        result.evidence("missing_symbols", fmt::format("{}", fmt::join(driver.missing_symbols, ", ")));
        result.add(Code::libcuda_symbol_missing,
                   fmt::format("{} does not export {}", sys::clip_path(library.loaded_path(), 48),
                               sys::first_items(driver.missing_symbols, 56)));
        return;
    }

    // NVIDIA's CUDA on WSL guide: the Windows driver maps its libcuda into /usr/lib/wsl/lib.
    if (context.host.wsl == "WSL2" && library.loaded_path().find("/usr/lib/wsl/") == std::string::npos)
        result.add(Code::wsl_libcuda_not_from_windows,
                   fmt::format("WSL 2 loaded {} instead of the Windows driver's /usr/lib/wsl/lib/libcuda.so.1",
                               sys::clip_path(library.loaded_path(), 48)));

    const std::string module_version = context.kernel_module.module ? context.kernel_module.module->version : "";
    const bool compat = from_compat_package(library.loaded_path());
    if (compat) result.evidence("forward_compatibility", "libcuda from a cuda-compat package");
    if (!module_version.empty() && !driver.library_file_version.empty() &&
        module_version != driver.library_file_version && !compat)
        result.add(Code::libcuda_module_mismatch, fmt::format("libcuda is {} but the loaded kernel module is {}",
                                                              driver.library_file_version, module_version));

    if (driver.initialisation_skipped) {
        result.evidence("cuinit", "not called at --level quick (it takes ~180 ms; --level standard initialises CUDA)");
        // A headline (util/headline.hpp): the path gets what the words leave of it.
        const std::string before =
            fmt::format("libcuda {} (CUDA {}) loaded from ",
                        driver.library_file_version.empty() ? "(version not in file name)"
                                                            : driver.library_file_version,
                        driver.driver_version ? CudaVersion::from_encoded(*driver.driver_version).to_string() : "?");
        constexpr std::string_view after = "; not initialised at --level quick";
        const std::size_t words = before.size() + after.size();
        const std::size_t room = words + 16 < sys::max_headline ? sys::max_headline - words : 16;
        result.summary(before + sys::clip_path(library.loaded_path(), room) + std::string(after));
        return;
    }
    if (!driver.initialised()) {
        const int code = driver.init_result.value_or(-1);
        std::string detail = driver.init_error_text.empty() ? "" : fmt::format(" ({})", driver.init_error_text);
        if (code == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) {  // the same fault, seen by the driver itself
            if (module_version.empty() || module_version == driver.library_file_version || compat)
                result.add(Code::libcuda_module_mismatch, fmt::format("cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH{}: "
                                                                      "libcuda and the kernel module differ",
                                                                      detail));
            return;
        }
        if (code == CUDA_ERROR_OUT_OF_MEMORY && context.limits != nullptr &&
            explain_out_of_memory_init(*context.limits, result))
            return;
        if (code == CUDA_ERROR_NO_DEVICE && context.nvml != nullptr && !context.nvml->mig_enabled.empty()) {
            result.add(Code::mig_without_instances, fmt::format("cuInit: CUDA_ERROR_NO_DEVICE, and MIG mode is enabled "
                                                                "on GPU(s) {} (nvidia-smi indices): CUDA can only use "
                                                                "their MIG instances",
                                                                fmt::join(context.nvml->mig_enabled, ", ")));
            return;
        }
        if (const auto missing = nonexistent_visible_entries(context.visible_devices, context.kernel_module);
            code == CUDA_ERROR_NO_DEVICE && !missing.empty() &&
            missing.size() == context.visible_devices.entries.size()) {
            result.add(Code::no_device_visible,
                       fmt::format("cuInit: CUDA_ERROR_NO_DEVICE: CUDA_VISIBLE_DEVICES='{}' names no existing GPU "
                                   "({}); the driver has {} "
                                   "GPU(s), ordinals 0..{}",
                                   sys::clip(context.visible_devices.raw, 16), sys::first_items(missing, 16),
                                   context.kernel_module.gpus.size(), context.kernel_module.gpus.size() - 1),
                       "Set CUDA_VISIBLE_DEVICES to existing ordinals or GPU UUIDs (`nvidia-smi -L` lists them), or "
                       "unset it.");
            return;
        }
        if (code == CUDA_ERROR_NO_DEVICE && context.visible_devices.hides_all() &&
            !context.kernel_module.gpus.empty()) {
            result.add(Code::no_device_visible,
                       fmt::format("cuInit: CUDA_ERROR_NO_DEVICE: CUDA_VISIBLE_DEVICES='{}' hides all {} GPU(s)",
                                   sys::clip(context.visible_devices.raw, 40), context.kernel_module.gpus.size()),
                       "Unset CUDA_VISIBLE_DEVICES, or set it to the GPUs to use (e.g. 0).");
            return;
        }
        result.add(Code::cuinit_failed, fmt::format("cuInit failed: {}{}", driver.init_error_name, detail),
                   init_remediation(code, context));
        return;
    }
    result.summary(
        fmt::format("libcuda {} (CUDA {}) initialised, loaded from {}{}",
                    driver.library_file_version.empty() ? "(version not in file name)" : driver.library_file_version,
                    driver.driver_version ? CudaVersion::from_encoded(*driver.driver_version).to_string() : "?",
                    sys::clip_path(library.loaded_path(), 48), compat ? " (forward compatibility)" : ""));
}

std::unique_ptr<Check> make_libcuda_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{
            .id = "driver.libcuda",
            .title = "CUDA driver library",
            .description = "Loads libcuda.so.1, detects stubs, initialises the driver, compares with the kernel module",
            .raises = {Code::libcuda_not_found, Code::libcuda_stub, Code::cuinit_failed, Code::libcuda_module_mismatch,
                       Code::libcuda_symbol_missing, Code::wsl_libcuda_not_from_windows, Code::no_device_visible,
                       Code::mig_without_instances, Code::address_space_limited},
            .answers =
                "which `libcuda.so.1` loads (real path), stub detection, `cuInit`, library vs kernel module version"},
        [](CheckContext& context, ResultBuilder& result) {
            const VisibleDevicesSpec visible =
                parse_cuda_visible_devices(context.environment.get("CUDA_VISIBLE_DEVICES"));
            const DriverFacts& driver = context.probes.driver();
            // NVML only matters to explain a failed cuInit: do not wait for it otherwise.
            const NvmlFacts* nvml = driver.init_result == CUDA_ERROR_NO_DEVICE ? &context.probes.nvml() : nullptr;
            judge_libcuda(driver,
                          LibcudaContext{context.probes.kernel_module(), context.probes.host(), visible, nvml,
                                         &context.probes.limits()},
                          result);
        });
}

const CheckRegistration libcuda_registration{400, make_libcuda_check};

}  // namespace cudacheck
