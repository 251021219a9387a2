#include "render/text_table.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace cudacheck {

namespace {

constexpr std::string_view column_gap = "  ";

}  // namespace

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {
    for (const Column& column : columns_) widths_.push_back(std::max(column.heading.size(), column.min_width));
}

void TextTable::fit(const std::vector<std::string>& cells) {
    if (cells.size() != columns_.size()) throw std::logic_error("TextTable: a row with a different number of columns");
    for (std::size_t i = 0; i + 1 < cells.size(); ++i)
        widths_[i] = std::max(widths_[i], sys::printable(cells[i]).size());
}

void TextTable::add_row(std::vector<std::string> cells) {
    fit(cells);
    rows_.push_back(std::move(cells));
}

std::vector<std::string> TextTable::lines() const {
    std::vector<std::string> lines{heading_row()};
    for (const auto& cells : rows_) lines.push_back(row(cells));
    return lines;
}

std::string TextTable::row(const std::vector<std::string>& cells) const {
    if (cells.size() != columns_.size()) throw std::logic_error("TextTable: a row with a different number of columns");
    std::string line;
    for (std::size_t i = 0; i + 1 < cells.size(); ++i) {
        const std::string cell = sys::printable(cells[i]);
        line += columns_[i].align == Align::left ? fmt::format("{:<{}}", cell, widths_[i])
                                                 : fmt::format("{:>{}}", cell, widths_[i]);
        line += column_gap;
    }
    if (!cells.empty()) line += sys::printable(cells.back());
    return line;
}

std::string TextTable::heading_row() const {
    std::vector<std::string> headings;
    for (const Column& column : columns_) headings.push_back(column.heading);
    return row(headings);
}

std::size_t TextTable::offset(std::size_t column) const {
    std::size_t at = 0;
    for (std::size_t i = 0; i < column && i < widths_.size(); ++i) at += widths_[i] + column_gap.size();
    return at;
}

}  // namespace cudacheck

namespace cudacheck {

namespace {

// Where an escape sequence that starts at `at` ends: a CSI sequence ("\x1b[31m") runs to its final
// byte (0x40-0x7E, ECMA-48 5.4); any other escape is the ESC and the byte after it.
std::size_t escape_end(std::string_view text, std::size_t at) {
    if (at + 1 < text.size() && text[at + 1] == '[') {
        std::size_t end = at + 2;
        while (end < text.size() && !(text[end] >= 0x40 && text[end] <= 0x7E)) ++end;
        return std::min(end + 1, text.size());
    }
    return std::min(at + 2, text.size());
}

bool continuation_byte(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// The bytes of `text` that fill `count` columns (escape sequences whole, code points whole).
std::size_t bytes_for_columns(std::string_view text, std::size_t count) {
    std::size_t at = 0, used = 0;
    while (at < text.size()) {
        if (text[at] == '\x1b') {
            at = escape_end(text, at);
            continue;
        }
        if (used == count) break;
        ++used;
        ++at;
        while (at < text.size() && continuation_byte(text[at])) ++at;
    }
    return at;
}

}  // namespace

std::size_t display_columns(std::string_view text) {
    std::size_t count = 0;
    for (std::size_t at = 0; at < text.size();) {
        if (text[at] == '\x1b') {
            at = escape_end(text, at);
            continue;
        }
        if (!continuation_byte(text[at])) ++count;
        ++at;
    }
    return count;
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::size_t first_used,
                                   std::size_t indent) {
    if (width == 0 || first_used + display_columns(text) <= width) return {std::string(text)};
    constexpr std::size_t least = 20;  // columns of text a line keeps however narrow the terminal
    const auto room_after = [&](std::size_t used) { return std::max(width > used ? width - used : 0, least); };
    std::vector<std::string> lines(1);
    std::size_t room = room_after(first_used);
    std::size_t used = 0;  // columns of text on the last line, its indent aside
    const auto next_line = [&] {
        lines.emplace_back(indent, ' ');
        room = room_after(indent);
        used = 0;
    };
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t word_start = text.find_first_not_of(' ', at);
        if (word_start == std::string_view::npos) break;  // trailing spaces: nothing to show
        std::size_t word_end = text.find(' ', word_start);
        if (word_end == std::string_view::npos) word_end = text.size();
        std::string_view gap = text.substr(at, word_start - at);
        std::string_view word = text.substr(word_start, word_end - word_start);
        std::size_t word_columns = display_columns(word);
        if (used > 0 && used + gap.size() + word_columns > room) {
            next_line();
            gap = {};
        }
        if (used == 0 && lines.size() > 1) gap = {};  // a continuation starts at its indent
        lines.back() += gap;
        used += gap.size();
        // A word longer than what is left of the line (a long path or URL): cut where the line ends.
        while (used + word_columns > room) {
            if (used >= room) {
                next_line();
                continue;
            }
            const std::size_t take = bytes_for_columns(word, room - used);
            lines.back() += word.substr(0, take);
            word_columns -= display_columns(word.substr(0, take));
            word.remove_prefix(take);
            next_line();
        }
        lines.back() += word;
        used += word_columns;
        at = word_end;
    }
    return lines;
}

}  // namespace cudacheck
