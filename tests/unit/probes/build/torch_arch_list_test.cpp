// probes/torch_arch_list: TORCH_CUDA_ARCH_LIST as torch/utils/cpp_extension.py reads it, with the
// tables read from that file. Where the interpreter the build found has torch (the GPU machine),
// the flags are compared with torch's own _get_cuda_arch_flags for the same values.
#include "probes/build/torch_arch_list.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;

// The shape torch writes its tables in (torch/utils/cpp_extension.py), with a few entries.
constexpr std::string_view crafted_source = R"(
    # Note: keep combined names ("arch1+arch2") above single names, otherwise
    # string replacement may not do the right thing
    named_arches = collections.OrderedDict([
        ('Ampere+Tegra', '8.7'),
        ('Ampere', '8.0;8.6+PTX'),
        ('Hopper', '9.0+PTX'),
    ])

    supported_arches = ['7.5', '8.0', '8.6', '8.7', '8.9', '9.0', '9.0a']
    valid_arch_strings = supported_arches + [s + "+PTX" for s in supported_arches]
)";

TorchArchTables crafted() {
    const std::optional<TorchArchTables> tables = read_torch_arch_tables(crafted_source);
    EXPECT_TRUE(tables.has_value());
    return tables.value_or(TorchArchTables{});
}

TEST(TorchArchList, reads_the_tables_in_the_files_order) {
    const TorchArchTables tables = crafted();
    ASSERT_EQ(tables.named.size(), 3u);
    EXPECT_EQ(tables.named[0], (std::pair<std::string, std::string>{"Ampere+Tegra", "8.7"}));
    EXPECT_EQ(tables.supported.back(), "9.0a");
    EXPECT_FALSE(read_torch_arch_tables("import os\n"));
}

TEST(TorchArchList, expands_names_and_makes_torchs_flags) {
    const TorchArchList hopper = parse_torch_cuda_arch_list("8.0 Hopper", crafted());
    EXPECT_FALSE(hopper.error) << *hopper.error;
    EXPECT_EQ(hopper.entries, (std::vector<std::string>{"8.0", "9.0+PTX"}));
    EXPECT_EQ(hopper.gencode_flags, (std::vector<std::string>{"-gencode=arch=compute_80,code=sm_80",
                                                              "-gencode=arch=compute_90,code=compute_90",
                                                              "-gencode=arch=compute_90,code=sm_90"}));
    EXPECT_EQ(parse_torch_cuda_arch_list("Ampere+Tegra", crafted()).entries, std::vector<std::string>{"8.7"})
        << "combined names first";
    EXPECT_EQ(parse_torch_cuda_arch_list("9.0a", crafted()).gencode_flags,
              std::vector<std::string>{"-gencode=arch=compute_90a,code=sm_90a"});
}

TEST(TorchArchList, an_entry_torch_does_not_know_is_its_error) {
    EXPECT_EQ(parse_torch_cuda_arch_list("8.0;8.7a", crafted()).error, "Unknown CUDA arch (8.7a) or GPU not supported");
    EXPECT_EQ(parse_torch_cuda_arch_list("8.0;", crafted()).error, "Unknown CUDA arch () or GPU not supported")
        << "a trailing ';'";
    EXPECT_EQ(parse_torch_cuda_arch_list("sm_90", crafted()).error, "Unknown CUDA arch (sm_90) or GPU not supported");
    EXPECT_TRUE(parse_torch_cuda_arch_list("sm_90", crafted()).gencode_flags.empty());
}

TEST(TorchArchList, agrees_with_torch_itself_where_torch_is_installed) {
    const sys::CommandResult where =
        sys::run_command({CUDACHECK_CLIENT_PYTHON, "-c", "import torch.utils.cpp_extension as c; print(c.__file__)"},
                         std::chrono::seconds(120));
    if (where.exit_status != 0) GTEST_SKIP() << "no torch for " << CUDACHECK_CLIENT_PYTHON;
    const std::string file(sys::trim(where.output.substr(where.output.rfind('\n', where.output.size() - 2) + 1)));
    const std::optional<TorchArchTables> tables = read_torch_arch_tables(test::read_text(file));
    ASSERT_TRUE(tables.has_value()) << file;
    for (const char* value : {"9.0", "8.0;8.6;9.0+PTX", "Ampere Hopper", "7.5 8.0+PTX", "9.0a", "8.7a", "Blackwell",
                              "12.0+PTX;10.0", "8.0;"}) {
        SCOPED_TRACE(value);
        const std::vector<std::string> environment = {std::string("TORCH_CUDA_ARCH_LIST=") + value,
                                                      "PATH=/usr/bin:/bin"};
        const sys::CommandResult torch =
            sys::run_command({CUDACHECK_CLIENT_PYTHON, "-c",
                              "import torch.utils.cpp_extension as c\ntry:\n print(' "
                              "'.join(c._get_cuda_arch_flags()))\nexcept ValueError as e:\n print('ERROR', e)"},
                             std::chrono::seconds(120), &environment);
        ASSERT_EQ(torch.exit_status, 0) << torch.output;
        const std::string said(sys::trim(torch.output.substr(torch.output.rfind('\n', torch.output.size() - 2) + 1)));
        const TorchArchList ours = parse_torch_cuda_arch_list(value, *tables);
        if (ours.error) {
            EXPECT_EQ(said, "ERROR " + *ours.error);
        } else {
            std::string joined;
            for (const std::string& flag : ours.gencode_flags) joined += (joined.empty() ? "" : " ") + flag;
            EXPECT_EQ(said, joined);
        }
    }
}

}  // namespace
}  // namespace cudacheck
