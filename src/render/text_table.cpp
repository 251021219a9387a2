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
    for (std::size_t i = 0; i + 1 < cells.size(); ++i) widths_[i] = std::max(widths_[i], sys::printable(cells[i]).size());
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
        line += columns_[i].align == Align::left ? fmt::format("{:<{}}", cell, widths_[i]) : fmt::format("{:>{}}", cell, widths_[i]);
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
