// Cross-cutting, so at the top level: it reads the comments of every source folder.
// A comment says why the code is as it is. An issue number (the word and a number) means nothing
// to a reader of the code: the reason goes into the comment, the history into docs/ and git.
#include "support/test_support.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {
namespace {

// The folders and files scanned. Data recorded from elsewhere (tests/fixtures: third-party files
// and captured outputs; tests/golden: reports kept byte for byte; the fuzzers' regression inputs)
// is not the project's prose and is left out.
constexpr std::array<std::string_view, 5> scanned_folders{"src", "kernels", "tests", "tools", "cmake"};
constexpr std::array<std::string_view, 2> scanned_files{"CMakeLists.txt", ".ci/run"};
constexpr std::array<std::string_view, 3> data_folders{"tests/fixtures", "tests/golden", "tests/fuzz/regressions"};
constexpr std::array<std::string_view, 10> source_extensions{".cpp", ".hpp", ".h",  ".cu", ".cuh",
                                                             ".def", ".in",  ".py", ".sh", ".cmake"};

bool is_source(const std::filesystem::path& path) {
    if (path.filename() == "CMakeLists.txt") return true;
    const std::string extension = path.extension().string();
    for (std::string_view known : source_extensions)
        if (extension == known) return true;
    return false;
}

// Whether position `at` of a C++ `line` lies inside a "..." literal opened on this line (a string a
// user sees, a test's input), counted by the unescaped double quotes before it. Python, shell and
// CMake files have no such exception: their docstrings are documentation too.
bool inside_string_literal(const std::string& line, std::size_t at) {
    bool inside = false;
    for (std::size_t i = 0; i < at; ++i) {
        if (line[i] == '\\') {
            ++i;
            continue;
        }
        if (line[i] == '"') inside = !inside;
    }
    return inside;
}

// Where `line` cites an issue at or after `from` (the position of its first letter): "issue" or
// "Issue" starting a word, an optional "s", a space, an optional '#', a digit. Scanned by hand:
// std::regex recurses per character.
std::size_t find_citation(const std::string& line, std::size_t from) {
    const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
    for (std::size_t at = line.find("ssue", from + 1); at != std::string::npos; at = line.find("ssue", at + 1)) {
        if (line[at - 1] != 'i' && line[at - 1] != 'I') continue;
        const std::size_t start = at - 1;
        if (start > 0 && is_word(line[start - 1])) continue;
        std::size_t next = at + 4;
        if (next < line.size() && line[next] == 's') ++next;
        if (next >= line.size() || line[next] != ' ') continue;
        ++next;
        if (next < line.size() && line[next] == '#') ++next;
        if (next < line.size() && std::isdigit(static_cast<unsigned char>(line[next])) != 0) return start;
    }
    return std::string::npos;
}

struct Citation {
    std::string file;  // relative to the scanned root
    int line = 0;
    std::string text;
};

// Every line of `file` that cites an issue number: comments and docstrings alike, anywhere in a
// script, outside string literals in C++.
void find_citations(const std::filesystem::path& root, const std::filesystem::path& file,
                    std::vector<Citation>& found) {
    const std::string extension = file.extension().string();
    const bool cxx = extension == ".cpp" || extension == ".hpp" || extension == ".h" || extension == ".cu" ||
                     extension == ".cuh" || extension == ".def";
    std::ifstream in(file);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        for (std::size_t at = find_citation(line, 0); at != std::string::npos; at = find_citation(line, at + 1)) {
            if (cxx && inside_string_literal(line, at)) continue;
            found.push_back({std::filesystem::relative(file, root).string(), number, line});
            break;
        }
    }
}

std::vector<Citation> issue_citations(const std::filesystem::path& root) {
    std::vector<Citation> found;
    const auto is_data = [&](const std::filesystem::path& path) {
        const std::string relative = std::filesystem::relative(path, root).string();
        for (std::string_view data : data_folders)
            if (relative == data) return true;
        return false;
    };
    for (std::string_view folder : scanned_folders) {
        if (!std::filesystem::is_directory(root / folder)) continue;
        for (auto entry = std::filesystem::recursive_directory_iterator(root / folder);
             entry != std::filesystem::recursive_directory_iterator(); ++entry) {
            if (entry->is_directory() && is_data(entry->path())) {
                entry.disable_recursion_pending();
                continue;
            }
            if (entry->is_regular_file() && is_source(entry->path())) find_citations(root, entry->path(), found);
        }
    }
    for (std::string_view file : scanned_files)
        if (std::filesystem::is_regular_file(root / file)) find_citations(root, root / file, found);
    return found;
}

TEST(CommentStyle, no_comment_in_the_source_cites_an_issue_number) {
    const std::vector<Citation> found = issue_citations(CUDACHECK_SOURCE_DIR);
    for (const Citation& citation : found)
        ADD_FAILURE() << citation.file << ":" << citation.line << " cites an issue; say why instead: " << citation.text;
    EXPECT_TRUE(found.empty());
}

// The scan itself, on a tree the test writes: each way a comment cites an issue is found, in each
// kind of file; strings, paths and data folders are not.
TEST(CommentStyle, finds_each_form_of_citation_and_only_in_comments) {
    const test::TempDir tree;
    (void)tree.write("src/a.cpp", "int a;  // kept short (issue 35)\n// Issue 16: the layout\nint b;\n");
    (void)tree.write("src/b.hpp", "/* see issue #12 */\n");
    (void)tree.write("tests/c.py", "\"\"\"The corpus of issue 34.\"\"\"\nx = 1  # issues 18 and 20\n");
    (void)tree.write("tools/d.sh", "# Issue 36: what it installs\n");
    (void)tree.write("CMakeLists.txt", "# the catalogue (issue 9)\n");
    (void)tree.write("src/clean.cpp",
                     "const char* shown = \"see issue 7\";  // a string a user sees\n"
                     "// docs/examples/h200/issue21/idle.json is a path, no citation\n"
                     "// an issue of the driver, tissue 5, reissue\n");
    (void)tree.write("tests/fixtures/e.py", "# issue 5 in a third-party file\n");
    (void)tree.write("tests/golden/f.sh", "# issue 6 in a recorded file\n");
    (void)tree.write("src/notes.md", "issue 8 in a file that is no source\n");

    std::vector<std::string> where;
    for (const Citation& citation : issue_citations(tree.path()))
        where.push_back(citation.file + ":" + std::to_string(citation.line));
    std::sort(where.begin(), where.end());
    EXPECT_EQ(where, (std::vector<std::string>{"CMakeLists.txt:1", "src/a.cpp:1", "src/a.cpp:2", "src/b.hpp:1",
                                               "tests/c.py:1", "tests/c.py:2", "tools/d.sh:1"}));
}

}  // namespace
}  // namespace cudacheck
