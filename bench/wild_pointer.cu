// A CUDA program that writes through a wild pointer, for the GPU machine's kernel-log test
// (bench/issue38_on_gpu.sh): the write lands 1 TiB past a 4-byte allocation, in no mapping, so the
// GPU's MMU faults and the driver logs a real Xid 31 ("MMU Fault", the application's own bug) and
// ends the context with cudaErrorIllegalAddress. The GPU itself is unharmed: NVML's recovery action
// stays None. Prints the error and its pid, exits 0 when the fault happened as expected.
#include <cstdio>
#include <unistd.h>

__global__ void write_far(int* pointer) { *(pointer + (1ll << 40)) = 1; }

int main() {
    int* pointer = nullptr;
    if (cudaMalloc(&pointer, sizeof(int)) != cudaSuccess) return 2;
    write_far<<<1, 1>>>(pointer);
    const cudaError_t error = cudaDeviceSynchronize();
    std::printf("pid %d: %s (%s)\n", static_cast<int>(getpid()), cudaGetErrorName(error), cudaGetErrorString(error));
    return error == cudaErrorIllegalAddress ? 0 : 1;
}
