// What a framework's process loads and which GPU code it carries (probes/python/frameworks_probe.hpp): a
// venv holding the GPU machine's real wheel metadata and ELF stand-ins with libtorch_cuda.so's
// real DT_RPATH, and the cache of GPU code summaries.
#include "probes/python/frameworks_probe.hpp"
#include "support/expected_support.hpp"
#include "support/fixtures.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;

// The GPU machine's /opt/torch/.venv (metadata only) with stand-ins for the libraries.
struct H200Venv {
    test::ScratchTree tree;
    std::string prefix = tree.path() + "/venv";
    std::string site = prefix + "/lib/python3.12/site-packages";
    std::string system = tree.path() + "/usr/lib/x86_64-linux-gnu";
    H200Venv() {
        fs::copy(test::fixture_path("frameworks/h200-venv"), prefix, fs::copy_options::recursive);
        place("libtorch_cuda_rpath.so", site + "/torch/lib/libtorch_cuda.so");
        place("libcudnn_stand_in.so", site + "/nvidia/cudnn/lib/libcudnn.so.9");
        place("libcudnn_graph_stand_in.so", site + "/nvidia/cudnn/lib/libcudnn_graph.so.9");
        place("libcudart_stand_in.so", site + "/nvidia/cu13/lib/libcudart.so.13");
        place("libcudnn_stand_in.so", system + "/libcudnn.so.9.14.0");
        fs::create_symlink("libcudnn.so.9.14.0", system + "/libcudnn.so.9");
        place("libcudnn_graph_stand_in.so", system + "/libcudnn_graph.so.9.14.0");
        fs::create_symlink("libcudnn_graph.so.9.14.0", system + "/libcudnn_graph.so.9");
    }
    static void place(const std::string& fixture, const std::string& to) {
        fs::create_directories(fs::path(to).parent_path());
        fs::copy_file(std::string(CUDACHECK_ELF_FIXTURES) + "/" + fixture, to, fs::copy_options::overwrite_existing);
    }
    [[nodiscard]] FrameworkFacts torch(const LoaderSearch& search) const {
        DirectoryListings listings;
        GpuCodeCache cache("");
        for (FrameworkBuild& build : read_framework_builds(site, installed_distributions(site)))
            if (build.framework == "PyTorch")
                return gather_framework(std::move(build), site, search, listings, cache, Environment{}, tree.path());
        ADD_FAILURE() << "no torch";
        return {};
    }
};

TEST(FrameworksProbe, torch_loads_the_wheels_cudnn_with_the_version_its_dist_info_gives) {
    const H200Venv venv;
    const FrameworkFacts torch = venv.torch(LoaderSearch{});
    EXPECT_EQ(torch.loader_root, venv.site + "/torch/lib/libtorch_cuda.so");
    const FrameworkLibrary* cudnn = torch.library("cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->object.resolution.path, venv.site + "/nvidia/cudnn/lib/libcudnn.so.9");
    EXPECT_EQ(cudnn->version,
              "9.19.0.56");  // nvidia_cudnn_cu13-9.19.0.56.dist-info, as torch.backends.cudnn.version() 91900
    EXPECT_EQ(cudnn->origin, LibraryOrigin::pip_wheel);
    EXPECT_EQ(cudnn->package, "nvidia-cudnn-cu13");
    const FrameworkLibrary* graph = torch.library("cuDNN graph");
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->object.resolution.path, venv.site + "/nvidia/cudnn/lib/libcudnn_graph.so.9");
    EXPECT_TRUE(graph->object.dlopened);
}

TEST(FrameworksProbe, the_system_cudnn_first_on_ld_library_path_gives_torch_its_graph_library) {
    // As on the GPU machine (docs/examples/h200/frameworks/system-cudnn-first): the shim stays the
    // wheel's (DT_RPATH), its sub-library comes from LD_LIBRARY_PATH (the shim's DT_RUNPATH).
    const H200Venv venv;
    LoaderSearch search;
    search.ld_library_path = {venv.system};
    const FrameworkFacts torch = venv.torch(search);
    ASSERT_NE(torch.library("cuDNN"), nullptr);
    EXPECT_EQ(torch.library("cuDNN")->version, "9.19.0.56");
    const FrameworkLibrary* graph = torch.library("cuDNN graph");
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->object.resolution.path, venv.system + "/libcudnn_graph.so.9");
    EXPECT_EQ(graph->version, "9.14.0");
    EXPECT_EQ(graph->origin, LibraryOrigin::system);
}

TEST(FrameworksProbe, torch_that_preloads_its_wheels_takes_them_by_path_and_their_sub_libraries_by_search) {
    // torch 2.11's _load_global_deps (docs/examples/h200/frameworks/torch-load-global-deps.py).
    const H200Venv venv;
    std::ofstream(venv.site + "/torch/__init__.py")
        << "            if \"libcudart.so\" not in _maps:\n                return\n            _preload_cuda_deps()\n";
    LoaderSearch search;
    search.ld_library_path = {venv.system};
    const FrameworkFacts torch = venv.torch(search);
    const FrameworkLibrary* cudnn = torch.library("cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ(cudnn->object.resolution.rule, "preloaded by torch (_preload_cuda_deps)");
    EXPECT_EQ(cudnn->object.resolution.path, venv.site + "/nvidia/cudnn/lib/libcudnn.so.9");
    EXPECT_EQ(torch.library("cudart")->object.resolution.rule, "preloaded by torch (_preload_cuda_deps)");
    // The shim's own dlopen of its sub-library still searches LD_LIBRARY_PATH before its DT_RUNPATH,
    // as torch did on the GPU machine.
    ASSERT_NE(torch.library("cuDNN graph"), nullptr);
    EXPECT_EQ(torch.library("cuDNN graph")->object.resolution.path, venv.system + "/libcudnn_graph.so.9");
}

TEST(FrameworksProbe, a_missing_binary_is_a_problem_naming_it) {
    const H200Venv venv;
    fs::remove(venv.site + "/torch/lib/libtorch_cuda.so");
    const FrameworkFacts torch = venv.torch(LoaderSearch{});
    ASSERT_EQ(torch.load_problems.size(), 1u);
    EXPECT_NE(torch.load_problems[0].find("torch/lib/libtorch_cuda.so: missing"), std::string::npos)
        << torch.load_problems[0];
}

TEST(FrameworksProbe, finds_the_environment_given_with_python_and_its_frameworks) {
    const H200Venv venv;
    Environment environment;
    environment.set("PATH", "/nonexistent");
    const std::vector<std::string> extra = {venv.prefix};
    const PythonFacts facts = collect_python_facts(environment, extra, "", "");
    ASSERT_EQ(facts.environments.size(), 1u);
    std::vector<std::string> names;
    for (const FrameworkFacts& framework : facts.environments[0].frameworks) names.push_back(framework.build.framework);
    EXPECT_EQ(names, (std::vector<std::string>{"PyTorch", "torchvision", "JAX", "CuPy", "triton"}));
}

TEST(FrameworksProbe, the_gpu_code_cache_answers_until_the_file_changes) {
    test::ScratchTree tree;
    const std::string binary = tree.path() + "/multi.o";
    fs::copy_file(std::string(CUDACHECK_GPU_CODE_FIXTURES) + "/multi.o", binary);
    {
        GpuCodeCache cache(tree.path() + "/cache");
        const GpuCodeSummary first = cache.summary_of(binary);
        EXPECT_FALSE(first.from_cache);
        ASSERT_EQ(first.targets.sass.size(), 3u);  // sm_75, sm_90a, sm_100f
        EXPECT_EQ(first.targets.ptx.size(), 2u);   // compute_100f, compute_120
        EXPECT_EQ(test::error_of(cache.save()), "");
    }
    GpuCodeCache again(tree.path() + "/cache");
    const GpuCodeSummary cached = again.summary_of(binary);
    EXPECT_TRUE(cached.from_cache);
    EXPECT_EQ(cached.targets.sass, GpuCodeCache("").summary_of(binary).targets.sass);
    EXPECT_EQ(cached.newest_ptx_isa, GpuCodeCache("").summary_of(binary).newest_ptx_isa);
    // A rebuilt file (another modification time) is read again.
    fs::last_write_time(binary, fs::last_write_time(binary) + std::chrono::seconds(5));
    EXPECT_FALSE(again.summary_of(binary).from_cache);
    // A damaged cache is ignored, never trusted.
    std::ofstream(tree.path() + "/cache/gpu-code-v1.json") << "{\"entries\": [{\"key\": 3}, garbage";
    GpuCodeCache damaged(tree.path() + "/cache");
    EXPECT_FALSE(damaged.summary_of(binary).from_cache);
}

// The GPU code of every framework of an environment is read at once (frameworks_probe.cpp's
// BackgroundScans, a thread per file): each framework gets the summary of its own file, the one
// GpuCodeCache gives when asked alone, and the cache written keeps both, so the next run reads
// neither file.
TEST(FrameworksProbe, the_gpu_code_of_every_framework_is_read_at_once_each_with_its_own_summary) {
    const H200Venv venv;
    const std::string plugin = venv.site + "/jax_plugins/xla_cuda13/xla_cuda_plugin.so";
    fs::copy_file(std::string(CUDACHECK_GPU_CODE_FIXTURES) + "/libsm90ptx.so", plugin);
    const std::string torch = venv.site + "/torch/lib/libtorch_cuda.so";
    fs::copy_file(std::string(CUDACHECK_GPU_CODE_FIXTURES) + "/libsm80.so", torch,
                  fs::copy_options::overwrite_existing);
    Environment environment;
    environment.set("PATH", "/nonexistent");
    const std::vector<std::string> extra = {venv.prefix};
    const std::string cache = venv.tree.path() + "/cache";
    for (const bool cached : {false, true}) {
        const PythonFacts facts = collect_python_facts(environment, extra, "", cache);
        ASSERT_EQ(facts.environments.size(), 1u);
        std::size_t seen = 0;
        for (const FrameworkFacts& framework : facts.environments[0].frameworks) {
            const std::string file = framework.build.framework == "JAX"       ? plugin
                                     : framework.build.framework == "PyTorch" ? torch
                                                                              : "";
            if (file.empty()) continue;
            ++seen;
            ASSERT_TRUE(framework.gpu_code) << framework.build.framework;
            const GpuCodeSummary alone = GpuCodeCache("").summary_of(file);
            EXPECT_EQ(framework.gpu_code->path, file);
            EXPECT_EQ(framework.gpu_code->targets.sass, alone.targets.sass) << file;
            EXPECT_EQ(framework.gpu_code->targets.ptx, alone.targets.ptx) << file;
            EXPECT_EQ(framework.gpu_code->fatbins, alone.fatbins) << file;
            EXPECT_EQ(framework.gpu_code->from_cache, cached) << file;
        }
        EXPECT_EQ(seen, 2u);
    }
    // The two fixtures differ (sm_80 SASS against sm_90 PTX): a swapped result would show.
    EXPECT_NE(GpuCodeCache("").summary_of(plugin).targets.ptx, GpuCodeCache("").summary_of(torch).targets.ptx);
}

TEST(FrameworksProbe, targets_in_few_of_a_librarys_modules_are_partial) {
    // As libtorch_cuda.so 2.11: sm_90 in every module, sm_89 in one of four (its FP8 kernels).
    GpuCodeScan scan;
    scan.fatbins = 4;
    const auto object = [&](CodeKind kind, int arch, std::size_t fatbin) {
        CodeObject code;
        code.kind = kind;
        code.arch = {arch, ArchVariant::generic};
        code.fatbin = fatbin;
        if (kind == CodeKind::ptx) code.ptx_isa = PtxIsa{9, 0};
        scan.objects.push_back(code);
    };
    for (std::size_t fatbin = 0; fatbin < 4; ++fatbin) object(CodeKind::sass, 90, fatbin);
    object(CodeKind::sass, 89, 2);
    object(CodeKind::ptx, 90, 3);
    const GpuCodeSummary summary = summarize_gpu_code("libtorch_cuda.so", scan);
    EXPECT_EQ(summary.targets.sass, (std::vector<GpuArch>{{90, ArchVariant::generic}}));
    EXPECT_EQ(summary.partial.sass, (std::vector<GpuArch>{{89, ArchVariant::generic}}));
    // The only fatbinary with PTX carries it: PTX is judged among PTX-carrying modules.
    EXPECT_EQ(summary.targets.ptx, (std::vector<GpuArch>{{90, ArchVariant::generic}}));
    EXPECT_EQ(summary.newest_ptx_isa, (PtxIsa{9, 0}));
    // An Ada GPU (8.9) is not covered by the partial sm_89: the judges see sm_90 SASS and compute_90 PTX only.
    FrameworkFacts torch;
    torch.gpu_code = summary;
    EXPECT_EQ(framework_gpu_coverage(torch, 8, 9, CudaVersion{13, 0}).coverage, Coverage::none);
    EXPECT_EQ(framework_gpu_coverage(torch, 9, 0, CudaVersion{13, 0}).coverage, Coverage::native);
}

}  // namespace
}  // namespace cudacheck
