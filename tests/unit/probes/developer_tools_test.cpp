// probes/developer_tools: the versions the CUDA 13.0 tools print (tests/fixtures/developer_tools,
// as recorded on the H200 machine), the driver's profiling restriction, and finding the tools.
#include "probes/developer_tools.hpp"
#include "support/fixtures.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

std::string fixture(const std::string& name) { return test::read_text(test::fixture_path("developer_tools/" + name)); }

TEST(DeveloperTools, reads_each_tools_version_as_it_prints_it) {
    EXPECT_EQ(parse_tool_version(fixture("ncu-13.0.txt")), "2025.3.1.0");
    EXPECT_EQ(parse_tool_version(fixture("compute-sanitizer-13.0.txt")), "2025.3.1.0");
    EXPECT_EQ(parse_tool_version(fixture("cuda-gdb-13.0.txt")), "13.0") << "not the GNU gdb it is based on";
    EXPECT_EQ(parse_tool_version(fixture("cuobjdump-13.0.txt")), "13.0.85");
    EXPECT_EQ(parse_tool_version(fixture("nvdisasm-13.0.txt")), "13.0.85");
    EXPECT_EQ(parse_tool_version("NVIDIA Nsight Systems version 2025.3.2.474-253236389321v0\n"),
              "2025.3.2.474-253236389321v0");
    EXPECT_EQ(parse_tool_version("usage: something\n"), "");
}

TEST(DeveloperTools, reads_the_drivers_profiling_restriction) {
    EXPECT_EQ(parse_profiling_admin_only(
                  "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nRegistryDwords: \"\"\n"),
              true);
    EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: 0\n"), false);
    EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: x\n"), std::nullopt);
    EXPECT_EQ(parse_profiling_admin_only("EnableMSI: 1\n"), std::nullopt);
    test::TempDir root;
    root.write("proc/driver/nvidia/params", "RmProfilingAdminOnly: 1\n");
    root.write("proc/sys/kernel/perf_event_paranoid", "4\n");
    const ProfilingPermissions permissions = collect_profiling_permissions(root.path());
    EXPECT_EQ(permissions.admin_only, true);
    EXPECT_EQ(permissions.perf_event_paranoid, 4);
    test::TempDir none;
    EXPECT_FALSE(collect_profiling_permissions(none.path()).admin_only.has_value());
}

TEST(DeveloperTools, takes_the_toolkits_copy_first_and_says_what_a_tool_printed_instead) {
    test::TempDir dir;
    dir.write("cuda/bin/ncu",
              "#!/bin/sh\nprintf 'NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 1)\\n'\n",
              0755);
    dir.write("path/ncu", "#!/bin/sh\necho 'Version 1.0'\n", 0755);
    dir.write("path/cuobjdump", "#!/bin/sh\necho 'not the real one'\n", 0755);
    Environment environment;
    environment.set("PATH", dir.path() + "/path");
    const std::vector<DeveloperTool> tools = collect_developer_tools(dir.path() + "/cuda", environment);
    ASSERT_EQ(tools.size(), std::size(developer_tool_names));
    const auto named = [&](std::string_view name) {
        return *std::find_if(tools.begin(), tools.end(), [&](const DeveloperTool& tool) { return tool.name == name; });
    };
    EXPECT_EQ(named("ncu").path, dir.path() + "/cuda/bin/ncu");
    EXPECT_EQ(named("ncu").version, "2025.3.1.0");
    EXPECT_EQ(named("cuobjdump").failure, "not the real one");
    EXPECT_EQ(named("nsys").path, "") << "found nowhere";
}

const DeveloperTool& tool_named(const std::vector<DeveloperTool>& tools, std::string_view name) {
    return *std::find_if(tools.begin(), tools.end(), [&](const DeveloperTool& tool) { return tool.name == name; });
}

TEST(DeveloperTools, asks_the_tools_at_once_and_says_how_one_failed) {
    test::TempDir dir;
    // ncu answers with its version only once cuda-gdb has started: asked one after the other (ncu
    // first), it would give up after 5 s and print something else.
    const std::string started = dir.path() + "/cuda-gdb-started";
    dir.write("cuda/bin/ncu",
              "#!/bin/sh\ni=0\nwhile [ ! -e '" + started +
                  "' ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done\n[ -e '" + started +
                  "' ] && echo 'Version 2025.3.1.0' || echo 'asked alone'\n",
              0755);
    dir.write("cuda/bin/cuda-gdb", "#!/bin/sh\ntouch '" + started + "'\necho 'NVIDIA (R) cuda-gdb 13.0'\n", 0755);
    dir.write("cuda/bin/nvdisasm",
              "#!/bin/sh\necho 'nvdisasm: error while loading shared libraries: libnvdisasm.so' >&2\nexit 127\n", 0755);
    dir.write("cuda/bin/cuobjdump", "#!/bin/sh\nexit 0\n", 0755);
    const std::vector<DeveloperTool> tools = collect_developer_tools(dir.path() + "/cuda", Environment{});
    EXPECT_EQ(tool_named(tools, "ncu").version, "2025.3.1.0") << tool_named(tools, "ncu").failure;
    EXPECT_EQ(tool_named(tools, "cuda-gdb").version, "13.0");
    EXPECT_EQ(tool_named(tools, "nvdisasm").failure,
              "`--version` exited with status 127: nvdisasm: error while loading shared libraries: libnvdisasm.so");
    EXPECT_EQ(tool_named(tools, "cuobjdump").failure, "`--version` printed nothing");
    EXPECT_EQ(tool_named(tools, "cuobjdump").version, "");
}

}  // namespace
}  // namespace cudacheck
