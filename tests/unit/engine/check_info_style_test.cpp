// CheckInfo has ten members, four of them lists, and most checks leave some at their defaults: built
// positionally (`{..., {}, {}, {codes}, "..."}`), one `{}` too few or too many moves every later
// value into the wrong member and may still compile. So every CheckInfo in src/ and tests/ names
// its members (C++20 designated initializers: `.id = ..., .raises = {...}`), and this test reads the
// sources to hold them to it.
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {
namespace {

// Where `text` from `at` on goes on after blanks and comments.
std::size_t skip_blanks_and_comments(std::string_view text, std::size_t at) {
    while (at < text.size()) {
        if (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r') {
            ++at;
        } else if (text.substr(at, 2) == "//") {
            at = text.find('\n', at);
            if (at == std::string_view::npos) return text.size();
        } else if (text.substr(at, 2) == "/*") {
            at = text.find("*/", at + 2);
            if (at == std::string_view::npos) return text.size();
            at += 2;
        } else {
            break;
        }
    }
    return at;
}

std::size_t line_of(std::string_view text, std::size_t at) {
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// "<name>:<line>: <what>" for every CheckInfo that `text` builds with positional values:
// `CheckInfo{...}`, `CheckInfo info{...}`, `CheckInfo info = {...}`, and, in a registration,
// `library_check_info(...)` whose first argument is not itself a designated list (its declaration
// aside). A list that opens with `.member =` (or is empty) passes.
std::vector<std::string> positional_check_infos(const std::string& name, const std::string& text) {
    std::vector<std::string> found;
    const auto designated_from = [&](std::size_t brace) {
        const std::size_t next = skip_blanks_and_comments(text, brace + 1);
        return next < text.size() && (text[next] == '.' || text[next] == '}');
    };
    static const std::regex braced(R"(\bCheckInfo\s*(?:[A-Za-z_]\w*\s*)?(?:=\s*)?\{)");
    for (auto match = std::sregex_iterator(text.begin(), text.end(), braced); match != std::sregex_iterator();
         ++match) {
        const auto start = static_cast<std::size_t>(match->position());
        if (start >= 7 && text.compare(start - 7, 7, "struct ") == 0) continue;  // the definition
        const auto brace = static_cast<std::size_t>(match->position() + match->length() - 1);
        if (!designated_from(brace))
            found.push_back(name + ":" + std::to_string(line_of(text, static_cast<std::size_t>(match->position()))) +
                            ": CheckInfo built positionally; name its members (.id = ..., .title = ...)");
    }
    static const std::regex library_call(R"(\blibrary_check_info\s*\()");
    for (auto match = std::sregex_iterator(text.begin(), text.end(), library_call); match != std::sregex_iterator();
         ++match) {
        const std::size_t argument =
            skip_blanks_and_comments(text, static_cast<std::size_t>(match->position() + match->length()));
        if (text.compare(argument, 10, "CheckInfo ") == 0)
            continue;  // its declaration: `library_check_info(CheckInfo check, ...)`
        if (argument >= text.size() || text[argument] != '{' || !designated_from(argument))
            found.push_back(name + ":" + std::to_string(line_of(text, static_cast<std::size_t>(match->position()))) +
                            ": library_check_info's CheckInfo built positionally; pass {.id = ..., .title = ..., ...}");
    }
    return found;
}

TEST(CheckInfoStyle, the_scanner_names_file_and_line_of_a_positional_check_info) {
    const std::string positional =
        "std::unique_ptr<Check> make() {\n"
        "    return std::make_unique<FunctionCheck>(\n"
        "        CheckInfo{\"host.cpus\", \"Host CPUs\", \"one line\", Scope::host, Level::quick, {}, {},\n"
        "                  {Code::host_single_cpu}, \"answers\"},\n"
        "        body);\n"
        "}\n"
        "CheckInfo info{\"a.b\", \"t\", \"d\"};\n"
        "CheckInfo other = {\"a.c\", \"t\", \"d\"};\n"
        "CheckInfo library = gpu::library_check_info(\"x.y\", \"t\", \"d\", cuda_library::cufft);\n";
    EXPECT_EQ(positional_check_infos("src/checks/sample.cpp", positional),
              (std::vector<std::string>{
                  "src/checks/sample.cpp:3: CheckInfo built positionally; name its members (.id = ..., .title = ...)",
                  "src/checks/sample.cpp:7: CheckInfo built positionally; name its members (.id = ..., .title = ...)",
                  "src/checks/sample.cpp:8: CheckInfo built positionally; name its members (.id = ..., .title = ...)",
                  "src/checks/sample.cpp:9: library_check_info's CheckInfo built positionally; pass {.id = ..., .title "
                  "= ..., ...}",
              }));

    const std::string designated =
        "return std::make_unique<FunctionCheck>(\n"
        "    CheckInfo{// the id first\n"
        "              .id = \"host.cpus\", .title = \"Host CPUs\", .raises = {Code::host_single_cpu}},\n"
        "    body);\n"
        "CheckInfo empty{};\n"
        "const CheckInfo& info = check.info();\n"
        "gpu::library_check_info({.id = \"x.y\", .title = \"t\"}, cuda_library::cufft);\n"
        "CheckInfo library_check_info(CheckInfo check, const LibraryFamily& library);\n"
        "struct CheckInfo {\n    std::string id;\n};\n";
    EXPECT_EQ(positional_check_infos("src/checks/sample.cpp", designated), std::vector<std::string>{});
}

TEST(CheckInfoStyle, every_check_info_in_src_and_tests_names_its_members) {
    const std::filesystem::path root(CUDACHECK_SOURCE_DIR);
    const std::filesystem::path self = std::filesystem::path(__FILE__).filename();
    std::vector<std::string> found;
    std::size_t files = 0;
    std::size_t registrations = 0;
    for (const char* folder : {"src", "tests"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
            const std::string extension = entry.path().extension().string();
            if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp") ||
                entry.path().filename() == self)
                continue;
            const std::string text = test::read_text(entry.path().string());
            ++files;
            if (entry.path().parent_path() == root / "src" / "checks" &&
                text.find("CheckRegistration") != std::string::npos)
                ++registrations;
            for (std::string& line :
                 positional_check_infos(std::filesystem::relative(entry.path(), root).string(), text))
                found.push_back(std::move(line));
        }
    }
    // The scan reached the checks: one file per check registers it.
    EXPECT_GE(registrations, 20U) << "files of src/checks/ with a CheckRegistration, out of " << files << " read";
    for (const std::string& line : found) ADD_FAILURE() << line;
}

}  // namespace
}  // namespace cudacheck
