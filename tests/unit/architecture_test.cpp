// Cross-cutting, so at the top level: it reads every layer of src/ and the shipped binary.
// The shape of the source tree (docs/architecture.md): each folder of src/ is a layer, and a file
// includes only its own layer's headers and those of the layers below; the shipped binary carries
// no test-only check.
#include "support/test_support.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <regex>
#include <string>

namespace cudacheck {
namespace {

// Lowest first; the same order as docs/architecture.md and src/CMakeLists.txt. `kernels` (the .cu
// files) depend on nothing of the project. `build` is build planning, pure functions over the
// probes' build facts: below engine, since its clients (toolkit.build, toolkit.compile and
// `cudacheck env`) are checks and cli.
const std::map<std::string, int>& layer_ranks() {
    static const std::map<std::string, int> ranks{
        {"util", 0},   {"kernels", 0}, {"cuda", 1},   {"bind", 2},    {"report", 3},  {"probes", 4},     {"build", 5},
        {"engine", 6}, {"gpu", 7},     {"checks", 8}, {"inspect", 9}, {"render", 10}, {"isolation", 11}, {"cli", 12},
    };
    return ranks;
}

struct Violation {
    std::string file;
    std::string include;
};

std::vector<Violation> upward_includes(const std::filesystem::path& root, const std::string& folder, int rank) {
    static const std::regex include_line(R"re(^\s*#\s*include\s+"([a-z_]+)/[^"]+")re");
    std::vector<Violation> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            std::smatch match;
            if (!std::regex_search(line, match, include_line)) continue;
            const auto target = layer_ranks().find(match[1]);
            if (target == layer_ranks().end() || target->second > rank)
                found.push_back({std::filesystem::relative(entry.path(), root).string(), line});
        }
    }
    return found;
}

TEST(Architecture, no_layer_includes_a_higher_one) {
    const std::filesystem::path root(CUDACHECK_SOURCE_DIR);
    std::size_t folders = 0;
    for (const auto& [layer, rank] : layer_ranks()) {
        const std::string folder = layer == "kernels" ? "kernels" : "src/" + layer;
        ASSERT_TRUE(std::filesystem::is_directory(root / folder)) << folder;
        ++folders;
        for (const Violation& violation : upward_includes(root, folder, rank))
            ADD_FAILURE() << violation.file << " (" << layer << ") includes a higher layer: " << violation.include;
    }
    EXPECT_EQ(folders, layer_ranks().size());
}

// A folder that holds files (git keeps no empty ones; a copied tree may) must be a layer.
TEST(Architecture, every_source_folder_is_a_known_layer) {
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(CUDACHECK_SOURCE_DIR) / "src")) {
        if (!entry.is_directory() || std::filesystem::is_empty(entry.path())) continue;
        EXPECT_TRUE(layer_ranks().count(entry.path().filename().string())) << entry.path() << " is in no layer";
    }
}

// The whole file (sys::read_file stops at a size meant for text files; a binary is larger).
bool file_contains(const std::string& path, const std::string& needle) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_GT(bytes.size(), 1u << 20) << path << " was not read";
    return bytes.find(needle) != std::string::npos;
}

// The fault checks crash, hang and eat memory on purpose: only the test build has them. Short ids
// can be compiled into instructions rather than stored as text, so the binary is asked for its
// list, and searched for the checks' descriptions and the variable that once enabled them.
TEST(Architecture, shipped_binary_has_no_fault_checks) {
    const test::BinaryRun shipped = test::run_cudacheck({"list"});
    ASSERT_EQ(shipped.exit_status, 0) << shipped.output;
    EXPECT_EQ(shipped.output.find("fault."), std::string::npos) << shipped.output;
    for (const char* needle :
         {"Writes through a null pointer", "Launches a GPU kernel that never returns", "CUDACHECK_FAULT_CHECKS"})
        EXPECT_FALSE(file_contains(CUDACHECK_BINARY, needle)) << CUDACHECK_BINARY << " contains " << needle;
    // The same questions find them where they are.
    const test::BinaryRun with_faults = test::run_cudacheck({"list"}, {}, test::Build::with_faults);
    EXPECT_NE(with_faults.output.find("fault.segfault"), std::string::npos) << with_faults.output;
    EXPECT_NE(with_faults.output.find("fault.gpu_spin"), std::string::npos) << with_faults.output;
    EXPECT_TRUE(file_contains(CUDACHECK_WITH_FAULTS_BINARY, "Writes through a null pointer"));
}

}  // namespace
}  // namespace cudacheck
