#include "gpu/cublas_support.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

namespace cudacheck::gpu {

void record_cublas_version(const CublasApi& api, ResultBuilder& result) {
    int major = 0, minor = 0, patch = 0;
    api.get_property(MAJOR_VERSION, &major);
    api.get_property(MINOR_VERSION, &minor);
    api.get_property(PATCH_LEVEL, &patch);
    result.evidence("cublas_version", fmt::format("{}.{}.{}", major, minor, patch));
}

std::string Cublas::remediation(Status) {
    return "Check that cuBLAS matches the CUDA runtime and driver (cuda.pairing); CUBLAS_STATUS_NOT_INITIALIZED "
           "usually means "
           "the GPU context could not be created, CUBLAS_STATUS_ALLOC_FAILED that GPU memory is exhausted.";
}

actions::Action cublas_handle_step(int device) {
    return actions::Action{actions::Kind::handle, fmt::format("cuBLAS on device {}", device)};
}

CublasHandle::CublasHandle(const CublasApi& api, cublasHandle_t early) : api_(api) {
    if (early == nullptr) {
        int device = 0;
        (void)cudaGetDevice(&device);
        const actions::Action step = cublas_handle_step(device);
        refuse_if_failed(step);
        const actions::Announced announced(step);
        check(api_.create(&early), "cublasCreate");
    }
    handle_ = Owned<cublasHandle_t, decltype(CublasApi::destroy)>(early, api_.destroy);
}

void CublasHandle::check(cublasStatus_t status, const std::string& call) const {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw CublasFailure(status, call, describe_status(api_.status_name(status), static_cast<int>(status)));
}

double stored_value(kernels::Element element, std::uint64_t seed, std::size_t index) {
    const float value = kernels::uniform_value(seed, index);
    switch (element) {
        case kernels::Element::f16: return __half2float(__float2half_rn(value));
        case kernels::Element::bf16: return __bfloat162float(__float2bfloat16_rn(value));
        default: return value;
    }
}

std::size_t element_bytes(kernels::Element element) {
    return element == kernels::Element::f32 ? 4 : element == kernels::Element::f64 ? 8 : 2;
}

namespace {

double read_element(const unsigned char* bytes, kernels::Element element) {
    if (element == kernels::Element::f16) return __half2float(*reinterpret_cast<const __half*>(bytes));
    if (element == kernels::Element::bf16) return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(bytes));
    if (element == kernels::Element::f64) return *reinterpret_cast<const double*>(bytes);
    return *reinterpret_cast<const float*>(bytes);
}

}  // namespace

GemmSamples copy_gemm_samples(const unsigned char* product, kernels::Element output, std::size_t size, int count,
                              const Stream& stream) {
    const std::size_t bytes = element_bytes(output);
    PinnedArray<unsigned char> picked(static_cast<std::size_t>(count) * bytes);
    GemmSamples samples;
    samples.size = size;
    samples.output = output;
    for (int i = 0; i < count; ++i) {
        const std::uint64_t hash = kernels::mix64(0x5EED + static_cast<std::uint64_t>(i));
        samples.positions.emplace_back(hash % size, (hash >> 32) % size);
        const auto [row, column] = samples.positions.back();
        check(cudaMemcpyAsync(picked.data() + static_cast<std::size_t>(i) * bytes,
                              product + at(row, column, size) * bytes, bytes, cudaMemcpyDeviceToHost, stream.get()),
              "cudaMemcpyAsync");
    }
    stream.synchronize();
    for (int i = 0; i < count; ++i)
        samples.values.push_back(read_element(picked.data() + static_cast<std::size_t>(i) * bytes, output));
    return samples;
}

Accuracy compare_gemm_samples(const GemmSamples& samples, kernels::Element input, std::uint64_t seed_a,
                              std::uint64_t seed_b) {
    AccuracyAccumulator accuracy;
    const std::size_t size = samples.size;
    for (std::size_t i = 0; i < samples.positions.size(); ++i) {
        const auto [row, column] = samples.positions[i];
        double reference = 0;
        for (std::size_t inner = 0; inner < size; ++inner)
            reference += stored_value(input, seed_a, at(row, inner, size)) *
                         stored_value(input, seed_b, at(inner, column, size));
        accuracy.add(samples.values[i], reference);
    }
    return accuracy.result();
}

}  // namespace cudacheck::gpu
