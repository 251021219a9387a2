#include "probes/driver_probe.hpp"

#include "cuda/cuda_facts.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace cudacheck {

namespace {

std::string error_name(const CudaDriverApi& api, CUresult result) {
    const char* name = nullptr;
    if (api.get_error_name != nullptr && api.get_error_name(result, &name) == CUDA_SUCCESS && name != nullptr)
        return name;
    return cu_result_name(static_cast<int>(result));
}

std::string compute_mode_name(int mode) {
    switch (mode) {
        case CU_COMPUTEMODE_DEFAULT: return "default";
        case CU_COMPUTEMODE_PROHIBITED: return "prohibited";
        case CU_COMPUTEMODE_EXCLUSIVE_PROCESS: return "exclusive_process";
        default: return fmt::format("unknown({})", mode);
    }
}

// Queries one device; failures are recorded and the device is still listed with what is known.
DeviceInfo describe_device(const CudaDriverApi& api, int ordinal, std::vector<std::string>& errors) {
    DeviceInfo info;
    info.ordinal = ordinal;
    info.source = "driver_api";
    const auto failed = [&](std::string_view what, CUresult result) {
        errors.push_back(fmt::format("device {}: {} failed: {}", ordinal, what, error_name(api, result)));
    };
    CUdevice device = 0;
    if (CUresult result = api.device_get(&device, ordinal); result != CUDA_SUCCESS) {
        failed("cuDeviceGet", result);
        return info;
    }
    char name[256] = {};
    if (CUresult result = api.device_get_name(name, sizeof name, device); result == CUDA_SUCCESS) info.name = name;
    else failed("cuDeviceGetName", result);
    size_t total = 0;
    if (CUresult result = api.device_total_mem(&total, device); result == CUDA_SUCCESS) info.total_memory_bytes = total;
    else failed("cuDeviceTotalMem", result);
    char bus_id[64] = {};
    if (api.device_get_pci_bus_id != nullptr) {
        if (CUresult result = api.device_get_pci_bus_id(bus_id, sizeof bus_id, device); result == CUDA_SUCCESS)
            info.pci_bus_id = normalize_pci_bus_id(bus_id);
        else failed("cuDeviceGetPCIBusId", result);
    }
    if (api.device_get_uuid != nullptr) {
        CUuuid uuid{};
        if (CUresult result = api.device_get_uuid(&uuid, device); result == CUDA_SUCCESS) {
            unsigned char bytes[16];
            for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(uuid.bytes[i]);
            info.uuid = format_gpu_uuid(bytes);
        } else {
            failed("cuDeviceGetUuid", result);
        }
    }
    const auto attribute = [&](CUdevice_attribute which, std::string_view label) {
        int value = 0;
        if (CUresult result = api.device_get_attribute(&value, which, device); result != CUDA_SUCCESS)
            failed(fmt::format("cuDeviceGetAttribute({})", label), result);
        return value;
    };
    info.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major");
    info.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor");
    info.architecture = std::string(architecture_name(info.cc_major, info.cc_minor));
    info.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessors");
    info.sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "SM clock");
    info.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "memory clock");
    info.memory_bus_width_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "memory bus width");
    info.l2_cache_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 cache size");
    info.ecc_enabled = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, "ECC") != 0;
    info.compute_mode = compute_mode_name(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, "compute mode"));
    info.integrated = attribute(CU_DEVICE_ATTRIBUTE_INTEGRATED, "integrated") != 0;
    info.tcc_driver = attribute(CU_DEVICE_ATTRIBUTE_TCC_DRIVER, "TCC driver") != 0;
    derive_device_rates(info);
    return info;
}

}  // namespace

std::string library_version_from_path(std::string_view path, std::string_view soname_prefix) {
    const std::string_view file = path.substr(path.find_last_of('/') + 1);
    if (!sys::starts_with(file, soname_prefix)) return {};
    std::string_view rest = file.substr(soname_prefix.size());  // "580.159.04" after "libcuda.so."
    if (rest.empty() || rest.find_first_not_of("0123456789.") != std::string_view::npos) return {};
    // "libcuda.so.1" carries only the soname's major, not the driver version.
    if (rest.find('.') == std::string_view::npos) return {};
    return std::string(rest);
}

std::string format_gpu_uuid(const unsigned char (&b)[16]) {
    return fmt::format(
        "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

std::string normalize_pci_bus_id(std::string_view bus_id) {
    unsigned int domain = 0;
    unsigned int bus = 0;
    unsigned int device = 0;
    unsigned int function = 0;
    std::string text(bus_id);
    if (std::sscanf(text.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4)
        return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", domain, bus, device, function);
    return text;
}

void derive_device_rates(DeviceInfo& device) {
    if (device.memory_clock_khz > 0 && device.memory_bus_width_bits > 0)
        // Double data rate: two transfers per clock.
        device.theoretical_bandwidth_gbps =
            2.0 * device.memory_clock_khz * 1e3 * (device.memory_bus_width_bits / 8.0) / 1e9;
    if (auto lanes = fp32_lanes_per_sm(device.cc_major, device.cc_minor); lanes && device.sm_clock_khz > 0)
        // One fused multiply-add (2 FLOP) per lane per clock.
        device.fp32_peak_tflops = device.multiprocessors * *lanes * 2.0 * device.sm_clock_khz * 1e3 / 1e12;
}

DriverFacts collect_driver(bool initialise, const std::function<void()>& opened) {
    DriverFacts facts;
    // `opened` lets the CUDA libraries open (Probes::prefetch_libraries waits for it): once cuInit
    // has returned, or however this ends before. Opened beside cuInit, their five dlopens (~75-87 ms
    // each, side by side) slowed it: on the H200 after 0.5 s of idle GPU, cuInit returned at
    // 202-209 ms with them and 166-176 ms without, the context 276-290 against 242-250, the whole
    // default run 662-694 against 625-629 ms (medians of 5, two alternating pairs;
    // docs/examples/h200/issue21/second-pass/call-4). dlsym also waits for the loader's lock while
    // another thread opens a library (~80 ms for cuBLAS; the primary context once waited so): every
    // driver entry point is looked up before.
    struct LetLibrariesOpen {
        const std::function<void()>& opened;
        bool done = false;
        void now() {
            if (!done && opened) opened();
            done = true;
        }
        ~LetLibrariesOpen() { now(); }
    } let_libraries_open{opened};
    // Both steps are announced (util/actions.hpp): a libcuda or a cuInit that kills or hangs the
    // process is charged to it, and the next process of the run reports it instead of trying again.
    const actions::Action opening{actions::Kind::load, "libcuda.so.1"};
    if (const actions::Failure* failure = actions::failed(opening)) {
        facts.step_failure = *failure;
        facts.failed_step = actions::describe(opening);
        facts.library = DynamicLibrary::refused("libcuda.so.1", fmt::format("{} {}", facts.failed_step, failure->how));
        facts.missing_module_symbols = bind_symbols(facts.library, cuda_module_symbols, facts.api);  // every one
        return facts;
    }
    {
        const actions::Announced announced(opening);
        facts.library = DynamicLibrary::open("libcuda.so.1");
    }
    // A library that did not open lacks every module entry point; its other symbols are not asked.
    facts.missing_module_symbols = bind_symbols(facts.library, cuda_module_symbols, facts.api);
    if (!facts.library.ok()) return facts;
    facts.missing_symbols = bind_symbols(facts.library, cuda_driver_symbols, facts.api);
    const CudaDriverApi& api = facts.api;
    const std::string& path = facts.library.loaded_path();
    facts.library_file_version = library_version_from_path(path, "libcuda.so.");
    // A driver version starts with a branch number >= 100 (580.159.04, 570.26); Jetson's
    // libcuda.so.1.1 carries no driver version at all.
    if (std::atoi(facts.library_file_version.c_str()) < 100) facts.library_file_version.clear();
    facts.stub_path = path.find("/stubs/") != std::string::npos;

    if (!facts.missing_symbols.empty()) return facts;

    int version = 0;
    if (api.driver_get_version(&version) == CUDA_SUCCESS) facts.driver_version = version;
    if (!initialise) {
        facts.initialisation_skipped = true;
        return facts;
    }
    const actions::Action initialising{actions::Kind::driver_call, "cuInit"};
    if (const actions::Failure* failure = actions::failed(initialising)) {
        facts.step_failure = *failure;
        facts.failed_step = actions::describe(initialising);
        return facts;
    }
    const CUresult init = [&] {
        const trace::Span span("cuInit");
        const actions::Announced announced(initialising);
        return api.init(0);
    }();
    let_libraries_open.now();
    facts.init_result = static_cast<int>(init);
    if (init != CUDA_SUCCESS) {
        facts.init_error_name = error_name(api, init);
        const char* text = nullptr;
        if (api.get_error_string != nullptr && api.get_error_string(init, &text) == CUDA_SUCCESS && text != nullptr)
            facts.init_error_text = text;
        return facts;
    }
    int count = 0;
    if (CUresult result = api.device_get_count(&count); result != CUDA_SUCCESS) {
        facts.device_errors.push_back(fmt::format("cuDeviceGetCount failed: {}", error_name(api, result)));
        return facts;
    }
    facts.device_count = count;
    for (int ordinal = 0; ordinal < count; ++ordinal)
        facts.devices.push_back(describe_device(api, ordinal, facts.device_errors));
    return facts;
}

bool limit_hardware_queues(const Environment& user) {
    if (user.get("CUDA_DEVICE_MAX_CONNECTIONS")) return false;
    return ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", checks_max_connections, /*overwrite=*/1) == 0;
}

void create_primary_contexts(const DriverFacts& driver, const std::vector<int>& ordinals,
                             const std::function<void(int ordinal)>& created, std::function<void(int ordinal)> create) {
    if (!driver.initialised() || !driver.device_count) return;
    if (!create) {
        const CudaDriverApi& api = driver.api;
        if (api.primary_ctx_retain == nullptr || api.device_get == nullptr) return;
        create = [&api](int ordinal) {
            CUdevice device = 0;
            CUcontext context = nullptr;
            if (api.device_get(&device, ordinal) == CUDA_SUCCESS) (void)api.primary_ctx_retain(&context, device);
        };
    }
    // Announced (util/actions.hpp); one that killed or hung an earlier process is not created
    // again: that device's checks report it (gpu::run_gpu_check).
    const auto announced_create = [&create](int ordinal) {
        const actions::Action step{actions::Kind::context, std::to_string(ordinal)};
        if (actions::failed(step) != nullptr) return;
        const actions::Announced announced(step);
        create(ordinal);
    };
    // One after another: the driver creates contexts one at a time even when asked from one thread
    // per GPU, and then every context is ready only when the last is (both after ~210 ms on the
    // 2 x H200 machine). In turn, the first GPU's checks start ~100 ms sooner, beside the second
    // GPU's context (docs/performance.md, "several GPUs").
    for (int ordinal = 0; ordinal < *driver.device_count; ++ordinal) {
        if (!ordinals.empty() && std::find(ordinals.begin(), ordinals.end(), ordinal) == ordinals.end()) continue;
        {
            const trace::Span span(fmt::format("primary context of device {}", ordinal));
            announced_create(ordinal);
        }
        created(ordinal);
    }
}

}  // namespace cudacheck
