// Cross-cutting, so at the top level: one mutation engine for both readers, reports and policies.
// The report and policy readers take files from anywhere (a ticket's attachment, a CI artefact of
// another version): whatever the bytes, they return a value or a one-line error, never crash,
// throw or hang. Mutations of the real example reports and policies: truncation, random bytes,
// values replaced by values of other types, keys removed. The seed is fixed so a failure repeats;
// the time is bounded so the suite stays fast.
#include "report/policy.hpp"
#include "report/report_json.hpp"
#include "support/test_support.hpp"

#include <chrono>
#include <functional>
#include <gtest/gtest.h>
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

std::string mutate(const std::string& text, std::mt19937& random) {
    std::string mutated = text;
    switch (random() % 4) {
        case 0: return mutated.substr(0, random() % (mutated.size() + 1));  // truncated
        case 1:                                                              // random bytes
            for (int i = 0, count = 1 + static_cast<int>(random() % 8); i < count; ++i) mutated[random() % mutated.size()] = static_cast<char>(random());
            return mutated;
        default: {  // a value of another type, or a key removed
            json document = json::parse(text);
            std::vector<json::json_pointer> pointers;
            collect_pointers(document, json::json_pointer(), pointers);
            const json::json_pointer& target = pointers[random() % pointers.size()];
            if (random() % 2 == 0 || target.empty()) document[target] = value_of_another_kind(random);
            else if (document[target.parent_pointer()].is_object()) document[target.parent_pointer()].erase(target.back());
            return document.dump();
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
    std::string error;
    EXPECT_FALSE(parse_policy("{\"schema_version\": \"1.0.0\", \"device_count\": {\"m\\nx\\u0001\": 1}}", "input.json", error).has_value());
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_NE(error.find("m\\nx\\x01"), std::string::npos) << error;
}

TEST(InputFuzz, report_reader_survives_mutated_real_reports) {
    for (const char* path : {"/docs/examples/h200/cudacheck.json", "/docs/examples/no-driver/cudacheck.json", "/tests/golden/report.json"}) {
        const std::string original = test::read_text(CUDACHECK_SOURCE_DIR + std::string(path));
        ASSERT_FALSE(original.empty()) << path;
        const int tried = fuzz(original, [](const std::string& input, std::string& error) { return parse_report(input, "input.json", error).has_value(); });
        EXPECT_GT(tried, 50) << path;
    }
}

TEST(InputFuzz, policy_reader_survives_mutated_policies) {
    for (const char* path : {"/docs/policies/ci-job.json", "/docs/policies/cluster-node.json"}) {
        const std::string original = test::read_text(CUDACHECK_SOURCE_DIR + std::string(path));
        ASSERT_FALSE(original.empty()) << path;
        const int tried = fuzz(original, [](const std::string& input, std::string& error) { return parse_policy(input, "input.json", error).has_value(); });
        EXPECT_GT(tried, 50) << path;
    }
}

}  // namespace
}  // namespace cudacheck
