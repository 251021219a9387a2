// toolkit.tools (checks/toolkit_tools.cpp): the tools of the toolkit builds use and of the others,
// a tool that does not run, the counters the driver reserves for root (not for root itself), perf
// events restricted where Nsight Systems is installed; and the registered check on a crafted
// toolkit whose tools print what the CUDA 13.0 tools printed on the H200 machine.
#include "checks/toolkit_tools.hpp"
#include "engine/registry.hpp"
#include "probes/probes.hpp"
#include "support/check_judging.hpp"
#include "support/fixtures.hpp"
#include "support/headlines.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

namespace cudacheck {
namespace {

using test::contains;
using test::finding_with;

constexpr const char* cuda13 = "/usr/local/cuda-13.0";

DeveloperTool tool(std::string name, std::string path, std::string version, std::string failure = {}) {
    return DeveloperTool{std::move(name), std::move(path), std::move(version), std::move(failure)};
}

// The CUDA 13.0 toolkit of the H200 machine: every tool but nsys, each with the version it printed.
DeveloperToolSet toolkit_13_0() {
    const std::string bin = std::string(cuda13) + "/bin/";
    return DeveloperToolSet{cuda13,
                            "13.0.2",
                            "the nvcc on PATH runs from it",
                            {tool("nsys", "", ""), tool("ncu", bin + "ncu", "2025.3.1.0"),
                             tool("cuda-gdb", bin + "cuda-gdb", "13.0"),
                             tool("compute-sanitizer", bin + "compute-sanitizer", "2025.3.1.0"),
                             tool("cuobjdump", bin + "cuobjdump", "13.0.85"),
                             tool("nvdisasm", bin + "nvdisasm", "13.0.85")}};
}

DeveloperToolFacts facts_with(DeveloperToolSet set, std::optional<bool> admin_only, std::optional<int> paranoid,
                              uid_t uid) {
    DeveloperToolFacts facts;
    facts.toolkits.push_back(std::move(set));
    facts.permissions = ProfilingPermissions{admin_only, paranoid};
    facts.effective_uid = uid;
    return facts;
}

CheckResult judged(const DeveloperToolFacts& facts) {
    return test::judge("toolkit.tools", [&](ResultBuilder& result) { judge_developer_tools(facts, result); });
}

std::string evidence(const CheckResult& result, std::string_view key) {
    for (const Evidence& entry : result.evidence)
        if (entry.key == key) return entry.value;
    return "(no " + std::string(key) + ")";
}

std::size_t count_code(const CheckResult& result, std::string_view code) {
    return static_cast<std::size_t>(std::count_if(result.findings.begin(), result.findings.end(),
                                                  [&](const Finding& finding) { return finding.code == code; }));
}

TEST(ToolkitToolsCheck, passes_naming_each_tool_and_says_how_to_get_the_missing_nsys) {
    const CheckResult result = judged(facts_with(toolkit_13_0(), false, 4, 1000));
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(result.findings.empty()) << "no nsys: a perf_event_paranoid of 4 restricts nothing installed";
    EXPECT_EQ(result.message,
              "5 of 6 tools run in /usr/local/cuda-13.0; no nsys; profiling counters open to all users");
    EXPECT_EQ(evidence(result, "tools"),
              "ncu 2025.3.1.0, cuda-gdb 13.0, compute-sanitizer 2025.3.1.0, cuobjdump 13.0.85, nvdisasm 13.0.85 in "
              "/usr/local/cuda-13.0; no nsys");
    EXPECT_EQ(evidence(result, "toolkit"), "/usr/local/cuda-13.0 13.0.2 (the nvcc on PATH runs from it)");
    EXPECT_EQ(evidence(result, "ncu"), "2025.3.1.0 at /usr/local/cuda-13.0/bin/ncu");
    EXPECT_TRUE(contains(evidence(result, "nsys"), "not installed")) << evidence(result, "nsys");
    EXPECT_TRUE(contains(evidence(result, "nsys"), "sudo apt install nsight-systems-<version>"))
        << evidence(result, "nsys");
    EXPECT_TRUE(contains(evidence(result, "nsys"), "https://developer.nvidia.com/nsight-systems"))
        << evidence(result, "nsys");
    EXPECT_TRUE(contains(evidence(result, "rm_profiling_admin_only"), "0 "))
        << evidence(result, "rm_profiling_admin_only");
    EXPECT_TRUE(contains(evidence(result, "perf_event_paranoid"), "4 (above 2"))
        << evidence(result, "perf_event_paranoid");
    EXPECT_EQ(evidence(result, "effective_uid"), "1000");
}

TEST(ToolkitToolsCheck, counters_reserved_for_administrators_warn_a_user_but_not_root) {
    const CheckResult user = judged(facts_with(toolkit_13_0(), true, 2, 1000));
    EXPECT_EQ(user.status, Status::warn);
    EXPECT_EQ(user.code, "CC320");
    EXPECT_TRUE(contains(user.message, "uid 1000")) << user.message;
    // The account behind the headline is evidence.
    EXPECT_TRUE(contains(evidence(user, "profiling_restricted"), "RmProfilingAdminOnly: 1"))
        << evidence(user, "profiling_restricted");
    EXPECT_TRUE(contains(evidence(user, "profiling_restricted"), "ncu at /usr/local/cuda-13.0/bin/ncu"))
        << evidence(user, "profiling_restricted");
    EXPECT_TRUE(contains(evidence(user, "profiling_restricted"), "ERR_NVGPUCTRPERM"))
        << evidence(user, "profiling_restricted");
    EXPECT_FALSE(contains(user.message, "nsys")) << "the counters are ncu's and CUPTI's: " << user.message;
    EXPECT_TRUE(contains(user.remediation, "sudo /usr/local/cuda-13.0/bin/ncu")) << user.remediation;
    EXPECT_TRUE(
        contains(user.remediation, "options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee /etc/modprobe.d/"))
        << user.remediation;
    EXPECT_TRUE(contains(user.remediation, "update-initramfs")) << user.remediation;

    const CheckResult root = judged(facts_with(toolkit_13_0(), true, 2, 0));
    EXPECT_EQ(root.status, Status::pass) << root.message;
    EXPECT_TRUE(contains(root.message, "profiling counters reserved for root, which this process is")) << root.message;
    EXPECT_EQ(evidence(root, "effective_uid"), "0 (root)");

    const CheckResult unknown = judged(facts_with(toolkit_13_0(), std::nullopt, std::nullopt, 1000));
    EXPECT_EQ(unknown.status, Status::pass) << "no driver params: nothing to judge";
    EXPECT_TRUE(contains(evidence(unknown, "rm_profiling_admin_only"), "unknown"))
        << evidence(unknown, "rm_profiling_admin_only");
    EXPECT_TRUE(contains(evidence(unknown, "perf_event_paranoid"), "unknown"))
        << evidence(unknown, "perf_event_paranoid");
}

TEST(ToolkitToolsCheck, restricted_perf_events_warn_only_where_nsys_is_installed) {
    DeveloperToolSet with_nsys = toolkit_13_0();
    with_nsys.tools.front() = tool("nsys", "/usr/local/bin/nsys", "2025.3.2.474-253236389321v0");
    const CheckResult restricted = judged(facts_with(with_nsys, false, 4, 1000));
    EXPECT_EQ(restricted.status, Status::warn);
    EXPECT_EQ(restricted.code, "CC321");
    EXPECT_TRUE(contains(restricted.message, "perf_event_paranoid is 4")) << restricted.message;
    EXPECT_TRUE(contains(test::account(restricted), "/usr/local/bin/nsys")) << test::account(restricted);
    EXPECT_TRUE(contains(restricted.remediation, "sudo sysctl -w kernel.perf_event_paranoid=2"))
        << restricted.remediation;
    EXPECT_TRUE(contains(evidence(restricted, "nsys"), "(on PATH, not in the toolkit)"))
        << evidence(restricted, "nsys");
    EXPECT_TRUE(contains(restricted.message, "nsys")) << restricted.message;

    for (const auto& [paranoid, uid] : {std::pair{2, uid_t{1000}}, std::pair{4, uid_t{0}}}) {
        const CheckResult result = judged(facts_with(with_nsys, false, paranoid, uid));
        EXPECT_EQ(result.status, Status::pass) << paranoid << " as uid " << uid << ": " << result.message;
        EXPECT_TRUE(contains(evidence(result, "tools"), "nsys 2025.3.2.474-253236389321v0 (from PATH)"))
            << evidence(result, "tools");
        EXPECT_TRUE(contains(result.message, fmt::format("perf_event_paranoid {}", paranoid))) << result.message;
    }
    EXPECT_EQ(judged(facts_with(toolkit_13_0(), false, 4, 1000)).status, Status::pass)
        << "without nsys it is evidence only";
}

TEST(ToolkitToolsCheck, each_tool_that_does_not_run_is_named_with_what_it_said_in_every_toolkit) {
    DeveloperToolSet used = toolkit_13_0();
    used.tools[2] =
        tool("cuda-gdb", "/usr/local/cuda-13.0/bin/cuda-gdb", "",
             "`--version` exited with status 127: cuda-gdb: error while loading shared libraries: libncursesw.so.6");
    DeveloperToolFacts facts = facts_with(used, false, 2, 1000);
    facts.toolkits.push_back(
        DeveloperToolSet{"/usr/local/cuda-12.8",
                         "12.8.1",
                         {},
                         {tool("nsys", "", ""), tool("ncu", "/usr/local/cuda-12.8/bin/ncu", "2025.1.0.0"),
                          tool("cuda-gdb", "", ""), tool("compute-sanitizer", "", ""),
                          tool("cuobjdump", "/usr/local/cuda-12.8/bin/cuobjdump", "", "not the real one"),
                          tool("nvdisasm", "", "")}});
    const CheckResult result = judged(facts);
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC322");
    EXPECT_EQ(count_code(result, "CC322"), 2u);
    EXPECT_TRUE(contains(result.message, "cuda-gdb at /usr/local/cuda-13.0/bin/cuda-gdb does not run"))
        << result.message;
    EXPECT_TRUE(contains(test::account(result), "libncursesw.so.6")) << test::account(result);
    EXPECT_TRUE(contains(result.remediation, "sudo apt install --reinstall cuda-gdb-13-0")) << result.remediation;
    const Finding& other = result.findings[1];
    EXPECT_TRUE(
        contains(other.message, "cuobjdump at /usr/local/cuda-12.8/bin/cuobjdump does not run: not the real one"))
        << other.message;
    EXPECT_TRUE(contains(other.remediation, "cuda-cuobjdump-12-8")) << other.remediation;
    EXPECT_EQ(evidence(result, "other_toolkit"),
              "ncu 2025.1.0.0 in /usr/local/cuda-12.8; cuobjdump does not run; no nsys, cuda-gdb, compute-sanitizer, "
              "nvdisasm");
    EXPECT_TRUE(contains(evidence(result, "cuda-gdb"), "does not run at /usr/local/cuda-13.0/bin/cuda-gdb"))
        << evidence(result, "cuda-gdb");
}

TEST(ToolkitToolsCheck, without_a_toolkit_it_names_the_tools_on_path) {
    DeveloperToolFacts facts = facts_with(DeveloperToolSet{"",
                                                           "",
                                                           "",
                                                           {tool("nsys", "", ""), tool("ncu", "", ""),
                                                            tool("cuda-gdb", "/usr/bin/cuda-gdb", "12.0")}},
                                          false, 2, 1000);
    const CheckResult result = judged(facts);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(evidence(result, "toolkit"), "none installed: the tools on PATH");
    EXPECT_TRUE(contains(result.message, "1 of 3 tools run on PATH; no nsys and ncu")) << result.message;
    EXPECT_TRUE(contains(evidence(result, "tools"), "cuda-gdb 12.0 on PATH (no CUDA toolkit installed); no nsys, ncu"))
        << evidence(result, "tools");
}

TEST(ToolkitToolsCheck, takes_the_toolkit_of_the_nvcc_on_path_then_usr_local_cuda_then_the_first) {
    ToolkitFacts toolkits;
    EXPECT_EQ(choose_tools_toolkit(toolkits).root, "");
    toolkits.toolkits.push_back(
        {"/usr/local/cuda-12.8", "12.8.1", "/usr/local/cuda-12.8/bin/nvcc", {"/usr/local/cuda-12.8"}});
    toolkits.toolkits.push_back(
        {cuda13, "13.0.2", "/usr/local/cuda-13.0/bin/nvcc", {"/usr/local/cuda", "/usr/local/cuda-13.0"}});
    EXPECT_EQ(choose_tools_toolkit(toolkits).root, "/usr/local/cuda-12.8");
    EXPECT_TRUE(contains(choose_tools_toolkit(toolkits).why, "first toolkit found"));
    toolkits.cuda_symlink = cuda13;
    EXPECT_EQ(choose_tools_toolkit(toolkits).root, cuda13);
    EXPECT_TRUE(contains(choose_tools_toolkit(toolkits).why, "/usr/local/cuda points to it"));
    toolkits.path_nvcc = "/usr/local/cuda-12.8/bin/nvcc";
    toolkits.path_nvcc_root = "/usr/local/cuda-12.8";
    EXPECT_EQ(choose_tools_toolkit(toolkits).root, "/usr/local/cuda-12.8");
    EXPECT_EQ(choose_tools_toolkit(toolkits).why, "the nvcc on PATH runs from it");
}

// A tool that prints its fixture, as the real one printed it on the H200 machine.
void write_tool(const test::TempDir& root, const std::string& relative, const std::string& fixture) {
    root.write(relative, "#!/bin/sh\ncat '" + test::fixture_path("developer_tools/" + fixture) + "'\n", 0755);
}

TEST(ToolkitToolsCheck, runs_registered_on_a_crafted_toolkit_and_proc) {
    test::TempDir root;
    root.write("usr/local/cuda-13.0/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "13.0.2"}})");
    write_tool(root, "usr/local/cuda-13.0/bin/ncu", "ncu-13.0.txt");
    write_tool(root, "usr/local/cuda-13.0/bin/cuda-gdb", "cuda-gdb-13.0.txt");
    write_tool(root, "usr/local/cuda-13.0/bin/compute-sanitizer", "compute-sanitizer-13.0.txt");
    write_tool(root, "usr/local/cuda-13.0/bin/cuobjdump", "cuobjdump-13.0.txt");
    root.write("usr/local/cuda-13.0/bin/nvdisasm", "#!/bin/sh\necho 'nvdisasm: cannot open libnvdisasm' >&2\nexit 1\n",
               0755);
    root.symlink("cuda-13.0", "usr/local/cuda");
    root.write("usr/local/cuda-12.8/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.8.1"}})");
    root.write("usr/local/cuda-12.8/bin/cuobjdump",
               "#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n", 0755);
    root.write("opt/nsight-systems/bin/nsys",
               "#!/bin/sh\necho 'NVIDIA Nsight Systems version 2025.3.2.474-253236389321v0'\n", 0755);
    root.write("proc/driver/nvidia/params",
               "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nRegistryDwords: \"\"\n");
    root.write("proc/sys/kernel/perf_event_paranoid", "4\n");

    Environment environment;
    environment.set("PATH", root.path() + "/opt/nsight-systems/bin");
    ProbeSettings settings;
    settings.root = root.path();
    Probes probes(environment, settings);
    RunOptions options;
    CheckContext context{options, environment, probes, std::nullopt, {}};
    const Registry registry(builtin_checks());
    const Check* check = registry.find("toolkit.tools");
    ASSERT_NE(check, nullptr);
    EXPECT_EQ(check->info().min_level, Level::standard);
    EXPECT_EQ(check->info().scope, Scope::host);
    ResultBuilder builder;
    check->run(context, builder);
    const CheckResult result = std::move(builder).finish("toolkit.tools", std::nullopt);
    test::expect_codes_declared(result);

    const std::string cuda = root.path() + "/usr/local/cuda-13.0";
    EXPECT_EQ(evidence(result, "toolkit"), cuda + " 13.0.2 (no nvcc on PATH; /usr/local/cuda points to it)");
    EXPECT_EQ(evidence(result, "ncu"), "2025.3.1.0 at " + cuda + "/bin/ncu");
    EXPECT_EQ(evidence(result, "cuda-gdb"), "13.0 at " + cuda + "/bin/cuda-gdb");
    EXPECT_EQ(evidence(result, "compute-sanitizer"), "2025.3.1.0 at " + cuda + "/bin/compute-sanitizer");
    EXPECT_EQ(evidence(result, "cuobjdump"), "13.0.85 at " + cuda + "/bin/cuobjdump");
    EXPECT_EQ(evidence(result, "nsys"), "2025.3.2.474-253236389321v0 at " + root.path() +
                                            "/opt/nsight-systems/bin/nsys (on PATH, not in the toolkit)");
    EXPECT_EQ(evidence(result, "other_toolkit"),
              "cuobjdump 12.8.93 in " + root.path() +
                  "/usr/local/cuda-12.8; no nsys, ncu, cuda-gdb, compute-sanitizer, nvdisasm")
        << "another toolkit's tools are its own, not those on PATH";
    EXPECT_TRUE(contains(evidence(result, "rm_profiling_admin_only"), "1 "))
        << evidence(result, "rm_profiling_admin_only");
    EXPECT_TRUE(contains(evidence(result, "perf_event_paranoid"), "4 ")) << evidence(result, "perf_event_paranoid");

    const Finding* broken = finding_with(result, "CC322");
    ASSERT_NE(broken, nullptr) << result.message;
    EXPECT_TRUE(contains(test::account(result), "nvdisasm at " + cuda +
                                                    "/bin/nvdisasm does not run: `--version` exited with status 1: "
                                                    "nvdisasm: cannot open libnvdisasm"))
        << test::account(result);
    EXPECT_TRUE(broken->message.starts_with("nvdisasm at " + cuda + "/bin/nvdisasm does not run")) << broken->message;
    EXPECT_TRUE(contains(broken->remediation, "cuda-nvdisasm-13-0")) << broken->remediation;
    EXPECT_EQ(count_code(result, "CC322"), 1u);
    // The restrictions hold for a user; the test may run as root, which neither holds back.
    const bool root_user = ::geteuid() == 0;
    EXPECT_EQ(finding_with(result, "CC320") != nullptr, !root_user);
    EXPECT_EQ(finding_with(result, "CC321") != nullptr, !root_user);
    EXPECT_EQ(evidence(result, "effective_uid"), root_user ? std::string("0 (root)") : std::to_string(::geteuid()));
}

}  // namespace
}  // namespace cudacheck
