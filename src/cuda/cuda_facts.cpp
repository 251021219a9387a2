#include "cuda/cuda_facts.hpp"

#include <array>
#include <charconv>
#include <fmt/format.h>
#include <utility>

namespace cudacheck {

std::string CudaVersion::to_string() const { return fmt::format("{}.{}", major, minor); }

std::optional<CudaVersion> CudaVersion::parse(std::string_view text) {
    CudaVersion version;
    if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;  // from_chars takes "-1"
    const char* const end = text.data() + text.size();
    const auto [dot, major_error] = std::from_chars(text.data(), end, version.major);
    if (major_error != std::errc() || dot == text.data() || dot == end || *dot != '.') return std::nullopt;
    const auto [stop, minor_error] = std::from_chars(dot + 1, end, version.minor);
    if (minor_error != std::errc() || stop == dot + 1 || stop != end || dot[1] == '-') return std::nullopt;
    return version;
}

namespace {

struct DriverRequirement {
    CudaVersion cuda;
    std::string_view minimum_driver;
};

// CUDA Toolkit release notes, "CUDA Toolkit and Corresponding Driver Versions" (Linux x86_64,
// GA releases; the same table is copied in meson's cuda module). 13.2's value has not been checked
// against its release notes here.
constexpr std::array driver_requirements{
    DriverRequirement{{11, 0}, "450.36.06"}, DriverRequirement{{11, 1}, "455.23"},
    DriverRequirement{{11, 2}, "460.27.03"}, DriverRequirement{{11, 3}, "465.19.01"},
    DriverRequirement{{11, 4}, "470.42.01"}, DriverRequirement{{11, 5}, "495.29.05"},
    DriverRequirement{{11, 6}, "510.39.01"}, DriverRequirement{{11, 7}, "515.43.04"},
    DriverRequirement{{11, 8}, "520.61.05"}, DriverRequirement{{12, 0}, "525.60.13"},
    DriverRequirement{{12, 1}, "530.30.02"}, DriverRequirement{{12, 2}, "535.54.03"},
    DriverRequirement{{12, 3}, "545.23.06"}, DriverRequirement{{12, 4}, "550.54.14"},
    DriverRequirement{{12, 5}, "555.42.02"}, DriverRequirement{{12, 6}, "560.28.03"},
    DriverRequirement{{12, 8}, "570.26"},    DriverRequirement{{12, 9}, "575.51.03"},
    DriverRequirement{{13, 0}, "580.65.06"}, DriverRequirement{{13, 1}, "590.44.01"},
    DriverRequirement{{13, 2}, "595.45.04"},
};

struct Architecture {
    int major;
    int minor;  // -1: any minor of this major
    std::string_view name;
    int fp32_lanes;  // 0: unknown
};

// Names: NVIDIA's CUDA GPUs list (developer.nvidia.com/cuda-gpus) and the nvcc documentation.
// Lanes: cuda-samples Common/helper_cuda.h, _ConvertSMVer2Cores.
constexpr std::array architectures{
    Architecture{3, -1, "Kepler", 192},
    Architecture{5, -1, "Maxwell", 128},
    Architecture{6, 0, "Pascal", 64},
    Architecture{6, -1, "Pascal", 128},
    Architecture{7, 0, "Volta", 64},
    Architecture{7, 2, "Volta", 64},
    Architecture{7, 5, "Turing", 64},
    Architecture{8, 0, "Ampere", 64},
    Architecture{8, 6, "Ampere", 128},
    Architecture{8, 7, "Ampere", 128},
    Architecture{8, 9, "Ada Lovelace", 128},
    Architecture{9, 0, "Hopper", 128},
    Architecture{10, 0, "Blackwell", 128},
    Architecture{10, 3, "Blackwell Ultra", 128},
    Architecture{11, 0, "Blackwell (Thor)", 128},
    Architecture{12, 0, "Blackwell", 128},
    Architecture{12, 1, "Blackwell (GB10)", 128},
};

const Architecture* find_architecture(int major, int minor) {
    for (const Architecture& arch : architectures)
        if (arch.major == major && arch.minor == minor) return &arch;
    for (const Architecture& arch : architectures)
        if (arch.major == major && arch.minor == -1) return &arch;
    return nullptr;
}

}  // namespace

std::optional<std::string_view> minimum_driver_for(CudaVersion cuda) {
    for (const DriverRequirement& requirement : driver_requirements)
        if (requirement.cuda == cuda) return requirement.minimum_driver;
    return std::nullopt;
}

std::optional<std::string_view> family_minimum_driver(int cuda_major) {
    switch (cuda_major) {
        case 11: return "450.80.02";
        case 12: return "525.60.13";
        case 13: return "580";
        default: return std::nullopt;
    }
}

std::optional<CudaVersion> minimum_cuda_for_ptx_isa(int isa_major, int isa_minor) {
    struct IsaRelease {
        int isa_major;
        int isa_minor;
        CudaVersion cuda;
    };
    // PTX ISA reference, "Release History"; cuda-python cuda.bindings.utils for 7.0 and later.
    // 12.6 brought no new ISA (8.5, like 12.5).
    constexpr std::array releases{
        IsaRelease{6, 0, {9, 0}},  IsaRelease{6, 1, {9, 1}},  IsaRelease{6, 2, {9, 2}},  IsaRelease{6, 3, {10, 0}},
        IsaRelease{6, 4, {10, 1}}, IsaRelease{6, 5, {10, 2}}, IsaRelease{7, 0, {11, 0}}, IsaRelease{7, 1, {11, 1}},
        IsaRelease{7, 2, {11, 2}}, IsaRelease{7, 3, {11, 3}}, IsaRelease{7, 4, {11, 4}}, IsaRelease{7, 5, {11, 5}},
        IsaRelease{7, 6, {11, 6}}, IsaRelease{7, 7, {11, 7}}, IsaRelease{7, 8, {11, 8}}, IsaRelease{8, 0, {12, 0}},
        IsaRelease{8, 1, {12, 1}}, IsaRelease{8, 2, {12, 2}}, IsaRelease{8, 3, {12, 3}}, IsaRelease{8, 4, {12, 4}},
        IsaRelease{8, 5, {12, 5}}, IsaRelease{8, 6, {12, 7}}, IsaRelease{8, 7, {12, 8}}, IsaRelease{8, 8, {12, 9}},
        IsaRelease{9, 0, {13, 0}}, IsaRelease{9, 1, {13, 1}},
    };
    for (const IsaRelease& release : releases)
        if (release.isa_major == isa_major && release.isa_minor == isa_minor) return release.cuda;
    return std::nullopt;
}

std::string_view architecture_name(int cc_major, int cc_minor) {
    const Architecture* arch = find_architecture(cc_major, cc_minor);
    return arch != nullptr ? arch->name : "unknown";
}

std::optional<int> fp32_lanes_per_sm(int cc_major, int cc_minor) {
    const Architecture* arch = find_architecture(cc_major, cc_minor);
    if (arch == nullptr || arch->fp32_lanes == 0) return std::nullopt;
    return arch->fp32_lanes;
}

std::optional<std::pair<int, int>> minimum_compute_capability(int cuda_major) {
    switch (cuda_major) {
        case 11: return std::pair{3, 5};
        case 12: return std::pair{5, 0};
        case 13: return std::pair{7, 5};
        default: return std::nullopt;
    }
}

std::optional<int> last_cuda_major_supporting(int cc_major, int cc_minor) {
    if (cc_major < 3 || (cc_major == 3 && cc_minor < 5)) return 10;
    if (cc_major == 3) return 11;                    // Kepler dropped in 12.0
    if (cc_major < 7 || (cc_major == 7 && cc_minor < 5)) return 12;  // Maxwell..Volta dropped in 13.0
    return std::nullopt;
}

std::optional<int> nvcc_default_architecture(int cuda_major) {
    if (cuda_major == 9 || cuda_major == 10) return 30;
    if (cuda_major == 11 || cuda_major == 12) return 52;
    if (cuda_major == 13) return 75;
    return std::nullopt;
}

std::optional<CudaVersion> first_cuda_compiling_for(int cc_major, int cc_minor) {
    struct Entry {
        int cc;
        CudaVersion cuda;
    };
    static constexpr std::array<Entry, 19> table{{
        {35, {5, 0}},   {37, {6, 5}},   {50, {6, 5}},   {52, {6, 5}},   {60, {8, 0}},   {61, {8, 0}},  {70, {9, 0}},
        {72, {10, 0}},  {75, {10, 0}},  {80, {11, 0}},  {86, {11, 1}},  {87, {11, 5}},  {89, {11, 8}}, {90, {11, 8}},
        {100, {12, 8}}, {120, {12, 8}}, {103, {12, 9}}, {121, {12, 9}}, {110, {13, 0}},
    }};
    const int cc = cc_major * 10 + cc_minor;
    for (const Entry& entry : table)
        if (entry.cc == cc) return entry.cuda;
    return std::nullopt;
}

std::optional<DatasheetPeaks> datasheet_peaks(std::string_view device_name) {
    struct Entry {
        std::string_view name;
        DatasheetPeaks peaks;
    };
    // NVIDIA datasheets (dense, no sparsity). RTX 4090: FP16/BF16 with FP32 accumulation.
    static constexpr std::array<Entry, 7> table{{
        {"NVIDIA H200", {67, 495, 989, 989}},
        {"NVIDIA H100 80GB HBM3", {67, 495, 989, 989}},
        {"NVIDIA A100-SXM4-80GB", {19.5, 156, 312, 312}},
        {"NVIDIA L40S", {91.6, 183, 362, 362}},
        {"NVIDIA L4", {30.3, 60, 121, 121}},
        {"NVIDIA GeForce RTX 4090", {82.6, 82.6, 165, 165}},
        {"NVIDIA B200", {80, 1100, 2250, 2250}},
    }};
    for (const Entry& entry : table)
        if (entry.name == device_name) return entry.peaks;
    return std::nullopt;
}

bool driver_can_jit(CudaVersion ptx, CudaVersion driver) {
    return std::pair{driver.major, driver.minor} >= std::pair{ptx.major, ptx.minor};
}

}  // namespace cudacheck
