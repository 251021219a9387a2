// The loader simulation (probes/load_closure.hpp) on a crafted venv laid out as PyTorch's wheels
// are, with a libtorch_cuda.so stand-in carrying the real one's DT_RPATH (or the same path as
// DT_RUNPATH), the wheel's cuDNN and a system cuDNN on LD_LIBRARY_PATH.
#include "probes/load_closure.hpp"
#include "support/fixtures.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
const std::string fixtures = CUDACHECK_ELF_FIXTURES;

struct TorchVenv {
    test::ScratchTree tree;
    std::string site = tree.path() + "/venv/lib/python3.12/site-packages";
    std::string system = tree.path() + "/usr/lib/x86_64-linux-gnu";
    explicit TorchVenv(const std::string& torch = "libtorch_cuda_rpath.so") {
        place(torch, site + "/torch/lib/libtorch_cuda.so");
        place("libcudnn_stand_in.so", site + "/nvidia/cudnn/lib/libcudnn.so.9");
        place("libcudart_stand_in.so", site + "/nvidia/cu13/lib/libcudart.so.13");
        place("libcudnn_stand_in.so", system + "/libcudnn.so.9");
    }
    static void place(const std::string& fixture, const std::string& to) {
        fs::create_directories(fs::path(to).parent_path());
        fs::copy_file(fixtures + "/" + fixture, to);
    }
    // The system cuDNN's directory first on LD_LIBRARY_PATH (a scenario of issue 17).
    [[nodiscard]] LoaderSearch search() const {
        LoaderSearch search;
        search.ld_library_path = {system};
        return search;
    }
    [[nodiscard]] LoadClosure closure(const std::vector<std::pair<std::string, std::string>>& preloaded = {}) const {
        DirectoryListings listings;
        return load_closure(site + "/torch/lib/libtorch_cuda.so", search(), listings, preloaded);
    }
};

TEST(LoadClosure, takes_the_wheels_cudnn_through_dt_rpath_even_with_the_system_cudnn_first_on_ld_library_path) {
    const TorchVenv venv;
    const LoadClosure closure = venv.closure();
    EXPECT_TRUE(closure.problems.empty()) << closure.problems.front();
    const LoadedObject* cudnn = closure.find("libcudnn.so.9");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->needed_by, "libtorch_cuda.so");
    EXPECT_EQ(cudnn->resolution.path, venv.site + "/nvidia/cudnn/lib/libcudnn.so.9");
    EXPECT_EQ(cudnn->resolution.rule, "DT_RPATH of libtorch_cuda.so (" + venv.site + "/nvidia/cudnn/lib)");
    const LoadedObject* cudart = closure.find("libcudart.so.13");
    ASSERT_NE(cudart, nullptr);
    EXPECT_EQ(cudart->resolution.path, venv.site + "/nvidia/cu13/lib/libcudart.so.13");
}

TEST(LoadClosure, lets_ld_library_path_win_over_dt_runpath) {
    const TorchVenv venv("libtorch_cuda_runpath.so");
    const LoadClosure closure = venv.closure();
    const LoadedObject* cudnn = closure.find("libcudnn.so.9");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->resolution.path, venv.system + "/libcudnn.so.9");
    EXPECT_EQ(cudnn->resolution.rule, "LD_LIBRARY_PATH entry " + venv.system);
    // What LD_LIBRARY_PATH lacks still comes through the RUNPATH.
    const LoadedObject* cudart = closure.find("libcudart.so.13");
    ASSERT_NE(cudart, nullptr);
    EXPECT_EQ(cudart->resolution.rule, "DT_RUNPATH of libtorch_cuda.so (" + venv.site + "/nvidia/cu13/lib)");
}

TEST(LoadClosure, reuses_a_library_the_process_already_holds) {
    const TorchVenv venv;
    const LoadClosure closure = venv.closure({{"libcudnn.so.9", "/opt/other/libcudnn.so.9"}});
    const LoadedObject* cudnn = closure.find("libcudnn.so.9");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_TRUE(cudnn->already_loaded);
    EXPECT_EQ(cudnn->resolution.path, "/opt/other/libcudnn.so.9");
    EXPECT_EQ(cudnn->resolution.rule, "already loaded");
}

TEST(LoadClosure, falls_through_to_the_next_rule_when_the_wheel_folder_is_gone_and_says_when_nothing_has_it) {
    const TorchVenv venv;
    fs::remove_all(venv.site + "/nvidia/cudnn");
    const LoadClosure without_wheel = venv.closure();
    ASSERT_NE(without_wheel.find("libcudnn.so.9"), nullptr);
    EXPECT_EQ(without_wheel.find("libcudnn.so.9")->resolution.rule, "LD_LIBRARY_PATH entry " + venv.system);
    fs::remove(venv.system + "/libcudnn.so.9");
    const LoadClosure without_any = venv.closure();
    ASSERT_NE(without_any.find("libcudnn.so.9"), nullptr);
    EXPECT_FALSE(without_any.find("libcudnn.so.9")->resolution.found());
}

TEST(LoadClosure, names_an_object_whose_dynamic_section_cannot_be_read) {
    const TorchVenv venv;
    venv.tree.write("venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so", "garbage, not ELF");
    const LoadClosure closure = venv.closure();
    ASSERT_EQ(closure.problems.size(), 1u);
    EXPECT_NE(closure.problems[0].find("libtorch_cuda.so: not an ELF file"), std::string::npos) << closure.problems[0];
    EXPECT_TRUE(closure.objects.empty());
}

}  // namespace
}  // namespace cudacheck
