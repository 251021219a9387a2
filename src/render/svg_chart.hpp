// Charts as inline SVG for the HTML report (html_renderer.cpp): a line chart of figures over time
// (gpu.stress per GPU), a bar chart of figures against a reference (GEMM and bandwidth against the
// datasheet peak, gpu.memtest per pattern) and a dot matrix (which program loads which copy of a
// library). Plain text out, no script, no external font or image: the page stays one file that a
// browser shows offline and a mail client or a ticket system keeps whole.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudacheck::svg {

// One line: a value (or a gap, nullopt) at each x.
struct Line {
    std::string name;  // "GPU 0"
    std::vector<double> x;
    std::vector<std::optional<double>> y;
};
struct LineChart {
    std::string title;   // "Stress rate"
    std::string x_unit;  // "s"
    std::string y_unit;  // "TFLOP/s"
    std::vector<Line> lines;
    std::optional<double> reference;  // a dashed level, e.g. the datasheet peak
    std::string reference_label;
};

struct Bar {
    std::string label;                // "GPU 0 BF16"
    std::optional<double> value;      // nullopt: not measured (drawn as an empty row)
    std::optional<double> reference;  // the peak it is measured against: an outline behind the bar
    bool flagged = false;             // drawn in the failure colour (a pattern with mismatches)
    std::string note;                 // text after the value: "81% of 989"
};
struct BarChart {
    std::string title;
    std::string unit;
    std::vector<Bar> bars;
    std::string reference_label;  // the legend of the outlines: "datasheet peak"
};

// Many values side by side (gpu.memtest's patterns): one column each, the label in its tooltip.
struct Column {
    std::string label;
    std::optional<double> value;
    bool flagged = false;
    std::string note;  // in the tooltip: "3 mismatched words"
};
struct ColumnChart {
    std::string title;
    std::string unit;
    std::vector<Column> columns;
    std::string x_label;  // under the columns: "67 patterns, in the order they ran"
};

// Rows (library copies) against columns (who loads them): a dot where a column loads a row.
struct MatrixRow {
    std::string group;  // "libcudnn.so.9": rows of a group are drawn together
    std::string label;  // "9.19.0.56 pip_wheel …/nvidia/cudnn/lib/libcudnn.so.9"
    std::vector<bool> marks;  // one per column
    bool flagged = false;     // the group's copies differ in version
};
struct Matrix {
    std::string title;
    std::vector<std::string> columns;
    std::vector<MatrixRow> rows;
};

// Each returns one <svg> element (class "chart"), sized for a page about 1000 pixels wide, with a
// <title> for screen readers and tooltips; the text is XML-escaped.
[[nodiscard]] std::string render(const LineChart& chart);
[[nodiscard]] std::string render(const BarChart& chart);
[[nodiscard]] std::string render(const ColumnChart& chart);
[[nodiscard]] std::string render(const Matrix& matrix);

// Axis ticks: about `count` round values (1, 2 or 5 times a power of ten) covering [low, high].
[[nodiscard]] std::vector<double> ticks(double low, double high, int count = 5);
// "0.5", "1200", "1.5e+06": a tick's text, short.
[[nodiscard]] std::string tick_text(double value);

}  // namespace cudacheck::svg
