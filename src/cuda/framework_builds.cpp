#include "cuda/framework_builds.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

namespace cudacheck {

namespace {

// The table of published framework builds. Checked against the projects' own files on this date;
// `describe_table_age` prints how old it is so that a user knows when to update cudacheck. PyTorch
// stops at 2.11: pytorch/pytorch's main branch already builds CUDA 12.6/13.0/13.2
// (.ci/manywheel/build_env_setup.py, TORCH_CUDA_ARCH_LIST_TABLE, at commit 00505f29), but the
// release files of any later tag could not be read, so later releases are not claimed here.
constexpr std::string_view table_date = "2026-12-05";

using enum Framework;
using enum Machine;
using enum GpuCodeKind;

// Sources, per group of rows (quoted verbatim in tests/fixtures/framework_builds/, whose test
// derives its expectations from those copies and not from this table):
constexpr std::string_view torch_2_11 =
    // PYTORCH_RELEASES_CODE_CC ("TORCH_CUDA_ARCH_LIST for PyTorch releases") in the 2.11.0 wheel's
    // torch/cuda/__init__.py (git_version 70d99e99), and torch.cuda.get_arch_list() of the installed
    // 2.11.0+cu130 on the project's GPU machine: sm_75 sm_80 sm_86 sm_90 sm_100 sm_120, no PTX
    // (docs/examples/h200/frameworks/). PyPI's default is cu130: the PyPI wheel's METADATA pins
    // cuda-toolkit==13.0.2.
    "https://github.com/pytorch/pytorch/blob/70d99e998b4955e0049d13a98d77ae1b14db1f45/torch/cuda/__init__.py";
constexpr std::string_view torch_2_10 =
    // build_cuda.sh's TORCH_CUDA_ARCH_LIST cases with filter_aarch64_archs (removes 5.0 6.0 7.0 7.5
    // 8.6 on aarch64, adds 11.0 to 13.0); generate_binary_build_matrix.py's CUDA_ARCHES, CUDA_STABLE
    // "12.8", CUDA_AARCH64_ARCHES and FULL_PYTHON_VERSIONS 3.10-3.14 of the same period. cu129 was
    // also in that matrix; whether 2.10.0 published it was not confirmed, so it is left out.
    "https://github.com/pytorch/pytorch/blob/799d09f215740cc4fb78e0bd278dce469e33ddcb/.ci/manywheel/build_cuda.sh";
constexpr std::string_view torch_2_9 =
    // generate_binary_build_matrix.py with CUDA_ARCHES ["12.6", "12.8", "13.0"], CUDA_STABLE "12.8",
    // ROCM_ARCHES ["6.3", "6.4"], FULL_PYTHON_VERSIONS 3.10-3.14; 13.0's list "7.5;8.0;8.6;9.0;10.0;
    // 12.0+PTX" and the 12.x lists as in build_cuda.sh of that period.
    "https://github.com/pytorch/pytorch/blob/main/.github/scripts/generate_binary_build_matrix.py (2.9 period)";
constexpr std::string_view torch_2_8 =
    // build_cuda.sh: 12.6 "5.0;6.0;7.0;7.5;8.0;8.6;9.0", 12.8 "7.0;7.5;8.0;8.6;9.0;10.0;12.0",
    // 12.9 "7.0;7.5;8.0;8.6;9.0;10.0;12.0+PTX" (sm_70 kept, pytorch/pytorch#157517). Pythons 3.9-3.13
    // and PyPI's cu128 were not read from the file at the tag.
    "https://github.com/pytorch/pytorch/blob/00c7a380b8369d08e02dd400aa76dc6c0738b589/.ci/manywheel/build_cuda.sh";
constexpr std::string_view torch_2_7 =
    // The 2.7.1 PyPI wheel (cp312, manylinux_2_28_x86_64; Requires-Python >=3.9.0; pins the
    // CUDA 12.6 wheels, so PyPI's default is cu126): tests/fixtures/frameworks/wheels/torch-2.7.1.
    // The architecture lists (12.8 without 7.0, 11.8 with 3.7) were not read from build_cuda.sh at
    // v2.7.1.
    "https://github.com/pytorch/pytorch/blob/v2.7.1/.ci/manywheel/build_cuda.sh";
constexpr std::string_view torch_2_6 =
    // Not read from the files at v2.6.0: CUDA_ARCHES 11.8/12.4/12.6 with PyPI's cu124, manylinux_2_28,
    // Pythons 3.9-3.13, as PyTorch's 2.6 release notes state them.
    "https://github.com/pytorch/pytorch/blob/v2.6.0/.ci/manywheel/build_cuda.sh";
constexpr std::string_view jax_0_11 =
    // .bazelrc: cuda_v13 HERMETIC_CUDA_VERSION 13.0.0, HERMETIC_CUDA_COMPUTE_CAPABILITIES
    // "sm_75,sm_80,sm_90,sm_100,sm_110,compute_120"; cuda_v12 12.9.1 and "sm_50,sm_60,sm_70,sm_80,
    // sm_90,sm_100,sm_101,compute_120"; setup.py python_requires >=3.12 (classifiers to 3.14);
    // docs/installation.md: driver >= 525 for CUDA 12, >= 580 for CUDA 13; ci/utilities/
    // run_auditwheel.sh: manylinux_2_27 on x86_64.
    "https://github.com/jax-ml/jax/blob/jax-v0.11.0/.bazelrc";
constexpr std::string_view jax_0_10 =
    // .bazelrc: cuda_v13 "sm_75,sm_80,sm_90,sm_100,compute_120", cuda_v12 (12.9.1) "sm_50,sm_60,
    // sm_70,sm_80,sm_90,sm_100,compute_120"; setup.py python_requires >=3.11 (classifiers to 3.14).
    "https://github.com/jax-ml/jax/blob/jax-v0.10.0/.bazelrc";
constexpr std::string_view jax_0_6 =
    // .bazelrc: cuda 12.8.0, "sm_50,sm_60,sm_70,sm_80,sm_90,sm_100,compute_120"; python_requires
    // >=3.10. The last release for Python 3.10 (0.7.0 requires 3.11); no CUDA 13 plugin yet.
    "https://github.com/jax-ml/jax/blob/jax-v0.6.0/.bazelrc";
constexpr std::string_view cupy_14 =
    // docs/source/install.rst: Python 3.10-3.14, `pip install cupy-cuda12x` / `cupy-cuda13x`, the
    // [ctk] extra that installs NVIDIA's CUDA wheels; .github/workflows/build-wheel.yml:
    // manylinux_2_28. Kernels are compiled on the machine by NVRTC.
    "https://github.com/cupy/cupy/blob/v14.2.0/docs/source/install.rst";
constexpr std::string_view cupy_13 =
    // docs/source/install.rst: Python 3.9-3.13, cupy-cuda11x (CUDA 11.2-11.8), cupy-cuda12x,
    // cupy-cuda13x. manylinux2014 (glibc 2.17) from the cupy-cuda12x 13.4.1 wheel
    // (tests/fixtures/frameworks/wheels/cupy-cuda12x-13.4.1), not from 13.6.0's own files.
    "https://github.com/cupy/cupy/blob/v13.6.0/docs/source/install.rst";
constexpr std::string_view tensorflow_2_20 =
    // .bazelrc: HERMETIC_CUDA_VERSION 12.5.1, HERMETIC_CUDNN_VERSION 9.3.0, compute capabilities
    // "sm_60,sm_70,sm_80,sm_89,compute_90" ("the same as the official TensorFlow builds"); read at a
    // stored commit, not at the v2.20.0/v2.19.0 tags. Pythons (2.20: 3.9-3.13, 2.19: 3.9-3.12) and
    // manylinux_2_17 (the 2.17.0 wheel's tag) were not confirmed from those releases' files.
    "https://github.com/tensorflow/tensorflow/blob/0071ad1d1f9e35ead7169c50dbe754ce5c27cae1/.bazelrc";

constexpr std::string_view torch_command = "pip install torch=={} --index-url https://download.pytorch.org/whl/{}";

const std::vector<FrameworkBuildRow>& table() {
    static const std::vector<FrameworkBuildRow> rows = [] {
        std::vector<FrameworkBuildRow> all;
        constexpr MajorMinor torch_glibc{2, 28};
        const auto torch = [&](std::string_view version, std::string_view variant, Machine machine, CudaVersion cuda,
                               std::string_view sass, std::string_view ptx, MajorMinor python_min,
                               MajorMinor python_max, bool pypi_default, std::string_view source) {
            all.push_back({pytorch, version, variant, machine, cuda, compiled, sass, ptx, python_min, python_max,
                           torch_glibc, pypi_default, std::string_view{}, source});
        };
        // PyTorch: wheels on manylinux_2_28 since 2.6 (generate_binary_build_matrix.py's
        // manylinux2_28-builder images), one index per CUDA variant at download.pytorch.org/whl/cuXYZ.
        torch("2.11.0", "cu130", x86_64, {13, 0}, "75,80,86,90,100,120", "", {3, 10}, {3, 14}, true, torch_2_11);
        torch("2.11.0", "cu128", x86_64, {12, 8}, "70,75,80,86,90,100,120", "", {3, 10}, {3, 14}, false, torch_2_11);
        torch("2.11.0", "cu126", x86_64, {12, 6}, "50,60,70,75,80,86,90", "", {3, 10}, {3, 14}, false, torch_2_11);
        torch("2.10.0", "cu130", x86_64, {13, 0}, "75,80,86,90,100,120", "120", {3, 10}, {3, 14}, false, torch_2_10);
        torch("2.10.0", "cu128", x86_64, {12, 8}, "70,75,80,86,90,100,120", "", {3, 10}, {3, 14}, true, torch_2_10);
        torch("2.10.0", "cu126", x86_64, {12, 6}, "50,60,70,75,80,86,90", "", {3, 10}, {3, 14}, false, torch_2_10);
        torch("2.10.0", "cu130", aarch64, {13, 0}, "80,90,100,110,120", "120", {3, 10}, {3, 14}, false, torch_2_10);
        torch("2.10.0", "cu128", aarch64, {12, 8}, "80,90,100,120", "", {3, 10}, {3, 14}, false, torch_2_10);
        torch("2.10.0", "cu126", aarch64, {12, 6}, "80,90", "", {3, 10}, {3, 14}, false, torch_2_10);
        torch("2.9.1", "cu130", x86_64, {13, 0}, "75,80,86,90,100,120", "120", {3, 10}, {3, 14}, false, torch_2_9);
        torch("2.9.1", "cu128", x86_64, {12, 8}, "70,75,80,86,90,100,120", "", {3, 10}, {3, 14}, true, torch_2_9);
        torch("2.9.1", "cu126", x86_64, {12, 6}, "50,60,70,75,80,86,90", "", {3, 10}, {3, 14}, false, torch_2_9);
        torch("2.8.0", "cu129", x86_64, {12, 9}, "70,75,80,86,90,100,120", "120", {3, 9}, {3, 13}, false, torch_2_8);
        torch("2.8.0", "cu128", x86_64, {12, 8}, "70,75,80,86,90,100,120", "", {3, 9}, {3, 13}, true, torch_2_8);
        torch("2.8.0", "cu126", x86_64, {12, 6}, "50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, false, torch_2_8);
        torch("2.7.1", "cu128", x86_64, {12, 8}, "75,80,86,90,100,120", "", {3, 9}, {3, 13}, false, torch_2_7);
        torch("2.7.1", "cu126", x86_64, {12, 6}, "50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, true, torch_2_7);
        torch("2.7.1", "cu118", x86_64, {11, 8}, "37,50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, false, torch_2_7);
        torch("2.6.0", "cu126", x86_64, {12, 6}, "50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, false, torch_2_6);
        torch("2.6.0", "cu124", x86_64, {12, 4}, "50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, true, torch_2_6);
        torch("2.6.0", "cu118", x86_64, {11, 8}, "37,50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, false, torch_2_6);

        // JAX: `pip install "jax[cudaNN]"` installs jax, jaxlib and the jax-cudaNN-plugin/-pjrt
        // wheels with NVIDIA's CUDA wheels. Both machines get the same plugin builds.
        // manylinux_2_27 on x86_64 (run_auditwheel.sh); its aarch64 plugin is manylinux_2_26, and 2.27
        // is kept for both.
        constexpr MajorMinor jax_glibc{2, 27};
        for (const Machine machine : {x86_64, aarch64}) {
            const auto jax = [&](std::string_view version, std::string_view variant, CudaVersion cuda,
                                 std::string_view sass, std::string_view ptx, MajorMinor python_min,
                                 MajorMinor python_max, std::string_view install, std::string_view source) {
                all.push_back({Framework::jax, version, variant, machine, cuda, compiled, sass, ptx, python_min,
                               python_max, jax_glibc, false, install, source});
            };
            jax("0.11.0", "cuda13", {13, 0}, "75,80,90,100,110", "120", {3, 12}, {3, 14},
                R"(pip install "jax[cuda13]")", jax_0_11);
            jax("0.11.0", "cuda12", {12, 9}, "50,60,70,80,90,100,101", "120", {3, 12}, {3, 14},
                R"(pip install "jax[cuda12]")", jax_0_11);
            jax("0.10.0", "cuda13", {13, 0}, "75,80,90,100", "120", {3, 11}, {3, 14},
                R"(pip install "jax[cuda13]==0.10.*")", jax_0_10);
            jax("0.10.0", "cuda12", {12, 9}, "50,60,70,80,90,100", "120", {3, 11}, {3, 14},
                R"(pip install "jax[cuda12]==0.10.*")", jax_0_10);
            jax("0.6.0", "cuda12", {12, 8}, "50,60,70,80,90,100", "120", {3, 10}, {3, 13},
                R"(pip install "jax[cuda12]==0.6.*")", jax_0_6);
        }

        // CuPy: one distribution per CUDA major; kernels compiled on the machine, so any GPU the CUDA
        // major supports runs (cuda_facts' minimum_compute_capability).
        for (const Machine machine : {x86_64, aarch64}) {
            const auto cupy = [&](std::string_view version, std::string_view variant, CudaVersion cuda,
                                  MajorMinor python_min, MajorMinor python_max, MajorMinor glibc,
                                  std::string_view install, std::string_view source) {
                all.push_back({Framework::cupy, version, variant, machine, cuda, runtime, "", "", python_min,
                               python_max, glibc, false, install, source});
            };
            cupy("14.2.0", "cupy-cuda13x", {13, 0}, {3, 10}, {3, 14}, {2, 28}, R"(pip install "cupy-cuda13x[ctk]")",
                 cupy_14);
            cupy("14.2.0", "cupy-cuda12x", {12, 0}, {3, 10}, {3, 14}, {2, 28}, R"(pip install "cupy-cuda12x[ctk]")",
                 cupy_14);
            cupy("13.6.0", "cupy-cuda13x", {13, 0}, {3, 9}, {3, 13}, {2, 17}, "pip install cupy-cuda13x==13.6.0",
                 cupy_13);
            cupy("13.6.0", "cupy-cuda12x", {12, 0}, {3, 9}, {3, 13}, {2, 17}, "pip install cupy-cuda12x==13.6.0",
                 cupy_13);
            cupy("13.6.0", "cupy-cuda11x", {11, 2}, {3, 9}, {3, 13}, {2, 17}, "pip install cupy-cuda11x==13.6.0",
                 cupy_13);
        }

        // TensorFlow: `tensorflow[and-cuda]` pins NVIDIA's CUDA 12 wheels; Linux x86_64 only.
        constexpr CudaVersion tf_cuda{12, 5};
        constexpr MajorMinor tf_python_min{3, 9};
        constexpr MajorMinor tf_glibc{2, 17};
        const auto tf = [&](std::string_view version, MajorMinor python_max, std::string_view install) {
            all.push_back({tensorflow, version, "and-cuda", x86_64, tf_cuda, compiled, "60,70,80,89", "90",
                           tf_python_min, python_max, tf_glibc, false, install, tensorflow_2_20});
        };
        tf("2.20.0", {3, 13}, R"(pip install "tensorflow[and-cuda]")");
        tf("2.19.0", {3, 12}, R"(pip install "tensorflow[and-cuda]==2.19.*")");
        return all;
    }();
    return rows;
}

std::vector<GpuArch> parse_arch_list(std::string_view list) {
    std::vector<GpuArch> archs;
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        if (const std::optional<GpuArch> arch = parse_gpu_arch(item)) archs.push_back(*arch);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    return archs;
}

std::string cc_text(const GpuArch& gpu) { return gpu.sass_name(); }

// The release series "2.11" of "2.11.0+cu130", "0.11.2", "14.2.0".
std::optional<MajorMinor> series_of(std::string_view version) { return MajorMinor::parse(version); }

// The oldest driver a build needs on this machine, as a CUDA version and the driver that brings it.
struct DriverNeed {
    CudaVersion cuda;
    std::string driver;
    std::string because;
};

DriverNeed family_need(const FrameworkBuildRow& row) {
    return {{row.cuda.major, 0},
            std::string(family_minimum_driver(row.cuda.major).value_or("?")),
            fmt::format("CUDA {} builds need a CUDA {}.x driver", row.cuda.to_string(), row.cuda.major)};
}

DriverNeed exact_need(CudaVersion cuda, std::string because) {
    return {cuda, std::string(minimum_driver_for(cuda).value_or("?")), std::move(because)};
}

std::string driver_text(const DriverNeed& need) {
    return fmt::format("driver >= {} (CUDA {})", need.driver, need.cuda.to_string());
}

}  // namespace

std::string_view to_string(Framework framework) {
    switch (framework) {
        case pytorch: return "PyTorch";
        case Framework::jax: return "JAX";
        case Framework::cupy: return "CuPy";
        case tensorflow: return "TensorFlow";
    }
    return "unknown";
}

std::string MajorMinor::to_string() const { return fmt::format("{}.{}", major, minor); }

std::optional<MajorMinor> MajorMinor::parse(std::string_view text) {
    MajorMinor version;
    if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
    const char* const end = text.data() + text.size();
    const auto [dot, major_error] = std::from_chars(text.data(), end, version.major);
    if (major_error != std::errc() || dot == end || *dot != '.') return std::nullopt;
    if (dot + 1 == end || dot[1] < '0' || dot[1] > '9') return std::nullopt;
    const auto [stop, minor_error] = std::from_chars(dot + 1, end, version.minor);
    if (minor_error != std::errc()) return std::nullopt;
    return version;
}

std::string_view to_string(Machine machine) { return machine == x86_64 ? "x86_64" : "aarch64"; }

std::optional<Machine> parse_machine(std::string_view text) {
    if (text == "x86_64" || text == "amd64") return x86_64;
    if (text == "aarch64" || text == "arm64") return aarch64;
    return std::nullopt;
}

EmbeddedTargets FrameworkBuildRow::targets() const { return {parse_arch_list(sass), parse_arch_list(ptx)}; }

std::string FrameworkBuildRow::name() const {
    if (framework == pytorch) return fmt::format("PyTorch {}+{}", version, variant);
    return fmt::format("{} {} ({})", to_string(framework), version, variant);
}

const std::vector<FrameworkBuildRow>& framework_build_table() { return table(); }

std::string_view framework_table_date() { return table_date; }

std::string install_command(const FrameworkBuildRow& row) {
    if (row.framework == pytorch) return fmt::format(fmt::runtime(torch_command), row.version, row.variant);
    return std::string(row.install);
}

namespace {

// "PyTorch 2.11.0, JAX 0.11.0, CuPy 14.2.0, TensorFlow 2.20.0": what the table knows, so that a user
// who sees a newer release on PyPI knows the advice does not cover it.
std::string newest_known() {
    std::vector<std::string> names;
    for (const Framework framework : {pytorch, jax, cupy, tensorflow})
        for (const FrameworkBuildRow& row : framework_build_table())
            if (row.framework == framework) {
                names.push_back(fmt::format("{} {}", to_string(framework), row.version));
                break;
            }
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string describe_table_age(std::chrono::sys_days today) {
    int year = 0;
    unsigned month = 0;
    unsigned day = 0;
    std::from_chars(table_date.data(), table_date.data() + 4, year);
    std::from_chars(table_date.data() + 5, table_date.data() + 7, month);
    std::from_chars(table_date.data() + 8, table_date.data() + 10, day);
    const std::chrono::sys_days checked{std::chrono::year{year} / std::chrono::month{month} / std::chrono::day{day}};
    const long days = (today - checked).count();
    if (days < 0)
        return fmt::format("table of framework builds as of {} (newest known: {})", table_date, newest_known());
    std::string text = fmt::format("table of framework builds as of {} ({} day{} old; newest known: {})", table_date,
                                   days, days == 1 ? "" : "s", newest_known());
    // Frameworks publish a release every two or three months: half a year misses two or three.
    if (days > 180) text += "; releases since then are unknown to it: update cudacheck";
    return text;
}

BuildCheck check_build(const FrameworkBuildRow& row, const MachineFacts& machine, MajorMinor python) {
    BuildCheck check;
    if (row.machine != machine.machine) {
        check.reason =
            fmt::format("is built for {}, this machine is {}", to_string(row.machine), to_string(machine.machine));
        return check;
    }
    if (python < row.python_min || python > row.python_max) {
        check.reason = fmt::format("does not support Python {} ({}-{})", python.to_string(), row.python_min.to_string(),
                                   row.python_max.to_string());
        check.python_unsupported = true;
        return check;
    }
    if (machine.glibc && *machine.glibc < row.glibc) {
        check.reason = fmt::format("needs glibc >= {} (manylinux_{}_{}), this has {}", row.glibc.to_string(),
                                   row.glibc.major, row.glibc.minor, machine.glibc->to_string());
        return check;
    }

    // The driver the build needs here: its CUDA major's floor, raised by PTX it must JIT and by
    // GPUs the driver has to know.
    DriverNeed need = family_need(row);
    const auto raise = [&](DriverNeed candidate) {
        if (candidate.cuda > need.cuda) need = std::move(candidate);
    };
    std::vector<std::string> gpu_reasons;
    std::set<int> seen;
    const EmbeddedTargets targets = row.targets();
    for (const GpuArch& gpu : machine.gpus) {
        GpuRun run{gpu, ImageKind::none, {}};
        if (row.code == runtime) {
            const auto floor = minimum_compute_capability(row.cuda.major);
            if (!floor || std::pair{gpu.major(), gpu.minor()} >= *floor) run = {gpu, ImageKind::native, gpu};
            else if (seen.insert(gpu.number).second)
                gpu_reasons.push_back(
                    fmt::format("is built on CUDA {}, which does not support {} (it needs sm_{}{} or newer)",
                                row.cuda.major, cc_text(gpu), floor->first, floor->second));
        } else {
            const ImageVerdict verdict = kernel_image_for(targets, gpu.major(), gpu.minor());
            run = {gpu, verdict.kind, verdict.target};
            if (verdict.kind == ImageKind::ptx_jit)
                raise(exact_need(row.cuda, fmt::format("{} runs only through the build's {} PTX", cc_text(gpu),
                                                       verdict.target.virtual_name())));
            if (verdict.kind == ImageKind::none && seen.insert(gpu.number).second)
                gpu_reasons.push_back(fmt::format("has no code for {} (SASS {}{})", cc_text(gpu), row.sass,
                                                  row.ptx.empty() ? "; no PTX" : fmt::format("; PTX {}", row.ptx)));
        }
        if (const std::optional<CudaVersion> first = first_cuda_compiling_for(gpu.major(), gpu.minor()))
            raise(exact_need(*first, fmt::format("{} is supported from CUDA {}", cc_text(gpu), first->to_string())));
        check.runs_on.push_back(run);
    }
    if (!gpu_reasons.empty()) {
        check.reason = gpu_reasons.front();
        check.gpu_unsupported = true;
        return check;
    }
    if (!machine.driver_cuda) {
        check.reason = fmt::format("needs {}; no driver answered", driver_text(need));
        check.driver_is_the_obstacle = true;
        check.driver_needed = need.cuda;
        check.driver_to_install = fmt::format("{} (CUDA {})", need.driver, need.cuda.to_string());
        return check;
    }
    if (*machine.driver_cuda < need.cuda) {
        check.reason = fmt::format("needs {}: {}; this driver supports CUDA {}", driver_text(need), need.because,
                                   machine.driver_cuda->to_string());
        check.driver_is_the_obstacle = true;
        check.driver_needed = need.cuda;
        check.driver_to_install = fmt::format("{} (CUDA {})", need.driver, need.cuda.to_string());
        return check;
    }

    check.runs = true;
    std::vector<std::string> parts;
    const CudaVersion driver = *machine.driver_cuda;
    if (driver >= row.cuda)
        parts.push_back(fmt::format("driver CUDA {} >= {}", driver.to_string(), row.cuda.to_string()));
    else
        parts.push_back(fmt::format("driver CUDA {} runs CUDA {} builds (minor-version compatibility, driver >= {})",
                                    driver.to_string(), row.cuda.to_string(),
                                    family_minimum_driver(row.cuda.major).value_or("?")));
    std::set<int> described;
    for (const GpuRun& run : check.runs_on) {
        if (!described.insert(run.gpu.number).second) continue;
        if (row.code == runtime) parts.push_back(fmt::format("{} compiled on the machine by NVRTC", cc_text(run.gpu)));
        else if (run.kind == ImageKind::ptx_jit)
            parts.push_back(
                fmt::format("{} through the build's {} PTX (JIT)", cc_text(run.gpu), run.target.virtual_name()));
        else if (run.target.number == run.gpu.number)
            parts.push_back(fmt::format("{} in the build's list", cc_text(run.gpu)));
        else parts.push_back(fmt::format("{} runs the build's {}", cc_text(run.gpu), run.target.sass_name()));
    }
    if (machine.gpus.empty()) parts.emplace_back("no GPU given (pass --arch)");
    parts.push_back(fmt::format("Python {} supported", python.to_string()));
    if (machine.glibc)
        parts.push_back(fmt::format("glibc {} >= {}", machine.glibc->to_string(), row.glibc.to_string()));
    for (const std::string& part : parts) check.why += (check.why.empty() ? "" : "; ") + part;
    return check;
}

BuildAdvice advise_build(const MachineFacts& machine, Framework framework, MajorMinor python) {
    BuildAdvice advice;
    advice.framework = framework;
    advice.python = python;
    std::vector<const FrameworkBuildRow*> rows;
    for (const FrameworkBuildRow& row : table())
        if (row.framework == framework) rows.push_back(&row);

    // Rows passed over, grouped by release when the reason is the same: "2.11.0 (cu130, cu128):
    // Python 3.9 not supported (3.10-3.14)".
    std::string group_version;
    std::string group_reason;
    std::vector<std::string_view> group_variants;
    const auto flush = [&] {
        if (group_variants.empty()) return;
        std::string variants;
        for (const std::string_view variant : group_variants)
            variants += fmt::format("{}{}", variants.empty() ? "" : ", ", variant);
        advice.passed_over.push_back(
            fmt::format("{} {} ({}): {}", to_string(framework), group_version, variants, group_reason));
        group_variants.clear();
    };

    const FrameworkBuildRow* newest_for_driver = nullptr;
    BuildCheck newest_for_driver_check;
    std::string first_reason;
    const FrameworkBuildRow* first_row = nullptr;
    std::string first_python_reason;
    const FrameworkBuildRow* first_python_row = nullptr;
    bool first_is_gpu = false;
    for (const FrameworkBuildRow* row : rows) {
        if (row->machine != machine.machine) continue;
        BuildCheck check = check_build(*row, machine, python);
        if (check.runs) {
            flush();
            advice.build = row;
            advice.runs = std::move(check.runs_on);
            advice.command = install_command(*row);
            advice.why = std::move(check.why);
            return advice;
        }
        // What stops the newest build, preferring a reason other than Python: with an old glibc and
        // an old Python, the glibc is what no other Python fixes.
        if (check.python_unsupported) {
            if (first_python_reason.empty()) {
                first_python_reason = check.reason;
                first_python_row = row;
            }
        } else if (first_reason.empty()) {
            first_reason = check.reason;
            first_row = row;
            first_is_gpu = check.gpu_unsupported;
        }
        if (check.driver_is_the_obstacle && newest_for_driver == nullptr) {
            newest_for_driver = row;
            newest_for_driver_check = check;
        }
        if (row->version != group_version || check.reason != group_reason) {
            flush();
            group_version = std::string(row->version);
            group_reason = check.reason;
        }
        group_variants.push_back(row->variant);
    }
    flush();

    const std::string name(to_string(framework));
    if (first_reason.empty()) {
        first_reason = first_python_reason;
        first_row = first_python_row;
    }
    if (first_reason.empty()) {
        advice.problem = fmt::format("cudacheck knows no {} CUDA build for {}", name, to_string(machine.machine));
        return advice;
    }
    if (newest_for_driver != nullptr) {
        advice.with_newer_driver = newest_for_driver;
        advice.driver_to_install = newest_for_driver_check.driver_to_install;
        advice.problem = fmt::format("no {} build runs with this driver; the newest that would, {}, {}", name,
                                     newest_for_driver->name(), newest_for_driver_check.reason);
        return advice;
    }
    // No driver helps: say what stops the newest build, and when that is a GPU too old for it, the
    // newest build (for any Python, driver or glibc) that still has code for that GPU.
    advice.problem =
        fmt::format("no {} build in cudacheck's table runs here: {} {}", name, first_row->name(), first_reason);
    if (!first_is_gpu) return advice;
    for (const GpuArch& gpu : machine.gpus) {
        MachineFacts only_gpu = machine;
        only_gpu.gpus = {gpu};
        only_gpu.driver_cuda = CudaVersion{99, 0};
        only_gpu.glibc.reset();
        bool any = false;
        const FrameworkBuildRow* last = nullptr;
        for (const FrameworkBuildRow* row : rows) {
            if (row->machine != machine.machine) continue;
            if (check_build(*row, only_gpu, row->python_min).runs) {
                last = row;
                break;
            }
            any = true;
        }
        if (any && last == nullptr)
            advice.problem += fmt::format("; no {} build in the table has code for {}", name, cc_text(gpu));
        else if (last != nullptr)
            advice.problem += fmt::format("; the newest build with code for {} is {}, which {}", cc_text(gpu),
                                          last->name(), check_build(*last, machine, python).reason);
    }
    return advice;
}

std::vector<BuildAdvice> advise_builds(const MachineFacts& machine) {
    std::vector<BuildAdvice> advice;
    for (const MajorMinor python : machine.pythons)
        for (const Framework framework : {pytorch, Framework::jax, Framework::cupy, tensorflow})
            advice.push_back(advise_build(machine, framework, python));
    return advice;
}

std::string_view to_string(InstalledVerdict verdict) {
    switch (verdict) {
        case InstalledVerdict::best_fit: return "best fit";
        case InstalledVerdict::runs_older: return "runs, but a newer build fits";
        case InstalledVerdict::does_not_run: return "does not run here";
        case InstalledVerdict::unknown: return "not in cudacheck's table";
    }
    return "unknown";
}

namespace {

// The CUDA variant of an installed build, in the table's words: torch "2.11.0+cu130" -> "cu130"
// (no local part: the release's PyPI build), the JAX plugin's distribution "jax-cuda13-plugin" ->
// "cuda13", CuPy's distribution name itself, TensorFlow's "and-cuda".
std::optional<std::string> installed_variant(const InstalledBuild& installed, const MajorMinor& series,
                                             Machine machine) {
    switch (installed.framework) {
        case pytorch: {
            const std::size_t plus = installed.version.find('+');
            if (plus != std::string::npos) return installed.version.substr(plus + 1);
            for (const FrameworkBuildRow& row : table())
                if (row.framework == pytorch && row.machine == machine && row.pypi_default &&
                    series_of(row.version) == series)
                    return std::string(row.variant);
            return std::nullopt;
        }
        case Framework::jax: {
            for (const std::string_view variant : {"cuda12", "cuda13"})
                if (installed.distribution.find(variant) != std::string::npos) return std::string(variant);
            return std::nullopt;
        }
        case Framework::cupy: return installed.distribution;
        case tensorflow: return std::string("and-cuda");
    }
    return std::nullopt;
}

}  // namespace

InstalledJudgement judge_installed(const MachineFacts& machine, const InstalledBuild& installed) {
    InstalledJudgement judgement;
    judgement.best = advise_build(machine, installed.framework, installed.python);
    const std::string name = fmt::format("{} {}", to_string(installed.framework), installed.version);
    const std::optional<MajorMinor> series = series_of(installed.version);
    const std::optional<std::string> variant =
        series ? installed_variant(installed, *series, machine.machine) : std::nullopt;
    if (series && variant)
        for (const FrameworkBuildRow& row : table())
            if (row.framework == installed.framework && row.machine == machine.machine && row.variant == *variant &&
                series_of(row.version) == series) {
                judgement.installed = &row;
                break;
            }
    const std::string best_text =
        judgement.best.fits() ? fmt::format("{}: {}", judgement.best.build->name(), judgement.best.command) : "";

    if (judgement.installed == nullptr) {
        judgement.verdict = InstalledVerdict::unknown;
        judgement.message = fmt::format("{} ({}) is not a CUDA build in cudacheck's table (as of {})", name,
                                        installed.distribution, table_date);
        if (judgement.best.fits()) judgement.fix = fmt::format("the build that fits here is {}", best_text);
        return judgement;
    }
    const BuildCheck check = check_build(*judgement.installed, machine, installed.python);
    if (!check.runs) {
        judgement.verdict = InstalledVerdict::does_not_run;
        judgement.message = fmt::format("{} does not run here: {}", name, check.reason);
        if (judgement.best.fits()) judgement.fix = fmt::format("install {}", best_text);
        else if (!judgement.best.driver_to_install.empty())
            judgement.fix = fmt::format("install driver >= {}", judgement.best.driver_to_install);
        if (check.driver_is_the_obstacle && !check.driver_to_install.empty())
            judgement.fix += fmt::format("{}or install driver >= {} for the installed build",
                                         judgement.fix.empty() ? "" : "; ", check.driver_to_install);
        return judgement;
    }
    const FrameworkBuildRow* best = judgement.best.build;
    if (best != nullptr && series_of(best->version) == series && best->variant == judgement.installed->variant) {
        judgement.verdict = InstalledVerdict::best_fit;
        judgement.message = fmt::format("{} is the best fit here: {}", name, check.why);
        return judgement;
    }
    judgement.verdict = InstalledVerdict::runs_older;
    judgement.message = fmt::format("{} runs here ({}), but a newer build does too", name, check.why);
    if (judgement.best.fits()) judgement.fix = fmt::format("to upgrade: {}", best_text);
    return judgement;
}

}  // namespace cudacheck
