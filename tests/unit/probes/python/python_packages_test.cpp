// Reading installed distributions from their files (probes/python/python_packages.hpp), on the real
// metadata of the GPU machine's venv (tests/fixtures/frameworks/h200-venv); the packaging rules are
// util/python_packaging's (tests/unit/util/python_packaging_test.cpp holds them to pip and packaging).
#include "probes/python/python_packages.hpp"
#include "probes/python/build_info.hpp"
#include "support/fixtures.hpp"
#include "util/python_packaging.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace cudacheck {
namespace {

const std::string site = test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages");

const packaging::Requirement* requirement(const packaging::Metadata& metadata, std::string_view name) {
    const auto found = std::find_if(metadata.requires_dist.begin(), metadata.requires_dist.end(),
                                    [&](const packaging::Requirement& r) { return r.normalized_name() == name; });
    return found == metadata.requires_dist.end() ? nullptr : &*found;
}

TEST(PythonPackages, names_a_dist_info_as_pep_503_normalises_it) {
    const auto plugin = parse_dist_info_name("Jax_CUDA13.Plugin-0.11.2.dist-info");
    ASSERT_TRUE(plugin);
    EXPECT_EQ(plugin->name, "jax-cuda13-plugin");
    EXPECT_EQ(plugin->version, "0.11.2");
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

// The METADATA of the GPU machine's venv, read by util/python_packaging (the one reader of it).
TEST(PythonPackages, reads_torchs_pins_of_the_cuda_wheels_from_its_metadata) {
    const auto metadata = packaging::parse_metadata(
        test::fixture("frameworks/h200-venv/lib/python3.12/site-packages/torch-2.11.0.dist-info/METADATA"));
    ASSERT_TRUE(metadata);
    EXPECT_EQ(metadata->name, "torch");
    EXPECT_EQ(metadata->version, "2.11.0");  // PyPI's wheel: no +cu130 here (torch/version.py has it)
    EXPECT_TRUE(metadata->unreadable_requirements.empty());
    const packaging::Requirement* toolkit = requirement(*metadata, "cuda-toolkit");
    ASSERT_NE(toolkit, nullptr);
    EXPECT_EQ(toolkit->extras.size(), 11u);
    EXPECT_EQ(toolkit->specifier.text(), "==13.0.2");
    EXPECT_EQ(toolkit->marker, "platform_system == \"Linux\"");
    const packaging::Requirement* cudnn = requirement(*metadata, "nvidia-cudnn-cu13");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->specifier.text(), "==9.19.0.56");
}

TEST(PythonPackages, reads_the_jax_plugins_minimums_under_its_with_cuda_extra) {
    const auto metadata = packaging::parse_metadata(
        test::fixture("frameworks/h200-venv/lib/python3.12/site-packages/jax_cuda13_plugin-0.11.2.dist-info/METADATA"));
    ASSERT_TRUE(metadata);
    const packaging::Requirement* cudnn = requirement(*metadata, "nvidia-cudnn-cu13");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->specifier.text(), "<10.0,>=9.12.0.46");
    const packaging::MarkerEnvironment linux_312 = marker_environment_of_site("/venv/lib/python3.12/site-packages");
    const std::string with_cuda = "with-cuda";
    EXPECT_TRUE(packaging::requirement_applies(*cudnn, linux_312, {&with_cuda, 1}).holds);
    EXPECT_FALSE(packaging::requirement_applies(*cudnn, linux_312).holds) << "only under its extra";
    EXPECT_TRUE(satisfies("9.19.0.56", cudnn->specifier.text()));  // the wheel installed beside it
    EXPECT_FALSE(satisfies("9.10.1", cudnn->specifier.text()));
    EXPECT_FALSE(satisfies("10.0.0", cudnn->specifier.text()));
}

TEST(PythonPackages, compares_versions_as_pip_check_does) {
    EXPECT_TRUE(satisfies("2.11.0+cu130", "==2.11.0"));
    EXPECT_TRUE(satisfies("9.19", "==9.19.0"));
    EXPECT_TRUE(satisfies("0.0.48.3", "==0.0.48.*"));
    EXPECT_FALSE(satisfies("0.0.49", "==0.0.48.*"));
    EXPECT_TRUE(satisfies("2.28.9", "~=2.28.0"));
    EXPECT_FALSE(satisfies("2.29.0", "~=2.28.0"));
    EXPECT_FALSE(satisfies("13.0.2", "!=13.0.2"));
    EXPECT_TRUE(satisfies("13.0.2", ""));
    EXPECT_TRUE(satisfies("2.12.0.dev20261201", ">=2.11")) << "pip check allows pre-releases of what is installed";
}

// Where the reader before util/python_packaging compared release numbers only, and was wrong. The
// ground truth, from packaging 26.4 (the test venv of tools/deps/test.sh):
//   SpecifierSet(s).contains(v, prereleases=True) for each (v, s) below is False.
TEST(PythonPackages, pre_post_dev_and_local_parts_count_as_pep_440_says) {
    EXPECT_FALSE(satisfies("2.0.0rc1", ">=2.0")) << "a release candidate comes before its release";
    EXPECT_FALSE(satisfies("1.0.post1", "==1.0")) << "a post-release is another version";
    EXPECT_FALSE(satisfies("2.12.0.dev20261201", "==2.12.0")) << "a nightly is not the release";
    EXPECT_FALSE(satisfies("2.11.0+cu130", "==2.11.0+cu126")) << "a specifier with a local part compares it";
    // What does not parse as PEP 440 claims no mismatch.
    EXPECT_TRUE(satisfies("not a version", ">=1.0"));
    EXPECT_TRUE(satisfies("1.0", ">=?"));
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

}  // namespace
}  // namespace cudacheck
