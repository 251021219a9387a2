// wrap_text and display_columns (render/text_table.hpp): what the table (at a terminal's width) and
// --help wrap their long lines with.
#include "render/text_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudacheck {
namespace {

TEST(WrapText, no_width_or_a_line_that_fits_is_left_as_it_is) {
    const std::string text = "fix: a  double  space kept";
    EXPECT_EQ(wrap_text(text, 0, 70, 4), std::vector<std::string>{text});
    EXPECT_EQ(wrap_text(text, 30, 4, 4), std::vector<std::string>{text});
    EXPECT_EQ(wrap_text(text, 29, 4, 4).size(), 2u) << "one column too many wraps";
}

TEST(WrapText, breaks_at_spaces_with_a_hanging_indent) {
    const std::vector<std::string> lines =
        wrap_text("Install the NVIDIA driver (it provides libcuda.so.1)  [CC210]", 43, 10, 12);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "Install the NVIDIA driver (it");  // 10 + 29 columns: "provides" would pass 43
    EXPECT_EQ(lines[1], "            provides libcuda.so.1)  [CC210]");
    for (std::size_t i = 0; i < lines.size(); ++i)
        EXPECT_LE((i == 0 ? 10 : 0) + display_columns(lines[i]), 43u) << lines[i];
}

TEST(WrapText, a_word_longer_than_a_line_is_cut_and_nothing_is_lost) {
    const std::string path = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12";
    const std::vector<std::string> lines = wrap_text("see " + path, 40, 0, 4);
    std::string joined;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_LE(display_columns(lines[i]), 40u) << lines[i];
        joined += i == 0 ? lines[i] : lines[i].substr(4);
    }
    EXPECT_EQ(joined, "see" + path) << "the line break takes the space before the path, nothing else";
    EXPECT_GE(lines.size(), 3u);
}

TEST(WrapText, colours_and_utf8_count_as_a_terminal_shows_them) {
    EXPECT_EQ(display_columns("\x1b[31mFAIL\x1b[0m — «x»"), 10u);
    // A painted word wraps as its four visible columns, its escape sequences whole.
    const std::vector<std::string> lines =
        wrap_text("2 passed, 1 failed — \x1b[31mFAIL\x1b[0m (exit 1) in 42 ms", 24, 0, 0);
    ASSERT_GE(lines.size(), 2u);
    for (const std::string& line : lines) {
        EXPECT_LE(display_columns(line), 24u) << line;
        if (line.find("FAIL") != std::string::npos)
            EXPECT_NE(line.find("\x1b[31mFAIL\x1b[0m"), std::string::npos) << line;
    }
}

TEST(WrapText, a_terminal_too_narrow_for_the_indent_still_shows_20_columns_a_line) {
    const std::vector<std::string> lines = wrap_text("one two three four five six seven eight nine ten", 30, 28, 28);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_LE(display_columns(lines[0]), 20u);
    EXPECT_EQ(lines[1].substr(0, 28), std::string(28, ' '));
    EXPECT_GT(display_columns(lines[1].substr(28)), 2u) << "more than the 2 columns the width leaves";
}

}  // namespace
}  // namespace cudacheck
