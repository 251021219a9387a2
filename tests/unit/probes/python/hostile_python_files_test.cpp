// Hostile Python files: the readers of build_info.py, version.py, METADATA, pyvenv.cfg,
// .pth files and torch's cpp_extension.py tables make progress or stop, keep their output bounded,
// and read numbers out of file names without exceptions. Each hostile input is fed to the parser
// in a child process with an address-space limit and an alarm, so that a loop that never ends or
// grows without bound fails the test instead of hanging or swapping the machine; the end-to-end
// cases run the built binary on environments made here.
#include "checks/frameworks_run.hpp"
#include "probes/build/torch_arch_list.hpp"
#include "probes/python/build_info.hpp"
#include "probes/python/python_environments.hpp"
#include "probes/python/python_imports.hpp"
#include "probes/python/python_packages.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"
#include "util/python_packaging.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;

// Runs `work` in a child limited to `memory` bytes of address space and `seconds` of time; its
// wait status. The child ends with 0 when `work` returned true.
int bounded(const std::function<bool()>& work, rlim_t memory = rlim_t{1} << 30, unsigned seconds = 10) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const rlimit limit{memory, memory};
        ::setrlimit(RLIMIT_AS, &limit);
        ::alarm(seconds);
        bool ok = false;
        try {
            ok = work();
        } catch (...) {
            ::_exit(3);  // an exception escaped: the defect of item 8d
        }
        ::_exit(ok ? 0 : 1);
    }
    int status = -1;
    ::waitpid(pid, &status, 0);
    return status;
}

// What a wait status says, for a failure message.
std::string describe(int status) {
    if (WIFSIGNALED(status))
        return fmt::format("killed by signal {} (SIGALRM {}: time; SIGSEGV/SIGABRT: memory or a crash)",
                           WTERMSIG(status), SIGALRM);
    return fmt::format("exit status {} (1: wrong answer, 3: an exception)", WEXITSTATUS(status));
}

// ---------------------------------------------------------------------------------------------
// build_info.py (item 5 of the issue: `[)` in a list looped for ever pushing empty strings)

TEST(HostilePythonFiles, a_build_info_list_closed_by_a_parenthesis_stops_at_once_with_bounded_memory) {
    const auto started = std::chrono::steady_clock::now();
    const int status = bounded(
        [] {
            const std::string text =
                "build_info = collections.OrderedDict([('cuda_version', '12.3'), ('cuda_compute_capabilities', [)])\n";
            const std::map<std::string, std::string> info = parse_tensorflow_build_info(text);
        // The entries before the broken one are kept; the broken one is not invented.
            return info.size() == 1 && info.at("cuda_version") == "12.3";
        },
        rlim_t{512} << 20);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0);
}

TEST(HostilePythonFiles, build_info_lists_of_empty_words_commas_and_deep_brackets_end_bounded) {
    for (const std::string& body :
         {std::string("('a', [") + std::string(200000, ',') + ")])",
          std::string("('a', [") + std::string(200000, '[') + ")", std::string("(,") + std::string(100000, ')'),
          std::string("('a', ['x'") + std::string(300000, ' ') + ")", "('a', [" + [] {
              std::string items;
              for (int i = 0; i < 100000; ++i) items += "'sm_80',";
              return items;
          }() + "])"}) {
        const int status = bounded(
            [&] {
                const auto info = parse_tensorflow_build_info("collections.OrderedDict([" + body + "])");
                std::size_t size = 0;
                for (const auto& [key, value] : info) size += key.size() + value.size();
                return size < (std::size_t{8} << 20);  // the output stays near the input's size, never beyond
            },
            rlim_t{512} << 20);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status) << " for " << body.substr(0, 40);
    }
    // Normal input as before.
    const auto info = parse_tensorflow_build_info(
        "build_info = collections.OrderedDict([('cuda_version', '12.3'), ('is_cuda_build', True), "
        "('cuda_compute_capabilities', ['sm_60', 'sm_70', 'compute_90']), ('cudnn_version', '8')])");
    EXPECT_EQ(info.at("cuda_compute_capabilities"), "sm_60,sm_70,compute_90");
    EXPECT_EQ(info.at("is_cuda_build"), "True");
    EXPECT_EQ(info.at("cudnn_version"), "8");
}

// A venv with TensorFlow whose build_info.py is `text`; its root.
std::string tensorflow_venv(const test::TempDir& dir, const std::string& build_info) {
    const std::string site = "venv/lib/python3.12/site-packages";
    (void)dir.write("venv/pyvenv.cfg",
                    "home = /nonexistent/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n");
    (void)dir.write(site + "/tensorflow-2.16.1.dist-info/METADATA",
                    "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.16.1\n\n");
    (void)dir.write(site + "/tensorflow/__init__.py", "");
    (void)dir.write(site + "/tensorflow/python/platform/build_info.py", build_info);
    return dir.path() + "/venv";
}

// The built cudacheck under an address-space limit (prlimit(1)), with this environment plus
// `overrides`: a parser that grows without bound is stopped by the kernel instead of the machine.
test::BinaryRun run_limited(const std::vector<std::string>& arguments,
                            const std::vector<std::pair<std::string, std::string>>& overrides = {},
                            const std::string& memory = "8589934592") {
    std::vector<std::string> argv{"/usr/bin/prlimit", "--as=" + memory, CUDACHECK_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const std::vector<std::string> environment = test::environment_with(overrides);
    return test::run_program(argv, environment);
}

TEST(HostilePythonFiles, frameworks_builds_reads_a_broken_build_info_as_a_problem_in_bounded_time_and_memory) {
    if (!sys::exists("/usr/bin/prlimit")) GTEST_SKIP() << "no prlimit(1)";
    test::TempDir dir;
    const std::string venv = tensorflow_venv(
        dir, "build_info = collections.OrderedDict([('is_cuda_build', True), ('cuda_compute_capabilities', [)])\n");
    // Before: the worker grew to 11.8 GiB in 76 s and the check ended in CC902.
    const test::BinaryRun run =
        run_limited({"--python", venv, "--only", "frameworks.builds", "--timeout", "60", "--no-color"},
                    {{"CUDACHECK_CACHE_DIR", "off"}, {"HOME", dir.path()}});
    EXPECT_FALSE(run.timed_out) << run.output;
    EXPECT_LT(run.wall_ms, 10000.0) << run.output;
    EXPECT_FALSE(contains(run.output, "CC902")) << run.output;
    EXPECT_FALSE(contains(run.output, "CC903")) << run.output;
    EXPECT_TRUE(contains(run.output, "TensorFlow 2.16.1")) << run.output;
    EXPECT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.exit_status << "\n" << run.output;
}

// ---------------------------------------------------------------------------------------------
// version.py, METADATA, pyvenv.cfg, .pth: long lines, no newlines, deep nesting

TEST(HostilePythonFiles, the_line_readers_end_bounded_on_long_and_nested_input) {
    const std::string long_line(1 << 20, 'x');
    const std::string nested = std::string(1 << 19, '[') + std::string(1 << 19, '(');
    const std::string quotes(1 << 20, '\'');
    for (const std::string* text : {&long_line, &nested, &quotes}) {
        const int status = bounded([&] {
            (void)parse_python_literals("__version__ = " + *text);
            (void)packaging::parse_metadata("Name: x\nVersion: 1\nRequires-Dist: " + *text + "\n");
            (void)packaging::parse_requirement(*text);
            (void)parse_pyvenv_cfg("home = " + *text + "\n" + *text);
            (void)script_interpreter("#!" + *text);
            (void)satisfies(*text, ">=" + *text);
            (void)read_torch_arch_tables("named_arches = collections.OrderedDict([" + *text +
                                         "])\nsupported_arches = [" + *text + "]");
            return true;
        });
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
    }
}

TEST(HostilePythonFiles, torch_arch_names_that_expand_into_each_other_stop_at_a_bound) {
    // Each name expands to two of the next: 40 names would double the text 40 times (2^40).
    TorchArchTables tables;
    for (int i = 0; i < 40; ++i) tables.named.emplace_back(fmt::format("N{}", i), fmt::format("N{};N{}", i + 1, i + 1));
    tables.supported = {"8.0"};
    TorchArchList list;
    const int status = bounded(
        [&] {
            const TorchArchList parsed = parse_torch_cuda_arch_list("N0", tables);
            return parsed.error && contains(*parsed.error, "expands past 64 KiB") && parsed.gencode_flags.empty();
        },
        rlim_t{512} << 20);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
    // torch's own names still expand.
    const TorchArchTables real{{{"Ampere", "8.0;8.6+PTX"}}, {"8.0", "8.6"}};
    EXPECT_EQ(parse_torch_cuda_arch_list("Ampere", real).entries, (std::vector<std::string>{"8.0", "8.6+PTX"}));
}

TEST(HostilePythonFiles, pth_files_of_many_paths_and_imports_are_followed_to_a_bound_and_say_so) {
    // Each import line of a .pth searches the whole path: 20,000 path lines and 20,000 imports of a
    // module at the end of the path would be 400 million look-ups. The model follows 1,000 of each
    // and says where it stopped.
    test::TempDir dir;
    const std::string base = dir.path() + "/base";
    (void)dir.write("base/bin/python3.12", "#!ELF stand-in\n", 0755);
    (void)dir.write("base/lib/python3.12/os.py", "");
    const std::string site = dir.make_dir("base/lib/python3.12/site-packages");
    (void)dir.make_dir("work");
    std::string pth;
    for (int i = 0; i < 20000; ++i) pth += fmt::format("{}/d{}\nimport late\n", site, i % 50);
    for (int i = 0; i < 50; ++i) (void)dir.make_dir(fmt::format("base/lib/python3.12/site-packages/d{}", i));
    (void)dir.write("base/lib/python3.12/site-packages/many.pth", pth);
    (void)dir.write("late/late.py", "");
    (void)dir.write("base/lib/python3.12/site-packages/a.pth", dir.path() + "/late\n");
    const PythonEnvironment python{.kind = PythonKind::other,
                                   .prefix = base,
                                   .interpreter = base + "/bin/python3.12",
                                   .python_version = "3.12"};
    Environment environment;
    environment.set("HOME", dir.path() + "/nohome");
    const auto started = std::chrono::steady_clock::now();
    const ImportModel model =
        model_imports(python, ImportContext{.environment = environment, .current_directory = dir.path() + "/work"});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0);
    ASSERT_TRUE(model.modelled) << model.why_not;
    EXPECT_TRUE(std::any_of(model.unmodelled.begin(), model.unmodelled.end(), [](const std::string& note) {
        return contains(note, "not followed, past 1000 paths or 1000 import lines");
    })) << (model.unmodelled.empty() ? "" : model.unmodelled.front());
    EXPECT_LT(model.sys_path.size(), 1100u);
    // What came before the bound still counts: a.pth (sorted first) put late/ on the path.
    EXPECT_EQ(resolve_import(model, "late").kind, ImportKind::module);
}

// ---------------------------------------------------------------------------------------------
// Numbers from file names (item 8d: `lib/python3.<20 digits>` threw from std::stoi)

TEST(HostilePythonFiles, versions_of_twenty_digits_are_not_versions_and_never_throw) {
    const std::string twenty = "3." + std::string(20, '9');
    const int status = bounded([&] {
        return python_major_minor(twenty).empty() && python_major_minor("3.12.3") == "3.12" &&
               !decimal_number(std::string(20, '9')) && decimal_number("12") == 12 && !decimal_number("") &&
               !decimal_number("1x") && !decimal_number("-1") &&
               // release numbers past what packaging reads (18 digits) are no PEP 440 version: no
               // mismatch is claimed, and nothing throws
               satisfies("1." + std::string(30, '9'), ">=1.0") && satisfies("2.0", "==" + std::string(25, '7'));
    });
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe(status);
}

TEST(HostilePythonFiles, env_and_frameworks_builds_survive_a_lib_python3_of_twenty_digits) {
    // A conda-style prefix (no pyvenv.cfg: its version is read from lib/python3.X names) with a
    // real lib/python3.12 beside the hostile name: the sort compared them with std::stoi.
    test::TempDir dir;
    const std::string prefix = dir.make_dir("conda");
    (void)dir.make_dir("conda/conda-meta");
    (void)dir.make_dir("conda/lib/python3." + std::string(20, '9') + "/site-packages");
    (void)dir.make_dir("conda/lib/python3.12/site-packages");
    (void)dir.make_dir("conda/lib/python3.11/site-packages");
    const test::BinaryRun env =
        test::run_cudacheck({"env"}, {{"CONDA_PREFIX", prefix}, {"HOME", dir.path()}, {"CUDACHECK_CACHE_DIR", "off"}});
    EXPECT_LT(env.wall_ms, 10000.0);
    EXPECT_TRUE(env.exit_status == 0 || env.exit_status == 1) << "before: exit 3 (CC901)\n" << env.output;
    EXPECT_FALSE(contains(env.output, "stoi")) << env.output;
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "frameworks.builds", "--no-color"},
                            {{"CONDA_PREFIX", prefix}, {"HOME", dir.path()}, {"CUDACHECK_CACHE_DIR", "off"}});
    EXPECT_FALSE(contains(run.output, "CC901")) << run.output;
    EXPECT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
}

// ---------------------------------------------------------------------------------------------
// frameworks.run: a child's whole output (item 8f: only the first MiB was kept)

TEST(HostilePythonFiles, a_report_line_after_five_mib_of_output_is_found) {
    test::TempDir dir;
    // A fake interpreter: 5 MiB of warnings (lines of 1 KiB), then the report line, as the
    // framework's script prints it last.
    const std::string fake = dir.write("python3",
                                       "#!/bin/sh\n"
                                       "head -c 5242880 /dev/zero | tr '\\0' 'w' | fold -w 1023\n"
                                       "echo\n"
                                       "echo 'CUDACHECK_SELF_REPORT {\"ok\": true, \"version\": \"2.11.0+cu130\", "
                                       "\"cuda\": \"13.0\", \"checks\": [\"matmul\"]}'\n",
                                       0755);
    const auto started = std::chrono::steady_clock::now();
    const FrameworkRunOutcome outcome = run_framework_child({fake, "-c", "ignored"}, std::chrono::seconds(60));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0);
    EXPECT_TRUE(outcome.started);
    EXPECT_FALSE(outcome.timed_out);
    EXPECT_EQ(outcome.exit_status, 0);
    EXPECT_GT(outcome.output_bytes, std::size_t{5} << 20);
    ASSERT_TRUE(outcome.report.has_value())
        << "before: \"exited with status 0 before reporting\"; " << outcome.output_tail << outcome.report_error;
    EXPECT_TRUE(outcome.report->ok);
    EXPECT_EQ(outcome.report->version, "2.11.0+cu130");
    EXPECT_EQ(outcome.report->cuda, "13.0");
}

TEST(HostilePythonFiles, a_report_line_after_five_mib_without_a_newline_and_split_across_reads_is_found) {
    // The pure reader, fed in pieces that split the marker: 5 MiB on one line with no newline,
    // then the marker in the same line (a thread's output left unterminated before print()).
    FrameworkOutput output;
    const std::string junk(5 << 20, 'j');
    const std::string line = junk + "CUDACHECK_SELF_REPORT {\"ok\": false, \"error\": \"RuntimeError: no GPU\"}\n";
    for (std::size_t at = 0; at < line.size(); at += 7777)
        EXPECT_TRUE(output.add(std::string_view(line).substr(at, 7777)));
    output.finish();
    EXPECT_EQ(output.report_line(), "CUDACHECK_SELF_REPORT {\"ok\": false, \"error\": \"RuntimeError: no GPU\"}");
    EXPECT_LE(output.tail().size(), 2 * FrameworkOutput::tail_limit);
    const auto report = parse_self_report(output.report_line());
    ASSERT_TRUE(report.has_value()) << test::error_of(report);
    EXPECT_EQ(report->error, "RuntimeError: no GPU");
    // The last report line wins; a later line without a marker does not clear it.
    FrameworkOutput twice;
    (void)twice.add("CUDACHECK_SELF_REPORT {\"version\": \"1\"}\nCUDACHECK_SELF_REPORT {\"version\": \"2\"}\nbye\n");
    twice.finish();
    EXPECT_EQ(twice.report_line(), "CUDACHECK_SELF_REPORT {\"version\": \"2\"}");
}

TEST(HostilePythonFiles, a_child_printing_without_end_is_read_within_bounded_memory_and_says_so) {
    // No report line at all, and output past the limit: stopped there, and the message says it.
    test::TempDir dir;
    const std::string fake = dir.write("python3", "#!/bin/sh\nexec cat /dev/zero\n", 0755);
    const auto started = std::chrono::steady_clock::now();
    const FrameworkRunOutcome outcome = run_framework_child({fake, "-c", "ignored"}, std::chrono::seconds(60));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 30.0);
    EXPECT_FALSE(outcome.report.has_value());
    EXPECT_EQ(outcome.output_bytes, FrameworkOutput::output_limit);
    EXPECT_TRUE(contains(outcome.output_tail, "printed more than 256 MiB without a report line"))
        << outcome.output_tail.substr(0, 300);
    EXPECT_LT(outcome.output_tail.size(), std::size_t{200} << 10);
}

}  // namespace
}  // namespace cudacheck
