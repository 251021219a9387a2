// cuda.kernel: cudacheck's own kernel (the article's vector add) runs on this GPU and adds
// correctly, and the code the binary embeds covers the GPU's architecture.
#include "checks/cuda_kernel.hpp"
#include "checks/checks.hpp"
#include "checks/measure_then_judge.hpp"
#include "cuda/arch_coverage.hpp"
#include "gpu/cuda_runtime.hpp"
#include "kernels/random_fill.cuh"
#include "kernels/vector_add.cuh"
#include "util/build_info.hpp"

#include <fmt/format.h>
#include <vector>

namespace cudacheck {

void add_ptx_too_new(ResultBuilder& result, std::string_view what, CudaVersion ptx, CudaVersion driver,
                     std::string_view alternative) {
    const auto minimum = minimum_driver_for(ptx);
    result.add(Code::ptx_too_new,
               fmt::format("{} is PTX from CUDA {}.{}, which this driver (CUDA {}.{}) cannot JIT-compile", what,
                           ptx.major, ptx.minor, driver.major, driver.minor),
               fmt::format("Update the NVIDIA driver to {} or newer (CUDA {}.{}), or {}.",
                           minimum ? *minimum : std::string_view("a newer release"), ptx.major, ptx.minor,
                           alternative));
}

namespace {

constexpr MetricFamily kernel_elements{"kernel_elements_checked", "elements_checked", Unit::count,
                                       "Elements of the test kernel's output checked."};

// cudacheck's own PTX comes from the toolkit it was built with.
void add_own_ptx_too_new(ResultBuilder& result, const KernelOutcome& outcome) {
    const ComputeCapability& cc = *outcome.compute_capability;
    add_ptx_too_new(result,
                    fmt::format("the only code cudacheck carries for compute capability {}.{}", cc.major, cc.minor),
                    CudaVersion::from_encoded(outcome.runtime_cuda), *outcome.driver,
                    fmt::format("rebuild cudacheck with SASS for this GPU: -DCMAKE_CUDA_ARCHITECTURES={0}{1} (nvcc "
                                "-gencode "
                                "arch=compute_{0}{1},code=sm_{0}{1})",
                                cc.major, cc.minor));
}

ImageVerdict expected_image(const KernelOutcome& outcome) {
    return kernel_image_for(parse_cmake_architectures(outcome.embedded_architectures),
                            outcome.compute_capability->major, outcome.compute_capability->minor);
}

void measure_kernel(CheckContext& context, int device, KernelOutcome& outcome) {
    cudaDeviceProp properties{};
    gpu::check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    outcome.compute_capability = ComputeCapability{properties.major, properties.minor};
    outcome.embedded_architectures = std::string(build_info::cuda_architectures);
    outcome.runtime_cuda = CUDART_VERSION;
    int driver_encoded = 0;
    gpu::check(cudaDriverGetVersion(&driver_encoded), "cudaDriverGetVersion");
    outcome.driver = CudaVersion::from_encoded(driver_encoded);
    // Known before launching: the launch would fail with cudaErrorUnsupportedPtxVersion.
    if (own_ptx_unusable(outcome)) return;

    // Large enough for thousands of blocks on every SM, not a multiple of the block size.
    const std::size_t n =
        context.options.level == Level::full ? (std::size_t{1} << 26) + 3 : (std::size_t{1} << 20) + 3;
    std::vector<float> a(n), b(n), sum(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = kernels::uniform_value(1, i) * 1000.0f;
        b[i] = kernels::uniform_value(2, i);
    }

    const gpu::DeviceWork gpu_work(device);
    int binary_version = 0;
    int ptx_version = 0;
    const kernels::KernelOutcome image = kernels::vector_add_image(&binary_version, &ptx_version);
    if (!image.ok()) {
        if (image.cuda_error == cudaErrorNoKernelImageForDevice || image.cuda_error == cudaErrorUnsupportedPtxVersion)
            outcome.image_error = image.cuda_error;
        else gpu::check(static_cast<cudaError_t>(image.cuda_error), image.failed_step);
        return;
    }
    outcome.binary_version = binary_version;
    outcome.ptx_version = ptx_version;

    const kernels::KernelOutcome added = kernels::vector_add(device, a.data(), b.data(), sum.data(), n);
    if (!added.ok()) gpu::check(static_cast<cudaError_t>(added.cuda_error), added.failed_step);
    outcome.a = std::move(a);
    outcome.b = std::move(b);
    outcome.sum = std::move(sum);
}

}  // namespace

bool own_ptx_unusable(const KernelOutcome& outcome) {
    return outcome.compute_capability && outcome.driver && expected_image(outcome).kind == ImageKind::ptx_jit &&
           !driver_can_jit(CudaVersion::from_encoded(outcome.runtime_cuda), *outcome.driver);
}

void judge_kernel(const KernelOutcome& outcome, ResultBuilder& result) {
    if (!outcome.compute_capability) return;
    const ComputeCapability& cc = *outcome.compute_capability;
    const ImageVerdict verdict = expected_image(outcome);
    result.evidence("embedded_architectures", outcome.embedded_architectures);
    result.evidence("expected_image", verdict.describe());
    if (!outcome.driver) return;
    if (own_ptx_unusable(outcome)) {
        add_own_ptx_too_new(result, outcome);
        return;
    }
    if (outcome.image_error == cudaErrorNoKernelImageForDevice) {
        result.add(Code::no_kernel_image,
                   fmt::format("cudacheck embeds {} but the GPU is compute capability {}.{}: no kernel image",
                               outcome.embedded_architectures, cc.major, cc.minor),
                   fmt::format("Rebuild cudacheck with -DCMAKE_CUDA_ARCHITECTURES={0}{1} (nvcc -gencode "
                               "arch=compute_{0}{1},code=sm_{0}{1}).",
                               cc.major, cc.minor));
        return;
    }
    if (outcome.image_error == cudaErrorUnsupportedPtxVersion) {
        add_own_ptx_too_new(result, outcome);
        return;
    }
    if (!outcome.binary_version) return;
    result.evidence("loaded_image",
                    *outcome.binary_version > 0
                        ? fmt::format("sm_{} SASS (PTX {})", *outcome.binary_version, outcome.ptx_version)
                        : fmt::format("PTX compute_{} JIT-compiled", outcome.ptx_version));
    if (outcome.sum.empty()) return;

    const std::size_t n = outcome.sum.size();
    const std::vector<float>& a = outcome.a;
    const std::vector<float>& b = outcome.b;
    const std::vector<float>& sum = outcome.sum;
    // One IEEE single-precision addition per element on each side: results must be bit-identical.
    std::size_t wrong = 0;
    std::size_t first_wrong = n;
    for (std::size_t i = 0; i < n; ++i)
        if (!(sum[i] == a[i] + b[i])) {
            if (wrong++ == 0) first_wrong = i;
        }
    result.metric(kernel_elements, static_cast<double>(n));
    if (wrong > 0) {
        result.add(Code::wrong_result,
                   fmt::format("vector add: {} of {} sums wrong (first at {}: {} + {} gave {})", wrong, n, first_wrong,
                               a[first_wrong], b[first_wrong], sum[first_wrong]));
        return;
    }
    result.summary(fmt::format("vector add of {} floats exact; {}", n,
                               verdict.kind == ImageKind::none ? "image loaded" : verdict.describe()));
}

std::unique_ptr<Check> make_cuda_kernel_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "cuda.kernel",
                  .title = "Own kernel",
                  .description =
                      "cudacheck's vector-add kernel runs and is exact; the embedded SASS/PTX covers this GPU",
                  .scope = Scope::device,
                  .min_level = Level::standard,
                  .depends_on = {"cuda.devices"},
                  .raises = {Code::cuda_call_failed, Code::gpu_out_of_memory, Code::no_kernel_image, Code::wrong_result,
                             Code::ptx_too_new},
                  .answers = "cudacheck's own kernel runs on each GPU and adds exactly; the SASS/PTX the binary embeds "
                             "covers the "
                             "GPU (else the `-gencode` fix)"},
        [](CheckContext& context, ResultBuilder& result) {
            gpu::run_gpu_check(context, result, [&](int device) {
                measure_then_judge<KernelOutcome>(
                    [&](KernelOutcome& outcome) { measure_kernel(context, device, outcome); },
                    [&](const KernelOutcome& outcome) { judge_kernel(outcome, result); });
            });
        });
}

const CheckRegistration cuda_kernel_registration{1100, make_cuda_kernel_check};

}  // namespace cudacheck
