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
    EXPECT_EQ(parse_tool_version("NVIDIA Nsight Systems version 2025.3.2.474-253236389321v0\n"), "2025.3.2.474-253236389321v0");
    EXPECT_EQ(parse_tool_version("usage: something\n"), "");
}

TEST(DeveloperTools, reads_the_drivers_profiling_restriction) {
    EXPECT_EQ(parse_profiling_admin_only("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nRegistryDwords: \"\"\n"), true);
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
    dir.write("cuda/bin/ncu", "#!/bin/sh\nprintf 'NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 1)\\n'\n", 0755);
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

}  // namespace
}  // namespace cudacheck
