// cuda.devices: the GPUs CUDA can use, described through the driver API (so this works even when
// the runtime cannot start), and how CUDA_VISIBLE_DEVICES maps them.
#include "checks/checks.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/driver_probe.hpp"
#include "probes/probes.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <cuda_runtime_api.h>  // CUDART_VERSION only
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

DeviceListing listing_from_driver(const DriverFacts& driver) {
    return DeviceListing{"driver API", true, {}, driver.device_count.value_or(0), driver.devices, driver.device_errors};
}

DeviceListing listing_from_nvml(const NvmlFacts& nvml, const PredictedCudaView& view) {
    if (view.certain)
        return DeviceListing{"NVML", true, {}, static_cast<int>(view.devices.size()), view.devices, nvml.device_errors};
    return DeviceListing{
        "NVML", false, view.uncertain_reason, static_cast<int>(nvml.devices.size()), nvml.devices, nvml.device_errors};
}

namespace {

constexpr MetricFamily theoretical_bandwidth{"gpu_theoretical_memory_bandwidth",
                                             "device{device}.theoretical_memory_bandwidth", Unit::gb_per_s,
                                             "Theoretical memory bandwidth, from the memory clock and bus width.",
                                             false};
constexpr MetricFamily fp32_peak{"gpu_fp32_peak", "device{device}.fp32_peak", Unit::tflops,
                                 "FP32 peak from SMs, lanes and SM clock, in TFLOP/s.", false};

// "139.8 GiB usable of 140.4 GiB": CUDA's total excludes memory the driver reserves, while
// nvidia-smi reports the whole framebuffer; showing both avoids a false discrepancy.
std::string memory_text(const DeviceInfo& device) {
    if (!device.framebuffer_bytes || *device.framebuffer_bytes == device.total_memory_bytes)
        return format_bytes(device.total_memory_bytes);
    return fmt::format("{} usable of {}", format_bytes(device.total_memory_bytes),
                       format_bytes(*device.framebuffer_bytes));
}

// "pid 4242" or "pids 4242 77"; `kill_command` gives "kill 4242 77".
std::string pids_of(const std::vector<GpuProcess>& processes, bool kill_command = false) {
    std::vector<unsigned int> pids;
    for (const GpuProcess& process : processes) pids.push_back(process.pid);
    return fmt::format("{}{}", kill_command ? "kill " : pids.size() == 1 ? "pid " : "pids ", fmt::join(pids, " "));
}

// A finding about one device: tied to its CUDA ordinal when the listing has CUDA's ordinals (not
// NVML's indices at --level quick), so that checks on the other devices still run.
void add_for(ResultBuilder& result, std::optional<int> cuda_ordinal, Code code, std::string message,
             std::string remediation) {
    if (cuda_ordinal) result.add_for_device(*cuda_ordinal, code, std::move(message), std::move(remediation));
    else result.add(code, std::move(message), std::move(remediation));
}

// Other processes on the GPU: one that holds an exclusive-mode GPU locks everyone else out; ones
// that leave under a quarter of the memory free make new work run out of memory.
void judge_usage(const DeviceInfo& device, std::optional<int> cuda_ordinal, const NvmlDeviceUsage& usage,
                 ResultBuilder& result) {
    if (usage.free_bytes && usage.total_bytes)
        result.evidence(fmt::format("device{}_memory", device.ordinal),
                        fmt::format("{} free of {}", format_bytes(*usage.free_bytes), format_bytes(*usage.total_bytes)),
                        static_cast<double>(*usage.free_bytes), Unit::bytes);
    if (!usage.processes) {
        result.evidence(fmt::format("device{}_processes", device.ordinal), "unknown (NVML cannot list them here)");
        return;
    }
    const std::vector<GpuProcess>& processes = *usage.processes;
    result.evidence(fmt::format("device{}_processes", device.ordinal),
                    processes.empty() ? "none" : describe_processes(processes));
    if (processes.empty()) return;
    if (device.compute_mode == "exclusive_process" || device.compute_mode == "exclusive_thread") {
        add_for(result, cuda_ordinal, Code::device_exclusive_busy,
                fmt::format("device {} ({}) is in compute mode Exclusive Process and held by {}", device.ordinal,
                            device.name, describe_processes(processes)),
                fmt::format("Wait for {} to finish or stop {} (`{}` if yours), pick another GPU with "
                            "CUDA_VISIBLE_DEVICES, or "
                            "ask the administrator for compute mode Default: `sudo nvidia-smi -i {} -c DEFAULT`.",
                            pids_of(processes), processes.size() == 1 ? "it" : "them", pids_of(processes, true),
                            device.pci_bus_id));
        return;
    }
    if (usage.free_bytes && usage.total_bytes && *usage.free_bytes < *usage.total_bytes / 4)
        add_for(result, cuda_ordinal, Code::gpu_memory_held_by_others,
                fmt::format("device {} ({}) has {} free of {}: held by {}", device.ordinal, device.name,
                            format_bytes(*usage.free_bytes), format_bytes(*usage.total_bytes),
                            describe_processes(processes)),
                fmt::format("Stop or wait for {} (`nvidia-smi --query-compute-apps=pid,process_name,used_memory "
                            "--format=csv`), or pick "
                            "another GPU with CUDA_VISIBLE_DEVICES.",
                            pids_of(processes)));
}

std::string via(const DeviceListing& listing) {
    return listing.source == "NVML" ? " [via NVML: no cuInit at --level quick]" : "";
}

}  // namespace

void judge_devices(const DeviceListing& listing, const DevicesContext& context, ResultBuilder& result) {
    // GPUs the NVIDIA driver drives: those it registered, or NVIDIA display functions bound to it
    // (one bound to vfio-pci or nouveau is not CUDA's to use).
    const auto bound_to_nvidia =
        std::count_if(context.kernel_module.pci_devices.begin(), context.kernel_module.pci_devices.end(),
                      [](const PciDisplayDevice& device) { return device.driver == "nvidia"; });
    const std::size_t present = std::max(context.kernel_module.gpus.size(), static_cast<std::size_t>(bound_to_nvidia));
    const int visible = listing.count;
    result.evidence("source", listing.source);
    result.evidence("visible", std::to_string(visible));
    result.evidence("present", present > 0 ? std::to_string(present) : "unknown");
    if (context.visible_devices.set)
        result.evidence("CUDA_VISIBLE_DEVICES",
                        fmt::format("'{}'{}", context.visible_devices.raw,
                                    listing.honours_visible_devices ? std::string()
                                                                    : fmt::format(" (not applied at --level quick: {}; "
                                                                                  "--level standard shows CUDA's view)",
                                                                                  listing.not_honoured_reason)));
    for (const std::string& error : listing.errors) result.add(Code::device_query_failed, error);

    if (visible == 0) {
        if (present > 0)
            result.add(Code::no_device_visible,
                       fmt::format("the driver has {} GPU(s) but CUDA sees none{}", present,
                                   context.visible_devices.set
                                       ? fmt::format(" (CUDA_VISIBLE_DEVICES='{}')", context.visible_devices.raw)
                                       : ""));
        else result.add(Code::no_device_present, "the driver initialised but reports no CUDA device");
        return;
    }

    const CudaVersion runtime = CudaVersion::from_encoded(context.runtime_cuda);
    const auto minimum = minimum_compute_capability(runtime.major);
    for (const DeviceInfo& device : listing.devices) {
        const std::optional<int> ordinal =
            listing.honours_visible_devices ? std::optional<int>(device.ordinal) : std::nullopt;
        result.evidence(
            fmt::format("device{}", device.ordinal),
            fmt::format("{} | CC {}.{} ({}) | {} SMs | {}{} | SM {} | mem {} x {}-bit | L2 {} | PCI {} | ECC {} | "
                        "compute mode {}{}",
                        device.name, device.cc_major, device.cc_minor, device.architecture, device.multiprocessors,
                        format_bytes(device.total_memory_bytes),
                        device.framebuffer_bytes && *device.framebuffer_bytes != device.total_memory_bytes
                            ? fmt::format(" usable of {} framebuffer", format_bytes(*device.framebuffer_bytes))
                            : "",
                        format_khz_as_mhz(device.sm_clock_khz), format_khz_as_mhz(device.memory_clock_khz),
                        device.memory_bus_width_bits, format_bytes(static_cast<std::uint64_t>(device.l2_cache_bytes)),
                        device.pci_bus_id, device.ecc_enabled ? "on" : "off", device.compute_mode,
                        device.nvml_index ? fmt::format(" | nvidia-smi index {}", *device.nvml_index) : ""));
        if (device.theoretical_bandwidth_gbps)
            result.metric(theoretical_bandwidth, *device.theoretical_bandwidth_gbps,
                          {{"device", std::to_string(device.ordinal)}});
        if (device.fp32_peak_tflops)
            result.metric(fp32_peak, *device.fp32_peak_tflops, {{"device", std::to_string(device.ordinal)}});
        if (minimum && std::pair{device.cc_major, device.cc_minor} < *minimum) {
            const auto last = last_cuda_major_supporting(device.cc_major, device.cc_minor);
            add_for(result, ordinal, Code::device_unsupported_by_runtime,
                    fmt::format("device {} ({}) has compute capability {}.{}; CUDA {} supports {}.{} and newer",
                                device.ordinal, device.name, device.cc_major, device.cc_minor, runtime.major,
                                minimum->first, minimum->second),
                    last ? fmt::format("Use CUDA {}.x (its last release supporting compute capability {}.{}) with a "
                                       "matching driver.",
                                       *last, device.cc_major, device.cc_minor)
                         : std::string{});
        }
        if (device.compute_mode == "prohibited")
            add_for(result, ordinal, Code::compute_mode_prohibited,
                    fmt::format("device {} ({}) is in compute mode Prohibited", device.ordinal, device.name),
                    fmt::format("Ask the administrator: `sudo nvidia-smi -i {} -c DEFAULT`.", device.pci_bus_id));
        if (const NvmlDeviceUsage* usage =
                context.nvml != nullptr ? context.nvml->usage_of(device.nvml_index) : nullptr)
            judge_usage(device, ordinal, *usage, result);
    }
    if (listing.devices.empty()) return;
    const DeviceInfo& first = listing.devices.front();
    const bool same_model = std::all_of(listing.devices.begin(), listing.devices.end(),
                                        [&](const DeviceInfo& d) { return d.name == first.name; });
    std::string hidden;
    if (listing.honours_visible_devices && present > static_cast<std::size_t>(visible))
        hidden = context.visible_devices.set
                     ? fmt::format(" ({} of {} present hidden by CUDA_VISIBLE_DEVICES)", present - visible, present)
                     : fmt::format(" ({} of {} the driver has are not visible here)", present - visible, present);
    if (!hidden.empty() && !context.visible_devices.set)
        result.evidence("not_visible", fmt::format("{} of the driver's {} GPUs, e.g. assigned to other containers",
                                                   present - visible, present));
    if (same_model)
        result.summary(fmt::format("{} x {} (CC {}.{} {}, {} SMs, {}){}{}", visible, first.name, first.cc_major,
                                   first.cc_minor, first.architecture, first.multiprocessors, memory_text(first),
                                   hidden, via(listing)));
    else result.summary(fmt::format("{} devices of different models{}{}", visible, hidden, via(listing)));
}

std::unique_ptr<Check> make_cuda_devices_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "cuda.devices",
                  .title = "GPUs",
                  .description = "Every visible GPU through the driver API (NVML at --level quick): name, compute "
                                 "capability, memory, clocks, PCI, ECC, peaks",
                  .depends_on = {"driver.libcuda"},
                  .raises = {Code::cuinit_failed, Code::no_device_visible, Code::no_device_present,
                             Code::device_unsupported_by_runtime, Code::compute_mode_prohibited,
                             Code::device_query_failed, Code::device_exclusive_busy, Code::gpu_memory_held_by_others},
                  .answers = "every GPU through the driver API: name, compute capability, architecture, memory, SMs, "
                             "clocks, bus "
                             "width, L2, PCI id, ECC, compute mode, theoretical bandwidth and FP32 peak; what "
                             "`CUDA_VISIBLE_DEVICES` hides"},
        [](CheckContext& context, ResultBuilder& result) {
            const VisibleDevicesSpec visible =
                parse_cuda_visible_devices(context.environment.get("CUDA_VISIBLE_DEVICES"));
            const DevicesContext devices_context{context.probes.kernel_module(), visible, CUDART_VERSION,
                                                 &context.probes.nvml()};
            if (context.probes.initialises_cuda()) {
                DeviceListing listing = listing_from_driver(context.probes.driver());
                attach_nvml_facts(listing.devices, context.probes.nvml());
                judge_devices(listing, devices_context, result);
                // The checks' hardware work queues per context (limit_hardware_queues).
                const std::optional<std::string> chosen = context.environment.get("CUDA_DEVICE_MAX_CONNECTIONS");
                result.evidence("hardware_queues",
                                chosen ? fmt::format("{} per context (CUDA_DEVICE_MAX_CONNECTIONS)", *chosen)
                                       : fmt::format("{} per context in cudacheck's checks; programs get CUDA's "
                                                     "default, 8 "
                                                     "(CUDA_DEVICE_MAX_CONNECTIONS unset)",
                                                     checks_max_connections));
                return;
            }
            // --level quick: NVML answers without initialising CUDA; if it cannot, CUDA itself must.
            const NvmlFacts& nvml = context.probes.nvml();
            if (nvml.initialised())
                return judge_devices(listing_from_nvml(nvml,
                                                       predict_cuda_view(nvml.devices, visible,
                                                                         context.environment.get("CUDA_DEVICE_ORDER"))),
                                     devices_context, result);
            result.evidence("nvml", nvml.library.ok() ? "nvmlInit failed: " + nvml.init_error
                                                      : "libnvidia-ml.so.1 not loadable: " + nvml.library.error());
            const DriverFacts& driver = context.probes.initialised_driver();
            if (!driver.initialised()) {
                result.add(Code::cuinit_failed, fmt::format("cuInit failed: {}", driver.init_error_name));
                return;
            }
            judge_devices(listing_from_driver(driver), devices_context, result);
        });
}

const CheckRegistration cuda_devices_registration{900, make_cuda_devices_check};

}  // namespace cudacheck
