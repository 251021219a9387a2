// What each Python framework in a site-packages directory was built for, read from its own files
// and never imported: PyTorch (torch/version.py, which its build generates; METADATA's
// pins of the CUDA wheels), torchvision and torchaudio (their version.py and the torch they
// require), JAX (jaxlib, and the CUDA plugin whose package name carries the CUDA major:
// jax-cuda13-plugin, with minimum library versions under its "with-cuda" extra), CuPy (the package
// name cupy-cuda13x and cupy/.data/_wheel.json), TensorFlow (the generated
// tensorflow/python/platform/build_info.py), xformers (xformers/cpp_lib.json, written by its
// build), triton, vLLM (the torch its METADATA pins), flash-attn (the torch and CUDA its wheel's
// name encodes, from the URL pip recorded in direct_url.json) and bitsandbytes (one library per
// CUDA release). A file that is missing or cannot be read is a problem naming it, never a crash.
#pragma once

#include "probes/python/python_packages.hpp"
#include "util/python_packaging.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class Accelerator { cuda, rocm, cpu, unknown };
[[nodiscard]] std::string_view to_string(Accelerator accelerator);  // "cuda", "rocm", "cpu", "unknown" (the report's
                                                                    // words)

struct FrameworkBuild {
    std::string framework = {};  // "PyTorch", "torchvision", "torchaudio", "JAX", "CuPy", "TensorFlow", "xformers",
                                 // "triton", "vLLM", "flash-attn", "bitsandbytes"
    std::string distribution = {};  // the distribution that carries the CUDA build: "torch", "jax-cuda13-plugin",
                                    // "cupy-cuda13x"
    std::string version = {};  // the framework's own version: "2.11.0+cu130"
    Accelerator accelerator = Accelerator::unknown;
    std::optional<std::string> cuda = {};  // as the framework states it: "13.0" (torch), "13.x" (CuPy's _wheel.json)
    std::optional<int> cuda_major = {};
    std::optional<std::string> rocm = {};  // torch.version.hip
    // The CUDA wheels it pins (torch: nvidia-cudnn-cu13==9.19.0.56) or needs at least (the JAX
    // plugin's with-cuda extra: nvidia-cudnn-cu13>=9.12.0.46): the Requires-Dist whose marker holds
    // (or cannot be decided from files) for the interpreter of its site-packages and this machine.
    std::vector<packaging::Requirement> cuda_wheels = {};
    std::optional<std::string> requires_torch = {};  // torchvision/torchaudio/xformers: the torch specifier, "==2.11.0"
                                                     // (packaging::SpecifierSet::text)
    std::optional<std::string> built_with_torch = {};  // xformers' cpp_lib.json: the torch it was compiled against,
                                                       // "2.7.0+cu126"
    // The GPU code it says it carries: TensorFlow's cuda_compute_capabilities ("sm_80",
    // "compute_90"), xformers' TORCH_CUDA_ARCH_LIST ("8.0+PTX", "9.0a"); empty when it says nothing.
    std::vector<std::string> architectures = {};
    std::optional<std::string> cudnn = {};  // the cuDNN it was built with, where it says: TensorFlow's "8"
    // bitsandbytes: the CUDA releases it carries a library for (libbitsandbytes_cuda126.so -> "12.6").
    std::vector<std::string> cuda_libraries = {};
    // A binary of its own whose GPU code decides where it runs (flash-attn's flash_attn_2_cuda*.so);
    // "" when none or when the framework's loading model names it (PyTorch, JAX).
    std::string gpu_binary = {};
    std::vector<std::string> files = {};  // what was read, for evidence
    std::vector<std::string> problems = {};  // "<file>: <what is wrong>"
};

// The CUDA release of a PyTorch-style local version: "2.11.0+cu130" -> "13.0", "0.21.0+cu118" ->
// "11.8"; nullopt for "+cpu", "+rocm6.2" or no local part.
[[nodiscard]] std::optional<std::string> cuda_of_local_version(std::string_view version);

// The entries of TensorFlow's generated build_info.py, `build_info = collections.OrderedDict([
// ('cuda_version', '12.3'), ('is_cuda_build', True), ('cuda_compute_capabilities', ['sm_60', ...])])`:
// strings as they are, True/False/None as words, lists joined with ","; empty when there is no
// such assignment.
[[nodiscard]] std::map<std::string, std::string> parse_tensorflow_build_info(std::string_view text);

// The marker values (PEP 508) of the interpreter that reads `site_packages`: its Python version
// from the path ("lib/python3.12/site-packages"), this machine's architecture (uname), CPython on
// Linux. A value the files do not give (the full version; the Python of Debian's
// /usr/lib/python3/dist-packages) stays empty, and a marker that needs it is undecided.
[[nodiscard]] packaging::MarkerEnvironment marker_environment_of_site(std::string_view site_packages);

// Every framework build in `site_packages`, given its installed distributions.
[[nodiscard]] std::vector<FrameworkBuild> read_framework_builds(const std::string& site_packages,
                                                                const std::vector<InstalledDistribution>& installed);

}  // namespace cudacheck
