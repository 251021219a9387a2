// `cudacheck explain CODE` names documentation its reader has (cli/explain_command.cpp):
// the errors.md `cmake --install` puts beside the binary, else the code's anchor online.
#include "cli/explain_command.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

namespace cudacheck {
namespace {

using test::contains;
namespace fs = std::filesystem;

// "  docs:        X" of `explain`'s output: X.
std::string docs_line(const std::string& output) {
    const std::size_t at = output.find("  docs:        ");
    if (at == std::string::npos) return {};
    const std::size_t start = at + 15;
    return output.substr(start, output.find('\n', start) - start);
}

TEST(ExplainDocs, the_installed_errors_md_beside_the_binary_else_the_anchor_online) {
    test::TempDir dir;
    const std::string binary = dir.write("usr/bin/cudacheck", "", 0755);
    EXPECT_EQ(documentation_for("CC210", binary),
              "https://github.com/cudacheck/cudacheck/blob/main/docs/errors.md#cc210")
        << "no errors.md under the prefix";
    const std::string installed = dir.write("usr/share/doc/cudacheck/errors.md", "## CC210\n");
    EXPECT_EQ(documentation_for("CC210", binary), installed + " (section CC210)");
    EXPECT_EQ(documentation_for("CC210", ""), documentation_for("CC210", "/nonexistent/bin/cudacheck"));
}

// The online address is the project's home that the packages name, and its anchor exists there.
TEST(ExplainDocs, the_online_address_is_the_packages_homepage_and_the_anchor_is_a_heading) {
    const std::string packaging = test::read_text(CUDACHECK_SOURCE_DIR "/cmake/Packaging.cmake");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(packaging, match, std::regex(R"re(CPACK_PACKAGE_HOMEPAGE_URL "([^"]+)")re")))
        << packaging;
    EXPECT_EQ(match[1].str(), std::string(project_home_url));
    // GitHub's anchor of the heading "## CC210" is #cc210.
    EXPECT_TRUE(contains(test::read_text(CUDACHECK_SOURCE_DIR "/docs/errors.md"), "\n## CC210\n"));
    const test::BinaryRun explain = test::run_cudacheck({"explain", "CC210"});
    EXPECT_EQ(explain.exit_status, 0) << explain.output;
    EXPECT_EQ(docs_line(explain.output), std::string(project_home_url) + "/blob/main/docs/errors.md#cc210")
        << "the build tree has no share/doc beside it\n"
        << explain.output;
}

// What a package holds: `cmake --install` of this build into a fresh prefix, and the installed
// binary's `explain` names the installed errors.md, which has the code's section.
TEST(ExplainDocs, an_installed_binary_names_the_installed_errors_md) {
    test::TempDir prefix;
    const std::string build_dir = fs::path(CUDACHECK_BINARY).parent_path().string();
    const char* path = std::getenv("PATH");
    const std::string cmake = sys::find_in_path("cmake", path != nullptr ? path : "");
    ASSERT_FALSE(cmake.empty()) << "no cmake on PATH, which built this";
    const sys::CommandResult install =
        sys::run_command({cmake, "--install", build_dir, "--prefix", prefix.path()}, std::chrono::seconds(120));
    ASSERT_EQ(install.exit_status, 0) << install.output;
    const std::string installed = prefix.path() + "/share/doc/cudacheck/errors.md";
    ASSERT_TRUE(fs::is_regular_file(installed)) << install.output;
    const sys::CommandResult explain =
        sys::run_command({prefix.path() + "/bin/cudacheck", "explain", "cc210"}, std::chrono::seconds(60));
    EXPECT_EQ(explain.exit_status, 0) << explain.output;
    EXPECT_EQ(docs_line(explain.output), installed + " (section CC210)") << explain.output;
    EXPECT_TRUE(contains(test::read_text(installed), "\n## CC210\n"));
    // The schema of `list --format json` is installed beside the report's.
    EXPECT_EQ(test::read_text(prefix.path() + "/share/cudacheck/list.schema.json"),
              test::read_text(CUDACHECK_SOURCE_DIR "/docs/list.schema.json"));
}

}  // namespace
}  // namespace cudacheck
