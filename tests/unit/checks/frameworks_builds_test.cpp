// frameworks.builds' judge on the builds of released wheels (tests/fixtures/frameworks: the real
// version.py, METADATA, cpp_lib.json of torch 2.7.1 cu126, 2.0.1 cu117, 2.5.1 CPU, xformers 0.0.30,
// the JAX CUDA 12 plugin 0.4.30, and the GPU machine's torch 2.11 cu130), with the libraries and
// GPU code their process would load set by hand, and the driver and GPUs of each scenario.
#include "checks/frameworks_builds.hpp"
#include "support/check_judging.hpp"
#include "support/fixtures.hpp"
#include "support/framework_builds.hpp"
#include "support/headlines.hpp"
#include "support/test_support.hpp"
#include "util/path.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace cudacheck {
namespace {

using test::finding_with;
using test::framework_from;
using test::gpu;
using test::ReleasedWheels;

const std::string h200_site = test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages");

const DeviceInfo h200 = gpu(0, "NVIDIA H200", 9, 0);

// What `cudacheck inspect` reads from the 2.11 cu130 wheel's libtorch_cuda.so on the GPU machine:
// SASS for 7.5 8.0 8.6 9.0 10.0 12.0, no PTX (docs/examples/h200/frameworks).
GpuCodeSummary sass_of(std::initializer_list<int> numbers) {
    GpuCodeSummary code{.path = "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"};
    for (int number : numbers) code.targets.sass.push_back({number, ArchVariant::generic});
    return code;
}

FrameworkLibrary library(std::string family, std::string soname, std::string path, std::string version,
                         LibraryOrigin origin, std::string rule = "DT_RPATH of libtorch_cuda.so") {
    FrameworkLibrary loaded{.family = std::move(family), .version = std::move(version), .origin = origin};
    loaded.object.soname = soname;
    loaded.object.resolution = Resolution{soname, std::move(rule), path, path};
    return loaded;
}

EnvironmentFacts venv(std::vector<FrameworkFacts> frameworks) {
    EnvironmentFacts environment;
    environment.environment.prefix = "/venv";
    environment.environment.interpreter = "/venv/bin/python3";
    environment.bare_python3 = true;
    environment.frameworks = std::move(frameworks);
    return environment;
}

EnvironmentFacts venv_312(std::vector<FrameworkFacts> frameworks) {
    EnvironmentFacts environment = venv(std::move(frameworks));
    environment.environment.python_version = "3.12";
    return environment;
}

CheckResult judged(const std::vector<EnvironmentFacts>& environments, std::optional<CudaVersion> driver,
                   std::vector<DeviceInfo> devices, std::string driver_version = "") {
    PythonFacts python{.environments = environments};
    const FrameworkJudgeInput input{.python = python,
                                    .driver_cuda = driver,
                                    .driver_version = std::move(driver_version),
                                    .devices = devices,
                                    .gpu_present = !devices.empty()};
    return test::judge("frameworks.builds", [&](ResultBuilder& result) { judge_frameworks(input, result); });
}

FrameworkFacts h200_torch() {
    FrameworkFacts torch = framework_from(h200_site, "PyTorch");
    torch.gpu_code = sass_of({75, 80, 86, 90, 100, 120});
    torch.libraries.push_back(library("cuDNN", "libcudnn.so.9",
                                      "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "9.19.0.56",
                                      LibraryOrigin::pip_wheel));
    torch.libraries.push_back(library("NCCL", "libnccl.so.2",
                                      "/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", "2.28.9",
                                      LibraryOrigin::pip_wheel));
    return torch;
}

TEST(FrameworksBuilds, the_gpu_machines_torch_passes_on_its_driver_and_h200) {
    const CheckResult result = judged({venv({h200_torch()})}, CudaVersion{13, 0}, {h200}, "580.159.04");
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(test::account(result).find("PyTorch 2.11.0+cu130 (CUDA 13.0, cuDNN 9.19.0.56)"), std::string::npos)
        << test::account(result);
}

TEST(FrameworksBuilds, a_cuda_11_torch_runs_on_a_driver_for_12) {
    // No cu118 wheel is on PyPI; torch 2.0.1's cu117 stands for any older major.
    const CheckResult cu117 =
        judged({venv({framework_from(ReleasedWheels({"torch-2.0.1"}).site, "PyTorch")})}, CudaVersion{12, 2}, {h200});
    EXPECT_EQ(cu117.status, Status::pass) << cu117.message;
    const CheckResult cu126 =
        judged({venv({framework_from(ReleasedWheels({"torch-2.7.1"}).site, "PyTorch")})}, CudaVersion{12, 2}, {h200});
    EXPECT_EQ(cu126.status, Status::pass) << cu126.message;
}

// The newest PyTorch release in cudacheck's table: the fixes name it, as `cudacheck advise` does.
std::string newest_torch() {
    for (const FrameworkBuildRow& row : framework_build_table())
        if (row.framework == Framework::pytorch) return std::string(row.version);
    return "none";
}

TEST(FrameworksBuilds, a_cuda_13_torch_on_a_driver_for_12_needs_driver_580_or_a_cuda_12_build) {
    const CheckResult result = judged({venv_312({h200_torch()})}, CudaVersion{12, 8}, {h200}, "570.86.15");
    EXPECT_EQ(result.status, Status::fail);
    const Finding* finding = finding_with(result, "CC620");
    ASSERT_NE(finding, nullptr);
    EXPECT_NE(test::account(result).find("built for CUDA 13.0; driver 570.86.15 supports CUDA <= 12.8"),
              std::string::npos)
        << test::account(result);
    EXPECT_NE(test::account(result).find("(found version 12080)"), std::string::npos) << test::account(result);
    EXPECT_NE(finding->remediation.find("driver >= 580"), std::string::npos) << finding->remediation;
    // The newest release's CUDA 12 build (its CUDA 13 builds need driver 580), by the table, with
    // the environment's own pip.
    EXPECT_NE(finding->remediation.find("/venv/bin/python3 -m pip install --force-reinstall torch==" + newest_torch() +
                                        " --index-url https://download.pytorch.org/whl/cu12"),
              std::string::npos)
        << finding->remediation;
    // Without the environment's Python version no build is named: the table's rows differ by Python.
    const Finding* unknown_python = finding_with(judged({venv({h200_torch()})}, CudaVersion{12, 8}, {h200}), "CC620");
    ASSERT_NE(unknown_python, nullptr);
    EXPECT_EQ(unknown_python->remediation.find("pip install"), std::string::npos) << unknown_python->remediation;
    EXPECT_EQ(finding->subject, "/venv: PyTorch");
    // The GPU code would run: only the driver is named, not a missing kernel image as well.
    EXPECT_EQ(finding_with(result, "CC621"), nullptr);
}

TEST(FrameworksBuilds, a_torch_without_code_for_the_gpu_fails_with_the_build_that_has_it) {
    // A Pascal GPU (6.1): the cu130 build starts at 7.5; PyTorch's own table gives 12.6 for it.
    const DeviceInfo pascal = gpu(0, "Tesla P100-PCIE-16GB", 6, 0);
    const CheckResult result = judged({venv_312({h200_torch()})}, CudaVersion{13, 0}, {pascal});
    const Finding* finding = finding_with(result, "CC621");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_EQ(finding->device, 0);
    EXPECT_NE(test::account(result).find("no SASS for sm_60 and no PTX at or below it"), std::string::npos)
        << test::account(result);
    EXPECT_NE(test::account(result).find("sm_60 is not compatible with the current PyTorch installation"),
              std::string::npos)
        << test::account(result);
    // The torch 2.11.0+cu130 row lists 75-120: the sentence names the installed build's own list.
    EXPECT_NE(test::account(result).find("no code for CC 6.0 in its PyTorch 2.11.0+cu130 build"), std::string::npos)
        << test::account(result);
    EXPECT_NE(finding->remediation.find("torch==" + newest_torch() +
                                        " --index-url https://download.pytorch.org/whl/cu126"),
              std::string::npos)
        << finding->remediation;
    // The H200 beside it is fine: only GPU 0 is named.
    const CheckResult both = judged({venv({h200_torch()})}, CudaVersion{13, 0}, {pascal, gpu(1, "NVIDIA H200", 9, 0)});
    std::size_t findings = 0;
    for (const Finding& any : both.findings) findings += any.code == "CC621";
    EXPECT_EQ(findings, 1u);
}

TEST(FrameworksBuilds, ptx_alone_runs_through_jit_and_ptx_newer_than_the_driver_does_not_run) {
    FrameworkFacts torch = h200_torch();
    torch.gpu_code = GpuCodeSummary{.path = "libtorch_cuda.so"};
    torch.gpu_code->targets.ptx.push_back({80, ArchVariant::generic});
    torch.gpu_code->newest_ptx_isa = PtxIsa{9, 0};  // CUDA 13.0's PTX ISA
    const CheckResult jit = judged({venv({torch})}, CudaVersion{13, 0}, {h200});
    ASSERT_NE(finding_with(jit, "CC622"), nullptr) << jit.message;
    EXPECT_EQ(jit.status, Status::warn);
    const CheckResult too_new = judged({venv({torch})}, CudaVersion{12, 8}, {h200});
    // The driver for 12.8 cannot run a CUDA 13 torch at all: the driver is the finding.
    ASSERT_NE(finding_with(too_new, "CC620"), nullptr);
    FrameworkFacts jax = framework_from(ReleasedWheels({"jax-cuda12-plugin-0.4.30"}).site, "JAX");
    jax.gpu_code = torch.gpu_code;
    jax.gpu_code->newest_ptx_isa = PtxIsa{8, 8};  // CUDA 12.9's
    const CheckResult jax_too_new = judged({venv({jax})}, CudaVersion{12, 4}, {h200});
    const Finding* finding = finding_with(jax_too_new, "CC621");
    ASSERT_NE(finding, nullptr) << jax_too_new.message;
    EXPECT_NE(test::account(jax_too_new).find("cannot compile PTX that new"), std::string::npos)
        << test::account(jax_too_new);
}

TEST(FrameworksBuilds, a_cpu_only_torch_on_a_gpu_machine_warns_with_the_cuda_build_to_install) {
    const FrameworkFacts cpu = framework_from(ReleasedWheels({"torch-2.5.1-aarch64"}).site, "PyTorch");
    const CheckResult result = judged({venv_312({cpu})}, CudaVersion{13, 0}, {h200});
    const Finding* finding = finding_with(result, "CC623");
    ASSERT_NE(finding, nullptr) << result.message;
    // The build `cudacheck advise` names here: the newest release's PyPI wheel, a CUDA 13 build.
    const BuildAdvice advice = advise_build(MachineFacts{.driver_cuda = CudaVersion{13, 0},
                                                         .gpus = {GpuArch{90, ArchVariant::generic}},
                                                         .pythons = {{3, 12}}},
                                            Framework::pytorch, {3, 12});
    ASSERT_TRUE(advice.fits());
    EXPECT_EQ(advice.build->version, newest_torch());
    EXPECT_EQ(advice.build->cuda.major, 13);
    EXPECT_NE(finding->remediation.find("/venv/bin/python3 -m pip install --force-reinstall " +
                                        advice.command.substr(std::string("pip install ").size())),
              std::string::npos)
        << finding->remediation;
    // Without a GPU it is the right build.
    EXPECT_EQ(judged({venv({cpu})}, std::nullopt, {}).status, Status::pass);
}

TEST(FrameworksBuilds, a_jax_plugin_loading_a_cudnn_below_its_minimum_fails) {
    FrameworkFacts jax = framework_from(ReleasedWheels({"jax-cuda12-plugin-0.4.30"}).site, "JAX");
    // The plugin's with_cuda extra asks nvidia-cudnn-cu12 <10.0,>=9.0; an older cuDNN 9 comes first.
    jax.libraries.push_back(library("cuDNN", "libcudnn.so.9", "/opt/cudnn/lib/libcudnn.so.9", "8.9.7",
                                    LibraryOrigin::ld_library_path, "LD_LIBRARY_PATH entry /opt/cudnn/lib"));
    const CheckResult result = judged({venv({jax})}, CudaVersion{12, 4}, {h200});
    const Finding* finding = finding_with(result, "CC625");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(finding->message.find("requires nvidia-cudnn-cu12<10.0,>=9.0 but its process loads cuDNN 8.9.7"),
              std::string::npos)
        << finding->message;
    EXPECT_NE(test::account(result).find("Outdated cuDNN installation found"), std::string::npos)
        << test::account(result);
    EXPECT_NE(finding->remediation.find("Take /opt/cudnn/lib off LD_LIBRARY_PATH"), std::string::npos)
        << finding->remediation;
    // The wheel's own 9.19 satisfies it.
    jax.libraries.back() = library("cuDNN", "libcudnn.so.9", "/venv/nvidia/cudnn/lib/libcudnn.so.9", "9.19.0.56",
                                   LibraryOrigin::pip_wheel);
    EXPECT_EQ(finding_with(judged({venv({jax})}, CudaVersion{12, 4}, {h200}), "CC625"), nullptr);
}

TEST(FrameworksBuilds, an_xformers_built_for_another_torch_fails) {
    const ReleasedWheels wheels({"torch-2.7.1", "xformers-0.0.30"});
    const CheckResult result =
        judged({venv({framework_from(wheels.site, "PyTorch"), framework_from(wheels.site, "xformers")})},
               CudaVersion{12, 8}, {h200});
    const Finding* finding = finding_with(result, "CC628");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("was compiled against torch 2.7.0+cu126"), std::string::npos)
        << test::account(result);
    EXPECT_NE(test::account(result).find("torch 2.7.1+cu126 is installed"), std::string::npos) << test::account(result);
    EXPECT_EQ(finding->subject, "/venv: xformers");
    // torchvision 0.22.1 is the build for torch 2.7.1: no finding about it.
    const ReleasedWheels matched({"torch-2.7.1", "torchvision-0.22.1"});
    EXPECT_EQ(judged({venv({framework_from(matched.site, "PyTorch"), framework_from(matched.site, "torchvision")})},
                     CudaVersion{12, 8}, {h200})
                  .status,
              Status::pass);
}

TEST(FrameworksBuilds, vllm_pinning_another_torch_fails) {
    const ReleasedWheels wheels({"torch-2.7.1", "vllm-0.9.1"});
    const CheckResult result =
        judged({venv({framework_from(wheels.site, "PyTorch"), framework_from(wheels.site, "vLLM")})},
               CudaVersion{12, 8}, {h200});
    const Finding* finding = finding_with(result, "CC628");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(test::account(result).find(
                  "vLLM 0.9.1 in /venv requires torch==2.7.0, but torch 2.7.1+cu126 is installed"),
              std::string::npos)
        << test::account(result);
    EXPECT_NE(finding->remediation.find(
                  "install --force-reinstall vllm torch==2.7.1 --index-url https://download.pytorch.org/whl/cu126"),
              std::string::npos)
        << finding->remediation;
}

TEST(FrameworksBuilds, bitsandbytes_without_a_library_for_torchs_cuda_fails) {
    // bitsandbytes 0.45.5 carries libbitsandbytes_cuda117.so ... cuda128.so: none for CUDA 13.0.
    const ReleasedWheels wheels({"bitsandbytes-0.45.5"});
    const FrameworkFacts bnb = framework_from(wheels.site, "bitsandbytes");
    EXPECT_EQ(bnb.build.cuda_libraries.front(), "11.7");
    EXPECT_EQ(bnb.build.cuda_libraries.back(), "12.8");
    const CheckResult result = judged({venv({h200_torch(), bnb})}, CudaVersion{13, 0}, {h200});
    const Finding* finding = finding_with(result, "CC628");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("but none for torch's 13.0 (libbitsandbytes_cuda130.so)"), std::string::npos)
        << test::account(result);
    // Beside a cu126 torch it has the library torch's CUDA names.
    const ReleasedWheels older({"bitsandbytes-0.45.5", "torch-2.7.1"});
    EXPECT_EQ(
        finding_with(judged({venv({framework_from(older.site, "PyTorch"), framework_from(older.site, "bitsandbytes")})},
                            CudaVersion{12, 8}, {h200}),
                     "CC628"),
        nullptr);
}

// flash-attn is source-only on PyPI; its release wheels are named +cu12torch2.7cxx11abiTRUE (its
// setup.py) and pip records the URL in direct_url.json. This installation is crafted on that scheme.
TEST(FrameworksBuilds, a_flash_attn_wheel_for_another_torch_and_cuda_fails) {
    test::ScratchTree tree;
    const std::string site = tree.path() + "/site-packages";
    const std::string dist_info = site + "/flash_attn-2.7.4.post1.dist-info";
    std::filesystem::create_directories(dist_info);
    std::ofstream(dist_info + "/METADATA")
        << "Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.7.4.post1\nRequires-Dist: torch\n";
    std::ofstream(dist_info + "/direct_url.json")
        << R"({"url": "https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4.post1/flash_attn-2.7.4.post1+cu12torch2.7cxx11abiTRUE-cp312-cp312-linux_x86_64.whl", "archive_info": {}})";
    const FrameworkFacts flash = framework_from(site, "flash-attn");
    EXPECT_EQ(flash.build.built_with_torch, "2.7");
    EXPECT_EQ(flash.build.cuda_major, 12);
    const CheckResult result = judged({venv({h200_torch(), flash})}, CudaVersion{13, 0}, {h200});
    const Finding* finding = finding_with(result, "CC628");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("was compiled against torch 2.7 and is built for CUDA 12 (torch for 13.0)"),
              std::string::npos)
        << test::account(result);
    // Beside the torch 2.7.1 cu126 it was built for: nothing to say.
    const ReleasedWheels matched({"torch-2.7.1"});
    EXPECT_EQ(finding_with(judged({venv({framework_from(matched.site, "PyTorch"), flash})}, CudaVersion{12, 8}, {h200}),
                           "CC628"),
              nullptr);
}

TEST(FrameworksBuilds, frameworks_of_different_cuda_majors_in_one_environment_warn) {
    const FrameworkFacts cupy = framework_from(ReleasedWheels({"cupy-cuda12x-13.4.1"}).site, "CuPy");
    const CheckResult result = judged({venv({h200_torch(), cupy})}, CudaVersion{13, 0}, {h200});
    const Finding* finding = finding_with(result, "CC627");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("CuPy 13.4.1 (CUDA 12.x)"), std::string::npos) << test::account(result);
    EXPECT_NE(finding->remediation.find("install cupy-cuda13x"), std::string::npos) << finding->remediation;
}

TEST(FrameworksBuilds, a_library_that_resolves_nowhere_and_a_mixed_cudnn_fail) {
    FrameworkFacts torch = h200_torch();
    torch.unresolved.push_back("libnccl.so.2");
    torch.libraries.push_back(library("cuDNN graph", "libcudnn_graph.so.9", "/lib/x86_64-linux-gnu/libcudnn_graph.so.9",
                                      "9.14.0", LibraryOrigin::system, "LD_LIBRARY_PATH entry /lib/x86_64-linux-gnu"));
    const CheckResult result = judged({venv({torch})}, CudaVersion{13, 0}, {h200});
    const Finding* missing = finding_with(result, "CC624");
    ASSERT_NE(missing, nullptr);
    EXPECT_NE(missing->remediation.find("install \"nvidia-nccl-cu13==2.28.9\""), std::string::npos)
        << missing->remediation;
    const Finding* mixed = finding_with(result, "CC626");
    ASSERT_NE(mixed, nullptr);
    EXPECT_NE(test::account(result).find("libcudnn_graph.so.9 9.14.0 from /lib/x86_64-linux-gnu/libcudnn_graph.so.9"),
              std::string::npos)
        << test::account(result);
    EXPECT_NE(mixed->remediation.find("Take /lib/x86_64-linux-gnu off LD_LIBRARY_PATH"), std::string::npos)
        << mixed->remediation;
}

TEST(FrameworksBuilds, broken_metadata_is_a_finding_naming_the_file) {
    const ReleasedWheels wheels({"torch-2.7.1"});
    std::ofstream(wheels.site + "/torch/version.py") << "garbage = (\n";
    const CheckResult result = judged({venv({framework_from(wheels.site, "PyTorch")})}, CudaVersion{13, 0}, {h200});
    const Finding* finding = finding_with(result, "CC629");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("torch/version.py"), std::string::npos) << test::account(result);
}

TEST(FrameworksBuilds, no_framework_is_a_skip) {
    EXPECT_EQ(judged({venv({})}, CudaVersion{13, 0}, {h200}).status, Status::skip);
}

// --- what `import` gets ---------------------------------------------------------------------

ImportFacts imported(std::string file, PathOrigin origin, std::string entry, bool own, std::string other_version = "",
                     bool other_install = false) {
    ImportFacts facts{.module = "torch",
                      .kind = ImportKind::package,
                      .file = file,
                      .location = sys::directory_of(file)};
    facts.entry = SysPathEntry{std::move(entry), origin, {}};
    facts.own_copy = own;
    facts.other_version = std::move(other_version);
    facts.other_install = other_install;
    return facts;
}

FrameworkFacts h200_torch_imported(ImportFacts facts) {
    FrameworkFacts torch = h200_torch();
    torch.site_packages = "/venv/lib/python3.12/site-packages";
    torch.import = std::move(facts);
    return torch;
}

TEST(FrameworksBuilds, a_stale_copy_on_pythonpath_fails_and_says_how_to_take_it_off) {
    EnvironmentFacts environment = venv({h200_torch_imported(
        imported("/shared/old/torch/__init__.py", PathOrigin::pythonpath, "/shared/old", false, "2.5.1+cu124"))});
    environment.path.variables = {"PYTHONPATH=/shared/old:/home/u/lib"};
    environment.path.current_directory = "/home/u";
    const CheckResult result = judged({environment}, CudaVersion{13, 0}, {h200}, "580.159.04");
    EXPECT_EQ(result.status, Status::fail);
    const Finding* shadow = finding_with(result, "CC632");
    ASSERT_NE(shadow, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("loads /shared/old/torch/__init__.py (2.5.1+cu124, no install record"),
              std::string::npos)
        << test::account(result);
    EXPECT_NE(test::account(result).find("put first by PYTHONPATH"), std::string::npos) << test::account(result);
    EXPECT_NE(test::account(result).find("not the installed PyTorch 2.11.0+cu130"), std::string::npos)
        << test::account(result);
    EXPECT_NE(shadow->remediation.find("`export PYTHONPATH=/home/u/lib`"), std::string::npos) << shadow->remediation;
}

TEST(FrameworksBuilds, a_copy_in_the_working_directory_says_to_run_python_elsewhere) {
    const CheckResult result =
        judged({venv({h200_torch_imported(imported("/src/pytorch/torch/__init__.py", PathOrigin::current_directory,
                                                   "/src/pytorch", false, "2.12.0a0"))})},
               CudaVersion{13, 0}, {h200});
    const Finding* shadow = finding_with(result, "CC632");
    ASSERT_NE(shadow, nullptr) << result.message;
    EXPECT_NE(shadow->remediation.find("Run Python from another directory than /src/pytorch"), std::string::npos)
        << shadow->remediation;
}

TEST(FrameworksBuilds, a_user_site_install_before_the_environments_own_warns) {
    FrameworkFacts torch =
        h200_torch_imported(imported("/home/u/.local/lib/python3.12/site-packages/torch/__init__.py",
                                     PathOrigin::user_site, "/home/u/.local/lib/python3.12/site-packages", true));
    torch.shadowed_installs = {"/usr/lib/python3/dist-packages (2.1.0)"};
    const CheckResult result = judged({venv({torch})}, CudaVersion{13, 0}, {h200});
    EXPECT_EQ(result.status, Status::warn) << result.message;
    const Finding* twice = finding_with(result, "CC633");
    ASSERT_NE(twice, nullptr);
    EXPECT_NE(test::account(result).find("shadows the install in /usr/lib/python3/dist-packages (2.1.0)"),
              std::string::npos)
        << test::account(result);
    // The environment's own site-packages before the base's: what a venv is for, no finding.
    FrameworkFacts own =
        h200_torch_imported(imported("/venv/lib/python3.12/site-packages/torch/__init__.py", PathOrigin::venv_site,
                                     "/venv/lib/python3.12/site-packages", true));
    own.shadowed_installs = {"/usr/lib/python3/dist-packages (2.1.0)"};
    EXPECT_EQ(judged({venv({own})}, CudaVersion{13, 0}, {h200}).status, Status::pass);
}

TEST(FrameworksBuilds, an_install_record_without_its_package_fails_to_import) {
    ImportFacts gone{.module = "torch", .kind = ImportKind::not_found};
    gone.own_copy = false;
    const CheckResult result = judged({venv({h200_torch_imported(gone)})}, CudaVersion{13, 0}, {h200});
    const Finding* fails = finding_with(result, "CC637");
    ASSERT_NE(fails, nullptr) << result.message;
    EXPECT_NE(test::account(result).find("No module named 'torch'"), std::string::npos) << test::account(result);
    EXPECT_NE(fails->remediation.find("install --force-reinstall --no-deps torch"), std::string::npos)
        << fails->remediation;
}

TEST(FrameworksBuilds, path_problems_and_a_foreign_pip_are_findings_even_without_a_framework) {
    EnvironmentFacts environment = venv({});
    environment.path.pth_problems = {PthProblem{"/venv/lib/python3.12/site-packages/broken.pth", 1,
                                                "import gone_module", false, "module gone_module is not on the path"},
                                     PthProblem{"/venv/lib/python3.12/site-packages/__editable__.x-1.pth", 1, "/src/x",
                                                true, "/src/x does not exist"}};
    environment.path.fatal = "PYTHONHOME=/nope holds no Python 3.12 standard library";
    PythonFacts python{.environments = {environment}};
    python.pip_mismatches = {PipMismatch{"/usr/bin/pip", "/usr/bin/python3", "/usr", "/venv/bin/python3", "/venv"}};
    const FrameworkJudgeInput input{.python = python,
                                    .driver_cuda = CudaVersion{13, 0},
                                    .devices = {h200},
                                    .gpu_present = true};
    const CheckResult result =
        test::judge("frameworks.builds", [&](ResultBuilder& builder) { judge_frameworks(input, builder); });
    EXPECT_EQ(result.status, Status::fail) << "not a skip: " << result.message;
    for (const char* code : {"CC634", "CC635", "CC636", "CC638"})
        EXPECT_NE(finding_with(result, code), nullptr) << code;
    EXPECT_NE(finding_with(result, "CC634")->remediation.find("python3 -m pip install"), std::string::npos);
}

// --- The installed build against the table of published builds (cuda/framework_builds.hpp) ----------
// Ground truth: PyTorch 2.11.0's rows, as PYTORCH_RELEASES_CODE_CC in its torch/cuda/__init__.py
// lists them (docs/examples/h200/frameworks/torch-cuda-cc-table.txt): cu130 SASS 7.5 8.0 8.6 9.0
// 10.0 12.0; cu128 7.0 7.5 8.0 8.6 9.0 10.0 12.0; cu126 5.0 6.0 7.0 7.5 8.0 8.6 9.0; no PTX. CUDA 13.x
// builds need a CUDA 13 driver (580), 12.x a CUDA 12 one (NVIDIA's CUDA Compatibility guide). The
// assertions name the variant of release 2.11.0, so newer releases added to the table do not change
// them: a newer release of the same variant is an upgrade, not a wrong build.

// The table's command for torch 2.11.0's `variant` (how install_command spells it is the table's:
// an --index-url, or none for the variant PyPI carries), as frameworks.builds runs it in an
// environment: its own pip, --force-reinstall, torchvision/torchaudio after torch.
std::string torch_command(const std::string& pip, std::string_view variant, std::string_view extensions = "") {
    for (const FrameworkBuildRow& row : framework_build_table())
        if (row.framework == Framework::pytorch && row.machine == Machine::x86_64 && row.version == "2.11.0" &&
            row.variant == variant) {
            std::string command = install_command(row);
            const std::string_view plain = "pip install ";
            if (!command.starts_with(plain)) return "not a pip command: " + command;
            command.replace(0, plain.size(), pip + " install --force-reinstall ");
            const std::size_t torch = command.find("torch==2.11.0");
            if (torch == std::string::npos) return "no torch==2.11.0 in: " + command;
            command.insert(torch + 13, extensions);
            return command;
        }
    return "no row 2.11.0 " + std::string(variant);
}

CheckResult judged_312(std::vector<FrameworkFacts> frameworks, std::optional<CudaVersion> driver,
                       std::vector<DeviceInfo> devices) {
    PythonFacts python{.environments = {venv_312(std::move(frameworks))}};
    const FrameworkJudgeInput input{.python = python,
                                    .driver_cuda = driver,
                                    .devices = devices,
                                    .gpu_present = !devices.empty(),
                                    .glibc = MajorMinor{2, 36},
                                    .machine = Machine::x86_64};
    return test::judge("frameworks.builds", [&](ResultBuilder& result) { judge_frameworks(input, result); });
}

// torch 2.11.0 of another CUDA variant: its version, CUDA and the SASS its wheel carries.
FrameworkFacts torch_2_11(std::string variant, std::string cuda, std::initializer_list<int> sass) {
    FrameworkFacts torch = h200_torch();
    torch.build.version = "2.11.0+" + variant;
    torch.build.cuda = cuda;
    torch.build.cuda_major = std::stoi(cuda);
    torch.gpu_code = sass_of(sass);
    return torch;
}

TEST(FrameworksBuildsFit, the_best_build_of_its_release_is_no_finding) {
    // 2.11.0+cu130 on an H200 with driver 580 (CUDA 13.0): the newest CUDA of the release, SASS for sm_90.
    const CheckResult result = judged_312({h200_torch()}, CudaVersion{13, 0}, {h200});
    EXPECT_EQ(finding_with(result, "CC643"), nullptr) << test::account(result);
    EXPECT_EQ(result.status, Status::pass) << result.message;
}

TEST(FrameworksBuildsFit, a_variant_with_sass_for_every_gpu_is_no_finding_whatever_newer_cuda_exists) {
    // 2.11.0+cu126 carries sm_90 SASS: on the H200 it runs natively, as cu130 would. A newer CUDA
    // alone is no reason to reinstall (other packages may be built for CUDA 12), so nothing is said,
    // on a CUDA 13.0 driver as on a 12.8 one.
    const FrameworkFacts cu126 = torch_2_11("cu126", "12.6", {50, 60, 70, 75, 80, 86, 90});
    for (const CudaVersion driver : {CudaVersion{13, 0}, CudaVersion{12, 8}}) {
        const CheckResult result = judged_312({cu126}, driver, {h200});
        EXPECT_EQ(finding_with(result, "CC643"), nullptr) << test::account(result);
        EXPECT_EQ(result.status, Status::pass) << result.message;
    }
}

TEST(FrameworksBuildsFit, the_torch_extensions_follow_torch_in_the_command) {
    // A P100 (sm_60) and 2.11.0+cu130, its GPU code unread: the table says cu126 is the variant
    // with sm_60; torchvision is installed beside torch, so it is reinstalled with it.
    FrameworkFacts unread = h200_torch();
    unread.gpu_code.reset();
    FrameworkFacts vision = framework_from(h200_site, "torchvision");
    const CheckResult result = judged_312({unread, vision}, CudaVersion{13, 0}, {gpu(0, "Tesla P100-PCIE-16GB", 6, 0)});
    const Finding* finding = finding_with(result, "CC643");
    ASSERT_NE(finding, nullptr) << test::account(result);
    EXPECT_NE(finding->remediation.find(torch_command("/venv/bin/python3 -m pip", "cu126", " torchvision")),
              std::string::npos)
        << finding->remediation;
}

TEST(FrameworksBuildsFit, ptx_only_where_a_native_build_exists_is_one_finding_naming_that_build) {
    // The wheel of 2.11.0+cu126 rebuilt with compute_80 PTX alone (no SASS): on the H200 it runs
    // through JIT (CC622, from its binary); of 2.11.0's builds with SASS for sm_90 the advice takes
    // PyPI's, cu130, so CC622's fix names it, and no second finding repeats it.
    FrameworkFacts jit = torch_2_11("cu126", "12.6", {});
    jit.gpu_code = GpuCodeSummary{.path = "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"};
    jit.gpu_code->targets.ptx.push_back({80, ArchVariant::generic});
    const CheckResult result = judged_312({jit}, CudaVersion{13, 0}, {h200});
    const Finding* ptx = finding_with(result, "CC622");
    ASSERT_NE(ptx, nullptr) << test::account(result);
    EXPECT_NE(ptx->remediation.find("(the cu130 build: `" + torch_command("/venv/bin/python3 -m pip", "cu130") + "`)"),
              std::string::npos)
        << ptx->remediation;
    EXPECT_EQ(finding_with(result, "CC643"), nullptr) << "one finding per fact";
}

TEST(FrameworksBuildsFit, a_build_the_table_says_does_not_run_fails_when_its_gpu_code_was_not_read) {
    // A Pascal P100 (sm_60): only 2.11.0's cu126 carries sm_60 SASS. With the binary unread, nothing
    // else says that cu130 has no code for it.
    FrameworkFacts unread = h200_torch();
    unread.gpu_code.reset();
    const DeviceInfo pascal = gpu(0, "Tesla P100-PCIE-16GB", 6, 0);
    const CheckResult result = judged_312({unread}, CudaVersion{13, 0}, {pascal});
    const Finding* finding = finding_with(result, "CC643");
    ASSERT_NE(finding, nullptr) << test::account(result);
    EXPECT_EQ(finding->status, Status::fail);
    EXPECT_NE(finding->message.find("does not run here; the cu126 build of 2.11.0 does"), std::string::npos)
        << finding->message;
    EXPECT_NE(finding->remediation.find("`" + torch_command("/venv/bin/python3 -m pip", "cu126") + "`"),
              std::string::npos)
        << finding->remediation;
    // With its binary read, CC621 says it (and names a build); CC643 does not repeat it.
    const CheckResult read = judged_312({h200_torch()}, CudaVersion{13, 0}, {pascal});
    EXPECT_NE(finding_with(read, "CC621"), nullptr);
    EXPECT_EQ(finding_with(read, "CC643"), nullptr);
}

TEST(FrameworksBuildsFit, a_release_newer_than_the_table_is_not_judged_and_the_evidence_says_so) {
    FrameworkFacts newer = torch_2_11("cu126", "12.6", {50, 60, 70, 75, 80, 86, 90});
    newer.build.version = "2.99.0+cu126";
    const CheckResult result = judged_312({newer}, CudaVersion{13, 0}, {h200});
    EXPECT_EQ(finding_with(result, "CC643"), nullptr) << test::account(result);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(test::account(result).find("PyTorch 2.99.0+cu126 is newer than cudacheck's table of published builds"),
              std::string::npos)
        << test::account(result);
    EXPECT_NE(test::account(result).find("table of framework builds as of"), std::string::npos)
        << test::account(result);
}

TEST(FrameworksBuildsFit, without_a_gpu_or_a_driver_nothing_is_said_about_gpu_fit) {
    const FrameworkFacts cu126 = torch_2_11("cu126", "12.6", {50, 60, 70, 75, 80, 86, 90});
    EXPECT_EQ(finding_with(judged_312({cu126}, CudaVersion{13, 0}, {}), "CC643"), nullptr);
    EXPECT_EQ(finding_with(judged_312({cu126}, std::nullopt, {h200}), "CC643"), nullptr);
}

// The choice within a release on rows given by hand: a hypothetical release 9.9.0 whose cu130
// build carries sm_120 only as PTX and whose cu128 build carries its SASS. (No release in the table
// of 2026-12-05 has such a pair; the rule is the one the check applies to any table.)
TEST(FrameworksBuildsFit, within_a_release_native_code_wins_over_a_newer_cuda_through_ptx) {
    const auto row = [](std::string_view version, std::string_view variant, CudaVersion cuda, std::string_view sass,
                        std::string_view ptx) {
        FrameworkBuildRow made;
        made.version = version;
        made.variant = variant;
        made.cuda = cuda;
        made.sass = sass;
        made.ptx = ptx;
        made.python_min = {3, 10};
        made.python_max = {3, 14};
        made.glibc = {2, 28};
        return made;
    };
    const std::vector<FrameworkBuildRow> rows = {row("9.9.0", "cu130", {13, 0}, "80,90", "120"),
                                                 row("9.9.0", "cu128", {12, 8}, "80,90,120", ""),
                                                 row("9.8.0", "cu128", {12, 8}, "80,90,120", "")};
    MachineFacts blackwell;
    blackwell.driver_cuda = CudaVersion{13, 0};
    blackwell.gpus = {GpuArch{120, ArchVariant::generic}};
    blackwell.glibc = MajorMinor{2, 36};
    const ReleaseFit fit = fit_within_release(rows[0], rows, blackwell, {3, 12});
    ASSERT_TRUE(fit.installed_check.runs) << fit.installed_check.reason;
    EXPECT_FALSE(fit.installed_native);
    ASSERT_EQ(fit.ptx_only.size(), 1u);
    EXPECT_EQ(fit.ptx_only[0].number, 120);
    ASSERT_EQ(fit.recommended, &rows[1]) << "cu128 of the same release, not 9.8.0";
    EXPECT_TRUE(fit.recommended_native);
    EXPECT_NE(fit.why.find("cu130 runs on sm_120 only through PTX compiled at first use; cu128 carries SASS"),
              std::string::npos)
        << fit.why;
    // On a GPU both carry SASS for, the newer CUDA is the one advised, and PyPI's own build where
    // one of them is; neither is better than the other to have.
    MachineFacts hopper = blackwell;
    hopper.gpus = {GpuArch{90, ArchVariant::generic}};
    const ReleaseFit on_hopper = fit_within_release(rows[1], rows, hopper, {3, 12});
    EXPECT_EQ(on_hopper.recommended, &rows[0]);
    EXPECT_FALSE(on_hopper.better_than(rows[1])) << "both run natively";
    std::vector<FrameworkBuildRow> pypi = rows;
    pypi[1].pypi_default = true;
    EXPECT_EQ(fit_within_release(pypi[0], pypi, hopper, {3, 12}).recommended, &pypi[1]);
    EXPECT_FALSE(fit_within_release(pypi[0], pypi, hopper, {3, 12}).better_than(pypi[0]));
}

// The binary end to end: the GPU machine's venv (torch 2.11.0+cu130; the fixture holds no
// libtorch_cuda.so, so its GPU code is not read), a fake libcuda of driver 580 (CUDA 13.0,
// cuDriverGetVersion 13000) with a P100 (CC 6.0). PyTorch 2.11.0's cu130 has no sm_60 code and its
// cu126 has (the table above), so frameworks.builds fails the build and names cu126 with the
// environment's own pip.
TEST(FrameworksBuildsFit, the_binary_names_the_better_build_of_a_crafted_environment) {
    test::TempDir dir;
    const std::string venv = dir.path() + "/venv";
    std::filesystem::copy(test::fixture_path("frameworks/h200-venv"), venv, std::filesystem::copy_options::recursive);
    std::filesystem::create_directory(venv + "/bin");
    std::filesystem::create_symlink("/usr/bin/python3", venv + "/bin/python3");
    const std::string report = dir.path() + "/report.json";
    const std::string fake_driver_dir = std::filesystem::path(CUDACHECK_FAKE_DRIVER).parent_path().string();
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "frameworks.builds", "--python", venv, "-q", "-o", report},
                            {{"LD_LIBRARY_PATH", fake_driver_dir},
                             {"FAKE_CUDA_CC", "6.0"},
                             {"FAKE_CUDA_DEVICE_NAME", "Tesla P100-PCIE-16GB"},
                             {"FAKE_CUDA_DRIVER_VERSION", "13000"},
                             {"CUDACHECK_CACHE_DIR", dir.path() + "/cache"}});
    ASSERT_FALSE(run.timed_out) << run.output;
    const nlohmann::json document = nlohmann::json::parse(test::read_text(report), nullptr, false);
    ASSERT_TRUE(document.is_object()) << run.output;
    const nlohmann::json* check = test::find_check(document, "frameworks.builds");
    ASSERT_NE(check, nullptr) << run.output;
    // JAX's cuda13 plugin of the fixture has no sm_60 either (its cuda12 plugin has): a finding of its own.
    const nlohmann::json* better = nullptr;
    const nlohmann::json* jax = nullptr;
    for (const nlohmann::json& finding : (*check)["findings"]) {
        if (finding["code"] == "CC643" && finding["subject"] == venv + ": PyTorch") better = &finding;
        if (finding["code"] == "CC643" && finding["subject"] == venv + ": JAX") jax = &finding;
    }
    ASSERT_NE(jax, nullptr) << check->dump(2);
    EXPECT_NE(std::string((*jax)["remediation"]).find("Install the cuda12 build"), std::string::npos) << check->dump(2);
    ASSERT_NE(better, nullptr) << check->dump(2);
    EXPECT_EQ((*better)["subject"], venv + ": PyTorch");
    EXPECT_EQ((*better)["status"], "fail");
    const std::string remediation = (*better)["remediation"];
    EXPECT_NE(remediation.find("Install the cu126 build: `" +
                               torch_command(venv + "/bin/python3 -m pip", "cu126", " torchvision") + "`"),
              std::string::npos)
        << remediation;
}

}  // namespace
}  // namespace cudacheck
