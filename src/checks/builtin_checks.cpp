// The one list of built-in checks. Order matters: it is the report's order, and a check's
// dependencies must come before it.
#include "checks/checks.hpp"
#include "engine/registry.hpp"

namespace cudacheck {

CheckList builtin_checks() {
    CheckList checks;
    checks.push_back(make_host_os_check());
    checks.push_back(make_env_variables_check());
    checks.push_back(make_kernel_module_check());
    checks.push_back(make_libcuda_check());
    checks.push_back(make_driver_nvml_check());
    checks.push_back(make_toolkit_nvcc_check());
    checks.push_back(make_libraries_resolution_check());
    checks.push_back(make_cuda_pairing_check());
    checks.push_back(make_cuda_devices_check());
    checks.push_back(make_device_health_check());
    checks.push_back(make_cuda_kernel_check());
    checks.push_back(make_cuda_memory_check());
    checks.push_back(make_cublas_gemm_check());
    checks.push_back(make_cufft_fft_check());
    checks.push_back(make_cudnn_conv_check());
    checks.push_back(make_curand_generate_check());
    checks.push_back(make_nvrtc_compile_check());
    checks.push_back(make_gpu_stress_check());
    checks.push_back(make_gpu_memtest_check());
    checks.push_back(make_cuda_p2p_check());
    checks.push_back(make_nccl_allreduce_check());
    if (fault_checks_enabled()) add_fault_checks(checks);
    return checks;
}

}  // namespace cudacheck
