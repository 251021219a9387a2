// What each framework was built for, read from its files (probes/python/build_info.hpp): the GPU
// machine's real torch cu130, torchvision, JAX with the CUDA 13 plugin and CuPy cuda13x, and
// environments with a CPU-only torch, a JAX without plugin and damaged metadata.
#include "probes/python/build_info.hpp"
#include "support/fixtures.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace cudacheck {
namespace {

const std::string h200_site = test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages");

std::vector<FrameworkBuild> builds_in(const std::string& site) {
    return read_framework_builds(site, installed_distributions(site));
}

const FrameworkBuild* find(const std::vector<FrameworkBuild>& builds, std::string_view framework) {
    for (const FrameworkBuild& build : builds)
        if (build.framework == framework) return &build;
    return nullptr;
}

const packaging::Requirement* wheel(const FrameworkBuild& build, std::string_view name) {
    for (const packaging::Requirement& requirement : build.cuda_wheels)
        if (requirement.normalized_name() == name) return &requirement;
    return nullptr;
}

TEST(FrameworkBuilds, reads_the_cuda_builds_of_the_gpu_machines_frameworks_as_they_report_them) {
    // docs/examples/h200/frameworks: torch.__version__ 2.11.0+cu130, torch.version.cuda 13.0.
    const std::vector<FrameworkBuild> builds = builds_in(h200_site);
    const FrameworkBuild* torch = find(builds, "PyTorch");
    ASSERT_NE(torch, nullptr);
    EXPECT_EQ(torch->version, "2.11.0+cu130");
    EXPECT_EQ(torch->accelerator, Accelerator::cuda);
    EXPECT_EQ(torch->cuda, "13.0");
    EXPECT_EQ(torch->cuda_major, 13);
    EXPECT_EQ(torch->rocm, std::nullopt);
    ASSERT_NE(wheel(*torch, "nvidia-cudnn-cu13"), nullptr);
    EXPECT_EQ(wheel(*torch, "nvidia-cudnn-cu13")->specifier.text(), "==9.19.0.56");
    EXPECT_EQ(wheel(*torch, "nvidia-nccl-cu13")->specifier.text(), "==2.28.9");
    EXPECT_EQ(wheel(*torch, "cuda-toolkit")->specifier.text(), "==13.0.2");
    EXPECT_TRUE(torch->problems.empty()) << torch->problems.front();

    const FrameworkBuild* vision = find(builds, "torchvision");
    ASSERT_NE(vision, nullptr);
    EXPECT_EQ(vision->version, "0.26.0+cu130");
    EXPECT_EQ(vision->cuda, "13.0");
    EXPECT_EQ(vision->requires_torch, "==2.11.0");

    const FrameworkBuild* jax = find(builds, "JAX");
    ASSERT_NE(jax, nullptr);
    EXPECT_EQ(jax->distribution, "jax-cuda13-plugin");
    EXPECT_EQ(jax->version, "0.11.2");
    EXPECT_EQ(jax->cuda_major, 13);
    ASSERT_NE(wheel(*jax, "nvidia-cudnn-cu13"), nullptr);
    EXPECT_EQ(wheel(*jax, "nvidia-cudnn-cu13")->specifier.text(), "<10.0,>=9.12.0.46");
    ASSERT_NE(wheel(*jax, "nvidia-nvvm"), nullptr);
    EXPECT_EQ(wheel(*jax, "nvidia-nvvm")->specifier.text(), "") << "any version";
    EXPECT_EQ(wheel(*jax, "jax-cuda13-pjrt"), nullptr) << "not a CUDA library";
    EXPECT_TRUE(jax->problems.empty()) << jax->problems.front();

    const FrameworkBuild* cupy = find(builds, "CuPy");
    ASSERT_NE(cupy, nullptr);
    EXPECT_EQ(cupy->distribution, "cupy-cuda13x");
    EXPECT_EQ(cupy->version, "14.2.0");
    EXPECT_EQ(cupy->cuda, "13.x");
    EXPECT_EQ(cupy->cuda_major, 13);
    EXPECT_TRUE(cupy->problems.empty()) << cupy->problems.front();

    ASSERT_NE(find(builds, "triton"), nullptr);
    EXPECT_EQ(find(builds, "triton")->version, "3.6.0");
}

TEST(FrameworkBuilds, maps_pytorch_local_versions_to_cuda_releases) {
    EXPECT_EQ(cuda_of_local_version("2.11.0+cu130"), "13.0");
    EXPECT_EQ(cuda_of_local_version("2.7.1+cu118"), "11.8");
    EXPECT_EQ(cuda_of_local_version("0.22.1+cu126"), "12.6");
    EXPECT_EQ(cuda_of_local_version("2.11.0+cpu"), std::nullopt);
    EXPECT_EQ(cuda_of_local_version("2.11.0"), std::nullopt);
    EXPECT_EQ(cuda_of_local_version("2.11.0+cuXYZ"), std::nullopt);
}

// A site-packages made from the GPU machine's files, then edited as a test needs.
struct EditedSite {
    test::ScratchTree tree;
    std::string site = tree.path() + "/site-packages";
    EditedSite() { std::filesystem::copy(h200_site, site, std::filesystem::copy_options::recursive); }
};

TEST(FrameworkBuilds, tells_a_cpu_only_torch_and_a_jax_without_its_cuda_plugin) {
    EditedSite edited;
    // PyTorch's CPU wheels generate cuda = None and hip = None.
    edited.tree.write("site-packages/torch/version.py",
                      "__version__ = '2.11.0+cpu'\ndebug = False\ncuda: Optional[str] = None\nhip: Optional[str] = "
                      "None\n");
    std::filesystem::remove_all(edited.site + "/jax_cuda13_plugin-0.11.2.dist-info");
    const std::vector<FrameworkBuild> builds = builds_in(edited.site);
    ASSERT_NE(find(builds, "PyTorch"), nullptr);
    EXPECT_EQ(find(builds, "PyTorch")->accelerator, Accelerator::cpu);
    EXPECT_EQ(find(builds, "PyTorch")->cuda_major, std::nullopt);
    ASSERT_NE(find(builds, "JAX"), nullptr);
    EXPECT_EQ(find(builds, "JAX")->accelerator, Accelerator::cpu);
    EXPECT_EQ(find(builds, "JAX")->distribution, "jaxlib");
}

// The CUDA wheels of a framework are the Requires-Dist whose PEP 508 marker holds for the
// interpreter of the site-packages (its Python from the path) on this machine, as pip decides. The
// reader before util/python_packaging looked for `extra == "..."` in the marker's text and ignored
// the rest: it took `"opt" == extra` for a requirement of no extra, and kept pins for another
// machine and another Python. Ground truth, packaging 26.4 with python_version 3.12 and
// platform_machine x86_64 or aarch64: Marker('"opt" == extra').evaluate({"extra": ""}) is False,
// 'platform_machine == "s390x"' False, 'python_version >= "3.12"' True, 'python_version < "3.12"' False.
TEST(FrameworkBuilds, leaves_out_cuda_wheels_whose_marker_is_false_for_the_interpreter) {
    const std::string metadata =
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n"
        "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"\n"
        "Requires-Dist: nvidia-nccl-cu13==2.28.9; \"opt\" == extra\n"
        "Requires-Dist: nvidia-cublas==13.1.0.3; platform_machine == \"s390x\"\n"
        "Requires-Dist: nvidia-cufft==12.0.0.61; python_version >= \"3.12\"\n"
        "Requires-Dist: nvidia-curand==10.4.0.35; python_version < \"3.12\"\n";
    const auto wheels_in = [&](const std::string& relative) {
        test::ScratchTree tree;
        const std::string site = tree.path() + "/" + relative;
        std::filesystem::create_directories(std::filesystem::path(site).parent_path());
        std::filesystem::copy(h200_site, site, std::filesystem::copy_options::recursive);
        tree.write(relative + "/torch-2.11.0.dist-info/METADATA", metadata);
        const std::vector<FrameworkBuild> builds = builds_in(site);
        std::vector<std::string> names;
        if (const FrameworkBuild* torch = find(builds, "PyTorch"); torch != nullptr)
            for (const packaging::Requirement& requirement : torch->cuda_wheels)
                names.push_back(requirement.normalized_name());
        return names;
    };
    EXPECT_EQ(wheels_in("lib/python3.12/site-packages"),
              (std::vector<std::string>{"nvidia-cudnn-cu13", "nvidia-cufft"}));
    // Debian's dist-packages names no minor: a marker on the Python version is undecided, and kept.
    EXPECT_EQ(wheels_in("lib/python3/dist-packages"),
              (std::vector<std::string>{"nvidia-cudnn-cu13", "nvidia-cufft", "nvidia-curand"}));
}

TEST(FrameworkBuilds, takes_the_python_version_of_the_markers_from_the_site_packages_path) {
    EXPECT_EQ(marker_environment_of_site("/opt/torch/.venv/lib/python3.12/site-packages").python_version, "3.12");
    EXPECT_EQ(marker_environment_of_site("/usr/lib64/python3.13t/site-packages").python_version, "3.13");
    EXPECT_EQ(marker_environment_of_site("/usr/lib/python3/dist-packages").python_version, "");
    EXPECT_EQ(marker_environment_of_site("/home/u/python3.x/lib/python3.11/site-packages").python_version, "3.11");
    EXPECT_EQ(marker_environment_of_site("/usr/lib/python3.12/site-packages").python_full_version, "")
        << "not in the files";
}

TEST(FrameworkBuilds, names_each_damaged_file_and_keeps_what_it_could_read) {
    EditedSite edited;
    edited.tree.write("site-packages/torch/version.py", std::string("\x00\x01garbage\xff", 11));
    edited.tree.write("site-packages/cupy/.data/_wheel.json", "{\"cuda\": ");
    edited.tree.write("site-packages/torchvision-0.26.0.dist-info/METADATA", "not metadata at all\n");
    const std::vector<FrameworkBuild> builds = builds_in(edited.site);
    const FrameworkBuild* torch = find(builds, "PyTorch");
    ASSERT_NE(torch, nullptr);
    EXPECT_EQ(torch->version, "2.11.0") << "the dist-info's version remains";
    EXPECT_EQ(torch->accelerator, Accelerator::unknown);
    ASSERT_EQ(torch->problems.size(), 2u);
    EXPECT_NE(torch->problems[0].find("torch/version.py: no __version__"), std::string::npos) << torch->problems[0];
    const FrameworkBuild* cupy = find(builds, "CuPy");
    ASSERT_NE(cupy, nullptr);
    ASSERT_EQ(cupy->problems.size(), 1u);
    EXPECT_NE(cupy->problems[0].find("_wheel.json"), std::string::npos) << cupy->problems[0];
    EXPECT_EQ(cupy->cuda_major, 13) << "the package name still says it";
    const FrameworkBuild* vision = find(builds, "torchvision");
    ASSERT_NE(vision, nullptr);
    ASSERT_EQ(vision->problems.size(), 1u);
    EXPECT_NE(vision->problems[0].find("METADATA: METADATA has no Name header"), std::string::npos)
        << vision->problems[0];
    std::filesystem::remove(edited.site + "/torch/version.py");
    const std::vector<FrameworkBuild> without_version_file = builds_in(edited.site);
    const FrameworkBuild* without = find(without_version_file, "PyTorch");
    ASSERT_NE(without, nullptr);
    ASSERT_FALSE(without->problems.empty());
    EXPECT_NE(without->problems[0].find("torch/version.py: missing or unreadable"), std::string::npos)
        << without->problems[0];
}

using test::ReleasedWheels;

TEST(FrameworkBuilds, reads_older_and_cpu_builds_of_torch_from_their_released_files) {
    const ReleasedWheels cu126({"torch-2.7.1"});
    const std::vector<FrameworkBuild> cu126_builds = builds_in(cu126.site);
    const FrameworkBuild* torch = find(cu126_builds, "PyTorch");
    ASSERT_NE(torch, nullptr);
    EXPECT_EQ(torch->version, "2.7.1+cu126");
    EXPECT_EQ(torch->cuda, "12.6");
    ASSERT_NE(wheel(*torch, "nvidia-cudnn-cu12"), nullptr);
    EXPECT_EQ(wheel(*torch, "nvidia-cudnn-cu12")->specifier.text(), "==9.5.1.17");
    const ReleasedWheels cu117({"torch-2.0.1"});  // version.py without annotations: cuda = '11.7'
    const std::vector<FrameworkBuild> cu117_builds = builds_in(cu117.site);
    ASSERT_NE(find(cu117_builds, "PyTorch"), nullptr);
    EXPECT_EQ(find(cu117_builds, "PyTorch")->cuda, "11.7");
    const ReleasedWheels cpu({"torch-2.5.1-aarch64"});  // PyPI's aarch64 torch 2.5.1: cuda = None
    const std::vector<FrameworkBuild> cpu_builds = builds_in(cpu.site);
    ASSERT_NE(find(cpu_builds, "PyTorch"), nullptr);
    EXPECT_EQ(find(cpu_builds, "PyTorch")->accelerator, Accelerator::cpu);
}

TEST(FrameworkBuilds, reads_what_xformers_and_torchvision_were_built_against) {
    const ReleasedWheels wheels({"torch-2.7.1", "xformers-0.0.30", "torchvision-0.22.1"});
    const std::vector<FrameworkBuild> builds = builds_in(wheels.site);
    const FrameworkBuild* xformers = find(builds, "xformers");
    ASSERT_NE(xformers, nullptr);
    EXPECT_EQ(xformers->cuda, "12.6");  // cpp_lib.json: "cuda": 1206
    EXPECT_EQ(xformers->built_with_torch, "2.7.0+cu126");
    EXPECT_EQ(xformers->requires_torch, "==2.7.0");
    EXPECT_EQ(xformers->architectures, (std::vector<std::string>{"6.0+PTX", "7.0", "7.5", "8.0+PTX", "9.0a"}));
    EXPECT_TRUE(xformers->problems.empty()) << xformers->problems.front();
    const FrameworkBuild* vision = find(builds, "torchvision");
    ASSERT_NE(vision, nullptr);
    EXPECT_EQ(vision->requires_torch, "==2.7.1");
    EXPECT_EQ(vision->cuda, "12.6");
}

TEST(FrameworkBuilds, reads_tensorflows_generated_build_info) {
    const ReleasedWheels wheels({"tensorflow-2.17.0"});
    const std::vector<FrameworkBuild> builds = builds_in(wheels.site);
    const FrameworkBuild* tensorflow = find(builds, "TensorFlow");
    ASSERT_NE(tensorflow, nullptr);
    EXPECT_EQ(tensorflow->accelerator, Accelerator::cuda);
    EXPECT_EQ(tensorflow->cuda, "12.3");
    EXPECT_EQ(tensorflow->cudnn, "8");
    EXPECT_EQ(tensorflow->architectures, (std::vector<std::string>{"sm_60", "sm_70", "sm_80", "sm_89", "compute_90"}));
    ASSERT_NE(wheel(*tensorflow, "nvidia-cudnn-cu12"), nullptr);  // under its "and-cuda" extra
    EXPECT_EQ(wheel(*tensorflow, "nvidia-cudnn-cu12")->specifier.text(), "==8.9.7.29");
    EXPECT_TRUE(parse_tensorflow_build_info("build_info = collections.OrderedDict([('a', ").empty());
    EXPECT_EQ(parse_tensorflow_build_info("x = OrderedDict([('a', 'b'), ('c', [1, 2]), ('d'").size(), 2u);
}

TEST(FrameworkBuilds, reads_an_older_jax_plugin_whose_extra_is_spelt_with_an_underscore) {
    const ReleasedWheels wheels({"jax-cuda12-plugin-0.4.30", "cupy-cuda12x-13.4.1"});
    const std::vector<FrameworkBuild> builds = builds_in(wheels.site);
    const FrameworkBuild* jax = find(builds, "JAX");
    ASSERT_NE(jax, nullptr);
    EXPECT_EQ(jax->cuda_major, 12);
    ASSERT_NE(wheel(*jax, "nvidia-cudnn-cu12"), nullptr) << "extra == 'with_cuda' is the with-cuda extra (PEP 685)";
    EXPECT_EQ(wheel(*jax, "nvidia-cudnn-cu12")->specifier.text(), "<10.0,>=9.0");
    const FrameworkBuild* cupy = find(builds, "CuPy");
    ASSERT_NE(cupy, nullptr);
    EXPECT_EQ(cupy->cuda, "12.x");
    EXPECT_EQ(cupy->cuda_major, 12);
}

}  // namespace
}  // namespace cudacheck
