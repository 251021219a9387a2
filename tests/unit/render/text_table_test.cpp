// The column layout every plain-text table shares (render/text_table.cpp).
#include "render/text_table.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

namespace cudacheck {
namespace {

TEST(TextTable, columns_are_as_wide_as_their_widest_cell_or_heading) {
    TextTable table({{"ID"}, {"LEVEL", 8}, {"DESCRIPTION"}});
    table.add_row({"a.long_id", "quick", "last column not padded"});
    table.add_row({"b", "full", ""});
    const std::vector<std::string> lines = table.lines();
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "ID         LEVEL     DESCRIPTION");
    EXPECT_EQ(lines[1], "a.long_id  quick     last column not padded");
    EXPECT_EQ(lines[2], "b          full      ");
    EXPECT_EQ(table.offset(2), 21u);
}

TEST(TextTable, right_aligns_and_fits_rows_it_does_not_keep) {
    TextTable table({{"N", 0, TextTable::Align::right}, {"NAME"}});
    table.fit({"12345", ""});
    EXPECT_EQ(table.row({"7", "seven"}), "    7  seven");
    EXPECT_EQ(table.heading_row(), "    N  NAME");
    EXPECT_TRUE(table.lines().size() == 1) << "fit keeps no row";
}

TEST(TextTable, a_row_of_another_width_is_a_logic_error) {
    TextTable table({{"A"}, {"B"}});
    EXPECT_THROW(table.add_row({"only one"}), std::logic_error);
}

}  // namespace
}  // namespace cudacheck
