// The loader simulation (probes/load_closure.hpp) on a crafted venv laid out as PyTorch's wheels
// are, with a libtorch_cuda.so stand-in carrying the real one's DT_RPATH (or the same path as
// DT_RUNPATH), the wheel's cuDNN and a system cuDNN on LD_LIBRARY_PATH.
#include "probes/load_closure.hpp"
#include "support/fixtures.hpp"
#include "util/environment.hpp"
#include "util/system.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
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
        place("libcudnn_graph_stand_in.so", site + "/nvidia/cudnn/lib/libcudnn_graph.so.9");
        place("libcudnn_graph_stand_in.so", system + "/libcudnn_graph.so.9");
    }
    static void place(const std::string& fixture, const std::string& to) {
        fs::create_directories(fs::path(to).parent_path());
        fs::copy_file(fixtures + "/" + fixture, to);
    }
    // The system cuDNN's directory first on LD_LIBRARY_PATH, as on the GPU machine with a PyTorch wheel.
    [[nodiscard]] LoaderSearch search() const {
        LoaderSearch search;
        search.ld_library_path = {system};
        return search;
    }
    [[nodiscard]] LoadClosure closure(const std::vector<Preloaded>& preloaded = {}) const {
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

TEST(LoadClosure, reuses_a_library_the_process_preloaded_and_follows_what_it_needs) {
    // As torch 2.11's _preload_cuda_deps loads a cuDNN by path before libtorch_cuda.so.
    const TorchVenv venv;
    const LoadClosure closure = venv.closure({{"libcudnn.so.9", venv.system + "/libcudnn.so.9", "preloaded by torch"}});
    EXPECT_TRUE(closure.problems.empty()) << closure.problems.front();
    ASSERT_FALSE(closure.objects.empty());
    const LoadedObject& first = closure.objects.front();
    EXPECT_EQ(first.soname, "libcudnn.so.9");
    EXPECT_EQ(first.resolution.path, venv.system + "/libcudnn.so.9");
    EXPECT_EQ(first.resolution.rule, "preloaded by torch");
    // libtorch_cuda.so's DT_NEEDED finds it loaded: it is listed once, from where it was preloaded.
    std::size_t listed = 0;
    for (const LoadedObject& object : closure.objects) listed += object.soname == "libcudnn.so.9";
    EXPECT_EQ(listed, 1u);
    // The preloaded shim's own sub-library is followed, from its directory.
    ASSERT_NE(closure.find("libcudnn_graph.so.9"), nullptr);
    EXPECT_EQ(closure.find("libcudnn_graph.so.9")->needed_by, "libcudnn.so.9");
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

TEST(LoadClosure, takes_cudnns_sub_libraries_from_ld_library_path_before_the_wheel_shims_runpath) {
    // What torch did on the GPU machine with the system cuDNN first on LD_LIBRARY_PATH: its wheel's
    // libcudnn.so.9 (DT_RPATH of libtorch_cuda.so) opened the system's libcudnn_graph.so.9.
    const TorchVenv venv;
    const LoadClosure closure = venv.closure();
    const LoadedObject* graph = closure.find("libcudnn_graph.so.9");
    ASSERT_NE(graph, nullptr);
    EXPECT_TRUE(graph->dlopened);
    EXPECT_EQ(graph->needed_by, "libcudnn.so.9");
    EXPECT_EQ(graph->resolution.path, venv.system + "/libcudnn_graph.so.9");
    EXPECT_EQ(graph->resolution.rule, "LD_LIBRARY_PATH entry " + venv.system);
    // Without that LD_LIBRARY_PATH, the shim's DT_RUNPATH finds its own.
    DirectoryListings listings;
    const LoadClosure clean = load_closure(venv.site + "/torch/lib/libtorch_cuda.so", LoaderSearch{}, listings);
    ASSERT_NE(clean.find("libcudnn_graph.so.9"), nullptr);
    EXPECT_EQ(clean.find("libcudnn_graph.so.9")->resolution.rule,
              "DT_RUNPATH of libcudnn.so.9 (" + venv.site + "/nvidia/cudnn/lib)");
    // A sub-library found nowhere is listed as such (cuDNN loads it only when an operation needs it).
    ASSERT_NE(clean.find("libcudnn_ops.so.9"), nullptr);
    EXPECT_FALSE(clean.find("libcudnn_ops.so.9")->resolution.found());
}

// On the GPU machine only: the real libtorch_cuda.so of /opt/torch/.venv, resolved with this
// process's loader settings, against the libraries torch itself mapped there
// (docs/examples/h200/frameworks/torch-self-report.json, /proc/self/maps after a matmul).
TEST(LoadClosure, predicts_the_cuda_libraries_torch_maps_on_the_gpu_machine) {
    const std::string torch_cuda = "/opt/torch/.venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
    if (!sys::exists(torch_cuda)) GTEST_SKIP() << "no " << torch_cuda << " here (the GPU machine's environment)";
    const nlohmann::json report =
        nlohmann::json::parse(test::fixture("../../docs/examples/h200/frameworks/torch-self-report.json"));
    std::set<std::string> mapped;
    for (const auto& path : report["maps"]) mapped.insert(path.get<std::string>());
    DirectoryListings listings;
    const LoadClosure closure = load_closure(torch_cuda, loader_search(Environment::from_process()), listings);
    EXPECT_TRUE(closure.problems.empty()) << closure.problems.front();
    std::size_t compared = 0;
    for (const LoadedObject& object : closure.objects) {
        const bool cuda_library = std::any_of(mapped.begin(), mapped.end(), [&](const std::string& path) {
            return path.find("/" + object.soname.substr(0, object.soname.find(".so")) + ".so") != std::string::npos;
        });
        if (!cuda_library || object.already_loaded) continue;
        ++compared;
        EXPECT_TRUE(mapped.contains(object.resolution.real_path))
            << object.soname << " predicted from " << object.resolution.real_path << " (" << object.resolution.rule
            << ")";
    }
    // cudart, cuBLAS, cuBLASLt, cuFFT, cuRAND, cuSPARSE, cuSPARSELt, cuFile, cuDNN, NCCL, NVSHMEM, c10_cuda.
    EXPECT_GE(compared, 10u);
}

// The same with the system cuDNN's directory first on LD_LIBRARY_PATH, against what torch mapped
// then (docs/examples/h200/frameworks/system-cudnn-first/torch-ldpath-maps.txt): the wheel's shim,
// the system's graph library.
TEST(LoadClosure, predicts_the_cudnn_mix_torch_loaded_with_the_system_cudnn_first_on_ld_library_path) {
    const std::string torch_cuda = "/opt/torch/.venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
    if (!sys::exists(torch_cuda) || !sys::exists("/lib/x86_64-linux-gnu/libcudnn_graph.so.9"))
        GTEST_SKIP() << "not the GPU machine's environment (torch wheel and system cuDNN)";
    Environment environment = Environment::from_process();
    environment.set("LD_LIBRARY_PATH", "/lib/x86_64-linux-gnu");
    DirectoryListings listings;
    const LoadClosure closure = load_closure(torch_cuda, loader_search(environment), listings);
    const LoadedObject* shim = closure.find("libcudnn.so.9");
    const LoadedObject* graph = closure.find("libcudnn_graph.so.9");
    ASSERT_TRUE(shim != nullptr && graph != nullptr);
    EXPECT_EQ(shim->resolution.real_path,
              "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
    EXPECT_EQ(graph->resolution.real_path, "/usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.14.0");
}

}  // namespace
}  // namespace cudacheck
