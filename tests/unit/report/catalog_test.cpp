// The finding catalogue (report/catalog.cpp): complete, unique, explained, and in docs/errors.md.
#include "report/catalog.hpp"
#include "render/renderer.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace cudacheck {
namespace {

TEST(Catalog, every_entry_has_cause_remediation_title_and_checks) {
    for (const CatalogEntry& entry : catalog()) {
        SCOPED_TRACE(code_string(entry.code));
        EXPECT_FALSE(entry.title.empty());
        EXPECT_FALSE(entry.cause.empty());
        EXPECT_FALSE(entry.remediation.empty());
        EXPECT_FALSE(entry.raised_by.empty());
        EXPECT_NE(entry.severity, Status::pass);
        EXPECT_NE(entry.severity, Status::skip);
        EXPECT_TRUE(std::regex_match(std::string(entry.slug), std::regex("[a-z0-9]+(-[a-z0-9]+)*")));
    }
}

// The enum and the entries are expanded from one list (catalog_entries.def), and the compiler
// rejects a number or slug used twice; what remains to go wrong is the lookup.
TEST(Catalog, lookup_of_each_code_returns_its_own_entry) {
    for (const CatalogEntry& entry : catalog())
        EXPECT_EQ(&catalog_entry(entry.code), &entry) << code_string(entry.code);
}

TEST(Catalog, lookup_of_a_number_that_is_no_code_throws_logic_error) {
    const Code unknown = static_cast<Code>(999);
    EXPECT_THROW((void)catalog_entry(unknown), std::logic_error);
    EXPECT_THROW((void)make_finding(unknown, "a finding"), std::logic_error);
}

TEST(Catalog, code_string_is_cc_and_three_digits) {
    EXPECT_EQ(code_string(Code::libcuda_not_found), "CC210");
    EXPECT_EQ(code_string(Code::wsl1_no_gpu), "CC101");
    EXPECT_EQ(docs_anchor(Code::libcuda_not_found), "docs/errors.md#cc210");
}

TEST(Catalog, finds_entries_by_code_number_or_slug) {
    ASSERT_NE(find_catalog_entry("CC210"), nullptr);
    EXPECT_EQ(find_catalog_entry("cc210")->code, Code::libcuda_not_found);
    EXPECT_EQ(find_catalog_entry("210")->code, Code::libcuda_not_found);
    EXPECT_EQ(find_catalog_entry("libcuda-not-found")->code, Code::libcuda_not_found);
    EXPECT_EQ(find_catalog_entry("CC999"), nullptr);
    EXPECT_EQ(find_catalog_entry("nonsense"), nullptr);
}

TEST(Catalog, suggests_close_codes_for_unknown_input) {
    EXPECT_EQ(closest_catalog_codes("CC2100", 1), "CC210 (libcuda-not-found)");
    EXPECT_NE(closest_catalog_codes("libcuda-stubb").find("CC211"), std::string::npos);
}

TEST(Catalog, docs_errors_md_is_generated_from_the_catalog) {
    std::ostringstream generated;
    render_catalog_markdown(generated);
    const std::string on_disk = test::read_text(CUDACHECK_SOURCE_DIR "/docs/errors.md");
    EXPECT_EQ(on_disk, generated.str()) << "docs/errors.md is out of date: run `build/cudacheck explain --markdown > "
                                           "docs/errors.md`";
    for (const CatalogEntry& entry : catalog())
        EXPECT_NE(on_disk.find("\n## " + code_string(entry.code) + "\n"), std::string::npos)
            << code_string(entry.code) << " has no docs entry";
}

}  // namespace
}  // namespace cudacheck
