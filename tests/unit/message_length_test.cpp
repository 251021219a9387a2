// Words sized to their slot. A catalogue cause is one sentence of at most 160 characters: it is the
// line `cudacheck explain` and a reader of docs/errors.md see first, and the depth (the mechanism,
// the error texts a user meets, the sources) is the entry's detail. A finding's message, and a
// passing check's message, is a headline of at most 120 characters (sys::max_headline): the table
// shows it on one or two lines, and the paths, lists and quoted errors behind it are the result's
// evidence (`-v`, the JSON report). Enforced here over the catalogue, over what the judges say on
// the worst inputs (paths of 200 characters, seven cuDNN sub-libraries, a dozen environments),
// over runs of the binary on this machine with such a Python environment, and over every recorded
// report of the schema version this code writes.
#include "checks/checks.hpp"
#include "checks/frameworks_builds.hpp"
#include "cuda/library_families.hpp"
#include "probes/python/frameworks_probe.hpp"
#include "render/renderer.hpp"
#include "report/catalog.hpp"
#include "report/report_json.hpp"
#include "support/check_judging.hpp"
#include "support/fixtures.hpp"
#include "support/framework_builds.hpp"
#include "support/headlines.hpp"
#include "support/library_tree.hpp"
#include "support/test_support.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the sonames cudacheck opens
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::framework_from;
using test::gpu;

constexpr std::size_t max_cause = 160;

using sys::characters;  // UTF-8 code points, as a reader counts them

// Whether `text` is one sentence: it ends with a full stop, and no sentence ends before that
// outside `code`, "quotes" and (parentheses), where error texts and examples keep their own
// punctuation; "e.g." and "i.e." end none.
bool one_sentence(const std::string& text) {
    std::string outside;
    int depth = 0;
    bool code = false;
    bool quote = false;
    for (const char c : text) {
        if (c == '`' && !quote) code = !code;
        else if (c == '"' && !code) quote = !quote;
        else if (!code && !quote && c == '(') ++depth;
        else if (!code && !quote && c == ')' && depth > 0) --depth;
        else if (!code && !quote && depth == 0) outside += c;
    }
    if (outside.empty() || outside.back() != '.') return false;
    outside = std::regex_replace(outside.substr(0, outside.size() - 1), std::regex(R"(\b(e\.g|i\.e|etc|vs)\.)"), "x");
    return !std::regex_search(outside, std::regex(R"([.!?]\s|…)"));
}

TEST(MessageLength, the_sentence_rule_itself) {
    EXPECT_TRUE(one_sentence("A library (e.g. cuBLAS) fails with \"it broke. Really.\" at `a. b`."));
    EXPECT_TRUE(one_sentence("CUDA_MODULE_LOADING accepts LAZY or EAGER; any other value is ignored."));
    EXPECT_FALSE(one_sentence("The file is damaged. Or its SONAME differs."));
    EXPECT_FALSE(one_sentence("No full stop at the end"));
    EXPECT_FALSE(one_sentence("It is damaged… or renamed."));
}

TEST(MessageLength, every_catalogue_cause_is_one_sentence_of_at_most_160_characters) {
    std::size_t with_detail = 0;
    for (const CatalogEntry& entry : catalog()) {
        SCOPED_TRACE(code_string(entry.code));
        EXPECT_LE(characters(entry.cause), max_cause) << entry.cause;
        EXPECT_TRUE(one_sentence(std::string(entry.cause))) << entry.cause;
        EXPECT_NE(entry.cause.front(), ' ');
        if (!entry.detail.empty()) {
            ++with_detail;
            EXPECT_GT(entry.detail.size(), entry.cause.size()) << "a detail says more than the cause";
            EXPECT_EQ(entry.detail.find('\n'), std::string_view::npos) << "one paragraph";
        }
    }
    EXPECT_GT(with_detail, 0U);
}

// The depth a cause leaves out is shown by `explain` and in docs/errors.md.
TEST(MessageLength, explain_and_the_errors_page_show_the_detail) {
    const CatalogEntry& damaged = catalog_entry(Code::library_damaged);
    ASSERT_FALSE(damaged.detail.empty());
    const test::BinaryRun explain = test::run_cudacheck({"explain", "CC605"});
    EXPECT_EQ(explain.exit_status, 0) << explain.output;
    EXPECT_TRUE(contains(explain.output, "  cause:       " + std::string(damaged.cause) + "\n")) << explain.output;
    EXPECT_TRUE(contains(explain.output, "  detail:      " + std::string(damaged.detail) + "\n")) << explain.output;
    EXPECT_LT(explain.output.find("  cause:"), explain.output.find("  detail:"));
    // An entry without a detail prints no empty line for it.
    const CatalogEntry& wsl = catalog_entry(Code::wsl1_no_gpu);
    ASSERT_TRUE(wsl.detail.empty());
    EXPECT_FALSE(contains(test::run_cudacheck({"explain", "CC101"}).output, "detail:"));

    std::ostringstream markdown;
    render_catalog_markdown(markdown);
    for (const CatalogEntry& entry : catalog()) {
        if (entry.detail.empty()) continue;
        const std::string section = "\n## " + code_string(entry.code) + "\n";
        const std::size_t at = markdown.str().find(section);
        ASSERT_NE(at, std::string::npos) << section;
        const std::size_t next = markdown.str().find("\n## ", at + section.size());
        const std::string body = markdown.str().substr(at, next - at);
        EXPECT_TRUE(contains(body, "\n" + std::string(entry.detail) + "\n")) << body;
    }
}

// "check (code): message [n]" for each message longer than a headline.
std::vector<std::string> long_messages(const CheckResult& result) {
    std::vector<std::string> found;
    if (characters(result.message) > sys::max_headline)
        found.push_back(fmt::format("{}: {} [{}]", result.check_id, result.message, characters(result.message)));
    for (const Finding& finding : result.findings)
        if (characters(finding.message) > sys::max_headline)
            found.push_back(fmt::format("{} ({}): {} [{}]", result.check_id, finding.code, finding.message,
                                        characters(finding.message)));
    return found;
}

std::vector<std::string> long_messages(const nlohmann::json& report) {
    std::vector<std::string> found;
    if (!report.contains("checks") || !report["checks"].is_array()) return found;
    for (const nlohmann::json& check : report["checks"]) {
        const std::string id = check.value("id", "?");
        if (check.contains("message") && check["message"].is_string() &&
            characters(check["message"].get<std::string>()) > sys::max_headline)
            found.push_back(fmt::format("{}: {}", id, check["message"].get<std::string>()));
        if (!check.contains("findings") || !check["findings"].is_array()) continue;
        for (const nlohmann::json& finding : check["findings"])
            if (finding.contains("message") && finding["message"].is_string() &&
                characters(finding["message"].get<std::string>()) > sys::max_headline)
                found.push_back(
                    fmt::format("{} ({}): {}", id, finding.value("code", "?"), finding["message"].get<std::string>()));
    }
    return found;
}

std::string lines(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += item + '\n';
    return text;
}

// A directory of 200 characters and more, as deep trees of users and job schedulers have.
const std::string long_directory =
    "/scratch/" + std::string(60, 'a') + "/" + std::string(60, 'b') + "/" + std::string(60, 'c') + "/job";

// --- the judges, on the worst inputs -------------------------------------------------------------

FrameworkLibrary library(std::string family, std::string soname, const std::string& directory, std::string version,
                         LibraryOrigin origin, std::string rule) {
    FrameworkLibrary loaded{.family = std::move(family), .version = std::move(version), .origin = origin};
    loaded.object.soname = soname;
    const std::string path = directory + "/" + soname;
    loaded.object.resolution = Resolution{soname, std::move(rule), path, path};
    return loaded;
}

// The GPU machine's torch 2.11 (cu130) in an environment under `prefix`, its cuDNN shim from the
// wheel and all seven sub-libraries from a system directory of 200 characters, one library that
// resolves nowhere and a cuDNN older than the wheel it pins.
FrameworkFacts worst_torch(const std::string& prefix) {
    FrameworkFacts torch =
        framework_from(test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages"), "PyTorch");
    GpuCodeSummary code{.path = prefix + "/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"};
    for (int number : {75, 80, 86, 90, 100, 120}) code.targets.sass.push_back({number, ArchVariant::generic});
    torch.gpu_code = code;
    const std::string wheel = prefix + "/lib/python3.12/site-packages/nvidia/cudnn/lib";
    torch.libraries.push_back(library("cuDNN", "libcudnn.so.9", long_directory + "/lib", "9.14.0",
                                      LibraryOrigin::system, "LD_LIBRARY_PATH entry " + long_directory + "/lib"));
    for (const char* part :
         {"graph", "ops", "cnn", "adv", "engines_precompiled", "engines_runtime_compiled", "heuristic"})
        torch.libraries.push_back(library(fmt::format("cuDNN {}", part), fmt::format("libcudnn_{}.so.9", part),
                                          long_directory + "/other/lib", "9.13.0", LibraryOrigin::system,
                                          "LD_LIBRARY_PATH entry " + long_directory + "/other/lib"));
    torch.unresolved = {"libnccl.so.2", "libcusparseLt.so.0", "libnvshmem_host.so.3"};
    torch.build.problems.push_back(
        long_directory + "/torch/version.py: line 3 is not of the form `name = 'value'` that a version file has");
    return torch;
}

EnvironmentFacts worst_environment(const std::string& prefix) {
    EnvironmentFacts environment;
    environment.environment.prefix = prefix;
    environment.environment.interpreter = prefix + "/bin/python3";
    environment.environment.found_by = {"--python " + prefix};
    environment.environment.home_loop =
        fmt::format("home = {0}/bin in {0}/pyvenv.cfg leads back to {0}, an environment already on its home chain",
                    prefix);
    environment.environment.home_loop_file = prefix + "/pyvenv.cfg";
    environment.environment.unreadable.push_back(
        UnreadablePath{.path = prefix + "/lib/python3.12/site-packages",
                       .message = fmt::format("cannot read {}/lib/python3.12/site-packages: Permission denied (mode "
                                              "000, owner uid 1000 (someone))",
                                              prefix),
                       .remediation = "chmod 755"});
    environment.path.fatal = fmt::format("PYTHONHOME={} holds no Python 3.12 standard library", long_directory);
    environment.path.pth_problems.push_back(
        PthProblem{.file = prefix + "/lib/python3.12/site-packages/__editable__.a_very_long_project_name-1.0.pth",
                   .line = 1,
                   .text = "import __editable___a_very_long_project_name_1_0_finder; __editable___finder.install()",
                   .missing_path = false,
                   .why = "module __editable___a_very_long_project_name_1_0_finder is not on the path"});
    environment.path.pth_problems.push_back(PthProblem{.file = prefix + "/lib/python3.12/site-packages/project.pth",
                                                       .line = 2,
                                                       .text = long_directory + "/src",
                                                       .missing_path = true,
                                                       .why = long_directory + "/src"});
    FrameworkFacts torch = worst_torch(prefix);
    torch.import = ImportFacts{.module = "torch",
                               .kind = ImportKind::package,
                               .file = long_directory + "/checkout/torch/__init__.py",
                               .location = long_directory + "/checkout/torch",
                               .entry = SysPathEntry{.path = long_directory + "/checkout",
                                                     .origin = PathOrigin::pythonpath,
                                                     .source = ""},
                               .own_copy = false,
                               .other_install = false,
                               .other_version = "2.5.1+cu124"};
    environment.frameworks.push_back(std::move(torch));
    // A CUDA 12 framework beside the CUDA 13 torch, and a torchvision built for another torch.
    environment.frameworks.push_back(framework_from(test::ReleasedWheels({"cupy-cuda12x-13.4.1"}).site, "CuPy"));
    environment.frameworks.push_back(framework_from(test::ReleasedWheels({"torchvision-0.22.1"}).site, "torchvision"));
    return environment;
}

CheckResult judge_frameworks_on(const std::vector<EnvironmentFacts>& environments, CudaVersion driver,
                                std::vector<DeviceInfo> devices, std::vector<PipMismatch> pips = {}) {
    PythonFacts python{.environments = environments};
    python.pip_mismatches = std::move(pips);
    const FrameworkJudgeInput input{.python = python,
                                    .driver_cuda = driver,
                                    .driver_version = "570.86.15",
                                    .devices = devices,
                                    .gpu_present = !devices.empty()};
    return test::judge("frameworks.builds", [&](ResultBuilder& result) { judge_frameworks(input, result); });
}

TEST(MessageLength, frameworks_builds_headlines_fit_with_long_paths_and_long_lists) {
    const std::string prefix = long_directory + "/venv";
    const std::vector<PipMismatch> pips{{.pip = long_directory + "/bin/pip",
                                         .interpreter = long_directory + "/bin/python3.11",
                                         .pip_prefix = long_directory,
                                         .python3 = prefix + "/bin/python3",
                                         .python3_prefix = prefix}};
    const DeviceInfo future = gpu(7, "NVIDIA Some Future Accelerator With A Rather Long Marketing Name", 11, 0);
    // A driver for CUDA 13.0 and a GPU the wheel has no code for; then a driver for 12.8, too old.
    for (const CudaVersion driver : {CudaVersion{13, 0}, CudaVersion{12, 8}}) {
        const CheckResult result = judge_frameworks_on({worst_environment(prefix)}, driver, {future}, pips);
        SCOPED_TRACE(driver.to_string());
        EXPECT_EQ(result.status, Status::fail);
        EXPECT_GE(result.findings.size(), 10U) << test::account(result);
        EXPECT_EQ(long_messages(result), std::vector<std::string>{}) << lines(long_messages(result));
        // What the headlines leave out is evidence: the seven sub-libraries and their directory.
        const std::string account = test::account(result);
        EXPECT_TRUE(contains(account, "libcudnn_heuristic.so.9 9.13.0 from " + long_directory +
                                          "/other/lib/libcudnn_heuristic.so.9"))
            << account;
        EXPECT_TRUE(contains(account, long_directory + "/checkout/torch/__init__.py")) << account;
    }
    const Finding* mixed =
        test::finding_with(judge_frameworks_on({worst_environment(prefix)}, CudaVersion{13, 0}, {future}), "CC626");
    ASSERT_NE(mixed, nullptr);
    EXPECT_TRUE(contains(mixed->message, "7 cuDNN sub-libraries")) << mixed->message;
}

TEST(MessageLength, a_dozen_environments_pass_with_a_headline) {
    std::vector<EnvironmentFacts> environments;
    for (int i = 0; i < 12; ++i) {
        EnvironmentFacts environment;
        environment.environment.prefix = fmt::format("{}/venv-{}", long_directory, i);
        environment.frameworks.push_back(
            framework_from(test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages"), "PyTorch"));
        environment.frameworks.push_back(
            framework_from(test::fixture_path("frameworks/h200-venv/lib/python3.12/site-packages"), "JAX"));
        environments.push_back(std::move(environment));
    }
    const CheckResult result = judge_frameworks_on(environments, CudaVersion{13, 0}, {gpu(0, "NVIDIA H200", 9, 0)});
    EXPECT_EQ(result.status, Status::pass) << test::account(result);
    EXPECT_LE(characters(result.message), sys::max_headline) << result.message;
    EXPECT_TRUE(contains(result.message, "24 frameworks in 12 environments: PyTorch 2.11.0+cu130")) << result.message;
    EXPECT_TRUE(contains(test::account(result), long_directory + "/venv-11"))
        << "each environment's frameworks are evidence";
}

TEST(MessageLength, libraries_resolution_headlines_fit_with_long_paths_and_all_sub_libraries) {
    const std::string deep = long_directory.substr(1);
    test::Machine machine;
    machine.cudnn(test::system_directory, "9.14.0");
    machine.cache(test::system_directory,
                  {"libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9",
                   "libcudnn_adv.so.9", "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9",
                   "libcudnn_heuristic.so.9"});
    const std::string wheel =
        machine.cudnn_wheel(deep + "/venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    for (const fs::directory_entry& entry : fs::directory_iterator(wheel))
        if (entry.path().filename() != "libcudnn.so.9") fs::remove(entry.path());
    const std::string stubs = machine.library(deep + "/cuda-13.0/lib64/stubs", "libcuda.so", {"libcuda.so.1"});
    // A toolkit where toolkits are installed, with a newer cuBLAS than the system's (CC602).
    machine.library("usr/local/cuda-13.0/lib64", "libcublas.so.13.1.0.3", {"libcublas.so.13"});
    machine.library("usr/local/cuda-13.0/lib64", "libnvJitLink.so.13.0.88", {"libnvJitLink.so.13"});
    machine.library(test::system_directory, "libcublas.so.13.0.0.19", {"libcublas.so.13"});
    machine.library(test::system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.library(test::system_directory, "libcufft.so.11.4.1.4", {"libcufft.so.11"});
    machine.cache(test::system_directory, {"libcublas.so.13", "libcudart.so.13", "libcufft.so.11"});
    // A real shared library of another SONAME where programs look for cuFFT: damaged (CC605).
    const std::string damaged_directory = machine.library(deep + "/damaged", "placeholder.so");
    const std::string damaged =
        damaged_directory + "/" + std::string(cuda_library::cufft.soname_for(CUDART_VERSION / 1000));
    fs::copy_file(CUDACHECK_CRASHING_CUBLAS, damaged);
    machine.set("LD_LIBRARY_PATH", wheel + ":" + stubs + ":" + damaged_directory);

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::fail);
    std::vector<std::string> codes;
    for (const Finding& finding : result.findings) codes.push_back(finding.code);
    for (const char* code : {"CC211", "CC602", "CC603", "CC605"})
        EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end()) << code << " not among " << lines(codes);
    EXPECT_EQ(long_messages(result), std::vector<std::string>{}) << lines(long_messages(result));
    const Finding* mixed = test::finding_with(result, "CC603");
    ASSERT_NE(mixed, nullptr);
    EXPECT_TRUE(contains(mixed->message, "7 cuDNN sub-libraries")) << mixed->message;
    EXPECT_TRUE(contains(test::account(result), "libcudnn_heuristic.so.9 9.14.0 system")) << "the list is evidence";
    EXPECT_TRUE(contains(test::account(result), damaged)) << "the damaged file's path is evidence";
}

TEST(MessageLength, host_limits_headlines_fit_with_every_limit_at_its_worst) {
    ProcessLimits limits;
    const std::uint64_t huge = 18446744073709551615ULL;  // the largest a limit can be
    limits.address_space = {.soft = 1ULL << 30, .hard = huge - 1};
    limits.open_files = {.soft = 8, .hard = 8};
    limits.locked_memory = {.soft = 64 << 10, .hard = 64 << 10};
    limits.file_size = {.soft = 4096, .hard = huge - 1};
    limits.stack = {.soft = 64 << 10, .hard = 1ULL << 40};
    limits.processes = {.soft = 1'000'000, .hard = 1'000'000};
    limits.user_tasks = 999'999;
    limits.rdma_devices = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"};
    limits.cgroup_memory =
        CgroupMemory{.path = long_directory, .limit_bytes = 2ULL << 30, .used_bytes = 1ULL << 30, .version = 2};
    HostInfo host;
    host.memory_bytes = 1ULL << 40;
    const CheckResult result =
        test::judge("host.limits", [&](ResultBuilder& builder) { judge_limits(limits, host, builder); });
    EXPECT_GE(result.findings.size(), 7U) << test::account(result);
    EXPECT_EQ(long_messages(result), std::vector<std::string>{}) << lines(long_messages(result));
    const CheckResult init = test::judge("driver.libcuda", [&](ResultBuilder& builder) {
        (void)explain_out_of_memory_init(limits, builder);
    });
    EXPECT_EQ(long_messages(init), std::vector<std::string>{}) << lines(long_messages(init));
    const CheckResult none =
        test::judge("host.limits", [&](ResultBuilder& builder) { judge_limits(ProcessLimits{}, host, builder); });
    EXPECT_LE(characters(none.message), sys::max_headline) << none.message;
}

// --- the binary on this machine -------------------------------------------------------------------

nlohmann::json read_report(const std::string& path) {
    const std::optional<std::string> text = sys::read_file(path, 64 << 20);
    return text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
}

// The GPU machine's environment (tests/fixtures/frameworks/h200-venv) under a path of 200
// characters, its interpreter this machine's python3, with a .pth file that fails at every start
// and one that names a directory that is gone: --level full runs every check this machine can run,
// frameworks.run among them, whose interpreter fails to import torch.
TEST(MessageLength, every_message_of_a_full_run_here_is_a_headline) {
    test::TempDir dir;
    const std::string venv = dir.make_dir(long_directory.substr(1) + "/venv");
    fs::copy(test::fixture_path("frameworks/h200-venv"), venv,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    const std::string site = venv + "/lib/python3.12/site-packages";
    (void)dir.write(site.substr(dir.path().size() + 1) + "/broken_project_with_a_long_name.pth",
                    "import a_module_that_is_not_installed_anywhere\n");
    (void)dir.write(site.substr(dir.path().size() + 1) + "/gone.pth",
                    dir.path() + "/" + std::string(120, 'g') + "/src\n");
    const char* path = std::getenv("PATH");
    const std::string python = sys::find_in_path("python3", path != nullptr ? path : "");
    if (!python.empty()) (void)dir.symlink(python, venv.substr(dir.path().size() + 1) + "/bin/python3");

    for (const std::vector<std::string>& level :
         {std::vector<std::string>{}, std::vector<std::string>{"--level", "full"}}) {
        const std::string report = dir.path() + "/report.json";
        std::vector<std::string> arguments = level;
        arguments.insert(arguments.end(), {"--python", venv, "--timeout", "120", "-q", "-o", report});
        const test::BinaryRun run = test::run_cudacheck(arguments);
        ASSERT_FALSE(run.timed_out) << run.output;
        const nlohmann::json parsed = read_report(report);
        ASSERT_TRUE(parsed.contains("checks")) << run.output;
        EXPECT_GE(parsed["checks"].size(), 20U);
        EXPECT_EQ(long_messages(parsed), std::vector<std::string>{}) << lines(long_messages(parsed));
        const nlohmann::json* frameworks = test::find_check(parsed, "frameworks.builds");
        ASSERT_NE(frameworks, nullptr);
        EXPECT_FALSE((*frameworks)["findings"].empty())
            << frameworks->dump(2) << "\nthe fixture environment gives findings to size";
    }
}

// --- the recorded reports -------------------------------------------------------------------------

// Every report under docs/examples/ and tests/golden/ that this code's schema version wrote (the
// lead records them again on the GPU machine when the version changes). Reports of older versions
// are records of what older code said, long messages included, and stay as they were recorded.
TEST(MessageLength, every_recorded_report_of_the_current_schema_has_headlines) {
    std::size_t reports = 0;
    std::size_t current = 0;
    std::vector<std::string> found;
    for (const char* root : {CUDACHECK_SOURCE_DIR "/docs/examples", CUDACHECK_SOURCE_DIR "/tests/golden"}) {
        for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
            if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
            const nlohmann::json report = read_report(entry.path().string());
            if (!report.is_object() || !report.contains("checks") || !report.contains("schema_version")) continue;
            ++reports;
            if (report["schema_version"] != std::string(json_schema_version)) continue;
            ++current;
            for (const std::string& line : long_messages(report)) found.push_back(entry.path().string() + ": " + line);
        }
    }
    EXPECT_GT(reports, 10U) << "the recorded reports were not found";
    EXPECT_EQ(found, std::vector<std::string>{}) << current << " reports of schema " << json_schema_version << ":\n"
                                                 << lines(found);
}

}  // namespace
}  // namespace cudacheck
