// Cross-cutting, so at the top level: one mutation engine for both readers, reports and policies.
// The report and policy readers take files from anywhere (a ticket's attachment, a CI artefact of
// another version): whatever the bytes, they return a value or a one-line error, never crash,
// throw or hang. Mutations of the real example reports and policies: truncation, random bytes,
// values replaced by values of other types, keys removed, values nested around the reader's depth
// limit and beyond, numbers no field can hold. The seed is fixed so a failure repeats; the time is
// bounded so the suite stays fast. tools/fuzz.sh fuzzes the same readers with libFuzzer.
#include "report/policy.hpp"
#include "report/report_json.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"

#include <chrono>
#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <random>

namespace cudacheck {
namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr auto time_budget = std::chrono::milliseconds(1500);

// Every value in a document, by JSON pointer, so one can be picked at random.
void collect_pointers(const json& value, const json::json_pointer& here, std::vector<json::json_pointer>& pointers) {
    pointers.push_back(here);
    if (value.is_object())
        for (const auto& [key, child] : value.items()) collect_pointers(child, here / key, pointers);
    else if (value.is_array())
        for (std::size_t i = 0; i < value.size(); ++i) collect_pointers(value[i], here / i, pointers);
}

json value_of_another_kind(std::mt19937& random) {
    switch (random() % 8) {
        case 0: return nullptr;
        case 1: return -1;
        case 2: return 1e308;
        case 3: return "";
        case 4: return json::array({1, "x"});
        case 5: return json::object({{"x", 1}});
        case 6: return true;
        default: return 18446744073709551615ULL;
    }
}

// Numbers at and past the edges of every field's type: beyond double's range both ways, past 64
// bits, minus zero, 400 digits.
const char* const huge_numbers[] = {
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890.5",
    "1000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"};

// The document with the value at `target` replaced by raw JSON text (which json values cannot
// hold: numbers beyond any type, nesting beyond the reader's limit).
std::string with_raw_value(json document, const json::json_pointer& target, const std::string& raw) {
    const std::string marker = "cudacheck-raw-value";
    document[target] = marker;
    std::string text = document.dump();
    return text.replace(text.find('"' + marker + '"'), marker.size() + 2, raw);
}

std::string mutate(const std::string& text, std::mt19937& random) {
    std::string mutated = text;
    switch (random() % 6) {
        case 0: return mutated.substr(0, random() % (mutated.size() + 1));  // truncated
        case 1:                                                              // random bytes
            for (int i = 0, count = 1 + static_cast<int>(random() % 8); i < count; ++i)
                mutated[random() % mutated.size()] = static_cast<char>(random());
            return mutated;
        case 2:    // a value of another type, or a key removed
        case 3: {
            json document = json::parse(text);
            std::vector<json::json_pointer> pointers;
            collect_pointers(document, json::json_pointer(), pointers);
            const json::json_pointer& target = pointers[random() % pointers.size()];
            if (random() % 2 == 0 || target.empty()) document[target] = value_of_another_kind(random);
            else if (document[target.parent_pointer()].is_object())
                document[target.parent_pointer()].erase(target.back());
            return document.dump();
        }
        default: {  // a value nested around the reader's limit of 1,000 levels and beyond, or a huge number
            const json document = json::parse(text);
            std::vector<json::json_pointer> pointers;
            collect_pointers(document, json::json_pointer(), pointers);
            const json::json_pointer& target = pointers[random() % pointers.size()];
            if (random() % 2 == 0)
                return with_raw_value(document, target, huge_numbers[random() % std::size(huge_numbers)]);
            const std::size_t depths[] = {999, 1000, 1001, 100000};
            const std::size_t depth = depths[random() % std::size(depths)];
            return with_raw_value(document, target, std::string(depth, '[') + std::string(depth, ']'));
        }
    }
}

// Runs `read` on mutations of `original` until the time budget is spent; returns how many it tried.
int fuzz(const std::string& original, const std::function<bool(const std::string&, std::string&)>& read) {
    std::mt19937 random(20261130);
    int tried = 0;
    for (const auto start = Clock::now(); Clock::now() - start < time_budget; ++tried) {
        const std::string input = mutate(original, random);
        std::string error;
        bool accepted = false;
        EXPECT_NO_THROW(accepted = read(input, error)) << "mutation " << tried;
        if (!accepted) {
            EXPECT_FALSE(error.empty()) << "mutation " << tried << " was refused without a reason";
            EXPECT_EQ(error.find('\n'), std::string::npos) << error;
            EXPECT_EQ(error.rfind("input.json", 0), 0u) << error;
        }
    }
    return tried;
}

// Found by the mutation test on a slower machine: a key with a newline in it (a random byte)
// broke the "one line" promise of the error message.
TEST(InputFuzz, shows_control_characters_in_keys_as_escapes) {
    const Expected<Policy> policy =
        parse_policy("{\"schema_version\": \"1.0.0\", \"device_count\": {\"m\\nx\\u0001\": 1}}", "input.json");
    EXPECT_FALSE(policy.has_value());
    const std::string error = test::error_of(policy);
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_NE(error.find("m\\nx\\x01"), std::string::npos) << error;
}

TEST(InputFuzz, report_reader_survives_mutated_real_reports) {
    for (const char* path : {"/docs/examples/h200/cudacheck.json", "/docs/examples/no-driver/cudacheck.json",
                             "/tests/golden/report.json"}) {
        const std::string original = test::read_text(CUDACHECK_SOURCE_DIR + std::string(path));
        ASSERT_FALSE(original.empty()) << path;
        const int tried = fuzz(original, [](const std::string& input, std::string& error) {
            const Expected<Report> report = parse_report(input, "input.json");
            error = test::error_of(report);
            return report.has_value();
        });
        EXPECT_GT(tried, 50) << path;
    }
}

TEST(InputFuzz, policy_reader_survives_mutated_policies) {
    for (const char* path : {"/docs/policies/ci-job.json", "/docs/policies/cluster-node.json"}) {
        const std::string original = test::read_text(CUDACHECK_SOURCE_DIR + std::string(path));
        ASSERT_FALSE(original.empty()) << path;
        const int tried = fuzz(original, [](const std::string& input, std::string& error) {
            const Expected<Policy> policy = parse_policy(input, "input.json");
            error = test::error_of(policy);
            return policy.has_value();
        });
        EXPECT_GT(tried, 50) << path;
    }
}

}  // namespace
}  // namespace cudacheck
