#include "kernels/random_fill.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudacheck::kernels {

namespace {

template <typename T>
__device__ T convert(float value);
template <>
__device__ float convert<float>(float value) {
    return value;
}
template <>
__device__ double convert<double>(float value) {
    return value;
}
template <>
__device__ __half convert<__half>(float value) {
    return __float2half_rn(value);
}
template <>
__device__ __nv_bfloat16 convert<__nv_bfloat16>(float value) {
    return __float2bfloat16_rn(value);
}

template <typename T>
__global__ void fill_kernel(T* data, std::size_t count, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        data[i] = convert<T>(uniform_value(seed, i));
}

template <typename T>
int launch(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
    const unsigned int threads = 256;
    const std::size_t wanted = (count + threads - 1) / threads;
    const unsigned int blocks = static_cast<unsigned int>(wanted < 65535 ? (wanted == 0 ? 1 : wanted) : 65535);
    fill_kernel<T><<<blocks, threads, 0, stream>>>(static_cast<T*>(data), count, seed);
    return static_cast<int>(cudaGetLastError());
}

}  // namespace

int fill_uniform(void* data, Element element, std::size_t count, std::uint64_t seed, CUstream_st* stream) {
    switch (element) {
        case Element::f32: return launch<float>(data, count, seed, stream);
        case Element::f64: return launch<double>(data, count, seed, stream);
        case Element::f16: return launch<__half>(data, count, seed, stream);
        case Element::bf16: return launch<__nv_bfloat16>(data, count, seed, stream);
    }
    return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace cudacheck::kernels
