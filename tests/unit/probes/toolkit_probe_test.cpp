// Toolkits (probes/toolkit_probe): nvcc and ptxas output, version files, roots, crafted installs.
#include "support/fixtures.hpp"

#include "probes/toolkit_probe.hpp"
#include "util/environment.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using namespace cudacheck;
using cudacheck::test::fixture;
using cudacheck::test::fixture_path;
using cudacheck::test::ScratchTree;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// nvcc --version and ptxas --version

TEST(NvccVersion, parses_release_and_full_when_nvcc_13_0) {
    const auto version = parse_nvcc_version(fixture("nvcc/nvcc-13.0.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "13.0");
    EXPECT_EQ(version->full, "13.0.88");
}

TEST(NvccVersion, parses_release_and_full_when_nvcc_12_4) {
    const auto version = parse_nvcc_version(fixture("nvcc/nvcc-12.4.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "12.4");
    EXPECT_EQ(version->full, "12.4.131");
}

TEST(NvccVersion, parses_release_and_full_when_nvcc_11_8) {
    const auto version = parse_nvcc_version(fixture("nvcc/nvcc-11.8.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "11.8");
    EXPECT_EQ(version->full, "11.8.89");
}

TEST(NvccVersion, parses_release_and_full_when_ptxas_11_8) {
    const auto version = parse_nvcc_version(fixture("nvcc/ptxas-11.8.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "11.8");
    EXPECT_EQ(version->full, "11.8.89");
}

TEST(NvccVersion, parses_release_and_full_when_ptxas_12_1) {
    const auto version = parse_nvcc_version(fixture("nvcc/ptxas-12.1.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "12.1");
    EXPECT_EQ(version->full, "12.1.105");
}

TEST(NvccVersion, parses_release_and_full_when_ptxas_12_9) {
    const auto version = parse_nvcc_version(fixture("nvcc/ptxas-12.9.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "12.9");
    EXPECT_EQ(version->full, "12.9.86");
}

TEST(NvccVersion, returns_nothing_when_output_has_no_release_line) {
    EXPECT_FALSE(parse_nvcc_version("").has_value());
    EXPECT_FALSE(
        parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nBuild cuda_13.0.r13.0/compiler.36424714_0\n")
            .has_value());
}

// ---------------------------------------------------------------------------------------------
// version.json / version.txt

TEST(ToolkitVersionFile, reads_cuda_version_when_version_json) {
    EXPECT_EQ(parse_toolkit_version_file(R"({"cuda":{"name":"CUDA SDK","version":"13.0.2"}})"), "13.0.2");
}

TEST(ToolkitVersionFile, reads_cuda_version_when_json_has_other_components) {
    const std::string text = R"({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.4.1"
   },
   "cuda_cccl" : {
      "name" : "CUDA C++ Core Compute Libraries",
      "version" : "12.4.127"
   }
})";
    EXPECT_EQ(parse_toolkit_version_file(text), "12.4.1");
}

TEST(ToolkitVersionFile, reads_version_when_legacy_version_txt) {
    EXPECT_EQ(parse_toolkit_version_file("CUDA Version 10.2.89"), "10.2.89");
    EXPECT_EQ(parse_toolkit_version_file("CUDA Version 10.2.89\n"), "10.2.89");
}

TEST(ToolkitVersionFile, returns_empty_when_json_lacks_cuda_version) {
    EXPECT_EQ(parse_toolkit_version_file(R"({"cuda_nvcc":{"version":"13.0.88"}})"), "");
    EXPECT_EQ(parse_toolkit_version_file(R"({"cuda":{"name":"CUDA SDK","version":13}})"), "");
}

TEST(ToolkitVersionFile, returns_empty_when_text_unrecognised) {
    EXPECT_EQ(parse_toolkit_version_file(""), "");
    EXPECT_EQ(parse_toolkit_version_file("hello"), "");
}

// ---------------------------------------------------------------------------------------------
// toolkit_root_of and collect_toolkits on crafted trees

TEST(ToolkitRoot, resolves_symlinked_root_when_nvcc_under_cuda_link) {
    ScratchTree tree;
    tree.write("usr/local/cuda-12.4/bin/nvcc", "#!/bin/sh\n", 0755);
    tree.symlink("cuda-12.4", "usr/local/cuda");
    EXPECT_EQ(toolkit_root_of(tree.path() + "/usr/local/cuda/bin/nvcc"), tree.path() + "/usr/local/cuda-12.4");
}

TEST(ToolkitRoot, returns_empty_when_path_has_no_bin_directory) {
    EXPECT_EQ(toolkit_root_of("/nonexistent-cudacheck/nvcc"), "");
}

TEST(ToolkitRoot, strips_bin_when_path_does_not_exist) {
    EXPECT_EQ(toolkit_root_of("/nonexistent-cudacheck/cuda-9.9/bin/nvcc"), "/nonexistent-cudacheck/cuda-9.9");
}

// A toolkit tree: usr/local/cuda-12.4 with an nvcc script printing `nvcc_text`, and the
// usr/local/cuda symlink to it.
void make_cuda_12_4(const ScratchTree& tree, const std::string& nvcc_script) {
    tree.write("usr/local/cuda-12.4/bin/nvcc", nvcc_script, 0755);
    tree.write("usr/local/cuda-12.4/version.json", R"({"cuda":{"name":"CUDA SDK","version":"12.4.1"}})");
    tree.symlink("cuda-12.4", "usr/local/cuda");
}

std::string script_printing_fixture(const std::string& relative) {
    return "#!/bin/sh\nexec /bin/cat '" + fixture_path(relative) + "'\n";
}

TEST(CollectToolkits, runs_toolkit_nvcc_when_not_on_path) {
    ScratchTree tree;
    make_cuda_12_4(tree, script_printing_fixture("nvcc/nvcc-12.4.txt"));
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    const std::string root = tree.path() + "/usr/local/cuda-12.4";
    EXPECT_EQ(facts.path_nvcc, "");
    EXPECT_EQ(facts.cuda_symlink, root);
    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].root, root);
    EXPECT_EQ(facts.toolkits[0].version, "12.4.1");
    EXPECT_EQ(facts.toolkits[0].nvcc, root + "/bin/nvcc");
    EXPECT_EQ(facts.toolkits[0].found_as, (std::vector<std::string>{"/usr/local/cuda", "/usr/local/cuda-12.4"}));
    ASSERT_NE(facts.toolkit_at(root), nullptr);
    EXPECT_EQ(facts.toolkit_at(root)->version, "12.4.1");
    EXPECT_EQ(facts.toolkit_at(tree.path() + "/usr/local/cuda"), nullptr);
    EXPECT_EQ(facts.used_nvcc, root + "/bin/nvcc");
    EXPECT_EQ(facts.nvcc_failure, "");
    ASSERT_TRUE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_version->release, "12.4");
    EXPECT_EQ(facts.nvcc_version->full, "12.4.131");
}

TEST(CollectToolkits, prefers_path_nvcc_when_on_path) {
    ScratchTree tree;
    make_cuda_12_4(tree, script_printing_fixture("nvcc/nvcc-12.4.txt"));
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere:" + tree.path() + "/usr/local/cuda/bin");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    const std::string root = tree.path() + "/usr/local/cuda-12.4";
    EXPECT_EQ(facts.path_nvcc, tree.path() + "/usr/local/cuda/bin/nvcc");
    EXPECT_EQ(facts.used_nvcc, facts.path_nvcc);
    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].found_as,
              (std::vector<std::string>{"PATH", "/usr/local/cuda", "/usr/local/cuda-12.4"}));
    ASSERT_TRUE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_version->full, "12.4.131");
}

TEST(NvccDryrun, finds_the_directory_nvcc_runs_from_when_listed) {
    // Real `nvcc --dryrun -E -x cu /dev/null` output of CUDA 13.0, run as /usr/local/cuda/bin/nvcc.
    EXPECT_EQ(parse_nvcc_dryrun_here(fixture("nvcc/nvcc-13.0-dryrun.txt")), "/usr/local/cuda/bin");
    EXPECT_EQ(parse_nvcc_dryrun_here(fixture("nvcc/nvcc-13.0.txt")), "");
}

// usr/local/bin/nvcc is a wrapper script (as some images install) that runs the 12.4 toolkit's nvcc,
// which prints `--dryrun` output naming its own directory.
std::string make_nvcc_wrapper(const ScratchTree& tree) {
    const std::string bin = tree.path() + "/usr/local/cuda-12.4/bin";
    make_cuda_12_4(tree, "#!/bin/sh\ncase \"$1\" in --dryrun) echo '#$ _HERE_=" + bin + "';; *) exec /bin/cat '" +
                             fixture_path("nvcc/nvcc-12.4.txt") + "';; esac\n");
    tree.write("usr/local/cuda-12.4/bin/nvcc.profile", "TOP = $(_HERE_)/..\n");
    tree.write("usr/local/bin/nvcc", "#!/bin/sh\nexec " + bin + "/nvcc \"$@\"\n", 0755);
    return tree.path() + "/usr/local/bin/nvcc";
}

TEST(ResolveNvccRoot, sees_through_a_wrapper_script_when_nvcc_profile_is_absent) {
    ScratchTree tree;
    const std::string wrapper = make_nvcc_wrapper(tree);
    EXPECT_EQ(toolkit_root_of(wrapper), tree.path() + "/usr/local");
    EXPECT_EQ(resolve_nvcc_root(wrapper), tree.path() + "/usr/local/cuda-12.4");
    EXPECT_EQ(resolve_nvcc_root(tree.path() + "/usr/local/cuda/bin/nvcc"), tree.path() + "/usr/local/cuda-12.4");
}

// With TMPDIR set to "", nvcc writes its tmpxft_* files at / and leaves them there (measured with
// 13.0's --dryrun): the nvcc that is asked gets TMPDIR unset instead; any other value is passed on.
TEST(ResolveNvccRoot, asks_nvcc_without_an_empty_tmpdir) {
    ScratchTree tree;
    const std::string seen = tree.path() + "/tmpdir-seen";
    const std::string bin = tree.path() + "/usr/local/cuda-12.4/bin";
    make_cuda_12_4(tree, "#!/bin/sh\necho \"${TMPDIR-unset}\" >> '" + seen +
                             "'\ncase \"$1\" in --dryrun) echo '#$ _HERE_=" + bin + "';; *) exec /bin/cat '" +
                             fixture_path("nvcc/nvcc-12.4.txt") + "';; esac\n");
    tree.write("usr/local/bin/nvcc", "#!/bin/sh\nexec " + bin + "/nvcc \"$@\"\n", 0755);
    Environment environment;
    environment.set("PATH", tree.path() + "/usr/local/bin");
    environment.set("TMPDIR", "");
    const auto read_seen = [&seen] {
        std::ifstream in(seen);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const ToolkitFacts facts = collect_toolkits(environment, tree.path());
    EXPECT_EQ(facts.path_nvcc_root, tree.path() + "/usr/local/cuda-12.4");
    ASSERT_TRUE(facts.nvcc_version.has_value());
    EXPECT_EQ(read_seen(), "unset\nunset\n");  // --dryrun, then --version

    // Any other TMPDIR: nvcc runs in this process's environment, as every other child does.
    fs::remove(seen);
    environment.set("TMPDIR", "/var/tmp");
    (void)collect_toolkits(environment, tree.path());
    const char* own = std::getenv("TMPDIR");
    const std::string expected = own != nullptr ? own : "unset";
    EXPECT_EQ(read_seen(), expected + "\n" + expected + "\n");
}

TEST(CollectToolkits, credits_the_wrapped_toolkit_when_nvcc_on_path_is_a_wrapper) {
    ScratchTree tree;
    make_nvcc_wrapper(tree);
    fs::remove(tree.path() + "/usr/local/cuda-12.4/version.json");
    Environment environment;
    environment.set("PATH", tree.path() + "/usr/local/bin");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    const std::string root = tree.path() + "/usr/local/cuda-12.4";
    EXPECT_EQ(facts.path_nvcc, tree.path() + "/usr/local/bin/nvcc");
    EXPECT_EQ(facts.path_nvcc_root, root);
    ASSERT_EQ(facts.toolkits.size(), 1U) << "no toolkit at usr/local";
    EXPECT_EQ(facts.toolkits[0].found_as.front(), "PATH");
    EXPECT_EQ(facts.toolkits[0].version, "12.4.131") << "the version of the nvcc it runs";
}

TEST(CollectToolkits, ignores_cuda_home_when_directory_is_not_a_toolkit) {
    ScratchTree tree;
    make_cuda_12_4(tree, script_printing_fixture("nvcc/nvcc-12.4.txt"));
    const std::string stray = tree.make_dir("home/user/stray");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");
    environment.set("CUDA_HOME", stray);

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].root, tree.path() + "/usr/local/cuda-12.4");
}

TEST(CollectToolkits, lists_cuda_home_toolkit_when_it_has_version_txt) {
    ScratchTree tree;
    tree.write("opt/cuda-10.2/version.txt", "CUDA Version 10.2.89\n");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");
    environment.set("CUDA_HOME", tree.path() + "/opt/cuda-10.2");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].root, tree.path() + "/opt/cuda-10.2");
    EXPECT_EQ(facts.toolkits[0].version, "10.2.89");
    EXPECT_EQ(facts.toolkits[0].nvcc, "");
    EXPECT_EQ(facts.toolkits[0].found_as, (std::vector<std::string>{"CUDA_HOME"}));
    EXPECT_EQ(facts.used_nvcc, "");
    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.cuda_symlink, "");
}

TEST(CollectToolkits, records_exit_status_when_nvcc_fails) {
    ScratchTree tree;
    make_cuda_12_4(tree, "#!/bin/sh\necho 'nvcc broke'\nexit 3\n");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_failure, "exited with status 3: nvcc broke");
}

TEST(CollectToolkits, records_output_when_nvcc_output_unrecognised) {
    ScratchTree tree;
    make_cuda_12_4(tree, "#!/bin/sh\necho 'hello there'\n");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_failure, "unrecognised output: hello there");
}

TEST(CollectToolkits, finds_nothing_when_tree_empty) {
    ScratchTree tree;
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");
    const ToolkitFacts facts = collect_toolkits(environment, tree.path());
    EXPECT_TRUE(facts.toolkits.empty());
    EXPECT_EQ(facts.path_nvcc, "");
    EXPECT_EQ(facts.used_nvcc, "");
    EXPECT_EQ(facts.cuda_symlink, "");
    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_failure, "");
}

}  // namespace
