// toolkit.build's prediction for a CMake CUDA project, held to CMake itself. For each
// case of the table, a one-kernel project (`project(x LANGUAGES CUDA)`) is configured and built by
// the real cmake and ninja of this machine with the case's variables, and the real cudacheck
// (`--only toolkit.build`) is run with the same environment: its prediction (the `cmake_project`
// evidence, "would succeed" or "would stop") must be CMake's outcome. Where CMake configured, the
// nvcc and the architectures CMake put in its cache must be the ones the evidence names. The host
// compilers nvcc rejects are wrapper scripts around the real g++ that report (and predefine) gcc 16,
// as toolkit.compile's test makes them. Each case costs a configure and a build (seconds on two
// cores): CTest runs these under the label `cmake` (tests/CMakeLists.txt).
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>

namespace cudacheck {
namespace {

using test::contains;

struct CMakeCase {
    const char* name;
    // NAME=value; in a value, {nvcc} is the toolkit's nvcc, {wrappers} the directory of the gcc-16
    // wrappers, {missing} a path that does not exist, {path_without_nvcc} PATH without the
    // directories that hold an nvcc.
    std::vector<std::pair<std::string, std::string>> variables;
    // What CMake did with it on this development machine (CMake 3.25, CUDA 13.0, gcc 12, no GPU);
    // nullopt where it depends on the machine (the GPUs, the toolkit's architectures, nvcc in a
    // system prefix). Held only to keep a case from testing something else than it says.
    std::optional<bool> builds_here;
};

// gtest prints a parameter into the test's listing, and so into CTest's name: the case's name, not its bytes.
void PrintTo(const CMakeCase& scenario, std::ostream* out) { *out << scenario.name; }

const std::vector<CMakeCase>& cases() {
    static const std::vector<CMakeCase> table{
        {"none_set", {}, true},
        {"cudacxx_the_real_nvcc", {{"CUDACXX", "{nvcc}"}}, true},
        {"cudacxx_a_missing_path", {{"CUDACXX", "{missing}/bin/nvcc"}}, false},
        {"cudahostcxx_an_accepted_gxx", {{"CUDAHOSTCXX", "/usr/bin/g++"}}, true},
        {"cudahostcxx_a_gcc16_nvcc_rejects", {{"CUDAHOSTCXX", "{wrappers}/g++"}}, false},
        // -ccbin=$CUDAHOSTCXX on the command line beats NVCC_CCBIN ...
        {"nvcc_ccbin_rejected_but_cudahostcxx_accepted",
         {{"NVCC_CCBIN", "{wrappers}/g++"}, {"CUDAHOSTCXX", "/usr/bin/g++"}},
         true},
        // ... and the -ccbin of NVCC_APPEND_FLAGS, which comes after it, beats CUDAHOSTCXX.
        {"nvcc_append_flags_ccbin_beats_cudahostcxx",
         {{"NVCC_APPEND_FLAGS", "-ccbin {wrappers}/g++"}, {"CUDAHOSTCXX", "/usr/bin/g++"}},
         false},
        {"cudaarchs_90", {{"CUDAARCHS", "90"}}, true},
        {"cudaarchs_50_gone_in_cuda_13", {{"CUDAARCHS", "50"}}, std::nullopt},
        {"cudaarchs_sm_90_not_cmakes_syntax", {{"CUDAARCHS", "sm_90"}}, false},
        {"cudaarchs_native", {{"CUDAARCHS", "native"}}, std::nullopt},
        {"no_nvcc_on_path", {{"PATH", "{path_without_nvcc}"}}, std::nullopt},
        {"no_nvcc_on_path_but_cuda_path", {{"PATH", "{path_without_nvcc}"}, {"CUDA_PATH", "{toolkit}"}}, true},
    };
    return table;
}

// The variables a case may set, unset unless it does: the test's own environment must not leak in.
constexpr const char* cleared[] = {
    "CUDACXX",   "CUDAHOSTCXX", "CUDAARCHS",         "NVCC_CCBIN",         "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS",
    "CUDA_PATH", "CUDA_HOME",   "CMAKE_PREFIX_PATH", "CMAKE_PROGRAM_PATH", "CMAKE_GENERATOR"};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

struct Machine {
    std::string nvcc;      // the nvcc on PATH
    std::string toolkit;   // above its bin/
    std::string cmake;
    std::string path_without_nvcc;
};

std::optional<Machine> this_machine() {
    const std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
    Machine machine{sys::find_in_path("nvcc", path), "", sys::find_in_path("cmake", path), ""};
    if (machine.nvcc.empty() || machine.cmake.empty() || sys::find_in_path("ninja", path).empty() ||
        !sys::is_executable_file("/usr/bin/g++"))
        return std::nullopt;
    machine.toolkit = std::filesystem::path(machine.nvcc).parent_path().parent_path().string();
    std::vector<std::string> kept;
    for (const std::string& directory : sys::split(path, ':'))
        if (!directory.empty() && !sys::is_executable_file(directory + "/nvcc")) kept.push_back(directory);
    for (const std::string& directory : kept)
        machine.path_without_nvcc += (machine.path_without_nvcc.empty() ? "" : ":") + directory;
    return machine;
}

class ToolkitBuildAgainstCMake : public testing::TestWithParam<CMakeCase> {};

// CMake's outcome: configure, then build; and what it cached.
struct CMakeOutcome {
    bool built = false;
    std::string output;
    std::map<std::string, std::string> cache;  // NAME -> value, from CMakeCache.txt
};

CMakeOutcome configure_and_build(const Machine& machine, const std::string& source, const std::string& build,
                                 const std::vector<std::string>& environment) {
    CMakeOutcome outcome;
    const std::vector<std::string> configure{machine.cmake, "-S", source, "-B", build, "-G", "Ninja"};
    const sys::CommandResult configured = sys::run_command(configure, std::chrono::minutes(4), &environment);
    outcome.output = configured.output;
    if (configured.exit_status == 0) {
        const sys::CommandResult built =
            sys::run_command({machine.cmake, "--build", build}, std::chrono::minutes(4), &environment);
        outcome.output += built.output;
        outcome.built = built.exit_status == 0;
    }
    for (const std::string& line : sys::split(test::read_text(build + "/CMakeCache.txt"), '\n')) {
        const std::size_t type = line.find(':');
        const std::size_t equals = line.find('=');
        if (type != std::string::npos && equals != std::string::npos && type < equals && !line.starts_with("//"))
            outcome.cache[line.substr(0, type)] = line.substr(equals + 1);
    }
    return outcome;
}

std::map<std::string, std::string> evidence_of(const nlohmann::json& check) {
    std::map<std::string, std::string> evidence;
    for (const nlohmann::json& item : check.at("evidence"))
        if (item.at("value").is_string()) evidence[item.at("key")] = item.at("value");
    return evidence;
}

TEST_P(ToolkitBuildAgainstCMake, prediction_equals_cmakes_configure_and_build) {
    const std::optional<Machine> machine = this_machine();
    if (!machine) GTEST_SKIP() << "needs nvcc, cmake and ninja on PATH and /usr/bin/g++";
    const CMakeCase& scenario = GetParam();
    test::TempDir dir;
    (void)dir.write("src/CMakeLists.txt",
                    "cmake_minimum_required(VERSION 3.18)\nproject(probe LANGUAGES CUDA)\nadd_executable(probe "
                    "kernel.cu)\n");
    (void)dir.write("src/kernel.cu",
                    "__global__ void fill(int* out) { out[threadIdx.x] = threadIdx.x; }\nint main() { fill<<<1, "
                    "1>>>(nullptr); return 0; }\n");
    const std::string wrappers = test::write_gcc_wrappers(dir, "wrappers", 16);
    std::vector<std::pair<std::string, std::string>> overrides;
    for (const char* name : cleared) overrides.emplace_back(name, test::unset_marker);
    for (const auto& [name, value] : scenario.variables) {
        std::string expanded = replace_all(value, "{nvcc}", machine->nvcc);
        expanded = replace_all(expanded, "{toolkit}", machine->toolkit);
        expanded = replace_all(expanded, "{wrappers}", wrappers);
        expanded = replace_all(expanded, "{missing}", dir.path() + "/no-such-toolkit");
        expanded = replace_all(expanded, "{path_without_nvcc}", machine->path_without_nvcc);
        overrides.emplace_back(name, expanded);
    }
    // The same environment for cmake as for cudacheck.
    const std::vector<std::string> environment = test::environment_with(overrides);

    const auto started = std::chrono::steady_clock::now();
    const CMakeOutcome cmake = configure_and_build(*machine, dir.path() + "/src", dir.path() + "/build", environment);
    const double cmake_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    const std::string report = dir.path() + "/report.json";
    const test::BinaryRun run = test::run_cudacheck({"--only", "toolkit.build", "-o", report, "-q"}, overrides);
    ASSERT_FALSE(run.timed_out);
    const nlohmann::json document = nlohmann::json::parse(test::read_text(report));
    const nlohmann::json* check = test::find_check(document, "toolkit.build");
    ASSERT_NE(check, nullptr);
    const std::map<std::string, std::string> evidence = evidence_of(*check);
    ASSERT_TRUE(evidence.contains("cmake_project")) << check->dump(1);
    const bool predicted = evidence.at("cmake_project").starts_with("configure and build would succeed");
    // In --gtest_output=xml: each case's two answers and what CMake cost.
    RecordProperty("prediction", evidence.at("cmake_project"));
    RecordProperty("cmake", cmake.built ? "configured and built" : "failed");
    RecordProperty("cmake_seconds", std::to_string(cmake_s));

    EXPECT_EQ(predicted, cmake.built) << scenario.name << ": toolkit.build says \"" << evidence.at("cmake_project")
                                      << "\", CMake " << (cmake.built ? "configured and built" : "failed") << ":\n"
                                      << cmake.output << "\ntoolkit.build: " << check->dump(1);
    if (scenario.builds_here)
        EXPECT_EQ(cmake.built, *scenario.builds_here) << "the case no longer tests what it says:\n" << cmake.output;
    // What CMake cached is what the evidence names: the nvcc, and the architectures.
    if (cmake.cache.contains("CMAKE_CUDA_COMPILER") && !cmake.cache.at("CMAKE_CUDA_COMPILER").ends_with("NOTFOUND")) {
        ASSERT_TRUE(evidence.contains("cmake_nvcc"));
        EXPECT_TRUE(evidence.at("cmake_nvcc").starts_with(cmake.cache.at("CMAKE_CUDA_COMPILER") + " "))
            << evidence.at("cmake_nvcc") << " vs CMake's " << cmake.cache.at("CMAKE_CUDA_COMPILER");
    }
    if (cmake.built) {
        ASSERT_TRUE(evidence.contains("cmake_architectures"));
        const std::string& cached = cmake.cache.at("CMAKE_CUDA_ARCHITECTURES");
        EXPECT_TRUE(contains(evidence.at("cmake_architectures"), "=" + cached + " ") ||
                    contains(evidence.at("cmake_architectures"), "=\"" + cached + "\""))
            << evidence.at("cmake_architectures") << " vs CMake's " << cached;
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, ToolkitBuildAgainstCMake, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<CMakeCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace cudacheck
