// The JSON renderer (render/json_renderer.cpp): the golden report, its values, its pinned layout.
#include "render/renderer.hpp"
#include "report/report_json.hpp"
#include "support/golden_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

namespace cudacheck {
namespace {

using test::compare_with_golden;
using test::golden_dir;
using test::render;
using test::updating;

// "checks[].findings[].code:string" style paths with value types, sorted.
void collect_shape(const nlohmann::json& value, const std::string& path, std::set<std::string>& shape) {
    if (value.is_object()) {
        shape.insert(path + ":object");
        for (const auto& [key, child] : value.items()) collect_shape(child, path + "." + key, shape);
    } else if (value.is_array()) {
        shape.insert(path + ":array");
        for (const auto& child : value) collect_shape(child, path + "[]", shape);
    } else {
        shape.insert(path + ":" + std::string(value.is_number() ? "number" : value.type_name()));
    }
}

TEST(JsonRenderer, matches_golden_file) { compare_with_golden("report.json", render(Format::json)); }

TEST(JsonRenderer, uses_numbers_nulls_and_summary_from_report) {
    const auto document = nlohmann::json::parse(render(Format::json));
    EXPECT_EQ(document["schema_version"], std::string(json_schema_version));
    EXPECT_TRUE(document["devices"][0]["total_memory_bytes"].is_number_unsigned());
    EXPECT_TRUE(document["versions"]["nvcc"].is_null());
    EXPECT_TRUE(document["checks"][0]["code"].is_null());
    EXPECT_EQ(document["checks"][3]["device"], 0);
    EXPECT_EQ(document["checks"][3]["docs"], "docs/errors.md#cc210");
    EXPECT_EQ(document["summary"]["overall"], "fail");
    EXPECT_EQ(document["exit_code"], 1);
    EXPECT_EQ(document["summary"]["counts"]["skip"], 1);
}

TEST(JsonRenderer, layout_change_requires_schema_version_bump) {
    std::set<std::string> shape;
    collect_shape(nlohmann::json::parse(render(Format::json)), "", shape);
    std::string current = "schema_version " + std::string(json_schema_version) + "\n";
    for (const std::string& line : shape) current += line + "\n";
    const std::string recorded = test::read_text(golden_dir + "report.shape");
    const std::string recorded_version = recorded.substr(0, recorded.find('\n'));
    const std::string current_version = current.substr(0, current.find('\n'));
    if (recorded == current) return;
    if (recorded_version == current_version)
        FAIL() << "the JSON layout changed but json_schema_version is still " << json_schema_version
               << ": bump it (render/renderer.hpp), update docs/report.schema.json, then rerun with "
                  "CUDACHECK_UPDATE_GOLDEN=1";
    if (updating()) std::ofstream(golden_dir + "report.shape", std::ios::binary) << current;
    else FAIL() << "json_schema_version changed: rerun with CUDACHECK_UPDATE_GOLDEN=1 to record the new layout";
}

}  // namespace
}  // namespace cudacheck
