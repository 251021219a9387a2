// The CUDA driver as the driver API (libcuda, opened at run time) describes it: which file was
// loaded, whether it initialises, its CUDA version and every visible device. This works even
// when the runtime cannot start (driver older than the runtime), which is exactly when it matters.
#pragma once

#include "bind/cuda_driver.hpp"
#include "bind/dynamic_library.hpp"
#include "report/report.hpp"
#include "util/actions.hpp"
#include "util/environment.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct DriverFacts {
    DynamicLibrary library;             // libcuda.so.1, opened once per process and kept open for the whole run
    // Bound from `library` before any CUDA library opens (a dlsym waits behind another thread's
    // dlopen); all nullptr when it did not open. Every driver API call of the run goes through it.
    CudaDriverApi api;
    std::string library_file_version;   // from the loaded file's name: libcuda.so.580.159.04 -> "580.159.04"
    bool stub_path = false;             // loaded from a toolkit "stubs" directory
    std::vector<std::string> missing_symbols;         // required by cuda_driver_symbols
    std::vector<std::string> missing_module_symbols;  // of cuda_module_symbols: loading code needs them
    std::optional<int> driver_version;  // cuDriverGetVersion, encoded 1000*major+10*minor
    bool initialisation_skipped = false;  // --level quick: libcuda loaded, cuInit not called
    std::optional<int> init_result;     // cuInit(0); 0 is success
    std::string init_error_name;        // "CUDA_ERROR_NO_DEVICE"
    std::string init_error_text;        // cuGetErrorString, when available
    std::optional<int> device_count;    // cuDeviceGetCount (visible devices)
    std::vector<DeviceInfo> devices;
    std::vector<std::string> device_errors;  // "device 1: cuDeviceGetName failed: CUDA_ERROR_…"
    // Opening libcuda or cuInit killed or hung an earlier check process of the run: not tried again.
    std::optional<actions::Failure> step_failure;
    std::string failed_step;  // "cuInit", "loading libcuda.so.1"

    [[nodiscard]] bool initialised() const { return init_result == CUDA_SUCCESS; }
};

// "580.159.04" from ".../libcuda.so.580.159.04"; empty when the name carries no version.
[[nodiscard]] std::string library_version_from_path(std::string_view path, std::string_view soname_prefix);
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes of a CUuuid.
[[nodiscard]] std::string format_gpu_uuid(const unsigned char (&bytes)[16]);
// nvidia-smi's form of a PCI address, "00000000:00:06.0": the driver API gives "0000:00:06.0",
// sysfs "0000:00:06.0", NVML "00000000:00:06.0"; one form lets them be compared.
[[nodiscard]] std::string normalize_pci_bus_id(std::string_view bus_id);
// Bandwidth (GB/s: 2 x memory clock x bus width / 8) and FP32 peak (TFLOP/s: SMs x FP32 lanes per SM x 2 x
// SM clock, lanes per SM as in cuda-samples helper_cuda.h _ConvertSMVer2Cores) derived from attributes.
void derive_device_rates(DeviceInfo& device);

// Creates (retains) the primary context of each device of `driver` among `ordinals` (all when
// empty), one after another in ordinal order, ignoring failures, and calls `created` with each
// ordinal once its context exists (or failed). A GPU check's first CUDA call then finds it ready.
// Only after a successful cuInit; the retained contexts live until the process exits. `create`
// replaces cuDevicePrimaryCtxRetain (tests).
void create_primary_contexts(const DriverFacts& driver, const std::vector<int>& ordinals,
                             const std::function<void(int ordinal)>& created,
                             std::function<void(int ordinal)> create = {});

// The hardware work queues per context that cudacheck's checks use, unless the user chose a number
// (CUDA_DEVICE_MAX_CONNECTIONS). CUDA's default is 8; the driver creates a context in ~125 instead
// of ~300 ms with 2 on the 2 x H200 machine (docs/performance.md, "several GPUs"). The checks lose
// nothing: timed sections run alone on their GPU, and untimed work needs no more than 2 queues.
inline constexpr const char* checks_max_connections = "2";
// Sets CUDA_DEVICE_MAX_CONNECTIONS to checks_max_connections in this process when `user` (the
// environment the run was started with) does not set it; true if it did. Call before cuInit and
// before any other thread starts (setenv is not thread-safe).
bool limit_hardware_queues(const Environment& user);

// Opens libcuda.so.1 and reads its CUDA version; with `initialise`, also runs cuInit (about 180 ms
// on an H200) and describes every visible device. `opened`, if given, is called once cuInit has
// returned (without `initialise`, once libcuda.so.1 is open or failed to open): the CUDA libraries
// then open without slowing cuInit.
[[nodiscard]] DriverFacts collect_driver(bool initialise = true, const std::function<void()>& opened = {});

}  // namespace cudacheck
