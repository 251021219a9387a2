#include "kernels/vector_add.cuh"

#include <cuda_runtime.h>

namespace cudacheck::kernels {

namespace {

__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n) {
    // Grid-stride loop: correct for any n and any grid size.
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        c[i] = a[i] + b[i];
}

// Frees device buffers however the function leaves.
struct DeviceBuffer {
    float* data = nullptr;
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (data != nullptr) cudaFree(data);
    }
};

KernelOutcome failure(cudaError_t error, const char* step) {
    return KernelOutcome{static_cast<int>(error), cudaGetErrorName(error), step};
}

}  // namespace

KernelOutcome vector_add_image(int* binary_version, int* ptx_version) {
    cudaFuncAttributes attributes{};
    if (cudaError_t error = cudaFuncGetAttributes(&attributes, add_kernel); error != cudaSuccess)
        return failure(error, "cudaFuncGetAttributes");
    *binary_version = attributes.binaryVersion;
    *ptx_version = attributes.ptxVersion;
    return {};
}

KernelOutcome vector_add(int device, const float* a, const float* b, float* c, std::size_t n) {
    if (cudaError_t error = cudaSetDevice(device); error != cudaSuccess) return failure(error, "cudaSetDevice");
    const std::size_t bytes = n * sizeof(float);
    DeviceBuffer device_a, device_b, device_c;
    if (cudaError_t error = cudaMalloc(&device_a.data, bytes); error != cudaSuccess)
        return failure(error, "cudaMalloc");
    if (cudaError_t error = cudaMalloc(&device_b.data, bytes); error != cudaSuccess)
        return failure(error, "cudaMalloc");
    if (cudaError_t error = cudaMalloc(&device_c.data, bytes); error != cudaSuccess)
        return failure(error, "cudaMalloc");
    if (cudaError_t error = cudaMemcpy(device_a.data, a, bytes, cudaMemcpyHostToDevice); error != cudaSuccess)
        return failure(error, "cudaMemcpy H2D");
    if (cudaError_t error = cudaMemcpy(device_b.data, b, bytes, cudaMemcpyHostToDevice); error != cudaSuccess)
        return failure(error, "cudaMemcpy H2D");
    // Poison the output so an unwritten element cannot pass as a correct sum.
    if (cudaError_t error = cudaMemset(device_c.data, 0xFF, bytes); error != cudaSuccess)
        return failure(error, "cudaMemset");
    const unsigned int threads = 256;
    const unsigned int blocks = static_cast<unsigned int>(n / threads + 1 < 65535 ? n / threads + 1 : 65535);
    add_kernel<<<blocks, threads>>>(device_a.data, device_b.data, device_c.data, n);
    // A missing kernel image (error 209) shows up here, at launch.
    if (cudaError_t error = cudaGetLastError(); error != cudaSuccess) return failure(error, "launch");
    if (cudaError_t error = cudaDeviceSynchronize(); error != cudaSuccess) return failure(error, "kernel");
    if (cudaError_t error = cudaMemcpy(c, device_c.data, bytes, cudaMemcpyDeviceToHost); error != cudaSuccess)
        return failure(error, "cudaMemcpy D2H");
    return {};
}

}  // namespace cudacheck::kernels
