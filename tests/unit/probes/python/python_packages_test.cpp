// Reading installed distributions from their files (probes/python/python_packages.hpp), on the real
// metadata of the GPU machine's venv (tests/fixtures/frameworks/h200-venv) and on broken input.
#include "probes/python/python_packages.hpp"
#include "support/fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace cudacheck {
namespace {

const std::string site = test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages");

const Requirement* requirement(const DistributionMetadata& metadata, std::string_view name) {
    const auto found = std::find_if(metadata.requires_dist.begin(), metadata.requires_dist.end(),
                                    [&](const Requirement& r) { return r.name == name; });
    return found == metadata.requires_dist.end() ? nullptr : &*found;
}

TEST(PythonPackages, normalises_names_as_pep_503_does) {
    EXPECT_EQ(normalise_distribution_name("nvidia_cudnn_cu13"), "nvidia-cudnn-cu13");
    EXPECT_EQ(normalise_distribution_name("Jax_CUDA13.Plugin"), "jax-cuda13-plugin");
    EXPECT_EQ(normalise_distribution_name("a__b--c"), "a-b-c");
}

TEST(PythonPackages, lists_the_distributions_of_the_gpu_machines_venv) {
    const std::vector<InstalledDistribution> installed = installed_distributions(site);
    const auto version_of = [&](std::string_view name) -> std::string {
        for (const InstalledDistribution& distribution : installed)
            if (distribution.name == name) return distribution.version;
        return "";
    };
    EXPECT_EQ(version_of("torch"), "2.11.0");
    EXPECT_EQ(version_of("nvidia-cudnn-cu13"), "9.19.0.56");
    EXPECT_EQ(version_of("jax-cuda13-plugin"), "0.11.2");
    EXPECT_EQ(version_of("cupy-cuda13x"), "14.2.0");
    EXPECT_EQ(version_of("nvidia-cublas"), "13.1.0.3");
    EXPECT_TRUE(std::is_sorted(installed.begin(), installed.end(),
                               [](const auto& a, const auto& b) { return a.name < b.name; }));
    EXPECT_FALSE(parse_dist_info_name("torch.dist-info"));
    EXPECT_FALSE(parse_dist_info_name("torch-2.11.0.egg-info"));
}

TEST(PythonPackages, reads_torchs_pins_of_the_cuda_wheels_from_its_metadata) {
    const auto metadata = parse_metadata(
        test::fixture("frameworks/h200-venv/lib/python3.12/site-packages/torch-2.11.0.dist-info/METADATA"));
    ASSERT_TRUE(metadata);
    EXPECT_EQ(metadata->name, "torch");
    EXPECT_EQ(metadata->version, "2.11.0");  // PyPI's wheel: no +cu130 here (torch/version.py has it)
    EXPECT_EQ(metadata->unreadable_requirements, 0u);
    const Requirement* toolkit = requirement(*metadata, "cuda-toolkit");
    ASSERT_NE(toolkit, nullptr);
    EXPECT_EQ(toolkit->extras, "cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx");
    EXPECT_EQ(toolkit->specifier, "==13.0.2");
    EXPECT_EQ(toolkit->marker, "platform_system == \"Linux\"");
    const Requirement* cudnn = requirement(*metadata, "nvidia-cudnn-cu13");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->specifier, "==9.19.0.56");
    EXPECT_FALSE(cudnn->extra());
}

TEST(PythonPackages, reads_the_jax_plugins_minimums_under_its_with_cuda_extra) {
    const auto metadata = parse_metadata(
        test::fixture("frameworks/h200-venv/lib/python3.12/site-packages/jax_cuda13_plugin-0.11.2.dist-info/METADATA"));
    ASSERT_TRUE(metadata);
    const Requirement* cudnn = requirement(*metadata, "nvidia-cudnn-cu13");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->specifier, "<10.0,>=9.12.0.46");
    EXPECT_EQ(cudnn->extra(), "with-cuda");
    EXPECT_EQ(minimum_version(cudnn->specifier), "9.12.0.46");
    EXPECT_TRUE(satisfies("9.19.0.56", cudnn->specifier));  // the wheel installed beside it
    EXPECT_FALSE(satisfies("9.10.1", cudnn->specifier));
    EXPECT_FALSE(satisfies("10.0.0", cudnn->specifier));
}

TEST(PythonPackages, compares_versions_as_pep_440_release_numbers) {
    EXPECT_TRUE(satisfies("2.11.0+cu130", "==2.11.0"));
    EXPECT_TRUE(satisfies("9.19", "==9.19.0"));
    EXPECT_TRUE(satisfies("0.0.48.3", "==0.0.48.*"));
    EXPECT_FALSE(satisfies("0.0.49", "==0.0.48.*"));
    EXPECT_TRUE(satisfies("2.28.9", "~=2.28.0"));
    EXPECT_FALSE(satisfies("2.29.0", "~=2.28.0"));
    EXPECT_FALSE(satisfies("13.0.2", "!=13.0.2"));
    EXPECT_TRUE(satisfies("13.0.2", ""));
    EXPECT_EQ(minimum_version("<10"), std::nullopt);
}

TEST(PythonPackages, reads_the_literals_of_torchs_generated_version_file) {
    const PythonLiterals literals =
        parse_python_literals(test::fixture("frameworks/h200-venv/lib/python3.12/site-packages/torch/version.py"));
    ASSERT_TRUE(literals.contains("__version__"));
    EXPECT_EQ(literals.at("__version__"), "2.11.0+cu130");
    EXPECT_EQ(literals.at("cuda"), "13.0");  // annotated: cuda: Optional[str] = '13.0'
    ASSERT_TRUE(literals.contains("hip"));
    EXPECT_EQ(literals.at("hip"), std::nullopt);
    EXPECT_EQ(literals.at("debug"), "False");
    EXPECT_FALSE(literals.contains("__all__")) << "a list is not a literal value here";
}

TEST(PythonPackages, leaves_out_what_is_computed_at_import) {
    // torchvision's version.py sets cuda inside an if block, from a call.
    const PythonLiterals literals = parse_python_literals(
        test::fixture("frameworks/h200-venv/lib/python3.12/site-packages/torchvision/version.py"));
    EXPECT_EQ(literals.at("__version__"), "0.26.0+cu130");
    EXPECT_FALSE(literals.contains("cuda"));
    EXPECT_TRUE(parse_python_literals("x = 'a' + 'b'\ny = f()\nz = 'it\\'s'\nw == 1\n").size() == 1);
}

TEST(PythonPackages, refuses_garbage_metadata_and_requirements) {
    EXPECT_FALSE(
        parse_metadata(std::string("\x7f"
                                   "ELF\x02\x01\x01\0garbage",
                                   16)));
    EXPECT_FALSE(parse_metadata("Name: torch\n\nVersion: 2.11.0\n")) << "Version after the header block is the body";
    EXPECT_FALSE(parse_requirement("[cuda]"));
    EXPECT_FALSE(parse_requirement("torch[cuda"));
    EXPECT_FALSE(parse_requirement("torch 2.11"));
    const auto parsed =
        parse_metadata("Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Dist: ???\nRequires-Dist: y (>=2)\n");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->unreadable_requirements, 1u);
    ASSERT_EQ(parsed->requires_dist.size(), 1u);
    EXPECT_EQ(parsed->requires_dist[0].specifier, ">=2");
}

}  // namespace
}  // namespace cudacheck
