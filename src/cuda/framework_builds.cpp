#include "cuda/framework_builds.hpp"

#include "util/python_packaging.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <utility>

namespace cudacheck {

namespace {

// The table of published framework builds. Checked against the projects' own files on this date;
// `describe_table_age` prints how old it is so that a user knows when to update cudacheck. Where a
// project's files at a release tag could not be read (pytorch/pytorch and tensorflow/tensorflow are
// too large to fetch here, jax-ml/jax's copy stops before 0.12, download.pytorch.org is not
// reachable), the row says what it was read from instead: the release's own wheels on PyPI (their
// tags, METADATA and the files inside them, such as torch/cuda/__init__.py, torch/version.py and
// TensorFlow's build_info.py) and `cudacheck inspect` of the wheels' GPU code. What neither gave is
// said in the row's comment, not claimed.
constexpr std::string_view table_date = "2026-12-05";

using enum Framework;
using enum Machine;
using enum GpuCodeKind;

// Sources, per group of rows (quoted verbatim in tests/fixtures/framework_builds/, whose test
// derives its expectations from those copies and not from this table):
constexpr std::string_view torch_2_15 =
    // The 2.15.0 wheels on PyPI (uploaded 2026-10-28; cp311-cp315, manylinux_2_28 on both machines;
    // Requires-Python >=3.11): torch/version.py says '2.15.0+cu132' in the x86_64 and the aarch64
    // wheel (git_version d0f2af8b), so cu132 is PyPI's variant (METADATA pins cuda-toolkit==13.2.2).
    // The variants and their lists are PYTORCH_RELEASES_CODE_CC in the wheel's torch/cuda/__init__.py
    // ("TORCH_CUDA_ARCH_LIST for PyTorch releases, keyed by host arch", kept in sync with the build
    // matrix): 12.6, 13.0, 13.2, 13.4. `cudacheck inspect` of the PyPI wheels reads exactly those
    // lists in every fatbinary of libtorch_cuda.so (x86_64 and aarch64; beside them sm_89 in one
    // fatbinary of 476 and arch-specific sm_90a/100a/103f/120a/121a kernels) and no PTX. That table
    // cannot say "+PTX", and the other variants' wheels (download.pytorch.org) could not be read, so
    // they are taken to carry no PTX either, and the same Pythons as PyPI's. Nor could it be read
    // whether download.pytorch.org has every variant the file names (cu134's CUDA 13.4.1 reached PyPI
    // as cuda-toolkit on 2026-09-09).
    "https://github.com/pytorch/pytorch/blob/d0f2af8b66b20da4baa50644c0cd3f887a2eae2e/torch/cuda/__init__.py";
constexpr std::string_view torch_2_14 =
    // The 2.14.1 wheels on PyPI (2026-09-30; cp310-cp314, manylinux_2_28; git_version 5c488690):
    // '2.14.1+cu130' on both machines (cuda-toolkit==13.0.3). PYTORCH_RELEASES_CODE_CC as 2.15's:
    // 12.6, 13.0, 13.2, 13.4 (2.14.0's file says the same). The PyPI wheel's libtorch_cuda.so: that
    // SASS list, no PTX; the other variants as for 2.15.
    "https://github.com/pytorch/pytorch/blob/5c4886908584029761b579af026dcfb627c84070/torch/cuda/__init__.py";
constexpr std::string_view torch_2_13 =
    // The 2.13.0 wheels on PyPI (2026-07-08; cp310-cp314, manylinux_2_28; git_version cf30153c):
    // '2.13.0+cu130' on both machines (cuda-toolkit==13.0.3). PYTORCH_RELEASES_CODE_CC: 12.6, 12.9
    // (x86_64 7.5-12.0 without 7.0; aarch64 8.0 9.0 10.0 12.0), 13.0, 13.2. The PyPI wheel: that SASS
    // list, no PTX. 2.12 has no rows: its file gives only the union of both machines' lists, and its
    // variants (12.6, 13.0, 13.2), Pythons and glibc are all 2.13's, so the advice never names it.
    "https://github.com/pytorch/pytorch/blob/cf30153c4c131c8164ee7798e5022d810682e2cb/torch/cuda/__init__.py";
constexpr std::string_view torch_2_11 =
    // PYTORCH_RELEASES_CODE_CC ("TORCH_CUDA_ARCH_LIST for PyTorch releases") in the 2.11.0 wheel's
    // torch/cuda/__init__.py (git_version 70d99e99), and torch.cuda.get_arch_list() of the installed
    // 2.11.0+cu130 on the project's GPU machine: sm_75 sm_80 sm_86 sm_90 sm_100 sm_120, no PTX
    // (docs/examples/h200/frameworks/). PyPI's default is cu130: the PyPI wheel's METADATA pins
    // cuda-toolkit==13.0.2, and `cudacheck inspect` of that wheel reads the same list in
    // libtorch_cuda.so. The cu128/cu126 lists keep 7.5, which that file leaves out (7.0's SASS serves
    // 7.5 by PyTorch's own rule); their wheels could not be read.
    "https://github.com/pytorch/pytorch/blob/70d99e998b4955e0049d13a98d77ae1b14db1f45/torch/cuda/__init__.py";
constexpr std::string_view torch_2_10 =
    // build_cuda.sh's TORCH_CUDA_ARCH_LIST cases with filter_aarch64_archs (removes 5.0 6.0 7.0 7.5
    // 8.6 on aarch64, adds 11.0 to 13.0); generate_binary_build_matrix.py's CUDA_ARCHES, CUDA_STABLE
    // "12.8", CUDA_AARCH64_ARCHES and FULL_PYTHON_VERSIONS 3.10-3.14 of the same period. cu129 was
    // also in that matrix; whether 2.10.0 published it was not confirmed, so it is left out. The
    // PyPI wheel (cu128): `cudacheck inspect` reads 7.0-12.0 as the cu128 row says, no PTX.
    "https://github.com/pytorch/pytorch/blob/799d09f215740cc4fb78e0bd278dce469e33ddcb/.ci/manywheel/build_cuda.sh";
constexpr std::string_view torch_2_9 =
    // generate_binary_build_matrix.py with CUDA_ARCHES ["12.6", "12.8", "13.0"], CUDA_STABLE "12.8",
    // ROCM_ARCHES ["6.3", "6.4"], FULL_PYTHON_VERSIONS 3.10-3.14; 13.0's list "7.5;8.0;8.6;9.0;10.0;
    // 12.0+PTX" and the 12.x lists as in build_cuda.sh of that period. The PyPI wheel (cu128):
    // `cudacheck inspect` reads the cu128 row's list, no PTX; the wheels are cp310-cp314.
    "https://github.com/pytorch/pytorch/blob/main/.github/scripts/generate_binary_build_matrix.py (2.9 period)";
constexpr std::string_view torch_2_8 =
    // build_cuda.sh: 12.6 "5.0;6.0;7.0;7.5;8.0;8.6;9.0", 12.8 "7.0;7.5;8.0;8.6;9.0;10.0;12.0",
    // 12.9 "7.0;7.5;8.0;8.6;9.0;10.0;12.0+PTX" (sm_70 kept, pytorch/pytorch#157517). Not read at the
    // tag; the PyPI wheels confirm Pythons 3.9-3.13 (cp39-cp313, Requires-Python >=3.9.0) and PyPI's
    // cu128 (`cudacheck inspect` reads the cu128 list, no PTX).
    "https://github.com/pytorch/pytorch/blob/00c7a380b8369d08e02dd400aa76dc6c0738b589/.ci/manywheel/build_cuda.sh";
constexpr std::string_view torch_2_7 =
    // The 2.7.1 PyPI wheel (cp312, manylinux_2_28_x86_64; Requires-Python >=3.9.0; pins the
    // CUDA 12.6 wheels, so PyPI's default is cu126): tests/fixtures/frameworks/wheels/torch-2.7.1.
    // `cudacheck inspect` of that wheel reads the cu126 list (5.0-9.0, no PTX). The cu128 and cu118
    // lists (12.8 without 7.0, 11.8 with 3.7) were not read: their wheels and build_cuda.sh at
    // v2.7.1 could not be.
    "https://github.com/pytorch/pytorch/blob/v2.7.1/.ci/manywheel/build_cuda.sh";
constexpr std::string_view torch_2_6 =
    // The files at v2.6.0 could not be read. The PyPI wheel (torch/version.py '2.6.0+cu124', cp39-
    // cp313, Requires-Python >=3.9.0) is tagged manylinux1_x86_64, and its libraries need GLIBC_2.17
    // at most; `cudacheck inspect` reads 5.0-9.0 SASS, no PTX, as the cu124 row says. cu118 and
    // cu126 (and their manylinux_2_28) are as PyTorch's 2.6 release notes state them, unconfirmed.
    "https://github.com/pytorch/pytorch/blob/v2.6.0/.ci/manywheel/build_cuda.sh";
// JAX's .bazelrc lists HERMETIC_CUDA_COMPUTE_CAPABILITIES the way TensorFlow's configure.py
// describes them: "sm_xy" is SASS only, "compute_xy" is SASS and PTX for xy. `cudacheck inspect` of
// the PJRT wheels on PyPI (xla_cuda_plugin.so, every fatbinary) confirms it: jax_cuda13_pjrt
// 0.10.0, 0.11.0 and 0.12.0.1 and jax_cuda12_pjrt 0.6.0, 0.10.0, 0.11.0 and 0.12.0.1 carry sm_120
// SASS beside the compute_120 PTX.
constexpr std::string_view jax_0_12 =
    // jax 0.12.0.1 (2026-10-21), the newest jax and jaxlib on PyPI: its METADATA pins
    // jax-cudaNN-plugin[with-cuda] to exactly 0.12.0.1 for the cuda12 and cuda13 extras, and the
    // plugins pin jax-cudaNN-pjrt==0.12.0.1. jaxlib's Requires-Python >=3.12, classifiers to 3.15,
    // wheels cp312-cp315, manylinux_2_27 on both machines. The code, read by `cudacheck inspect` in
    // the PJRT wheels (x86_64 and aarch64 alike): CUDA 13 sm_75 sm_80 sm_90 sm_100 sm_110 sm_120 and
    // compute_120 PTX of ISA 9.0 (CUDA 13.0); CUDA 12 sm_50 ... sm_101 sm_120 and compute_120 PTX of
    // ISA 8.8 (CUDA 12.9); the plugin wheels' own kernels (_linalg, _prng, _solver) the same. The
    // release tag jax-v0.12.0.1 is not in the jax-ml/jax snapshot here (it ends 2026-08-08); its
    // .bazelrc of then says the same lists (cuda_v13 13.0.0, cuda_v12 12.9.1). Not a row:
    // jax-cuda13-plugin and -pjrt 0.12.1 (2026-11-18, no jax, jaxlib or CUDA 12 plugin of that
    // version), whose PTX is ISA 9.4 and whose METADATA pins jax-cuda13-pjrt==0.12.1 where PyPI's JSON
    // says 0.12.0.1; `pip install "jax[cuda13]"` does not install it beside jax 0.12.0.1.
    "https://pypi.org/project/jax-cuda13-pjrt/0.12.0.1/";
constexpr std::string_view jax_0_11 =
    // .bazelrc: cuda_v13 HERMETIC_CUDA_VERSION 13.0.0, HERMETIC_CUDA_COMPUTE_CAPABILITIES
    // "sm_75,sm_80,sm_90,sm_100,sm_110,compute_120"; cuda_v12 12.9.1 and "sm_50,sm_60,sm_70,sm_80,
    // sm_90,sm_100,sm_101,compute_120"; setup.py python_requires >=3.12 (classifiers to 3.14);
    // docs/installation.md: driver >= 525 for CUDA 12, >= 580 for CUDA 13; ci/utilities/
    // run_auditwheel.sh: manylinux_2_27 on x86_64, and the wheels on PyPI are manylinux_2_27 on both
    // machines. The PJRT wheels' code as above.
    "https://github.com/jax-ml/jax/blob/jax-v0.11.0/.bazelrc";
constexpr std::string_view jax_0_10 =
    // .bazelrc: cuda_v13 "sm_75,sm_80,sm_90,sm_100,compute_120", cuda_v12 (12.9.1) "sm_50,sm_60,
    // sm_70,sm_80,sm_90,sm_100,compute_120"; setup.py python_requires >=3.11 (classifiers to 3.14).
    "https://github.com/jax-ml/jax/blob/jax-v0.10.0/.bazelrc";
constexpr std::string_view jax_0_6 =
    // .bazelrc: cuda 12.8.0, "sm_50,sm_60,sm_70,sm_80,sm_90,sm_100,compute_120"; python_requires
    // >=3.10. The last release for Python 3.10 (0.7.0 requires 3.11); no CUDA 13 plugin yet. Its
    // jaxlib, plugin and PJRT wheels on PyPI are manylinux2014 (glibc 2.17).
    "https://github.com/jax-ml/jax/blob/jax-v0.6.0/.bazelrc";
constexpr std::string_view cupy_14 =
    // docs/source/install.rst: Python 3.10-3.14, `pip install cupy-cuda12x` / `cupy-cuda13x`, the
    // [ctk] extra that installs NVIDIA's CUDA wheels. The glibc: the wheels on PyPI are tagged
    // manylinux2014 (2.17) on both machines; .github/workflows/build-wheel.yml's manylinux_2_28 image
    // is the CI's own build, not the published wheels'. Kernels are compiled on the machine by NVRTC.
    "https://github.com/cupy/cupy/blob/v14.2.0/docs/source/install.rst";
constexpr std::string_view cupy_13 =
    // docs/source/install.rst: Python 3.9-3.13, cupy-cuda11x (CUDA 11.2-11.8), cupy-cuda12x,
    // cupy-cuda13x. manylinux2014 (glibc 2.17): the tags of 13.6.0's wheels on PyPI, all three
    // distributions, both machines.
    "https://github.com/cupy/cupy/blob/v13.6.0/docs/source/install.rst";
constexpr std::string_view tensorflow_2_21 =
    // The 2.21.0 wheels on PyPI (2026-03-06; the newest final release: 2.22.0rc0 is a pre-release):
    // tensorflow/python/platform/build_info.py in the cp312 x86_64 wheel: cuda_version 12.5.1,
    // cuda_compute_capabilities sm_60 sm_70 sm_80 sm_89 compute_90 ("compute_xy": SASS and PTX, as
    // for JAX above; `cudacheck inspect` of the wheel reads sm_60-sm_90 SASS and compute_90 PTX of
    // ISA 8.3 in libtensorflow_cc.so.2 and the other libraries with GPU code); wheels cp310-cp313,
    // manylinux_2_27 (2.20 was manylinux2014); Requires-Python >=3.10. The release tag's .bazelrc
    // could not be read (the repository is too large to fetch here); the stored .bazelrc at
    // 0071ad1d says the same capabilities for "the official TensorFlow builds".
    "https://pypi.org/project/tensorflow/2.21.0/";
constexpr std::string_view tensorflow_2_20 =
    // The 2.20.0 wheels: build_info.py as 2.21's (CUDA 12.5.1, the same list); cp39-cp313,
    // manylinux_2_17 (manylinux2014).
    "https://pypi.org/project/tensorflow/2.20.0/";
constexpr std::string_view tensorflow_2_19 =
    // The 2.19.1 wheels (2.19.0's build_info.py says the same): cp39-cp312, manylinux2014.
    "https://pypi.org/project/tensorflow/2.19.1/";

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
        // PyTorch: one index per CUDA variant at download.pytorch.org/whl/cuXYZ; the wheels are
        // manylinux_2_28 from 2.7 on (their tags on PyPI), 2.6.0's PyPI wheel is tagged manylinux1.
        constexpr std::string_view x86_cu126 = "50,60,70,75,80,86,90";
        constexpr std::string_view x86_cu13x = "75,80,86,90,100,120";
        constexpr std::string_view arm_cu126 = "80,90";
        constexpr std::string_view arm_cu13x = "80,90,100,110,120";
        // 2.14 and 2.15: the same variants and lists; PyPI's variant and the Pythons differ.
        struct Release {
            std::string_view version;
            std::string_view source;
            MajorMinor python_min;
            MajorMinor python_max;
            std::string_view pypi;
        };
        for (const Release& release : {Release{"2.15.0", torch_2_15, {3, 11}, {3, 15}, "cu132"},
                                       Release{"2.14.1", torch_2_14, {3, 10}, {3, 14}, "cu130"}}) {
            for (const Machine machine : {x86_64, aarch64}) {
                const std::string_view cu13x = machine == x86_64 ? x86_cu13x : arm_cu13x;
                for (const auto& [variant, cuda] : {std::pair{std::string_view{"cu134"}, CudaVersion{13, 4}},
                                                    std::pair{std::string_view{"cu132"}, CudaVersion{13, 2}},
                                                    std::pair{std::string_view{"cu130"}, CudaVersion{13, 0}}})
                    torch(release.version, variant, machine, cuda, cu13x, "", release.python_min, release.python_max,
                          variant == release.pypi, release.source);
                torch(release.version, "cu126", machine, {12, 6}, machine == x86_64 ? x86_cu126 : arm_cu126, "",
                      release.python_min, release.python_max, false, release.source);
            }
        }
        for (const Machine machine : {x86_64, aarch64}) {
            const bool x86 = machine == x86_64;
            const std::string_view cu13x = x86 ? x86_cu13x : arm_cu13x;
            torch("2.13.0", "cu132", machine, {13, 2}, cu13x, "", {3, 10}, {3, 14}, false, torch_2_13);
            torch("2.13.0", "cu130", machine, {13, 0}, cu13x, "", {3, 10}, {3, 14}, true, torch_2_13);
            torch("2.13.0", "cu129", machine, {12, 9}, x86 ? "75,80,86,90,100,120" : "80,90,100,120", "", {3, 10},
                  {3, 14}, false, torch_2_13);
            torch("2.13.0", "cu126", machine, {12, 6}, x86 ? x86_cu126 : arm_cu126, "", {3, 10}, {3, 14}, false,
                  torch_2_13);
        }
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
        // PyPI's 2.6.0 wheel is tagged manylinux1 (pip installs it on any glibc); its libraries need
        // GLIBC_2.17 at most (readelf -V of every .so in the cp312 wheel).
        all.back().glibc = {2, 17};
        torch("2.6.0", "cu118", x86_64, {11, 8}, "37,50,60,70,75,80,86,90", "", {3, 9}, {3, 13}, false, torch_2_6);

        // JAX: `pip install "jax[cudaNN]"` installs jax, jaxlib and the jax-cudaNN-plugin/-pjrt
        // wheels with NVIDIA's CUDA wheels. Both machines get the same plugin builds (the wheels'
        // tags on PyPI: manylinux_2_27 from 0.10 on, manylinux2014 for 0.6).
        for (const Machine machine : {x86_64, aarch64}) {
            const auto jax = [&](std::string_view version, std::string_view variant, CudaVersion cuda,
                                 std::string_view sass, std::string_view ptx, MajorMinor python_min,
                                 MajorMinor python_max, MajorMinor glibc, std::string_view install,
                                 std::string_view source) {
                all.push_back({Framework::jax, version, variant, machine, cuda, compiled, sass, ptx, python_min,
                               python_max, glibc, false, install, source});
            };
            jax("0.12.0.1", "cuda13", {13, 0}, "75,80,90,100,110,120", "120", {3, 12}, {3, 15}, {2, 27},
                R"(pip install "jax[cuda13]")", jax_0_12);
            jax("0.12.0.1", "cuda12", {12, 9}, "50,60,70,80,90,100,101,120", "120", {3, 12}, {3, 15}, {2, 27},
                R"(pip install "jax[cuda12]")", jax_0_12);
            jax("0.11.0", "cuda13", {13, 0}, "75,80,90,100,110,120", "120", {3, 12}, {3, 14}, {2, 27},
                R"(pip install "jax[cuda13]==0.11.*")", jax_0_11);
            jax("0.11.0", "cuda12", {12, 9}, "50,60,70,80,90,100,101,120", "120", {3, 12}, {3, 14}, {2, 27},
                R"(pip install "jax[cuda12]==0.11.*")", jax_0_11);
            jax("0.10.0", "cuda13", {13, 0}, "75,80,90,100,120", "120", {3, 11}, {3, 14}, {2, 27},
                R"(pip install "jax[cuda13]==0.10.*")", jax_0_10);
            jax("0.10.0", "cuda12", {12, 9}, "50,60,70,80,90,100,120", "120", {3, 11}, {3, 14}, {2, 27},
                R"(pip install "jax[cuda12]==0.10.*")", jax_0_10);
            jax("0.6.0", "cuda12", {12, 8}, "50,60,70,80,90,100,120", "120", {3, 10}, {3, 13}, {2, 17},
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
            cupy("14.2.0", "cupy-cuda13x", {13, 0}, {3, 10}, {3, 14}, {2, 17}, R"(pip install "cupy-cuda13x[ctk]")",
                 cupy_14);
            cupy("14.2.0", "cupy-cuda12x", {12, 0}, {3, 10}, {3, 14}, {2, 17}, R"(pip install "cupy-cuda12x[ctk]")",
                 cupy_14);
            cupy("13.6.0", "cupy-cuda13x", {13, 0}, {3, 9}, {3, 13}, {2, 17}, "pip install cupy-cuda13x==13.6.0",
                 cupy_13);
            cupy("13.6.0", "cupy-cuda12x", {12, 0}, {3, 9}, {3, 13}, {2, 17}, "pip install cupy-cuda12x==13.6.0",
                 cupy_13);
            cupy("13.6.0", "cupy-cuda11x", {11, 2}, {3, 9}, {3, 13}, {2, 17}, "pip install cupy-cuda11x==13.6.0",
                 cupy_13);
        }

        // TensorFlow: `tensorflow[and-cuda]` pins NVIDIA's CUDA 12 wheels; Linux x86_64 only (its
        // aarch64 wheels are CPU builds: their build_info.py says is_cuda_build False).
        const auto tf = [&](std::string_view version, MajorMinor python_min, MajorMinor python_max, MajorMinor glibc,
                            std::string_view install, std::string_view source) {
            all.push_back({tensorflow,
                           version,
                           "and-cuda",
                           x86_64,
                           {12, 5},
                           compiled,
                           "60,70,80,89,90",
                           "90",
                           python_min,
                           python_max,
                           glibc,
                           false,
                           install,
                           source});
        };
        tf("2.21.0", {3, 10}, {3, 13}, {2, 27}, R"(pip install "tensorflow[and-cuda]")", tensorflow_2_21);
        tf("2.20.0", {3, 9}, {3, 13}, {2, 17}, R"(pip install "tensorflow[and-cuda]==2.20.*")", tensorflow_2_20);
        tf("2.19.1", {3, 9}, {3, 12}, {2, 17}, R"(pip install "tensorflow[and-cuda]==2.19.*")", tensorflow_2_19);
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

// The release series "2.11" of "2.11.0+cu130", "0.11.2", "14.2.0", read as PEP 440 reads a
// version. None for a pre-release or a nightly ("2.12.0rc1", "2.12.0.dev20260101+cu130"): their
// architecture lists and CUDA variants are not the release's, so no row of the table speaks for them.
std::optional<MajorMinor> series_of(std::string_view version) {
    const Expected<packaging::Version> parsed = packaging::parse_version(version);
    if (!parsed || parsed->is_prerelease() || parsed->release.size() < 2) return std::nullopt;
    return MajorMinor{static_cast<int>(parsed->release[0]), static_cast<int>(parsed->release[1])};
}

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

std::optional<Framework> framework_named(std::string_view name) {
    for (const Framework framework : {Framework::pytorch, Framework::jax, Framework::cupy, Framework::tensorflow})
        if (name == to_string(framework)) return framework;
    return std::nullopt;
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
    // PyPI's own variant of a release comes from PyPI itself: the command its install page gives.
    if (row.framework == pytorch && row.pypi_default) return fmt::format("pip install torch=={}", row.version);
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

bool runs_natively(const BuildCheck& check) {
    return check.runs && std::all_of(check.runs_on.begin(), check.runs_on.end(),
                                     [](const GpuRun& run) { return run.kind == ImageKind::native; });
}

// SASS first: no start-up compile (minutes for a large framework), code tuned for the GPU. Then
// PyPI's own build: the one `pip install torch` gives, whose publication its wheel on PyPI confirms
// (download.pytorch.org's variants could not all be confirmed), and the simplest command; another
// variant of the same release runs the same code on these GPUs. A newer CUDA alone is no reason to
// change a working build (other packages may be built for the older one).
bool preferred_variant(const FrameworkBuildRow& candidate, const BuildCheck& candidate_check,
                       const FrameworkBuildRow& chosen, const BuildCheck& chosen_check) {
    const bool candidate_native = runs_natively(candidate_check);
    if (candidate_native != runs_natively(chosen_check)) return candidate_native;
    return candidate.pypi_default && !chosen.pypi_default;
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
    for (auto at = rows.begin(); at != rows.end(); ++at) {
        const FrameworkBuildRow* row = *at;
        if (row->machine != machine.machine) continue;
        BuildCheck check = check_build(*row, machine, python);
        if (check.runs) {
            flush();
            // The newest release that runs here; of its variants, the one preferred_variant picks.
            for (auto other = std::next(at); other != rows.end() && (*other)->version == row->version; ++other) {
                if ((*other)->machine != machine.machine) continue;
                BuildCheck other_check = check_build(**other, machine, python);
                if (other_check.runs && preferred_variant(**other, other_check, *row, check)) {
                    row = *other;
                    check = std::move(other_check);
                }
            }
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
        judgement.message =
            series || !packaging::parse_version(installed.version)
                ? fmt::format("{} ({}) is not a CUDA build in cudacheck's table (as of {})", name,
                              installed.distribution, table_date)
                : fmt::format("{} ({}) is a pre-release or nightly build: cudacheck's table (as of {}) lists releases",
                              name, installed.distribution, table_date);
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
    // Another variant of the release advised, which runs here as well as it does (SASS for every GPU,
    // or PTX where the advised one needs PTX too): as good a fit, nothing to change.
    if (best != nullptr && series_of(best->version) == series &&
        (runs_natively(check) || !runs_natively(check_build(*best, machine, installed.python)))) {
        judgement.verdict = InstalledVerdict::best_fit;
        judgement.message = fmt::format("{} is the newest release and runs here as well as {} would: {}", name,
                                        best->name(), check.why);
        return judgement;
    }
    judgement.verdict = InstalledVerdict::runs_older;
    judgement.message = fmt::format("{} runs here ({}), but a newer build does too", name, check.why);
    if (judgement.best.fits()) judgement.fix = fmt::format("to upgrade: {}", best_text);
    return judgement;
}

}  // namespace cudacheck
