// nvrtc.compile: run-time compilation works for this GPU, as PyTorch, CuPy and Triton need it.
// NVRTC compiles a small kernel (SASS for this exact GPU when NVRTC supports it, otherwise PTX
// the driver JIT-compiles), the driver API loads it from memory and launches it, and every
// element of the result is compared with the host's, bit for bit.
#include "checks/nvrtc_compile.hpp"
#include "bind/cuda_driver.hpp"
#include "bind/nvrtc.hpp"
#include "bind/owned.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "gpu/cuda_runtime.hpp"
#include "gpu/library_support.hpp"
#include "kernels/random_fill.cuh"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>

namespace cudacheck {

NvrtcTarget choose_nvrtc_target(std::span<const int> supported_architectures, int major, int minor) {
    NvrtcTarget target;
    const int device = major * 10 + minor;
    if (std::find(supported_architectures.begin(), supported_architectures.end(), device) !=
        supported_architectures.end()) {
        target.possible = true;
        target.cubin = true;
        target.architecture = device;
        target.option = fmt::format("--gpu-architecture=sm_{}", device);
        target.verdict = fmt::format("NVRTC supports sm_{}: SASS for this GPU (CUBIN)", device);
        return target;
    }
    int best = 0;
    for (int architecture : supported_architectures)
        if (architecture <= device && architecture > best) best = architecture;
    if (best == 0) {
        const auto oldest = std::min_element(supported_architectures.begin(), supported_architectures.end());
        target.verdict = oldest == supported_architectures.end()
                             ? "NVRTC lists no supported architectures"
                             : fmt::format("NVRTC supports sm_{} and newer; this GPU is sm_{}", *oldest, device);
        return target;
    }
    target.possible = true;
    target.architecture = best;
    target.option = fmt::format("--gpu-architecture=compute_{}", best);
    target.verdict =
        fmt::format("NVRTC does not list sm_{}: PTX for compute_{}, JIT-compiled by the driver at load time", device,
                    best);
    return target;
}

std::string nvrtc_builtins_soname(int major, int minor) {
    return fmt::format("libnvrtc-builtins.so.{}.{}", major, minor);
}

std::string first_log_lines(std::string_view log, std::size_t max_lines) {
    std::vector<std::string> lines;
    for (const std::string& line : sys::split(log, '\n')) {
        const std::string_view trimmed = sys::trim(line);
        if (trimmed.empty()) continue;
        if (lines.size() == max_lines) {
            lines.emplace_back("...");
            break;
        }
        lines.emplace_back(trimmed);
    }
    return fmt::format("{}", fmt::join(lines, " | "));
}

namespace {

constexpr MetricFamily nvrtc_compile_time{"nvrtc_compile", "compile_time", Unit::ms,
                                          "Time NVRTC took to compile the test kernel."};
constexpr MetricFamily nvrtc_module_load{"nvrtc_module_load", "module_load_time", Unit::ms,
                                         "Time the driver took to load the compiled module."};
constexpr MetricFamily nvrtc_elements{"nvrtc_elements_checked", "elements_checked", Unit::count,
                                      "Elements of the compiled kernel's output checked."};

void check(const NvrtcApi& api, nvrtcResult status, const char* call) {
    if (status != NVRTC_SUCCESS)
        throw NvrtcFailure(status, call, describe_status(api.error_string(status), static_cast<int>(status)));
}

// A driver API call failed: CC501 with the CUresult name and, where there is one, the fix.
void check(const CudaDriverApi& api, CUresult status, const char* call) {
    if (status == CUDA_SUCCESS) return;
    const char* name = nullptr;
    if (api.get_error_name(status, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
    throw CudaDriverFailure(status, call, describe_status(name, static_cast<int>(status)));
}

class Program {
public:
    Program(const NvrtcApi& api, const char* source, const char* name) : api_(api) {
        nvrtcProgram program = nullptr;
        check(api_, api_.create_program(&program, source, name, 0, nullptr, nullptr), "nvrtcCreateProgram");
        program_ = Owned<nvrtcProgram, decltype(NvrtcApi::destroy_program)>(program, api_.destroy_program);
    }
    [[nodiscard]] nvrtcProgram get() const { return program_.get(); }
    [[nodiscard]] std::string log() const {
        std::size_t size = 0;
        if (api_.log_size(get(), &size) != NVRTC_SUCCESS || size == 0) return {};
        std::string text(size, '\0');
        if (api_.log(get(), text.data()) != NVRTC_SUCCESS) return {};
        text.resize(std::min(text.size(), std::strlen(text.c_str())));
        return text;
    }

private:
    const NvrtcApi& api_;
    Owned<nvrtcProgram, decltype(NvrtcApi::destroy_program)> program_;
};

class Module {
public:
    Module(const CudaDriverApi& api, const void* image) {
        CUmodule module = nullptr;
        check(api, api.module_load_data(&module, image), "cuModuleLoadData");
        module_ = Owned<CUmodule, decltype(CudaDriverApi::module_unload)>(module, api.module_unload);
    }
    [[nodiscard]] CUmodule get() const { return module_.get(); }

private:
    Owned<CUmodule, decltype(CudaDriverApi::module_unload)> module_;
};

// __fmaf_rn: one correctly rounded fused multiply-add, so the host reproduces every element
// exactly with std::fma (NVRTC would contract a*x+y into an FMA anyway; spelling it out removes
// the doubt). extern "C": the name needs no demangling.
constexpr const char* kernel_source = R"(
extern "C" __global__ void cudacheck_saxpy(float a, const float* x, const float* y, float* out, unsigned long long n) {
    const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = __fmaf_rn(a, x[i], y[i]);
}
)";
constexpr const char* kernel_name = "cudacheck_saxpy";
constexpr std::uint64_t x_seed = 41;
constexpr std::uint64_t y_seed = 42;
constexpr float saxpy_a = 0.70710678f;  // many mantissa bits: a*x is rarely exact, so a non-fused result would differ

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Everything after NVRTC's version and the driver's symbols, into the outcome as it goes.
void measure_nvrtc(CheckContext& context, const NvrtcApi& api, const CudaDriverApi& driver,
                   const LoadedLibrary& library, int device, NvrtcOutcome& outcome) {
    // The primary context the runtime uses (cudaSetDevice selected it; cudaFree creates it), which
    // the driver API calls below use too.
    gpu::check(cudaFree(nullptr), "cudaFree(nullptr) (context creation)");
    gpu::check(cudaDeviceGetAttribute(&outcome.major, cudaDevAttrComputeCapabilityMajor, device),
               "cudaDeviceGetAttribute");
    gpu::check(cudaDeviceGetAttribute(&outcome.minor, cudaDevAttrComputeCapabilityMinor, device),
               "cudaDeviceGetAttribute");

    int architecture_count = 0;
    check(api, api.num_supported_archs(&architecture_count), "nvrtcGetNumSupportedArchs");
    std::vector<int> architectures(static_cast<std::size_t>(std::max(architecture_count, 0)));
    if (!architectures.empty()) check(api, api.supported_archs(architectures.data()), "nvrtcGetSupportedArchs");
    const NvrtcTarget target = choose_nvrtc_target(architectures, outcome.major, outcome.minor);
    outcome.architectures = std::move(architectures);
    if (!target.possible) return;

    // Compile.
    const std::string builtins = nvrtc_builtins_soname(outcome.nvrtc_major, outcome.nvrtc_minor);
    const std::string nvrtc_dir =
        library.library.loaded_path().substr(0, library.library.loaded_path().find_last_of('/'));
    const Program program(api, kernel_source, "cudacheck_saxpy.cu");
    const std::vector<const char*> options{target.option.c_str()};
    const auto compile_start = std::chrono::steady_clock::now();
    const nvrtcResult compiled = api.compile_program(program.get(), static_cast<int>(options.size()), options.data());
    outcome.compile_ms = milliseconds_since(compile_start);
    outcome.compile_status = compiled;
    if (compiled != NVRTC_SUCCESS) {
        outcome.log = program.log();
        outcome.compile_error = api.error_string(compiled);
        outcome.nvrtc_dir = nvrtc_dir;
        outcome.builtins_beside = sys::exists(nvrtc_dir + "/" + builtins);
        return;
    }
    const DynamicLibrary builtins_loaded = DynamicLibrary::find_loaded(builtins);
    if (builtins_loaded.ok()) outcome.builtins_path = builtins_loaded.loaded_path();

    std::string image;
    if (target.cubin) {
        std::size_t size = 0;
        check(api, api.cubin_size(program.get(), &size), "nvrtcGetCUBINSize");
        image.resize(size);
        check(api, api.cubin(program.get(), image.data()), "nvrtcGetCUBIN");
    } else {
        std::size_t size = 0;
        check(api, api.ptx_size(program.get(), &size), "nvrtcGetPTXSize");  // includes the terminating NUL
        image.resize(size);
        check(api, api.ptx(program.get(), image.data()), "nvrtcGetPTX");
    }
    outcome.image_bytes = image.size();

    try {
        // Load (the driver JIT-compiles PTX here) and launch.
        const auto load_start = std::chrono::steady_clock::now();
        const Module module(driver, image.data());
        outcome.module_load_ms = milliseconds_since(load_start);
        CUfunction function = nullptr;
        check(driver, driver.module_get_function(&function, module.get(), kernel_name), "cuModuleGetFunction");

        // Not a multiple of the block size, so the bounds check matters.
        const unsigned long long n = context.options.level == Level::full ? (1ULL << 24) + 7 : (1ULL << 20) + 7;
        std::optional<gpu::DeviceWork> gpu_work(context.device.value_or(0));  // compilation above ran without it
        gpu::Stream stream;
        gpu::DeviceArray<float> x(n), y(n), out(n);
        gpu::check(static_cast<cudaError_t>(
                       kernels::fill_uniform(x.data(), kernels::Element::f32, n, x_seed, stream.get())),
                   "fill kernel");
        gpu::check(static_cast<cudaError_t>(
                       kernels::fill_uniform(y.data(), kernels::Element::f32, n, y_seed, stream.get())),
                   "fill kernel");
        gpu::check(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream.get()),
                   "cudaMemsetAsync");  // NaN: an unwritten element fails
        float a = saxpy_a;
        float* x_pointer = x.data();
        float* y_pointer = y.data();
        float* out_pointer = out.data();
        unsigned long long count = n;
        void* arguments[] = {&a, &x_pointer, &y_pointer, &out_pointer, &count};
        constexpr unsigned block = 256;
        const auto grid = static_cast<unsigned>((n + block - 1) / block);
        check(driver, driver.launch_kernel(function, grid, 1, 1, block, 1, 1, 0, stream.get(), arguments, nullptr),
              "cuLaunchKernel");
        std::vector<float> host(n);
        gpu::check(cudaMemcpyAsync(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream.get()),
                   "cudaMemcpyAsync");
        stream.synchronize();
        gpu_work.reset();
        outcome.out = std::move(host);
    } catch (const CudaDriverFailure& failure) {
        outcome.driver_failure = DriverCallFailure{failure.status(), failure.what(), failure.remediation()};
        if (failure.status() == CUDA_ERROR_UNSUPPORTED_PTX_VERSION && !target.cubin) {
            int driver_encoded = 0;
            gpu::check(cudaDriverGetVersion(&driver_encoded), "cudaDriverGetVersion");
            outcome.driver = CudaVersion::from_encoded(driver_encoded);
        }
    }
}

void run_nvrtc_check(CheckContext& context, ResultBuilder& result, const NvrtcApi& api, const LoadedLibrary& library,
                     int device) {
    int nvrtc_major = 0, nvrtc_minor = 0;
    check(api, api.version(&nvrtc_major, &nvrtc_minor), "nvrtcVersion");
    result.evidence("nvrtc_version", fmt::format("{}.{}", nvrtc_major, nvrtc_minor));

    // The driver API the probes bound from the libcuda they opened (never a second copy).
    const DriverFacts& libcuda = context.probes.initialised_driver();
    if (!gpu::report_missing_libcuda_symbols(libcuda.library, libcuda.missing_module_symbols, result)) return;
    const CudaDriverApi& driver = libcuda.api;

    measure_then_judge<NvrtcOutcome>(
        [&](NvrtcOutcome& outcome) {
            outcome.nvrtc_major = nvrtc_major;
            outcome.nvrtc_minor = nvrtc_minor;
            measure_nvrtc(context, api, driver, library, device, outcome);
        },
        [&](const NvrtcOutcome& outcome) { judge_nvrtc(outcome, result); });
}

}  // namespace

float expected_saxpy_element(std::size_t i) {
    return std::fma(saxpy_a, kernels::uniform_value(x_seed, i), kernels::uniform_value(y_seed, i));
}

void judge_nvrtc(const NvrtcOutcome& outcome, ResultBuilder& result) {
    if (!outcome.architectures) return;
    const int nvrtc_major = outcome.nvrtc_major;
    const int nvrtc_minor = outcome.nvrtc_minor;
    const int major = outcome.major;
    const int minor = outcome.minor;
    result.evidence("nvrtc_architectures", fmt::format("{}", fmt::join(*outcome.architectures, ",")));
    const NvrtcTarget target = choose_nvrtc_target(*outcome.architectures, major, minor);
    result.evidence("target", target.verdict);
    if (!target.possible) {
        result.add(Code::nvrtc_compile_failed,
                   sys::clip(fmt::format("NVRTC {}.{} cannot compile for this GPU (compute capability {}.{}): {}",
                                         nvrtc_major, nvrtc_minor, major, minor, target.verdict),
                             sys::max_headline),
                   fmt::format("Use the NVRTC of a CUDA release that still supports sm_{}{} (CUDA 12.x for "
                               "sm_50..sm_72).",
                               major, minor));
        return;
    }

    if (!outcome.compile_status) return;
    const nvrtcResult compiled = *outcome.compile_status;
    const double compile_ms = outcome.compile_ms;
    if (compiled != NVRTC_SUCCESS) {
        const std::string builtins = nvrtc_builtins_soname(nvrtc_major, nvrtc_minor);
        const std::string& log = outcome.log;
        const std::string& nvrtc_dir = outcome.nvrtc_dir;
        const bool builtins_beside = outcome.builtins_beside;
        std::string remediation =
            compiled == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE || !builtins_beside
                ? fmt::format(
                      "NVRTC {}.{} needs {} from the same toolkit beside it{}: install the matching package ({}).",
                      nvrtc_major, nvrtc_minor, builtins,
                      builtins_beside
                          ? fmt::format(" ({} is present in {} but did not work: a copy from another release?)",
                                        builtins, nvrtc_dir)
                          : fmt::format(" (absent from {})", nvrtc_dir),
                      cuda_library::nvrtc.install_hint(CUDART_VERSION / 1000))
                : fmt::format(
                      "A correct kernel failed to compile with {}: reinstall NVRTC ({}), and check that NVRTC {}.{} "
                      "supports "
                      "this GPU.",
                      target.option, cuda_library::nvrtc.install_hint(CUDART_VERSION / 1000), nvrtc_major, nvrtc_minor);
        // The compiler's log is evidence; the headline names the call and its status.
        if (!log.empty()) result.evidence("nvrtc_log", first_log_lines(log, 3));
        result.add(Code::nvrtc_compile_failed,
                   sys::clip(fmt::format("nvrtcCompileProgram({}) failed: {}", target.option, outcome.compile_error),
                             sys::max_headline),
                   remediation);
        return;
    }
    result.metric(nvrtc_compile_time, compile_ms);
    if (outcome.builtins_path) result.evidence("nvrtc_builtins_path", *outcome.builtins_path);

    if (!outcome.image_bytes) return;
    result.evidence("image", fmt::format("{} bytes of {}", *outcome.image_bytes, target.cubin ? "CUBIN" : "PTX"));

    if (outcome.module_load_ms) result.metric(nvrtc_module_load, *outcome.module_load_ms);
    if (outcome.driver_failure) {
        const DriverCallFailure& failure = *outcome.driver_failure;
        if (failure.status == CUDA_ERROR_UNSUPPORTED_PTX_VERSION && !target.cubin) {
            if (!outcome.driver) return;  // cudaDriverGetVersion failed: run_gpu_check reports that
            add_ptx_too_new(result,
                            fmt::format("the kernel NVRTC {}.{} compiled for compute_{}", nvrtc_major, nvrtc_minor,
                                        target.architecture),
                            CudaVersion{nvrtc_major, nvrtc_minor}, *outcome.driver,
                            "use the NVRTC of the driver's CUDA version (PyTorch, CuPy and Triton JIT-compile through "
                            "NVRTC too)");
            return;
        }
        result.add(Code::cuda_call_failed,
                   fmt::format("{} (loading/launching the {} NVRTC produced)", failure.what,
                               target.cubin ? "CUBIN" : "PTX"),
                   failure.remediation);
        return;
    }
    if (outcome.out.empty()) return;

    const std::vector<float>& host = outcome.out;
    const std::size_t n = host.size();
    std::size_t wrong = 0;
    std::size_t first_wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = expected_saxpy_element(i);
        if (!(host[i] == expected) && wrong++ == 0) first_wrong = i;
    }
    result.metric(nvrtc_elements, static_cast<double>(n));
    if (wrong > 0) {
        result.add(Code::wrong_result, fmt::format("NVRTC-compiled saxpy ({}): {} of {} elements differ from the "
                                                   "host's fma (first at {}: {} expected, {} computed)",
                                                   target.option, wrong, n, first_wrong,
                                                   expected_saxpy_element(first_wrong), host[first_wrong]));
        return;
    }
    result.summary(fmt::format("NVRTC {}.{} compiled saxpy for {} in {:.0f} ms; {} elements exact", nvrtc_major,
                               nvrtc_minor,
                               target.cubin ? fmt::format("sm_{}", target.architecture)
                                            : fmt::format("compute_{} (PTX, JIT)", target.architecture),
                               compile_ms, n));
}

std::unique_ptr<Check> make_nvrtc_compile_check() {
    return std::make_unique<FunctionCheck>(
        gpu::library_check_info(
            {.id = "nvrtc.compile",
             .title = "NVRTC compile",
             .description = "NVRTC compiles a kernel for this GPU; the driver loads and runs it; every element exact",
             .raises = {Code::nvrtc_compile_failed, Code::ptx_too_new, Code::libcuda_symbol_missing},
             .answers =
                 "run-time compilation of a kernel for this GPU, loaded and run through the driver API, verified"},
            cuda_library::nvrtc),
        [](CheckContext& context, ResultBuilder& result) {
            // run_nvrtc_check records NVRTC's version (nvrtcVersion) itself: the outcome it judges carries it.
            gpu::run_library_check<Nvrtc>(context, result, cuda_library::nvrtc, nvrtc_symbols, gpu::no_version_evidence,
                                          [&](const LoadedLibrary& library, const NvrtcApi& api, int device) {
                                              run_nvrtc_check(context, result, api, library, device);
                                          });
        });
}

const CheckRegistration nvrtc_compile_registration{1700, make_nvrtc_compile_check};

}  // namespace cudacheck
