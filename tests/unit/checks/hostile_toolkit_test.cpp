// The build checks on a hostile machine: NVCC_APPEND_FLAGS that make nvcc "succeed"
// without building (toolkit.compile reads back what nvcc built), an unusable TMPDIR (a finding
// about TMPDIR, predicted by toolkit.build, not CC333), an NVCC_CCBIN that is no compiler or never
// answers, toolkit and compiler paths that are not UTF-8, and the hand-written readers that replace
// std::regex on unbounded text. The binary runs against this machine's real nvcc
// (/usr/local/cuda/bin/nvcc) and g++; the fixtures (fake compilers, odd directories) are made here.
#include "checks/toolkit_compile.hpp"
#include "probes/build/build_setup.hpp"
#include "probes/build/cmake_cuda.hpp"
#include "probes/build/host_compilers.hpp"
#include "support/check_judging.hpp"
#include "support/crafted_gpu_code.hpp"
#include "support/fixtures.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cudacheck {
namespace {

using test::contains;
namespace fs = std::filesystem;

bool have_nvcc() { return fs::exists("/usr/local/cuda/bin/nvcc"); }

struct BuildRun {
    int exit_status = -1;
    bool timed_out = false;
    double wall_ms = 0;
    nlohmann::json report;
    std::string output;
    [[nodiscard]] const nlohmann::json& check(std::string_view id) const {
        static const nlohmann::json none;
        const nlohmann::json* found = report.is_object() ? test::find_check(report, id) : nullptr;
        return found != nullptr ? *found : none;
    }
    // The check's findings and its evidence: a finding's message is a headline, and the account
    // behind it (the quoted error, the prediction, the paths) is evidence.
    [[nodiscard]] std::string findings(std::string_view id) const {
        const nlohmann::json& result = check(id);
        if (result.is_null()) return {};
        return result.at("findings").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
               result.at("evidence").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
};

// The binary on toolkit.build (and toolkit.compile at --level full), the toolkit taken from PATH
// (/usr/local/cuda/bin first) and `overrides` applied.
BuildRun run_build_checks(std::vector<std::pair<std::string, std::string>> overrides, bool compile,
                          const std::string& path_prefix = "") {
    test::TempDir dir;
    const std::string report = dir.path() + "/report.json";
    std::vector<std::pair<std::string, std::string>> environment = {{"CUDA_HOME", test::unset_marker},
                                                                    {"CUDA_PATH", test::unset_marker},
                                                                    {"CUDACHECK_CACHE_DIR", "off"}};
    const char* path = std::getenv("PATH");
    environment.emplace_back("PATH", path_prefix + "/usr/local/cuda/bin:" + (path != nullptr ? path : "/usr/bin:/bin"));
    for (auto& entry : overrides) environment.push_back(std::move(entry));
    std::vector<std::string> arguments = {"--only", compile ? "toolkit.build,toolkit.compile" : "toolkit.build",
                                          "-o",     report,
                                          "-q",     "--timeout",
                                          "50"};
    if (compile) arguments.insert(arguments.begin(), {"--level", "full"});
    const test::BinaryRun binary = test::run_cudacheck(arguments, environment);
    BuildRun run;
    run.exit_status = binary.exit_status;
    run.timed_out = binary.timed_out;
    run.wall_ms = binary.wall_ms;
    run.output = binary.output;
    if (fs::exists(report)) run.report = nlohmann::json::parse(test::read_text(report), nullptr, false);
    if (run.report.is_object()) test::expect_codes_declared(run.report);
    return run;
}

// --- 1. NVCC_APPEND_FLAGS / NVCC_PREPEND_FLAGS that make nvcc stop before it builds -------------

TEST(HostileToolkit, nvcc_append_flags_that_build_nothing_fail_toolkit_compile_as_predicted) {
    if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    for (const std::string flag : {"--version", "-E", "--dryrun"}) {
        SCOPED_TRACE(flag);
        const BuildRun run = run_build_checks({{"NVCC_APPEND_FLAGS", flag}}, true);
        ASSERT_FALSE(run.timed_out) << run.output;
        EXPECT_LT(run.wall_ms, 45000);
        const nlohmann::json& compile = run.check("toolkit.compile");
        ASSERT_FALSE(compile.is_null()) << run.output;
        EXPECT_EQ(compile.at("status"), "fail") << compile.dump(1);
        EXPECT_EQ(run.exit_status, 1) << "a FAIL: " << run.output;
        const std::string findings = run.findings("toolkit.compile");
        EXPECT_TRUE(contains(findings, "\"CC334\"")) << findings;
        EXPECT_TRUE(contains(findings, "nvcc exited 0")) << findings;
        EXPECT_TRUE(contains(findings, "did not build the program")) << findings;
        EXPECT_TRUE(contains(findings, "no sm_")) << "what is missing, read back: " << findings;
        EXPECT_TRUE(contains(findings, "NVCC_APPEND_FLAGS=\\\"" + flag + "\\\" is set")) << findings;
        EXPECT_TRUE(contains(findings, "toolkit.build predicted it: CC334")) << findings;
        EXPECT_FALSE(contains(findings, "\"CC333\"")) << "predicted: no mismatch: " << findings;
        EXPECT_FALSE(contains(compile.at("message").get<std::string>(), "nvcc built it in")) << compile.at("message");
        // toolkit.build said so before anything was compiled.
        const std::string predicted = run.findings("toolkit.build");
        EXPECT_TRUE(contains(predicted, "\"CC334\"")) << predicted;
        EXPECT_TRUE(contains(predicted, "NVCC_APPEND_FLAGS=\\\"" + flag + "\\\" holds " + flag)) << predicted;
        EXPECT_EQ(run.check("toolkit.build").at("status"), "fail");
    }
}

TEST(HostileToolkit, a_prepended_compile_only_flag_leaves_an_object_that_is_no_program) {
    if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const BuildRun run = run_build_checks({{"NVCC_PREPEND_FLAGS", "-c"}}, true);
    ASSERT_FALSE(run.timed_out) << run.output;
    const std::string findings = run.findings("toolkit.compile");
    EXPECT_TRUE(contains(findings, "\"CC334\"")) << findings;
    EXPECT_TRUE(contains(findings, "probe is an object file, not an executable"))
        << "the cubin and PTX are there; the program is not: " << findings;
    EXPECT_TRUE(contains(findings, "NVCC_PREPEND_FLAGS=\\\"-c\\\"")) << findings;
    EXPECT_FALSE(contains(findings, "\"CC333\"")) << findings;
    // -c stops a plain nvcc build only: CMake and PyTorch compile with -c already.
    const std::string predicted = run.findings("toolkit.build");
    EXPECT_TRUE(contains(predicted, "a plain `nvcc -o program file.cu` build")) << predicted;
    if (!sys::find_in_path("cmake", std::getenv("PATH") != nullptr ? std::getenv("PATH") : "").empty()) {
        const std::string evidence = run.check("toolkit.build").at("evidence").dump();
        EXPECT_TRUE(contains(evidence, "configure and build would succeed"))
            << "CMake compiles with -c already: " << evidence;
    }
    EXPECT_EQ(run.exit_status, 1);
}

TEST(HostileToolkit, the_mode_flags_are_known_by_both_names_and_others_are_not_mode_flags) {
    EXPECT_TRUE(nvcc_mode_flag("--version").has_value());
    EXPECT_TRUE(nvcc_mode_flag("-V").has_value());
    EXPECT_TRUE(nvcc_mode_flag("-E").has_value());
    EXPECT_TRUE(nvcc_mode_flag("--preprocess").has_value());
    EXPECT_TRUE(nvcc_mode_flag("-dryrun").has_value());
    EXPECT_FALSE(nvcc_mode_flag("-c")->stops_every_build);
    EXPECT_TRUE(nvcc_mode_flag("-E")->stops_every_build);
    for (const char* tuning :
         {"-MD", "-MMD", "-run", "-ccbin", "-allow-unsupported-compiler", "--compress-mode=size", "-O3", "-lineinfo"})
        EXPECT_FALSE(nvcc_mode_flag(tuning).has_value()) << tuning;
    Environment environment;
    environment.set("NVCC_APPEND_FLAGS", "--compress-mode=size -E -ccbin g++-12");
    const NvccFlagSettings settings = nvcc_flag_settings(environment);
    ASSERT_EQ(settings.mode_flags.size(), 1u);
    EXPECT_EQ(settings.mode_flags.front().word, "-E");
    EXPECT_EQ(settings.mode_flags.front().variable, "NVCC_APPEND_FLAGS");
    EXPECT_EQ(settings.ccbin, "g++-12") << "the -ccbin reading is unchanged";
}

TEST(HostileToolkit, missing_code_reads_back_cubins_ptx_and_the_executable) {
    test::TempDir dir;
    const std::string keep = dir.make_dir("keep");
    // Empty or wrong files of the right names are not code.
    (void)dir.write("keep/probe.sm_75.cubin", "");
    (void)dir.write("keep/probe.ptx",
                    "//\n.version 9.0\n.target sm_75\n.address_size 64\n.visible .entry other_kernel(\n)\n{\n}\n");
    (void)dir.write("probe", "# 1 \"probe.cu\"\nint main() {}\n");
    const std::vector<std::string> problems = missing_code(keep, dir.path() + "/probe", {75}, 75, "scale_add");
    const std::string all = fmt::format("{}", fmt::join(problems, "\n"));
    EXPECT_TRUE(contains(all, "probe.sm_75.cubin cannot be read back: empty file")) << all;
    EXPECT_TRUE(contains(all, "no sm_75 cubin")) << all;
    EXPECT_TRUE(contains(all, "probe.ptx has no .entry for the kernel scale_add")) << all;
    EXPECT_TRUE(contains(all, "probe is not an executable")) << all;
    // Nothing at all.
    test::TempDir empty;
    const std::vector<std::string> none =
        missing_code(empty.make_dir("keep"), empty.path() + "/probe", {75, 90}, 90, "scale_add");
    EXPECT_EQ(none, (std::vector<std::string>{"no sm_75 cubin", "no sm_90 cubin",
                                              "no PTX for compute_90 with the kernel", "no executable probe"}));
}

TEST(HostileToolkit, the_judge_believes_no_success_it_could_not_read_back) {
    CompileOutcome outcome;
    outcome.nvcc = "/usr/local/cuda/bin/nvcc";
    outcome.started = true;
    outcome.exit_status = 0;
    outcome.compile_ms = 20;
    outcome.missing_code = {"no sm_75 cubin", "no PTX for compute_75 with the kernel", "no executable probe"};
    const CheckResult unexplained = test::judge("toolkit.compile", [&](ResultBuilder& builder) {
        judge_compile(outcome, BuildPrediction{}, builder);
    });
    EXPECT_EQ(unexplained.status, Status::fail);
    ASSERT_NE(test::finding_with(unexplained, "CC334"), nullptr);
    EXPECT_TRUE(contains(test::finding_with(unexplained, "CC334")->remediation, "is not NVIDIA's compiler driver"))
        << "no variable to blame";
    EXPECT_NE(test::finding_with(unexplained, "CC333"), nullptr) << "nothing predicted it: the prediction was wrong";
    // PyTorch's extension build: "imported" without a GPU is believed only with GPU code in the module.
    CompileOutcome extension;
    extension.extension =
        ExtensionBuild{.attempted = true, .subject = "/venv: PyTorch", .started = true, .stage = "done", .seconds = 30};
    extension.extension.module_file = "/tmp/x/cudacheck_extension_probe.so";
    extension.extension.module_problem = "/tmp/x/cudacheck_extension_probe.so has no SASS or PTX";
    const CheckResult module = test::judge("toolkit.compile", [&](ResultBuilder& builder) {
        judge_compile(extension, BuildPrediction{}, builder);
    });
    ASSERT_NE(test::finding_with(module, "CC334"), nullptr);
    EXPECT_TRUE(contains(test::finding_with(module, "CC334")->message,
                         "cpp_extension.load reported success, but the module it built carries no GPU code"));
    extension.extension.module_problem.clear();
    EXPECT_EQ(test::judge("toolkit.compile",
                          [&](ResultBuilder& builder) { judge_compile(extension, BuildPrediction{}, builder); })
                  .status,
              Status::pass);
}

// --- 2. TMPDIR -----------------------------------------------------------------------------------

TEST(HostileToolkit, an_unusable_tmpdir_is_a_finding_about_tmpdir_predicted_by_toolkit_build) {
    if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    test::TempDir dir;
    const std::string file = dir.write("a-file", "x");
    struct Case {
        std::string tmpdir, problem;
    };
    // /proc: a directory in which no one, root included, creates a file.
    for (const Case& c : {Case{dir.path() + "/missing", "No such file or directory"},
                          Case{file, "it is not a directory"}, Case{"/proc", "a file cannot be created in it"}}) {
        SCOPED_TRACE(c.tmpdir);
        const BuildRun run = run_build_checks({{"TMPDIR", c.tmpdir}}, true);
        ASSERT_FALSE(run.timed_out) << run.output;
        EXPECT_LT(run.wall_ms, 45000);
        EXPECT_EQ(run.exit_status, 0) << "a warning: " << run.output;
        const std::string predicted = run.findings("toolkit.build");
        EXPECT_TRUE(contains(predicted, "\"CC335\"")) << predicted;
        EXPECT_TRUE(contains(predicted, "TMPDIR=" + c.tmpdir)) << predicted;
        EXPECT_TRUE(contains(predicted, c.problem)) << predicted;
        EXPECT_TRUE(contains(predicted, "export TMPDIR=")) << "the fix: " << predicted;
        const std::string compiled = run.findings("toolkit.compile");
        EXPECT_TRUE(contains(compiled, "\"CC335\"")) << compiled;
        EXPECT_TRUE(contains(compiled, "TMPDIR=" + c.tmpdir)) << compiled;
        EXPECT_TRUE(contains(compiled, "toolkit.build predicted it: CC335")) << compiled;
        EXPECT_FALSE(contains(compiled, "\"CC333\"")) << "no \"report it to cudacheck\": " << compiled;
    }
}

// An empty TMPDIR: nvcc 13.0 writes its intermediates at / (a plain build fails; as root a -keep build
// succeeds and leaves them there). toolkit.build says so; toolkit.compile does not litter / to find out.
TEST(HostileToolkit, an_empty_tmpdir_is_predicted_and_not_tried) {
    if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const auto litter = [] {
        std::size_t count = 0;
        for (const fs::directory_entry& entry : fs::directory_iterator("/"))
            if (entry.path().filename().string().starts_with("tmpxft_")) ++count;
        return count;
    };
    const std::size_t before = litter();
    const BuildRun run = run_build_checks({{"TMPDIR", ""}}, true);
    ASSERT_FALSE(run.timed_out) << run.output;
    EXPECT_EQ(litter(), before) << "nvcc's tmpxft_* files left at /";
    EXPECT_TRUE(contains(run.findings("toolkit.build"), "it is set but empty")) << run.findings("toolkit.build");
    const nlohmann::json& compile = run.check("toolkit.compile");
    ASSERT_FALSE(compile.is_null()) << run.output;
    EXPECT_FALSE(contains(run.findings("toolkit.compile"), "\"CC333\"")) << run.findings("toolkit.compile");
    EXPECT_TRUE(contains(compile.at("evidence").dump(), "not run: TMPDIR is set but empty")) << compile.dump(1);
}

TEST(HostileToolkit, nvcc_failing_on_its_temporary_files_is_read_as_tmpdir) {
    EXPECT_EQ(classify_compile_error(
                  "nvcc fatal   : Could not open output file '/nonexistent/tmpxft_000027bd_0000000a'\n")
                  .code,
              Code::build_tmpdir_unusable);
    EXPECT_EQ(classify_compile_error(
                  "cc1plus: fatal error: /tmpxft_00003961_00000000-6_p.cudafe1.cpp: No such file or directory\n")
                  .code,
              Code::build_tmpdir_unusable);
    EXPECT_EQ(classify_compile_error("/usr/bin/ld: final link failed: No space left on device\n").code,
              Code::build_tmpdir_unusable);
    EXPECT_EQ(classify_compile_error("nvcc fatal   : Host compiler targets unsupported OS.\n").code,
              Code::host_compiler_unusable);
}

TEST(HostileToolkit, the_temporary_directory_probe_judges_tmpdir_as_nvcc_uses_it) {
    test::TempDir dir;
    EXPECT_EQ(temporary_directory_problem(dir.path()), "");
    EXPECT_TRUE(contains(temporary_directory_problem(dir.path(), ~0ull >> 1), "MiB free")) << "a full file system";
    EXPECT_TRUE(contains(temporary_directory_problem("/proc"), "a file cannot be created in it"));
    EXPECT_TRUE(fs::is_empty(dir.path())) << "its probe file is removed";
    Environment unset;
    unset.unset("TMPDIR");
    EXPECT_EQ(nvcc_temporary_directory(unset).path, "/tmp");
    EXPECT_EQ(nvcc_temporary_directory(unset).source, "/tmp (TMPDIR unset)");
    Environment empty;
    empty.set("TMPDIR", "");
    EXPECT_TRUE(contains(nvcc_temporary_directory(empty).problem, "set but empty"))
        << "nvcc 13.0 then writes /tmpxft_* at the root";
}

// --- 3. A host compiler that is no compiler, or never answers -------------------------------------

TEST(HostileToolkit, identify_compiler_names_compilers_by_their_banners) {
    EXPECT_EQ(identify_compiler(
                  "gcc (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n"),
              "gcc");
    EXPECT_EQ(identify_compiler("Ubuntu clang version 18.1.3 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n"), "clang");
    EXPECT_EQ(identify_compiler("Intel(R) oneAPI DPC++/C++ Compiler 2024.0.0 (2024.0.0.20231017)\nTarget: "
                                "x86_64-unknown-linux-gnu\n"),
              "Intel icx/icpx");
    EXPECT_EQ(identify_compiler(
                  "\nnvc++ 24.1-0 64-bit target on x86-64 Linux -tp skylake\nNVIDIA Compilers and Tools\n"),
              "NVIDIA nvc++");
    EXPECT_EQ(identify_compiler(""), "");
    EXPECT_EQ(identify_compiler("hello\n"), "");
    EXPECT_EQ(identify_compiler(std::string(1 << 20, 'x') + "Free Software Foundation"), "")
        << "only the first 4 KiB are read";
}

// A fake compiler: `body` as a shell script (or, with `script` false, as a text file with +x).
std::string fake_compiler(const test::TempDir& dir, const std::string& name, const std::string& body,
                          bool script = true) {
    return dir.write("bin/" + name, script ? "#!/bin/sh\n" + body + "\n" : body, 0755);
}

TEST(HostileToolkit, an_nvcc_ccbin_that_is_no_compiler_fails_toolkit_build_naming_it) {
    test::TempDir dir;
    struct Case {
        std::string ccbin, words;
    };
    const std::vector<Case> cases = {
        {"/bin/true", "not even __cplusplus"},  // its `--version` names the Free Software Foundation, as GCC's does
        {fake_compiler(dir, "says-hello", "echo hello from a script"),
         "`--version` printed \\\"hello from a script\\\""},
        {fake_compiler(dir, "fails", "echo nope >&2; exit 3"), "exited with status 3"},
        {fake_compiler(dir, "text", "this is not a program\n", false), "it cannot be executed: Exec format error"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.ccbin);
        const BuildRun run = run_build_checks({{"NVCC_CCBIN", c.ccbin}}, false);
        ASSERT_FALSE(run.timed_out) << run.output;
        EXPECT_LT(run.wall_ms, 30000);
        EXPECT_EQ(run.exit_status, 1) << "a FAIL: " << run.output;
        const nlohmann::json& build = run.check("toolkit.build");
        ASSERT_FALSE(build.is_null()) << run.output;
        EXPECT_EQ(build.at("status"), "fail");
        const std::string findings = run.findings("toolkit.build");
        EXPECT_TRUE(contains(findings, "\"CC336\"")) << findings;
        EXPECT_TRUE(contains(findings, "NVCC_CCBIN=" + c.ccbin)) << findings;
        EXPECT_TRUE(contains(findings, c.words)) << findings;
        EXPECT_TRUE(contains(findings, "Point NVCC_CCBIN at a real C++ compiler")) << findings;
    }
}

TEST(HostileToolkit, a_gcc_on_path_that_is_no_compiler_is_named_as_gcc_on_path) {
    test::TempDir dir;
    fake_compiler(dir, "gcc", "exit 0");
    const BuildRun run = run_build_checks({{"NVCC_CCBIN", test::unset_marker}}, false, dir.path() + "/bin:");
    ASSERT_FALSE(run.timed_out) << run.output;
    const std::string findings = run.findings("toolkit.build");
    EXPECT_TRUE(contains(findings, "\"CC336\"")) << findings;
    EXPECT_TRUE(contains(findings, "nvcc would run gcc on PATH as its host compiler (" + dir.path() + "/bin/gcc)"))
        << findings;
    EXPECT_TRUE(contains(findings, "Remove " + dir.path() + "/bin/gcc from PATH")) << findings;
}

TEST(HostileToolkit, nvcc_refuses_the_non_compiler_as_predicted) {
    if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const BuildRun run = run_build_checks({{"NVCC_CCBIN", "/bin/true"}}, true);
    ASSERT_FALSE(run.timed_out) << run.output;
    const std::string findings = run.findings("toolkit.compile");
    EXPECT_TRUE(contains(findings, "\"CC336\"")) << findings;
    EXPECT_TRUE(contains(findings, "Host compiler targets unsupported OS")) << "nvcc's own words: " << findings;
    EXPECT_TRUE(contains(findings, "toolkit.build predicted it: CC336")) << findings;
    EXPECT_FALSE(contains(findings, "\"CC333\"")) << findings;
}

// A compiler that closes its output and keeps running: each question is killed at its 10 s limit,
// named, and the check ends in bounded time (before: `waitpid` without a limit, CC903 at --timeout).
TEST(HostileToolkit, a_host_compiler_that_never_answers_is_named_at_its_limit) {
    test::TempDir dir;
    const std::string silent = fake_compiler(dir, "silent-cc", "exec >/dev/null 2>&1 </dev/null\nsleep 300");
    const BuildRun run = run_build_checks({{"NVCC_CCBIN", silent}}, have_nvcc());
    ASSERT_FALSE(run.timed_out) << run.output;
    EXPECT_LT(run.wall_ms, 45000) << "10 s per question, not --timeout";
    const std::string findings = run.findings("toolkit.build");
    EXPECT_TRUE(contains(findings, "\"CC336\"")) << findings;
    EXPECT_TRUE(contains(findings, "`" + silent + " --version` did not finish within 10 s and was killed")) << findings;
    EXPECT_FALSE(contains(run.report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "\"CC903\""));
    if (have_nvcc()) {
        const nlohmann::json& compile = run.check("toolkit.compile");
        ASSERT_FALSE(compile.is_null());
        EXPECT_TRUE(contains(compile.at("evidence").dump(), "its host compiler " + silent + " did not answer"))
            << compile.dump(1);
    }
}

// --- 4. Paths that are not UTF-8 ------------------------------------------------------------------

TEST(HostileToolkit, toolkit_and_compiler_paths_that_are_not_utf8_work_end_to_end) {
    if (!have_nvcc()) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    test::TempDir dir;
    // A toolkit whose directory has a 0xff byte: its files are /usr/local/cuda's, linked.
    const std::string toolkit = dir.path() + "/cuda-\xff";
    fs::create_directory(toolkit);
    for (const fs::directory_entry& entry : fs::directory_iterator("/usr/local/cuda/"))
        fs::create_symlink(entry.path(), toolkit + "/" + entry.path().filename().string());
    const std::string compilers = dir.make_dir("gcc-\xfe");
    fs::create_symlink("/usr/bin/g++", compilers + "/g++");
    for (const auto& overrides :
         std::vector<std::vector<std::pair<std::string, std::string>>>{{{"CUDA_HOME", toolkit}},
                                                                       {{"NVCC_CCBIN", compilers + "/g++"}},
                                                                       {{"CUDAHOSTCXX", compilers + "/g++"}},
                                                                       {{"CUDACXX", toolkit + "/bin/nvcc"}}}) {
        SCOPED_TRACE(overrides.front().first);
        const BuildRun run = run_build_checks(overrides, false, compilers + ":");
        ASSERT_TRUE(run.report.is_object()) << run.output;
        const nlohmann::json& build = run.check("toolkit.build");
        EXPECT_EQ(build.at("status"), "pass") << build.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
        EXPECT_EQ(run.exit_status, 0);
        EXPECT_FALSE(contains(run.findings("toolkit.build"), "CC901"));
    }
    // The real bytes reach the file system: nvcc runs from the odd directory and builds.
    const BuildRun compiled = run_build_checks({{"CUDA_HOME", toolkit}, {"NVCC_CCBIN", compilers + "/g++"}}, true);
    EXPECT_EQ(compiled.check("toolkit.compile").at("status"), "pass") << compiled.output;
}

// toolkit.build reads the Python environments' frameworks (their GPU code, through the GPU-code
// cache): a framework library under a non-UTF-8 directory once ended toolkit.build (and
// frameworks.builds) in CC901, nlohmann's type_error.316 from the cache's strict dump().
TEST(HostileToolkit, a_framework_library_under_a_non_utf8_path_leaves_toolkit_build_standing) {
    test::TempDir dir;
    const std::string venv = dir.path() + "/venv";
    fs::copy(test::fixture_path("frameworks/h200-venv"), venv, fs::copy_options::recursive);
    fs::create_directory(venv + "/bin");
    fs::create_symlink("/usr/bin/python3", venv + "/bin/python3");
    const std::string libraries = dir.make_dir("torch-lib-\xff");
    const test::ByteVector library = test::make_elf(3, {{".nv_fatbin", test::make_fatbin({test::Entry{}})}});
    std::ofstream(libraries + "/libtorch_cuda.so", std::ios::binary)
        .write(reinterpret_cast<const char*>(library.data()), static_cast<std::streamsize>(library.size()));
    fs::create_directory_symlink(libraries, venv + "/lib/python3.12/site-packages/torch/lib");
    const std::string report = dir.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "toolkit.build,frameworks.builds", "--python", venv, "-q", "-o", report},
                            {{"CUDACHECK_CACHE_DIR", dir.path() + "/cache"}});
    ASSERT_FALSE(run.timed_out) << run.output;
    const nlohmann::json document = nlohmann::json::parse(test::read_text(report), nullptr, false);
    ASSERT_TRUE(document.is_object()) << run.output;
    const std::string all = document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_FALSE(contains(all, "CC901")) << all;
    EXPECT_FALSE(contains(all, "type_error")) << all;
    EXPECT_NE(test::find_check(document, "toolkit.build")->at("status"), "error") << all;
}

// --- 5. Hand-written readers instead of std::regex ------------------------------------------------

TEST(HostileToolkit, versioned_compiler_names_read_as_the_pattern_did) {
    EXPECT_EQ(versioned_compiler_names({"gcc", "g++-13", "clang-18", "clang++-18", "x86_64-linux-gnu-g++-12",
                                        "x86_64-linux-gnu-gcc-12", "gcc-ar-12", "g++-", "-g++-13", "gcc-13a",
                                        "a-b-g++-13", "a-b-c-d-gcc-12", "X86-linux-gnu-gcc-12", "a--c-gcc-1",
                                        "clang-format-18"}),
              (std::vector<std::string>{"clang++-18", "clang-18", "g++-13", "x86_64-linux-gnu-g++-12",
                                        "x86_64-linux-gnu-gcc-12"}));
    const std::string long_name = "gcc-" + std::string(1 << 20, '1');
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(versioned_compiler_names({long_name, std::string(1 << 20, '-')}).size(), 1u);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(HostileToolkit, cmake_architectures_read_as_the_pattern_did) {
    for (const char* valid : {"90", "90a", "100f", "75;90", "75-real;90-virtual", "90;", "90;;80", "80a-real"})
        EXPECT_EQ(cmake_architectures_kind(valid), CMakeArchitecturesKind::list) << valid;
    for (const char* invalid :
         {"", ";90", "sm_90", "9.0", "8.6+PTX", "90-real-virtual", "90b", "90;sm_80", "90 ", "-real", "90aa"})
        EXPECT_EQ(cmake_architectures_kind(invalid), CMakeArchitecturesKind::invalid) << invalid;
    // 35 KB and 1 MB: once a stack overflow in std::regex's recursion.
    std::string list = "90";
    while (list.size() < (1u << 20)) list += ";80-real";
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(cmake_architectures_kind(list), CMakeArchitecturesKind::list);
    EXPECT_EQ(cmake_architectures_kind(list + ";x"), CMakeArchitecturesKind::invalid);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(HostileToolkit, a_35_kb_cudaarchs_is_judged_not_crashed_on) {
    std::string value = "90";
    while (value.size() < 35000) value += ";sm_80";
    const BuildRun run = run_build_checks({{"CUDAARCHS", value}}, false);
    ASSERT_TRUE(run.report.is_object()) << run.output;
    EXPECT_TRUE(contains(run.findings("toolkit.build"), "\"CC315\"")) << "CMake's pattern refuses sm_80";
    EXPECT_NE(run.exit_status, 139);
}

}  // namespace
}  // namespace cudacheck
