// --level quick reads files and asks NVML only: no program is started (quick had grown from 33 to
// 45 ms on the H200 as checks that run nvcc joined it). An nvcc on PATH that logs each
// run tells: the quick run leaves the log empty, the default run writes it.
#include "support/fixtures.hpp"
#include "support/test_support.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using test::contains;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string evidence(const nlohmann::json& check, const std::string& key) {
    for (const auto& item : check["evidence"])
        if (item["key"] == key) return item["value"].get<std::string>();
    return {};
}

TEST(QuickLevel, starts_no_program_and_says_what_it_left_to_standard) {
    test::ScratchTree tree;
    const std::string ran = tree.path() + "/nvcc-ran";
    const std::string root = tree.path() + "/cuda-13.0";
    tree.write("cuda-13.0/bin/nvcc",
               "#!/bin/sh\necho \"$1\" >> '" + ran + "'\nexec /bin/cat '" + test::fixture_path("nvcc/nvcc-13.0.txt") +
                   "'\n",
               0755);
    tree.write("cuda-13.0/bin/nvcc.profile", "TOP = $(_HERE_)/..\n");
    tree.write("cuda-13.0/version.json", R"({"cuda":{"version":"13.0.2"},"cuda_nvcc":{"version":"13.0.88"}})");
    const std::vector<std::pair<std::string, std::string>> environment{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                       {"PATH", root + "/bin:/usr/bin:/bin"},
                                                                       {"CUDA_HOME", root}};

    const test::BinaryRun quick = test::run_cudacheck({"--level", "quick", "--only", "toolkit.nvcc,cuda.pairing",
                                                       "--format", "json", "-o", tree.path() + "/quick.json"},
                                                      environment);
    EXPECT_EQ(read_all(ran), "") << "--level quick ran nvcc: " << quick.output;
    const auto report = nlohmann::json::parse(read_all(tree.path() + "/quick.json"));
    const auto* nvcc = test::find_check(report, "toolkit.nvcc");
    ASSERT_NE(nvcc, nullptr) << report.dump(1);
    // A warning is possible where the machine's own /usr/local/cuda is another toolkit (CC304).
    EXPECT_NE((*nvcc)["status"], "fail") << nvcc->dump(1);
    EXPECT_NE((*nvcc)["status"], "error") << nvcc->dump(1);
    EXPECT_EQ(evidence(*nvcc, "nvcc_version"),
              "13.0.88 (version.json (cuda_nvcc); nvcc not run: --level quick reads files only (--level standard runs "
              "`nvcc --version`))");
    const auto* pairing = test::find_check(report, "cuda.pairing");
    ASSERT_NE(pairing, nullptr);
    EXPECT_EQ(evidence(*pairing, "nvcc"), "13.0.88") << pairing->dump(1);
    EXPECT_TRUE(contains(evidence(*pairing, "nvcc_source"), "version.json")) << pairing->dump(1);

    // The default level runs it, and finds the version the files gave.
    const test::BinaryRun standard =
        test::run_cudacheck({"--only", "toolkit.nvcc", "--format", "json", "-o", tree.path() + "/standard.json"},
                            environment);
    EXPECT_EQ(read_all(ran), "--version\n") << standard.output;
    const auto ran_report = nlohmann::json::parse(read_all(tree.path() + "/standard.json"));
    EXPECT_EQ(evidence(*test::find_check(ran_report, "toolkit.nvcc"), "nvcc_version"), "13.0.88");
}

}  // namespace
}  // namespace cudacheck
