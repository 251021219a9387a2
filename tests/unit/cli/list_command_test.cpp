// `cudacheck list --format json` (cli/list_command.cpp): the document
// docs/list.schema.json describes, held to it by Python's jsonschema, the interpreter the report's
// schema test uses (CUDACHECK_PYTHON is tests/CMakeLists.txt's Python3_EXECUTABLE).
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;

// Validates each document against the schema; prints one line per error, "valid N" at the end.
constexpr const char* validate = R"(
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
valid = 0
for path in sys.argv[2:]:
    errors = list(validator.iter_errors(json.load(open(path, encoding="utf-8"))))
    for error in errors:
        print(path, "/".join(map(str, error.path)), error.message)
    valid += not errors
print("valid", valid)
)";

bool have_jsonschema() {
    return sys::run_command({CUDACHECK_PYTHON, "-c", "import jsonschema"}, std::chrono::seconds(60)).exit_status == 0;
}

TEST(ListJson, validates_against_its_schema_which_rejects_what_it_must) {
    if (!have_jsonschema())
        GTEST_SKIP() << "SKIPPED: no jsonschema for " << CUDACHECK_PYTHON << " (tools/test.sh installs it)";
    const test::BinaryRun list = run_cudacheck({"list", "--format", "json"});
    ASSERT_EQ(list.exit_status, 0) << list.output;
    const nlohmann::json document = nlohmann::json::parse(list.output);
    test::TempDir dir;
    const std::string good = dir.write("list.json", list.output);
    // Documents the schema must refuse: an unknown scope, a code that is no code, a missing field.
    nlohmann::json bad_scope = document;
    bad_scope["checks"][0]["scope"] = "planet";
    nlohmann::json bad_code = document;
    bad_code["checks"][0]["raises"] = {"E42"};
    nlohmann::json no_level = document;
    no_level["checks"][1].erase("level");
    const std::vector<std::string> bad{dir.write("scope.json", bad_scope.dump()),
                                       dir.write("code.json", bad_code.dump()),
                                       dir.write("level.json", no_level.dump())};
    const sys::CommandResult checked =
        sys::run_command({CUDACHECK_PYTHON, "-c", validate, CUDACHECK_SOURCE_DIR "/docs/list.schema.json", good, bad[0],
                          bad[1], bad[2]},
                         std::chrono::seconds(60));
    ASSERT_EQ(checked.exit_status, 0) << checked.output;
    EXPECT_TRUE(contains(checked.output, "valid 1\n")) << "only the real document is valid:\n" << checked.output;
    EXPECT_FALSE(contains(checked.output, good + " ")) << checked.output;
    for (const std::string& path : bad)
        EXPECT_TRUE(contains(checked.output, path + " ")) << path << ":\n" << checked.output;
}

// The JSON lists what the table lists, in its order, with what scripts need.
TEST(ListJson, holds_every_check_of_the_table_in_its_order) {
    const test::BinaryRun table = run_cudacheck({"list"});
    const test::BinaryRun json = run_cudacheck({"list", "--format", "json"});
    ASSERT_EQ(json.exit_status, 0) << json.output;
    const nlohmann::json document = nlohmann::json::parse(json.output);
    EXPECT_EQ(document["document"], "checks");
    EXPECT_EQ(document["schema_version"], "1.0.0");
    std::vector<std::string> table_ids;
    std::istringstream in(table.output);
    std::string line;
    std::getline(in, line);  // the heading
    while (std::getline(in, line)) table_ids.push_back(line.substr(0, line.find(' ')));
    std::vector<std::string> json_ids;
    for (const nlohmann::json& check : document["checks"]) json_ids.push_back(check["id"]);
    EXPECT_EQ(json_ids, table_ids);
    bool found = false;
    for (const nlohmann::json& check : document["checks"]) {
        if (check["id"] != "cuda.pairing") continue;
        found = true;
        EXPECT_NE(std::find(check["needs"].begin(), check["needs"].end(), "driver.libcuda"), check["needs"].end())
            << check.dump();
    }
    EXPECT_TRUE(found);
    for (const nlohmann::json& check : document["checks"])
        if (check["id"] == "driver.libcuda")
            EXPECT_NE(std::find(check["raises"].begin(), check["raises"].end(), "CC210"), check["raises"].end());
    // --format json and --markdown ask for two things.
    const test::BinaryRun both = run_cudacheck({"list", "--markdown", "--format", "json"});
    EXPECT_EQ(both.exit_status, 2) << both.output;
    EXPECT_EQ(test::line_count(both.output), 1u) << both.output;
}

// The suggestion comes from the options of the command given: an option of another command is
// not "corrected" to itself ("unknown option --format; did you mean --format?").
TEST(ListJson, a_wrong_option_is_named_with_the_command_that_has_it) {
    struct Case {
        std::vector<std::string> arguments;
        std::string expected;
    };
    for (const Case& wrong : std::vector<Case>{
             {{"list", "--formt", "json"},
              "unknown option --formt for `cudacheck list`; did you mean --format? (see `cudacheck list --help`)"},
             {{"explain", "--format", "json", "CC210"},
              "unknown option --format for `cudacheck explain` (an option of `cudacheck`, `cudacheck list`"},
             {{"--markdown"},
              "unknown option --markdown (an option of `cudacheck list`, `cudacheck explain`) (see `cudacheck "
              "--help`)"},
             {{"run", "--formt", "json"},
              "unknown option --formt for `cudacheck run`; did you mean --format? (see `cudacheck --help`)"},
             {{"diff", "--zzzzzz", "a", "b"},
              "unknown option --zzzzzz for `cudacheck diff` (see `cudacheck diff --help`)"}}) {
        const test::BinaryRun run = run_cudacheck(wrong.arguments);
        SCOPED_TRACE(wrong.arguments.front() + " " + wrong.arguments[1 % wrong.arguments.size()]);
        EXPECT_EQ(run.exit_status, 2) << run.output;
        EXPECT_EQ(test::line_count(run.output), 1u) << run.output;
        EXPECT_TRUE(contains(run.output, wrong.expected)) << run.output;
        EXPECT_FALSE(contains(run.output, "--format; did you mean --format")) << run.output;
    }
}

}  // namespace
}  // namespace cudacheck
