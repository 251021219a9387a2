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

}  // namespace
}  // namespace cudacheck
