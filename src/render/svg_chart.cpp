#include "render/svg_chart.hpp"

#include "render/text_support.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace cudacheck::svg {

namespace {

// Distinct on white and for the common colour-vision deficiencies (Okabe and Ito's palette).
constexpr const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                   "#56B4E9", "#D55E00", "#F0E442", "#000000"};
constexpr const char* failure_colour = "#C62828";
constexpr double char_width = 6.6;  // of the 11 px sans-serif text, for layout only

const char* colour(std::size_t index) { return palette[index % std::size(palette)]; }

// Text that fits `width` pixels: cut in the middle, where a path's least telling part is.
std::string fit(const std::string& text, double width) {
    const auto room = static_cast<std::size_t>(std::max(4.0, width / char_width));
    if (text.size() <= room) return text;
    const std::size_t head = (room - 1) / 3;
    const std::size_t tail = room - 1 - head;
    return text.substr(0, head) + "\xe2\x80\xa6" + text.substr(text.size() - tail);
}

std::string open_svg(double width, double height, const std::string& title) {
    return fmt::format(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 "
        "{:.0f} {:.0f}\" role=\"img\" "
        "font-family=\"sans-serif\" font-size=\"11\"><title>{}</title>"
        "<text x=\"4\" y=\"14\" font-size=\"13\" font-weight=\"bold\">{}</text>",
        width, height, width, height, xml_escape(title), xml_escape(title));
}

struct Range {
    double low = 0;
    double high = 1;
};

// The ticks' span, so that the lines sit inside the axes.
Range padded(double low, double high, bool from_zero) {
    if (from_zero) low = std::min(low, 0.0);
    if (!(high > low)) {
        const double pad = std::abs(high) > 0 ? std::abs(high) * 0.1 : 1.0;
        low -= pad;
        high += pad;
    }
    const std::vector<double> marks = ticks(low, high);
    return {std::min(low, marks.front()), std::max(high, marks.back())};
}

// The frame of a plot: its area, the scales, and the y grid with its labels.
struct Frame {
    double left, top, width, height;
    Range xs, ys;
    [[nodiscard]] double x(double value) const { return left + (value - xs.low) / (xs.high - xs.low) * width; }
    [[nodiscard]] double y(double value) const { return top + height - (value - ys.low) / (ys.high - ys.low) * height; }
};

std::string y_grid(const Frame& frame) {
    std::string svg;
    for (const double mark : ticks(frame.ys.low, frame.ys.high))
        svg += fmt::format(
            "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
            frame.left, frame.left + frame.width, frame.y(mark), frame.y(mark), frame.left - 4, frame.y(mark) + 4,
            tick_text(mark));
    return svg +
           fmt::format(
               "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#999\"/>",
               frame.left, frame.top, frame.width, frame.height);
}

}  // namespace

std::vector<double> ticks(double low, double high, int count) {
    if (!std::isfinite(low) || !std::isfinite(high)) return {0.0};
    if (high < low) std::swap(low, high);
    if (high == low) return {low};
    // The round step (1, 2 or 5 times a power of ten) nearest the rough one, on a log scale.
    const double rough = (high - low) / std::max(1, count - 1);
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    double factor = 1;
    for (const double candidate : {2.0, 5.0, 10.0})
        if (std::abs(std::log(candidate * power / rough)) < std::abs(std::log(factor * power / rough)))
            factor = candidate;
    // k * factor / 10^n rather than a sum of steps, so that 0.3 is 0.3 and not 0.30000000000000004.
    const double divisor = power < 1 ? std::round(1 / power) : 1;
    const double step = power < 1 ? factor / divisor : factor * power;
    const auto mark = [&](double k) { return power < 1 ? k * factor / divisor : k * step; };
    std::vector<double> marks;
    for (double k = std::floor(low / step); marks.size() < 50; ++k) {
        marks.push_back(mark(k) == 0 ? 0.0 : mark(k));
        if (mark(k) >= high - step * 1e-9) break;
    }
    return marks;
}

std::string tick_text(double value) {
    if (value == 0) return "0";
    if (std::abs(value) >= 1e6 || std::abs(value) < 1e-3) return fmt::format("{:.2g}", value);
    std::string text = fmt::format("{:.3f}", value);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text;
}

std::string render(const LineChart& chart) {
    constexpr double width = 480, height = 250, left = 56, right = 12, top = 40, bottom = 34;
    const double plot_width = width - left - right;
    const double plot_height = height - top - bottom;
    constexpr double infinity = std::numeric_limits<double>::infinity();
    double x_low = infinity, x_high = -infinity, y_low = infinity, y_high = -infinity;
    for (const Line& line : chart.lines)
        for (std::size_t i = 0; i < line.x.size() && i < line.y.size(); ++i) {
            x_low = std::min(x_low, line.x[i]);
            x_high = std::max(x_high, line.x[i]);
            if (!line.y[i] || !std::isfinite(*line.y[i])) continue;
            y_low = std::min(y_low, *line.y[i]);
            y_high = std::max(y_high, *line.y[i]);
        }
    if (chart.reference) y_high = std::max(y_high, *chart.reference), y_low = std::min(y_low, *chart.reference);
    std::string svg = open_svg(width, height, chart.title + (chart.y_unit.empty() ? "" : " (" + chart.y_unit + ")"));
    if (!std::isfinite(x_low) || !std::isfinite(y_low)) {
        svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" fill=\"#666\">not measured</text></svg>", left,
                           top + plot_height / 2);
        return svg;
    }
    // Rates and clocks read against zero unless they sit far above it (temperature, clock).
    const bool from_zero = y_low >= 0 && y_low < 0.5 * y_high;
    // Time runs from its first to its last sample: the x axis is not padded to a round tick (a
    // last sample at 20.006 s would stretch it to 25 s).
    const Range xs = x_high > x_low ? Range{x_low, x_high} : Range{x_low - 1, x_low + 1};
    const Frame frame{left, top, plot_width, plot_height, xs, padded(y_low, y_high, from_zero)};
    const auto px = [&](double x) { return frame.x(x); };
    const auto py = [&](double y) { return frame.y(y); };
    svg += y_grid(frame);
    const double slack = (xs.high - xs.low) * 0.01;
    for (const double mark : ticks(xs.low, xs.high))
        if (mark >= xs.low - slack && mark <= xs.high + slack)
            svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", px(mark),
                               top + plot_height + 14, tick_text(mark));
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
                       left + plot_width / 2, height - 4, xml_escape(chart.x_unit));
    if (chart.reference)
        svg += fmt::format(
            "<line class=\"reference\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#555\" "
            "stroke-dasharray=\"5 3\"/>"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555\">{}</text>",
            left, left + plot_width, py(*chart.reference), py(*chart.reference), left + 4, py(*chart.reference) - 4,
            xml_escape(chart.reference_label));
    for (std::size_t index = 0; index < chart.lines.size(); ++index) {
        const Line& line = chart.lines[index];
        std::string path;
        bool pen_down = false;
        for (std::size_t i = 0; i < line.x.size() && i < line.y.size(); ++i) {
            if (!line.y[i] || !std::isfinite(*line.y[i])) {
                pen_down = false;
                continue;
            }
            path += fmt::format("{}{:.1f} {:.1f} ", pen_down ? "L" : "M", px(line.x[i]), py(*line.y[i]));
            pen_down = true;
        }
        svg += fmt::format(
            "<path class=\"line\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"><title>{}</title></path>",
            path, colour(index), xml_escape(line.name));
        // The legend, right to left along the top.
        const double legend_x = width - right - 70.0 * static_cast<double>(chart.lines.size() - index);
        svg += fmt::format(
            "<rect x=\"{:.1f}\" y=\"22\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"31\">{}</text>",
            legend_x, colour(index), legend_x + 14, xml_escape(fit(line.name, 54)));
    }
    return svg + "</svg>";
}

std::string render(const BarChart& chart) {
    constexpr double width = 900, label_width = 170, value_width = 190, row = 18, top = 34;
    const double bar_room = width - label_width - value_width;
    double high = 0;
    for (const Bar& bar : chart.bars) high = std::max({high, bar.value.value_or(0.0), bar.reference.value_or(0.0)});
    if (!(high > 0)) high = 1;
    const double height = top + row * static_cast<double>(chart.bars.size()) + 8;
    std::string svg = open_svg(width, height, chart.title + (chart.unit.empty() ? "" : " (" + chart.unit + ")"));
    if (!chart.reference_label.empty())
        svg += fmt::format(
            "<rect x=\"{:.0f}\" y=\"6\" width=\"14\" height=\"10\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"3 "
            "2\"/>"
            "<text x=\"{:.0f}\" y=\"15\">{}</text>",
            width - 160, width - 142, xml_escape(chart.reference_label));
    for (std::size_t i = 0; i < chart.bars.size(); ++i) {
        const Bar& bar = chart.bars[i];
        const double y = top + row * static_cast<double>(i);
        svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", label_width - 6, y + 12,
                           xml_escape(fit(bar.label, label_width - 10)));
        if (bar.reference)
            svg += fmt::format(
                "<rect class=\"reference\" x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"14\" fill=\"none\" "
                "stroke=\"#555\" "
                "stroke-dasharray=\"3 2\"/>",
                label_width, y + 1, *bar.reference / high * bar_room);
        std::string value_text = "not measured";
        if (bar.value) {
            svg += fmt::format(
                "<rect class=\"bar\" x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\"><title>{}: "
                "{}</title></rect>",
                label_width, y + 1, std::max(0.0, *bar.value) / high * bar_room,
                bar.flagged ? failure_colour : palette[0], xml_escape(bar.label), tick_text(*bar.value));
            value_text = fmt::format("{:.4g}", *bar.value) + (bar.note.empty() ? "" : "  " + bar.note);
        }
        const double text_x =
            label_width + std::max(bar.value.value_or(0.0), bar.reference.value_or(0.0)) / high * bar_room + 6;
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>", text_x, y + 12,
                           bar.flagged ? fmt::format(" fill=\"{}\"", failure_colour) : "", xml_escape(value_text));
    }
    return svg + "</svg>";
}

std::string render(const ColumnChart& chart) {
    constexpr double width = 480, height = 230, left = 56, right = 12, top = 28, bottom = 24;
    double high = 0;
    for (const Column& column : chart.columns) high = std::max(high, column.value.value_or(0.0));
    const auto count = static_cast<double>(std::max<std::size_t>(chart.columns.size(), 1));
    const Frame frame{left, top, width - left - right, height - top - bottom, {0, count}, padded(0, high, true)};
    std::string svg = open_svg(width, height, chart.title + (chart.unit.empty() ? "" : " (" + chart.unit + ")"));
    svg += y_grid(frame);
    const double slot = frame.width / count;
    for (std::size_t i = 0; i < chart.columns.size(); ++i) {
        const Column& column = chart.columns[i];
        const double x = frame.x(static_cast<double>(i)) + slot * 0.1;
        if (!column.value) continue;
        const double y = frame.y(std::max(0.0, *column.value));
        svg += fmt::format(
            "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}: "
            "{} {}{}</title></rect>",
            x, y, slot * 0.8, frame.top + frame.height - y, column.flagged ? failure_colour : palette[0],
            xml_escape(column.label), tick_text(*column.value), xml_escape(chart.unit),
            column.note.empty() ? "" : "; " + xml_escape(column.note));
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
                       left + frame.width / 2, height - 6, xml_escape(chart.x_label));
    return svg + "</svg>";
}

std::string render(const Matrix& matrix) {
    constexpr double label_width = 560, column_width = 120, row = 17, top = 54;
    const double width =
        label_width + column_width * static_cast<double>(std::max<std::size_t>(matrix.columns.size(), 1)) + 10;
    std::size_t groups = 0;
    for (std::size_t i = 0; i < matrix.rows.size(); ++i)
        groups += i == 0 || matrix.rows[i].group != matrix.rows[i - 1].group;
    const double height = top + row * static_cast<double>(matrix.rows.size() + groups) + 8;
    std::string svg = open_svg(width, height, matrix.title);
    for (std::size_t c = 0; c < matrix.columns.size(); ++c)
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
                           label_width + column_width * (static_cast<double>(c) + 0.5), top - 10,
                           xml_escape(fit(matrix.columns[c], column_width - 6)));
    double y = top;
    for (std::size_t i = 0; i < matrix.rows.size(); ++i) {
        const MatrixRow& entry = matrix.rows[i];
        if (i == 0 || entry.group != matrix.rows[i - 1].group) {
            svg += fmt::format("<text x=\"4\" y=\"{:.1f}\" font-weight=\"bold\"{}>{}</text>", y + 12,
                               entry.flagged ? fmt::format(" fill=\"{}\"", failure_colour) : "",
                               xml_escape(entry.group + (entry.flagged ? "  (copies differ in version)" : "")));
            y += row;
        }
        svg += fmt::format("<text x=\"16\" y=\"{:.1f}\"><title>{}</title>{}</text>", y + 12, xml_escape(entry.label),
                           xml_escape(fit(entry.label, label_width - 24)));
        for (std::size_t c = 0; c < entry.marks.size() && c < matrix.columns.size(); ++c)
            if (entry.marks[c])
                svg += fmt::format(
                    "<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"><title>{} loads "
                    "{}</title></circle>",
                    label_width + column_width * (static_cast<double>(c) + 0.5), y + 8, colour(c),
                    xml_escape(matrix.columns[c]), xml_escape(entry.label));
        y += row;
    }
    return svg + "</svg>";
}

}  // namespace cudacheck::svg
