// Cross-cutting, so at the top level: what every check declares (CheckInfo) against the catalogue.
// Whether a check raises only the codes it declares is held in every test that judges a check's
// findings (test::expect_codes_declared).
#include "engine/registry.hpp"
#include "report/catalog.hpp"
#include "support/test_support.hpp"

#include <algorithm>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <set>

namespace cudacheck {
namespace {

std::set<std::string> raised_by_ids(const CatalogEntry& entry) {
    std::set<std::string> ids;
    std::string_view rest = entry.raised_by;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(", ");
        ids.emplace(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    }
    return ids;
}

bool declares(const Check& check, Code code) {
    const std::vector<Code>& raises = check.info().raises;
    return std::find(raises.begin(), raises.end(), code) != raises.end();
}

// The codes no check raises: 7xx come from a policy (--expect), 8xx from `cudacheck inspect`, 9xx
// from the engine and the supervisor, for any check.
bool raised_outside_checks(Code code) { return static_cast<int>(code) >= 700; }

TEST(CheckDeclarations, raised_by_names_exactly_the_checks_that_declare_the_code) {
    const Registry registry(builtin_checks());
    for (const CatalogEntry& entry : catalog()) {
        if (raised_outside_checks(entry.code)) continue;
        SCOPED_TRACE(code_string(entry.code));
        std::set<std::string> declaring;
        for (const auto& check : registry.checks())
            if (declares(*check, entry.code)) declaring.insert(check->info().id);
        EXPECT_EQ(raised_by_ids(entry), declaring)
            << "raised_by in catalog_entries.def against CheckInfo::raises of the checks";
    }
}

TEST(CheckDeclarations, no_check_declares_a_code_of_policy_inspect_or_the_engine) {
    const Registry registry(builtin_checks());
    for (const auto& check : registry.checks())
        for (Code code : check->info().raises) {
            EXPECT_FALSE(raised_outside_checks(code)) << check->info().id << " declares " << code_string(code);
            EXPECT_NO_THROW((void)catalog_entry(code)) << check->info().id;
        }
}

TEST(CheckDeclarations, codes_outside_checks_name_policy_inspect_or_any_check) {
    for (const CatalogEntry& entry : catalog()) {
        const int number = static_cast<int>(entry.code);
        SCOPED_TRACE(code_string(entry.code));
        if (number >= 700 && number < 800) {
            for (const std::string& id : raised_by_ids(entry)) EXPECT_TRUE(id.starts_with("expect.")) << id;
        } else if (number >= 800 && number < 900) {
            EXPECT_EQ(entry.raised_by, "inspect");
        } else if (number >= 900) {
            EXPECT_TRUE(entry.raised_by == "any" || entry.raised_by == "any check (the supervisor raises it)")
                << entry.raised_by;
        }
    }
}

// What the helper every judging test calls does with a code the check does not declare.
TEST(CheckDeclarations, expect_codes_declared_fails_for_an_undeclared_code) {
    EXPECT_EQ(test::expect_codes_declared("host.os", {"CC101", "CC901"}), 2u);
    EXPECT_NONFATAL_FAILURE((void)test::expect_codes_declared("host.os", {"CC210"}),
                            "CC210, which its CheckInfo::raises does not list");
    EXPECT_NONFATAL_FAILURE((void)test::expect_codes_declared("host.os", {"CC999"}), "not in the catalogue");
    EXPECT_EQ(test::expect_codes_declared("x.not_a_builtin_check", {"CC210"}), 0u);
}

}  // namespace
}  // namespace cudacheck
