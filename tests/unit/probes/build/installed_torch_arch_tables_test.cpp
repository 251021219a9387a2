// probes/build/torch_arch_list's reading of an installed torch's cpp_extension.py, found beside the
// torch/version.py a framework's build was read from, on trees made here.
#include "probes/build/torch_arch_list.hpp"

#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;

constexpr std::string_view tables_source = R"(
    named_arches = collections.OrderedDict([
        ('Hopper', '9.0+PTX'),
    ])
    supported_arches = ['8.0', '9.0', '9.0a']
)";

TEST(InstalledTorchArchTables, read_beside_torchs_version_py) {
    test::TempDir tree;
    const std::string version = tree.write("site-packages/torch/version.py", "__version__ = '2.11.0'\n");
    tree.write("site-packages/torch/utils/cpp_extension.py", tables_source);
    const InstalledTorchArchTables installed =
        read_installed_torch_arch_tables({tree.path() + "/site-packages/torch/__init__.py", version});
    ASSERT_TRUE(installed.tables.has_value()) << installed.problem;
    EXPECT_EQ(installed.tables->supported, (std::vector<std::string>{"8.0", "9.0", "9.0a"}));
    EXPECT_TRUE(installed.problem.empty());
}

TEST(InstalledTorchArchTables, each_missing_piece_is_its_own_problem) {
    test::TempDir tree;
    EXPECT_EQ(read_installed_torch_arch_tables({tree.path() + "/torch/__init__.py"}).problem,
              "torch/utils/cpp_extension.py not found");
    const std::string version = tree.write("torch/version.py", "");
    InstalledTorchArchTables installed = read_installed_torch_arch_tables({version});
    EXPECT_FALSE(installed.tables.has_value());
    EXPECT_TRUE(contains(installed.problem, "/torch/utils/cpp_extension.py cannot be read")) << installed.problem;
    tree.write("torch/utils/cpp_extension.py", "# no tables here\n");
    installed = read_installed_torch_arch_tables({version});
    EXPECT_FALSE(installed.tables.has_value());
    EXPECT_TRUE(contains(installed.problem, "has no named_arches/supported_arches")) << installed.problem;
}

// _get_cuda_arch_flags's branch for an unset list, as torch 2.15.0's torch/utils/cpp_extension.py
// writes it (abridged to the lines read), and a builder that guards the empty list.
constexpr std::string_view default_branch_source = R"(
    _arch_list = os.environ.get('TORCH_CUDA_ARCH_LIST', None)
    if not _arch_list or _arch_list == "native":
        arch_list = []
        for i in range(torch.cuda.device_count()):
            arch_list.append(arch)
        arch_list = sorted(arch_list)
        arch_list[-1] += '+PTX'
)";

TEST(InstalledTorchArchTables, reads_what_the_builder_does_without_a_list) {
    const TorchDefaultArchList torch_2_15 = read_torch_default_arch_list(default_branch_source);
    EXPECT_EQ(torch_2_15.raises_without_gpu, true);
    EXPECT_TRUE(torch_2_15.accepts_native);
    const TorchDefaultArchList guarded = read_torch_default_arch_list(
        "    if not _arch_list:\n        arch_list = visible()\n        if arch_list:\n            arch_list[-1] = "
        "arch_list[-1] + '+PTX'\n");
    EXPECT_EQ(guarded.raises_without_gpu, false);
    EXPECT_FALSE(guarded.accepts_native) << "torch 1.x had no \"native\"";
    // Read beside torch/version.py with the tables; nothing known when the file is absent.
    test::TempDir tree;
    const std::string version = tree.write("torch/version.py", "");
    EXPECT_FALSE(read_installed_torch_arch_tables({version}).default_list.raises_without_gpu.has_value());
    tree.write("torch/utils/cpp_extension.py", std::string(tables_source) + std::string(default_branch_source));
    const InstalledTorchArchTables installed = read_installed_torch_arch_tables({version});
    ASSERT_TRUE(installed.tables.has_value()) << installed.problem;
    EXPECT_EQ(installed.default_list.raises_without_gpu, true);
}

}  // namespace
}  // namespace cudacheck
