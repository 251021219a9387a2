// The toolkits as --level quick sees them (probes/toolkit_probe, run_nvcc false): from their files
// alone, no nvcc started. Each crafted nvcc here appends a line to a file when run, so a test can
// tell that it was not; the same tree with run_nvcc true shows that it would have been.
#include "support/fixtures.hpp"

#include "probes/toolkit_probe.hpp"
#include "util/environment.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

using namespace cudacheck;
using cudacheck::test::fixture_path;
using cudacheck::test::ScratchTree;
namespace fs = std::filesystem;

// The version.json of CUDA 13.0's installers, its first components verbatim (the file lists every
// component with its own version; nvcc's is the V13.0.88 `nvcc --version` prints).
constexpr const char* version_json_13_0 = R"({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "13.0.2"
   },
   "cuda_cccl" : {
      "name" : "CUDA C++ Core Compute Libraries",
      "version" : "13.0.85"
   },
   "cuda_nvcc" : {
      "name" : "CUDA NVCC",
      "version" : "13.0.88"
   }
})";

TEST(NvccVersionFromFiles, reads_the_nvcc_component_of_version_json) {
    const auto version = parse_nvcc_component_version(version_json_13_0);
    ASSERT_TRUE(version);
    EXPECT_EQ(version->release, "13.0");
    EXPECT_EQ(version->full, "13.0.88");
    EXPECT_FALSE(parse_nvcc_component_version(R"({"cuda":{"version":"13.0.2"}})")) << "no cuda_nvcc";
    EXPECT_FALSE(parse_nvcc_component_version(R"({"cuda_nvcc":{"version":"13"}})")) << "not x.y.z";
    EXPECT_FALSE(parse_nvcc_component_version(R"({"cuda_nvcc":{"version":"13.0.88junk"}})"));
    EXPECT_FALSE(parse_nvcc_component_version("CUDA Version 10.2.89")) << "version.txt has no components";
}

// cuda.h's CUDA_VERSION is major * 1000 + minor * 10 (CUDA 13.0's: "#define CUDA_VERSION 13000",
// line 263 of /usr/local/cuda-13.0/include/cuda.h); 12.4's is 12040.
TEST(NvccVersionFromFiles, reads_the_release_of_cuda_h) {
    const auto version = parse_cuda_h_version("#ifndef __cuda_cuda_h__\n/* ... */\n#define CUDA_VERSION 13000\n");
    ASSERT_TRUE(version);
    EXPECT_EQ(version->release, "13.0");
    EXPECT_EQ(version->full, "13.0");
    EXPECT_EQ(parse_cuda_h_version("#define CUDA_VERSION 12040")->release, "12.4");
    EXPECT_FALSE(parse_cuda_h_version("#define CUDA_VERSION_MAJOR 13"));
    EXPECT_FALSE(parse_cuda_h_version("#define CUDA_VERSION 99999999999999999999")) << "no overflow";
    EXPECT_FALSE(parse_cuda_h_version(""));
}

// A 12.4 toolkit whose nvcc (and a wrapper on PATH) logs each run to `ran`.
struct LoggingToolkit {
    ScratchTree tree;
    std::string ran = tree.path() + "/nvcc-ran";
    std::string root = tree.path() + "/usr/local/cuda-12.4";
    explicit LoggingToolkit(bool with_version_json) {
        tree.write("usr/local/cuda-12.4/bin/nvcc",
                   "#!/bin/sh\necho \"$1\" >> '" + ran + "'\ncase \"$1\" in --dryrun) echo '#$ _HERE_=" + root +
                       "/bin';; *) exec /bin/cat '" + fixture_path("nvcc/nvcc-12.4.txt") + "';; esac\n",
                   0755);
        tree.write("usr/local/cuda-12.4/bin/nvcc.profile", "TOP = $(_HERE_)/..\n");
        tree.write("usr/local/cuda-12.4/include/cuda.h", "/* cuda.h */\n#define CUDA_VERSION 12040\n");
        if (with_version_json)
            tree.write("usr/local/cuda-12.4/version.json",
                       R"({"cuda":{"version":"12.4.1"},"cuda_nvcc":{"version":"12.4.131"}})");
        tree.symlink("cuda-12.4", "usr/local/cuda");
        tree.write("usr/local/bin/nvcc", "#!/bin/sh\nexec " + root + "/bin/nvcc \"$@\"\n", 0755);
    }
    [[nodiscard]] std::string runs() const {
        std::ifstream in(ran);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
};

TEST(CollectToolkitsFromFiles, takes_nvcc_s_version_from_version_json_without_running_it) {
    LoggingToolkit toolkit(true);
    Environment environment;
    environment.set("PATH", toolkit.tree.path() + "/usr/local/cuda/bin");
    const ToolkitFacts facts = collect_toolkits(environment, toolkit.tree.path(), false);
    EXPECT_EQ(toolkit.runs(), "") << "nvcc was run";
    EXPECT_EQ(facts.path_nvcc_root, toolkit.root);
    ASSERT_TRUE(facts.nvcc_version);
    EXPECT_EQ(facts.nvcc_version->full, "12.4.131") << "the version `nvcc --version` prints (fixture nvcc-12.4.txt)";
    EXPECT_EQ(facts.nvcc_version_source, "version.json (cuda_nvcc)");
    EXPECT_FALSE(facts.nvcc_not_run.empty());
    EXPECT_EQ(facts.nvcc_failure, "");
    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].version, "12.4.1");

    // The same tree when programs may run: nvcc answers, with the same version.
    const ToolkitFacts ran = collect_toolkits(environment, toolkit.tree.path(), true);
    EXPECT_EQ(toolkit.runs(), "--version\n");
    EXPECT_EQ(ran.nvcc_version->full, facts.nvcc_version->full);
    EXPECT_TRUE(ran.nvcc_not_run.empty());
}

// Without version.json (a toolkit assembled from NVIDIA's wheels, as on the build machine), the
// release from cuda.h; the toolkit's own version is then that release.
TEST(CollectToolkitsFromFiles, falls_back_to_the_release_in_cuda_h) {
    LoggingToolkit toolkit(false);
    Environment environment;
    environment.set("PATH", toolkit.tree.path() + "/usr/local/cuda/bin");
    const ToolkitFacts facts = collect_toolkits(environment, toolkit.tree.path(), false);
    EXPECT_EQ(toolkit.runs(), "");
    ASSERT_TRUE(facts.nvcc_version);
    EXPECT_EQ(facts.nvcc_version->release, "12.4");
    EXPECT_EQ(facts.nvcc_version->full, "12.4");
    EXPECT_EQ(facts.nvcc_version_source, "include/cuda.h (CUDA_VERSION)");
    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].version, "12.4");
}

// A wrapper on PATH (no nvcc.profile beside it) is seen through only by running it (--dryrun):
// from files alone its toolkit stays unknown, rather than taken to be /usr/local, the directory
// above the wrapper's bin/.
TEST(CollectToolkitsFromFiles, leaves_a_wrapper_unresolved) {
    LoggingToolkit toolkit(true);
    Environment environment;
    environment.set("PATH", toolkit.tree.path() + "/usr/local/bin");
    const ToolkitFacts facts = collect_toolkits(environment, toolkit.tree.path(), false);
    EXPECT_EQ(toolkit.runs(), "");
    EXPECT_EQ(facts.path_nvcc, toolkit.tree.path() + "/usr/local/bin/nvcc");
    EXPECT_EQ(facts.path_nvcc_root, "");
    EXPECT_EQ(facts.toolkit_at(toolkit.tree.path() + "/usr/local"), nullptr);
    EXPECT_FALSE(facts.nvcc_version) << "the wrapper's toolkit is unknown";
    EXPECT_FALSE(facts.nvcc_not_run.empty());

    const ToolkitFacts ran = collect_toolkits(environment, toolkit.tree.path(), true);
    EXPECT_EQ(toolkit.runs(), "--dryrun\n--version\n");
    EXPECT_EQ(ran.path_nvcc_root, toolkit.root);
}

}  // namespace
