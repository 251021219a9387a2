// The CUDA libraries cudacheck knows, one entry each: the soname for each CUDA major, the wheel and
// the package that ship it, and the check that exercises it. The one table behind the locator
// (libraries.resolution), the loader (probes) and every library check: a new library is one entry.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One library of a family as the loader asks for it, for each CUDA major (11, 12, 13).
struct LibraryFamily {
    std::string_view name;                   // "cuBLAS", "cuDNN ops"
    std::string_view stem;                   // "libcublas": files are <stem>.so[.<version>]
    std::array<std::string_view, 3> sonames;  // for CUDA 11, 12, 13; "" where none exists
    // The wheel's distribution name without the "_cu<major>" suffix, as in its *.dist-info directory
    // ("nvidia_cublas" for nvidia_cublas_cu12-12.4.5.8 and nvidia_cublas-13.1.0.3); "" when none.
    std::string_view wheel;
    bool cudnn_sublibrary = false;  // one of the seven libraries cuDNN 9's libcudnn.so.9 loads
    // The distribution package for the remediation, {toolkit} standing for "13-0" and {major} for
    // "13" ("libcublas-{toolkit} package"); "" when cudacheck names none.
    std::string_view package = {};
    // Whether the wheel's pip name carries "-cu<major>" for every CUDA major (nvidia-cudnn-cu13), not
    // only before CUDA 13 (nvidia-cublas-cu12, nvidia-cublas).
    bool wheel_always_suffixed = false;
    std::string_view check = {};  // the check that opens it ("cublas.gemm"); "" when it is only located
    // The table's libraries this one opens itself with dlopen() during some calls, by name: not
    // DT_NEEDED, so only the loader's search at that moment finds them, and a damaged one kills its
    // caller's process then. cuDNN 9's shim and its sub-libraries are `cudnn_sublibrary`.
    std::span<const std::string_view> opens = {};

    // The CUDA majors whose soname is `soname`: {12} for libcublas.so.12, {12, 13} for
    // libcusparse.so.12, {11, 12, 13} for libcudnn.so.9 (which therefore tells nothing).
    [[nodiscard]] std::vector<int> cuda_majors_of(std::string_view soname) const;
    // The soname for a CUDA major; "" when the family has none for it (nvJitLink in CUDA 11).
    [[nodiscard]] std::string_view soname_for(int cuda_major) const;
    // Distinct sonames, newest CUDA first.
    [[nodiscard]] std::vector<std::string_view> distinct_sonames() const;
    // How to install it, for a remediation: "the libcublas-13-0 package (NVIDIA's repository) or
    // `pip install nvidia-cublas`"; "" when the family names no package.
    [[nodiscard]] std::string install_hint(int cuda_major) const;
};

// What a library opens itself (LibraryFamily::opens). cuFFT: nvJitLink and NVRTC for its JIT LTO
// callbacks ("JIT LTO is implemented using the nvJitLink library",
// https://docs.nvidia.com/cuda/cufft/ltoea/usage/jit_lto.html; libcufft.so.12 of CUDA 13.0 names
// libnvJitLink.so.13 and libnvrtc.so.13 among its strings and needs neither, `readelf -d`).
// cuBLASLt: NVRTC (libcublasLt.so.13 of CUDA 13.0 names libnvrtc.so.13 the same way).
inline constexpr std::array<std::string_view, 2> cufft_opens{"nvJitLink", "NVRTC"};
inline constexpr std::array<std::string_view, 1> cublaslt_opens{"NVRTC"};

// NVIDIA/cuda-python pathfinder (supported_libs.py): sonames for CUDA 11, 12 and 13. cuSOLVER was
// .so.10 in CUDA 11.0 only; 11.1 to 11.8 ship .so.11. Package names: NVIDIA's CUDA repository
// (apt) and PyPI.
inline constexpr std::array library_family_table{
    LibraryFamily{
        "cudart", "libcudart", {"libcudart.so.11.0", "libcudart.so.12", "libcudart.so.13"}, "nvidia_cuda_runtime"},
    LibraryFamily{.name = "cuBLAS",
                  .stem = "libcublas",
                  .sonames = {"libcublas.so.11", "libcublas.so.12", "libcublas.so.13"},
                  .wheel = "nvidia_cublas",
                  .package = "libcublas-{toolkit} package (NVIDIA's repository)",
                  .check = "cublas.gemm"},
    LibraryFamily{.name = "cuBLASLt",
                  .stem = "libcublasLt",
                  .sonames = {"libcublasLt.so.11", "libcublasLt.so.12", "libcublasLt.so.13"},
                  .wheel = "nvidia_cublas",
                  .package = "libcublas-{toolkit} package (NVIDIA's repository)",
                  .opens = cublaslt_opens},
    LibraryFamily{.name = "cuFFT",
                  .stem = "libcufft",
                  .sonames = {"libcufft.so.10", "libcufft.so.11", "libcufft.so.12"},
                  .wheel = "nvidia_cufft",
                  .package = "libcufft-{toolkit} package",
                  .check = "cufft.fft",
                  .opens = cufft_opens},
    LibraryFamily{.name = "cuRAND",
                  .stem = "libcurand",
                  .sonames = {"libcurand.so.10", "libcurand.so.10", "libcurand.so.10"},
                  .wheel = "nvidia_curand",
                  .package = "libcurand-{toolkit} package",
                  .check = "curand.generate"},
    LibraryFamily{
        "cuSOLVER", "libcusolver", {"libcusolver.so.11", "libcusolver.so.11", "libcusolver.so.12"}, "nvidia_cusolver"},
    LibraryFamily{
        "cuSPARSE", "libcusparse", {"libcusparse.so.11", "libcusparse.so.12", "libcusparse.so.12"}, "nvidia_cusparse"},
    LibraryFamily{.name = "cuDNN",
                  .stem = "libcudnn",
                  .sonames = {"libcudnn.so.9", "libcudnn.so.9", "libcudnn.so.9"},
                  .wheel = "nvidia_cudnn",
                  .package = "libcudnn9-cuda-{major} package",
                  .wheel_always_suffixed = true,
                  .check = "cudnn.conv"},
    LibraryFamily{"cuDNN graph",
                  "libcudnn_graph",
                  {"libcudnn_graph.so.9", "libcudnn_graph.so.9", "libcudnn_graph.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{"cuDNN ops",
                  "libcudnn_ops",
                  {"libcudnn_ops.so.9", "libcudnn_ops.so.9", "libcudnn_ops.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{"cuDNN cnn",
                  "libcudnn_cnn",
                  {"libcudnn_cnn.so.9", "libcudnn_cnn.so.9", "libcudnn_cnn.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{"cuDNN adv",
                  "libcudnn_adv",
                  {"libcudnn_adv.so.9", "libcudnn_adv.so.9", "libcudnn_adv.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{"cuDNN engines precompiled",
                  "libcudnn_engines_precompiled",
                  {"libcudnn_engines_precompiled.so.9", "libcudnn_engines_precompiled.so.9",
                   "libcudnn_engines_precompiled.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{"cuDNN engines runtime compiled",
                  "libcudnn_engines_runtime_compiled",
                  {"libcudnn_engines_runtime_compiled.so.9", "libcudnn_engines_runtime_compiled.so.9",
                   "libcudnn_engines_runtime_compiled.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{"cuDNN heuristic",
                  "libcudnn_heuristic",
                  {"libcudnn_heuristic.so.9", "libcudnn_heuristic.so.9", "libcudnn_heuristic.so.9"},
                  "nvidia_cudnn",
                  true},
    LibraryFamily{.name = "NVRTC",
                  .stem = "libnvrtc",
                  .sonames = {"libnvrtc.so.11.2", "libnvrtc.so.12", "libnvrtc.so.13"},
                  .wheel = "nvidia_cuda_nvrtc",
                  .package = "cuda-nvrtc-{toolkit} package",
                  .check = "nvrtc.compile"},
    LibraryFamily{"nvJitLink", "libnvJitLink", {"", "libnvJitLink.so.12", "libnvJitLink.so.13"}, "nvidia_nvjitlink"},
    // nccl.allreduce opens it itself (a missing NCCL is a skip, with its own advice).
    LibraryFamily{.name = "NCCL",
                  .stem = "libnccl",
                  .sonames = {"libnccl.so.2", "libnccl.so.2", "libnccl.so.2"},
                  .wheel = "nvidia_nccl",
                  .package = "libnccl2 package",
                  .wheel_always_suffixed = true,
                  .check = "nccl.allreduce"},
    // The driver's libraries: one soname whatever the CUDA version, never in a wheel.
    LibraryFamily{"NVML", "libnvidia-ml", {"libnvidia-ml.so.1", "libnvidia-ml.so.1", "libnvidia-ml.so.1"}, ""},
    LibraryFamily{"libcuda", "libcuda", {"libcuda.so.1", "libcuda.so.1", "libcuda.so.1"}, ""},
};

// cudart, cuBLAS(Lt), cuFFT, cuRAND, cuSOLVER, cuSPARSE, cuDNN and its sub-libraries, NVRTC,
// nvJitLink, NCCL, NVML, libcuda.
[[nodiscard]] std::span<const LibraryFamily> library_families();

// The seven sonames libcudnn.so.9 (a shim) loads its implementation from: the table's cuDNN
// sub-libraries, in its order (cudnn.conv judges where they came from; the loader simulation
// follows the shim's dlopen of them).
[[nodiscard]] std::span<const std::string_view> cudnn9_sublibraries();
// By name ("cuBLAS"); nullptr when none.
[[nodiscard]] const LibraryFamily* find_library_family(std::string_view name);
// The family one of whose sonames `soname` is ("libcublasLt.so.13": cuBLASLt); nullptr when none.
[[nodiscard]] const LibraryFamily* family_of_soname(std::string_view soname);
// The sonames the object whose soname is `soname` opens itself (LibraryFamily::opens), for the CUDA
// majors that soname serves: libnvJitLink.so.13 and libnvrtc.so.13 for libcufft.so.12.
[[nodiscard]] std::vector<std::string_view> sonames_opened_by(std::string_view soname);
// The number after the last ".so." of a soname: 13 for "libcublas.so.13", 11 for "libnvrtc.so.11.2"
// and "libcufft.so.11.2.1.3"; -1 when there is none ("libcufft.so", "libcufft.so.x").
[[nodiscard]] int soname_major(std::string_view soname);
// Its position in library_family_table, for tables indexed like it.
[[nodiscard]] std::size_t index_of(const LibraryFamily& family);

namespace detail {
consteval const LibraryFamily& family_named(std::string_view name) {
    for (const LibraryFamily& family : library_family_table)
        if (family.name == name) return family;
    throw "no library family of that name";  // not a constant expression: a wrong name does not compile
}
}  // namespace detail

// The libraries the checks open, by the table's names.
namespace cuda_library {
inline constexpr const LibraryFamily& cublas = detail::family_named("cuBLAS");
inline constexpr const LibraryFamily& cufft = detail::family_named("cuFFT");
inline constexpr const LibraryFamily& curand = detail::family_named("cuRAND");
inline constexpr const LibraryFamily& cudnn = detail::family_named("cuDNN");
inline constexpr const LibraryFamily& nvrtc = detail::family_named("NVRTC");
inline constexpr const LibraryFamily& nccl = detail::family_named("NCCL");
}  // namespace cuda_library

}  // namespace cudacheck
