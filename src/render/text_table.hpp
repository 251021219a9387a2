// Columns of plain text for the table outputs (check table, `list`, `diff`, `fleet`, `inspect`):
// each column as wide as its widest cell and at least its heading or minimum, two spaces between
// columns, the last column never padded. Widths count bytes and cells are padded by fmt, exactly as
// the renderers did when each computed its own widths; a painted (coloured) cell is written by its
// renderer outside the table, so escape codes never count as width. Every cell is written with its
// control characters escaped (sys::printable: "\n", "\x1b"), so that a value from the machine or from
// a report file keeps its row one line and never drives the terminal; widths count the escaped text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

class TextTable {
public:
    enum class Align { left, right };
    struct Column {
        std::string heading;
        std::size_t min_width = 0;  // for cells of known short values, so that the width never varies
        Align align = Align::left;
    };

    explicit TextTable(std::vector<Column> columns);

    // Widens the columns to hold these cells (one per column; the last is never padded).
    void fit(const std::vector<std::string>& cells);
    // Fits the cells and keeps them as a row of lines().
    void add_row(std::vector<std::string> cells);
    // The heading row, then every added row, each without a newline.
    [[nodiscard]] std::vector<std::string> lines() const;
    // The cells as one line, without a newline.
    [[nodiscard]] std::string row(const std::vector<std::string>& cells) const;
    [[nodiscard]] std::string heading_row() const;
    // Where a column starts in a row: continuation lines are indented to it.
    [[nodiscard]] std::size_t offset(std::size_t column) const;

private:
    std::vector<Column> columns_;
    std::vector<std::size_t> widths_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace cudacheck

namespace cudacheck {

// The columns a terminal gives `text`: UTF-8 code points, escape sequences (colours) none.
[[nodiscard]] std::size_t display_columns(std::string_view text);

// `text` broken at spaces into lines of at most `width` columns, for a terminal of that width
// (a hanging indent rather than the terminal's own wrap at column 0): the first line continues
// one that already holds `first_used` columns (a status
// word, "fix: "), every later one starts with `indent` spaces, which the returned line includes
// (a hanging indent). A word longer than a whole line is cut where the line ends; escape
// sequences (colours) count no columns and are never cut. Where the terminal is too narrow to
// leave 20 columns of text after the indent, lines hold 20 and run past it. `width` 0: the text
// as one line, unchanged.
[[nodiscard]] std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::size_t first_used,
                                                 std::size_t indent);

}  // namespace cudacheck
