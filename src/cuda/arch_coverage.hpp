// Which GPUs a set of embedded code objects can run on (CUDA C++ Programming Guide, "Binary
// Compatibility", "PTX Compatibility" and "Feature Set Compiler Targets"; the nvcc documentation's
// "GPU Feature List"): a cubin sm_XY runs on devices of the same major with minor >= Y; PTX compute_XY is
// JIT-compiled for any device of compute capability >= X.Y. The `a` (architecture-specific)
// targets run only on exactly X.Y, SASS and PTX alike; the `f` (family-specific) targets run on
// the same major with minor >= Y, and their PTX is not carried forward to a newer major.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class ArchVariant { generic, arch_specific, family };

// One compilation target: 90 for sm_90 / compute_90, with its variant (90a, 100f).
struct GpuArch {
    int number = 0;
    ArchVariant variant = ArchVariant::generic;
    [[nodiscard]] int major() const { return number / 10; }
    [[nodiscard]] int minor() const { return number % 10; }
    [[nodiscard]] std::string suffix() const;        // "90a"
    [[nodiscard]] std::string sass_name() const;     // "sm_90a"
    [[nodiscard]] std::string virtual_name() const;  // "compute_90a"
    bool operator==(const GpuArch&) const = default;
};
// "sm_90a", "compute_100f", "90", "9.0", "100a": the forms a user types for --arch. Empty when not one.
[[nodiscard]] std::optional<GpuArch> parse_gpu_arch(std::string_view text);

struct EmbeddedTargets {
    std::vector<GpuArch> sass;
    std::vector<GpuArch> ptx;
};

// From CMAKE_CUDA_ARCHITECTURES syntax: "75-real;90a-real;120-virtual", "90" (SASS and PTX), "native".
[[nodiscard]] EmbeddedTargets parse_cmake_architectures(std::string_view architectures);

// Whether an image of this target can be loaded on a device of compute capability major.minor:
// SASS as it is, PTX after JIT compilation.
[[nodiscard]] bool sass_runs_on(const GpuArch& sass, int cc_major, int cc_minor);
[[nodiscard]] bool ptx_compiles_for(const GpuArch& ptx, int cc_major, int cc_minor);

enum class ImageKind { native, ptx_jit, none };
struct ImageVerdict {
    ImageKind kind = ImageKind::none;
    GpuArch target;  // the SASS or PTX target used
    [[nodiscard]] std::string describe() const;  // "runs natively (sm_90 SASS)" ...
};
[[nodiscard]] ImageVerdict kernel_image_for(const EmbeddedTargets& targets, int cc_major, int cc_minor);

}  // namespace cudacheck
