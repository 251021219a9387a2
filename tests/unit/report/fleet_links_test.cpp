// report/fleet.cpp's fleet_files and broken_link: a dangling or looping *.json link in a fleet
// directory is listed (it becomes an unreadable node saying why), never skipped without a word.
#include "report/fleet.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;

TEST(FleetLinks, broken_link_says_why_a_link_leads_nowhere) {
    test::TempDir dir;
    const std::string report = dir.write("node-01.json", "{}");
    EXPECT_EQ(broken_link(report), std::nullopt) << "a plain file";
    EXPECT_EQ(broken_link(dir.symlink(report, "latest.json")), std::nullopt) << "a link to a file";
    EXPECT_EQ(broken_link(dir.path() + "/absent.json"), std::nullopt) << "nothing at all is no link";
    const std::optional<std::string> dangling = broken_link(dir.symlink(dir.path() + "/gone.json", "dangling.json"));
    ASSERT_TRUE(dangling);
    EXPECT_EQ(*dangling, "a symbolic link to nothing (it points to " + dir.path() + "/gone.json)");
    dir.symlink(dir.path() + "/loop-b.json", "loop-a.json");
    const std::optional<std::string> loop = broken_link(dir.symlink(dir.path() + "/loop-a.json", "loop-b.json"));
    ASSERT_TRUE(loop);
    EXPECT_TRUE(contains(*loop, "too many levels of symbolic links")) << *loop;
}

TEST(FleetLinks, fleet_files_lists_broken_links_with_the_reports) {
    test::TempDir dir;
    dir.write("node-01.json", "{}");
    dir.write("notes.txt", "not a report");
    dir.make_dir("old.json");  // a directory, whatever its name: not a node
    dir.symlink(dir.path() + "/gone.json", "node-02.json");
    dir.symlink(dir.path() + "/node-03.json", "node-03.json");  // itself
    const Expected<std::vector<std::string>> files = fleet_files({dir.path()});
    ASSERT_TRUE(files) << test::error_of(files);
    EXPECT_EQ(*files, (std::vector<std::string>{dir.path() + "/node-01.json", dir.path() + "/node-02.json",
                                                dir.path() + "/node-03.json"}));
    const Expected<std::vector<std::string>> named = fleet_files({dir.path() + "/node-02.json"});
    ASSERT_TRUE(named) << test::error_of(named);
    EXPECT_EQ(named->size(), 1u);
    EXPECT_EQ(test::error_of(fleet_files({dir.path() + "/absent.json"})),
              dir.path() + "/absent.json: no such file or directory")
        << "a path that is nothing is still an error";
}

}  // namespace
}  // namespace cudacheck
