// The table of framework builds and the chooser (cuda/framework_builds.cpp), held to the projects'
// own published files: verbatim copies under tests/fixtures/framework_builds/ (SOURCE.md names each
// one's origin). The expectations are derived from those copies by the small parsers below, never
// from the table, so a wrong row fails here.
#include "cuda/framework_builds.hpp"

#include "support/test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace cudacheck {
namespace {

using test::read_text;

const std::string fixtures = std::string(CUDACHECK_SOURCE_DIR) + "/tests/fixtures/framework_builds/";

std::string fixture(const std::string& name) { return read_text(fixtures + name); }

// A compute capability as PyTorch writes it, "8.6" -> 86.
int cc_of(const std::string& text) {
    const std::size_t dot = text.find('.');
    return std::stoi(text.substr(0, dot)) * 10 + std::stoi(text.substr(dot + 1));
}

struct Code {
    std::set<int> sass;
    std::set<int> ptx;
    bool operator==(const Code&) const = default;
};

// TORCH_CUDA_ARCH_LIST: "7.0;7.5;12.0+PTX" (X.Y+PTX is SASS and PTX for X.Y).
Code parse_torch_arch_list(const std::string& list) {
    Code code;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ';')) {
        if (item.empty()) continue;
        const bool ptx = item.ends_with("+PTX");
        const int cc = cc_of(ptx ? item.substr(0, item.size() - 4) : item);
        code.sass.insert(cc);
        if (ptx) code.ptx.insert(cc);
    }
    return code;
}

// Bazel's HERMETIC_CUDA_COMPUTE_CAPABILITIES: "sm_75,sm_80,compute_120". TensorFlow's configure.py
// says what they mean: "compute_xy" includes both virtual and binary GPU code (SASS and PTX),
// "sm_xy" only the binary code; the JAX and TensorFlow wheels' own fatbinaries agree (the
// *.inspect-summary.json fixtures).
Code parse_bazel_capabilities(const std::string& list) {
    Code code;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (item.starts_with("sm_")) code.sass.insert(std::stoi(item.substr(3)));
        if (item.starts_with("compute_")) {
            code.sass.insert(std::stoi(item.substr(8)));
            code.ptx.insert(std::stoi(item.substr(8)));
        }
    }
    return code;
}

// PyTorch's _code_compatible_with_device: code for X.Y serves devices of major X, minor >= Y.
bool torch_rule_covers(const std::set<int>& code, int gpu) {
    return std::any_of(code.begin(), code.end(), [&](int cc) { return cc / 10 == gpu / 10 && cc % 10 <= gpu % 10; });
}

// The table's row, looked up by the published names.
const FrameworkBuildRow* row_of(Framework framework, std::string_view version, std::string_view variant,
                                Machine machine = Machine::x86_64) {
    for (const FrameworkBuildRow& row : framework_build_table())
        if (row.framework == framework && row.version == version && row.variant == variant && row.machine == machine)
            return &row;
    return nullptr;
}

Code code_of(const FrameworkBuildRow& row) {
    Code code;
    const EmbeddedTargets targets = row.targets();
    for (const GpuArch& arch : targets.sass) code.sass.insert(arch.number);
    for (const GpuArch& arch : targets.ptx) code.ptx.insert(arch.number);
    return code;
}

// PYTORCH_RELEASES_CODE_CC = {"12.6": {50, 60, ...}, ...} as torch/cuda/__init__.py writes it.
std::map<std::string, std::set<int>> parse_releases_code_cc(const std::string& text) {
    std::map<std::string, std::set<int>> releases;
    const std::regex entry(R"re("(\d+\.\d+)": \{([0-9, ]+)\})re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it) {
        std::stringstream numbers((*it)[2].str());
        std::string number;
        while (std::getline(numbers, number, ',')) releases[(*it)[1].str()].insert(std::stoi(number));
    }
    return releases;
}

// PYTORCH_RELEASES_CODE_CC keyed by host arch (2.13 on): {"12.6": {"x86_64": {50, ...}, "aarch64":
// {80, 90}}, ...}. The machine's sets, per CUDA release.
std::map<std::string, std::set<int>> parse_releases_code_cc(const std::string& text, Machine machine) {
    std::map<std::string, std::set<int>> releases;
    const std::regex cuda_key(R"re(^    "(\d+\.\d+)": \{$)re");
    const std::regex arch_entry(R"re(^        "(x86_64|aarch64)": \{([0-9, ]+)\},$)re");
    std::stringstream lines(text);
    std::string line;
    std::string cuda;
    while (std::getline(lines, line)) {
        std::smatch match;
        if (std::regex_match(line, match, cuda_key)) cuda = match[1];
        if (!std::regex_match(line, match, arch_entry) || match[1].str() != to_string(machine)) continue;
        std::stringstream numbers(match[2].str());
        std::string number;
        while (std::getline(numbers, number, ',')) releases[cuda].insert(std::stoi(number));
    }
    return releases;
}

// One Linux wheel of a PyPI release, as the fixtures list them: the file name as PyPI gives it,
// then requires_python=… (the JSON API's field for that file).
struct PypiWheel {
    std::string filename;
    MajorMinor python;        // cp312 -> 3.12; {0, 0} for py3-none wheels
    bool free_threaded = false;  // cp314t
    MajorMinor glibc;         // the manylinux floor its platform tag states
    Machine machine = Machine::x86_64;
    std::string requires_python;
};

// The glibc a manylinux platform tag promises to need at most (PEP 600; the legacy aliases of
// PEP 513, 571 and 599: manylinux1 = 2.5, manylinux2010 = 2.12, manylinux2014 = 2.17). A file
// with several platform tags installs where the lowest does.
MajorMinor manylinux_floor(const std::string& filename) {
    std::optional<MajorMinor> lowest;
    const auto take = [&](MajorMinor floor) { lowest = lowest ? std::min(*lowest, floor) : floor; };
    const std::regex pep600(R"(manylinux_(\d+)_(\d+)_)");
    for (auto it = std::sregex_iterator(filename.begin(), filename.end(), pep600); it != std::sregex_iterator(); ++it)
        take({std::stoi((*it)[1]), std::stoi((*it)[2])});
    for (const auto& [alias, floor] :
         {std::pair{"manylinux1_", MajorMinor{2, 5}}, std::pair{"manylinux2010_", MajorMinor{2, 12}},
          std::pair{"manylinux2014_", MajorMinor{2, 17}}})
        if (filename.find(alias) != std::string::npos) take(floor);
    EXPECT_TRUE(lowest) << filename;
    return lowest.value_or(MajorMinor{});
}

// The Linux wheels the fixture lists for one release ("torch", "2.15.0"); PyPI normalises the
// distribution's dashes to underscores in file names.
std::vector<PypiWheel> pypi_wheels(const std::string& fixture_name, std::string distribution,
                                   const std::string& version) {
    std::replace(distribution.begin(), distribution.end(), '-', '_');
    std::vector<PypiWheel> wheels;
    std::stringstream lines(fixture(fixture_name));
    std::string line;
    const std::regex name(R"(^([A-Za-z0-9_]+)-([^-]+)-(cp(\d)(\d+)(t?)|py3)-[^ ]+\.whl requires_python=(\S*))");
    while (std::getline(lines, line)) {
        std::smatch match;
        if (!std::regex_search(line, match, name) || match[1] != distribution || match[2] != version) continue;
        PypiWheel wheel;
        wheel.filename = line.substr(0, line.find(' '));
        if (match[4].matched) wheel.python = {std::stoi(match[4]), std::stoi(match[5])};
        wheel.free_threaded = match[6] == "t";
        wheel.glibc = manylinux_floor(wheel.filename);
        wheel.machine = wheel.filename.find("aarch64") != std::string::npos ? Machine::aarch64 : Machine::x86_64;
        wheel.requires_python = match[7];
        wheels.push_back(wheel);
    }
    EXPECT_FALSE(wheels.empty()) << fixture_name << " has no wheel of " << distribution << " " << version;
    return wheels;
}

// The CPython versions a release's wheels exist for on one machine (free-threaded builds aside),
// lowest and highest.
std::pair<MajorMinor, MajorMinor> wheel_pythons(const std::vector<PypiWheel>& wheels, Machine machine) {
    std::set<MajorMinor> pythons;
    for (const PypiWheel& wheel : wheels)
        if (wheel.machine == machine && !wheel.free_threaded && wheel.python.major != 0) pythons.insert(wheel.python);
    EXPECT_FALSE(pythons.empty());
    if (pythons.empty()) return {};
    return {*pythons.begin(), *pythons.rbegin()};
}

MajorMinor wheel_glibc(const std::vector<PypiWheel>& wheels, Machine machine) {
    std::set<MajorMinor> floors;
    for (const PypiWheel& wheel : wheels)
        if (wheel.machine == machine) floors.insert(wheel.glibc);
    EXPECT_EQ(floors.size(), 1U) << "one manylinux floor per release and machine";
    return floors.empty() ? MajorMinor{} : *floors.begin();
}

// "2.15.0+cu132" in torch/version.py: the variant of the wheel it came from.
std::string torch_version_py_variant(const std::string& text) {
    std::smatch match;
    EXPECT_TRUE(std::regex_search(text, match, std::regex(R"(__version__ = '[^+']+\+(cu\d+)')"))) << text;
    return match[1];
}

// What `cudacheck inspect --format json` read in one library of a published wheel, as summarised
// in the fixtures (SOURCE.md says how): the generic SASS and the PTX targets, by number.
Code measured_code(const std::string& fixture_name, const std::string& library) {
    const auto document = nlohmann::json::parse(fixture(fixture_name));
    Code code;
    for (const auto& item : document.at("libraries"))
        if (item.at("path") == library) {
            for (const auto& arch : item.at("sass_generic"))
                code.sass.insert(std::stoi(arch.get<std::string>().substr(3)));
            for (const auto& arch : item.at("ptx")) code.ptx.insert(std::stoi(arch.get<std::string>().substr(8)));
            return code;
        }
    ADD_FAILURE() << fixture_name << " has no " << library;
    return code;
}

// The TORCH_CUDA_ARCH_LIST each `X.Y)` case of build_cuda.sh sets, evaluated as bash would for the
// given machine: `${TORCH_CUDA_ARCH_LIST}` is the base list set before the case statement, the
// 13.0 case's `$([[ "$ARCH" == "aarch64" ]] && echo "11.0;" || echo "")` adds 11.0 on aarch64, and
// filter_aarch64_archs removes "5.0;" "6.0;" "7.0;" "7.5;" "8.6;" there.
std::map<std::string, Code> evaluate_build_cuda(const std::string& script, Machine machine) {
    std::map<std::string, std::string> lists;
    std::string base;
    std::string pending_case;
    bool in_case = false;
    std::stringstream lines(script);
    std::string line;
    const std::regex case_label(R"(^\s*(\d+\.\d+)\))");
    while (std::getline(lines, line)) {
        if (line.starts_with("case ${CUDA_VERSION}")) in_case = true;
        std::smatch label;
        if (in_case && std::regex_search(line, label, case_label)) pending_case = label[1];
        const std::size_t assign = line.find("TORCH_CUDA_ARCH_LIST=\"");
        if (assign == std::string::npos || line.find("${TORCH_CUDA_ARCH_LIST//") != std::string::npos) continue;
        const std::size_t begin = assign + std::string("TORCH_CUDA_ARCH_LIST=\"").size();
        std::string value = line.substr(begin, line.rfind('"') - begin);
        if (!in_case) {
            base = value;
            continue;
        }
        if (pending_case.empty()) continue;
        for (std::size_t at; (at = value.find("${TORCH_CUDA_ARCH_LIST}")) != std::string::npos;)
            value.replace(at, std::string("${TORCH_CUDA_ARCH_LIST}").size(), base);
        const std::string choice = R"($([[ "$ARCH" == "aarch64" ]] && echo "11.0;" || echo ""))";
        if (const std::size_t at = value.find(choice); at != std::string::npos)
            value.replace(at, choice.size(), machine == Machine::aarch64 ? "11.0;" : "");
        lists[pending_case] = value;
        pending_case.clear();
    }
    std::map<std::string, Code> codes;
    for (auto [cuda, list] : lists) {
        if (machine == Machine::aarch64 && script.find("filter_aarch64_archs") != std::string::npos)
            for (const std::string removed : {"5.0;", "6.0;", "7.0;", "7.5;", "8.6;"})
                for (std::size_t at; (at = list.find(removed)) != std::string::npos;) list.erase(at, removed.size());
        codes[cuda] = parse_torch_arch_list(list);
    }
    return codes;
}

std::vector<std::string> python_list(const std::string& text, const std::string& name) {
    std::smatch match;
    const std::regex assignment(name + R"( = \[([^\]]*)\])");
    std::vector<std::string> values;
    if (!std::regex_search(text, match, assignment)) return values;
    const std::string inside = match[1];
    const std::regex quoted(R"re("([^"]*)")re");
    for (auto it = std::sregex_iterator(inside.begin(), inside.end(), quoted); it != std::sregex_iterator(); ++it)
        values.push_back((*it)[1]);
    return values;
}

std::string python_string(const std::string& text, const std::string& name) {
    std::smatch match;
    const std::regex assignment(name + R"re( = "([^"]*)")re");
    return std::regex_search(text, match, assignment) ? match[1].str() : std::string();
}

// The matrix's FULL_PYTHON_VERSIONS without the free-threaded builds, as MajorMinor.
std::vector<MajorMinor> matrix_pythons(const std::string& matrix) {
    std::vector<MajorMinor> pythons;
    for (const std::string& version : python_list(matrix, "FULL_PYTHON_VERSIONS"))
        if (!version.ends_with("t")) pythons.push_back(*MajorMinor::parse(version));
    return pythons;
}

MajorMinor matrix_manylinux(const std::string& matrix) {
    std::smatch match;
    const std::regex image(R"(manylinux(\d+)_(\d+)-builder:cuda)");
    EXPECT_TRUE(std::regex_search(matrix, match, image));
    return {std::stoi(match[1]), std::stoi(match[2])};
}

std::string variant_of(const std::string& cuda) {  // "12.8" -> "cu128", PyTorch's translate_desired_cuda
    std::string variant = "cu" + cuda;
    variant.erase(std::remove(variant.begin(), variant.end(), '.'), variant.end());
    return variant;
}

// GPUs to hold coverage to: every compute capability of a shipped NVIDIA GPU that the table's era
// knows, Thor's 11.0 aside (PyTorch builds it for aarch64 only).
const std::vector<int> probe_gpus{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 120, 121};

TEST(FrameworkBuildTable, pytorch_2_11_covers_the_gpus_of_its_own_PYTORCH_RELEASES_CODE_CC) {
    const auto releases = parse_releases_code_cc(fixture("pytorch/torch-2.11.0-cuda-init-PYTORCH_RELEASES_CODE_CC.py"));
    ASSERT_EQ(releases.size(), 3U);
    for (const auto& [cuda, ccs] : releases) {
        const FrameworkBuildRow* row = row_of(Framework::pytorch, "2.11.0", variant_of(cuda));
        ASSERT_NE(row, nullptr) << cuda;
        EXPECT_EQ(row->cuda.to_string(), cuda);
        for (const int gpu : probe_gpus)
            EXPECT_EQ(torch_rule_covers(code_of(*row).sass, gpu), torch_rule_covers(ccs, gpu))
                << row->name() << " on sm_" << gpu;
    }
    // The installed 2.11.0+cu130 on the GPU machine: exactly these SASS targets and no PTX.
    const auto report = nlohmann::json::parse(fixture("pytorch/torch-2.11.0-cu130-self-report.json"));
    Code measured;
    for (const auto& arch : report.at("arch_list")) {
        const std::string name = arch.get<std::string>();
        if (name.starts_with("sm_")) measured.sass.insert(std::stoi(name.substr(3)));
        if (name.starts_with("compute_")) measured.ptx.insert(std::stoi(name.substr(8)));
    }
    EXPECT_EQ(code_of(*row_of(Framework::pytorch, "2.11.0", "cu130")), measured);
    EXPECT_TRUE(row_of(Framework::pytorch, "2.11.0", "cu130")->pypi_default);
}

// The releases whose wheels carry PYTORCH_RELEASES_CODE_CC keyed by host arch, newest first.
const std::vector<std::string> torch_releases_by_arch{"2.15.0", "2.14.1", "2.13.0"};

TEST(FrameworkBuildTable, pytorch_2_13_to_2_15_match_their_wheels_own_files_on_both_machines) {
    for (const std::string& version : torch_releases_by_arch) {
        const std::string code_cc = fixture("pytorch/torch-" + version + "-cuda-init-PYTORCH_RELEASES_CODE_CC.py");
        // The PyPI wheel's torch/version.py names its variant; METADATA's Requires-Python is the
        // release's floor.
        const std::string pypi_variant = torch_version_py_variant(fixture("pytorch/torch-" + version + "-version.py"));
        const std::string metadata = fixture("pytorch/torch-" + version + "-METADATA-lines.txt");
        std::smatch requires_python;
        ASSERT_TRUE(std::regex_search(metadata, requires_python, std::regex(R"(Requires-Python: >=(\d+\.\d+))")));
        const std::vector<PypiWheel> wheels = pypi_wheels("pytorch/pypi-torch-linux-wheels.txt", "torch", version);
        // The default variant's code as `cudacheck inspect` read it in the PyPI wheel.
        const Code pypi_code = measured_code("pytorch/torch-" + version + "-cp312-x86_64.inspect-summary.json",
                                             "torch/lib/libtorch_cuda.so");
        std::size_t rows = 0;
        for (const FrameworkBuildRow& row : framework_build_table())
            rows += row.framework == Framework::pytorch && row.version == version ? 1U : 0U;
        std::size_t expected_rows = 0;
        for (const Machine machine : {Machine::x86_64, Machine::aarch64}) {
            const auto releases = parse_releases_code_cc(code_cc, machine);
            ASSERT_GE(releases.size(), 3U) << version;
            expected_rows += releases.size();
            const auto [python_min, python_max] = wheel_pythons(wheels, machine);
            EXPECT_EQ(python_min, *MajorMinor::parse(requires_python[1].str())) << version;
            for (const auto& [cuda, ccs] : releases) {
                const FrameworkBuildRow* row = row_of(Framework::pytorch, version, variant_of(cuda), machine);
                ASSERT_NE(row, nullptr) << version << " " << cuda << " " << to_string(machine);
                EXPECT_EQ(row->cuda.to_string(), cuda);
                EXPECT_EQ(code_of(*row).sass, ccs) << row->name() << " " << to_string(machine);
                // PYTORCH_RELEASES_CODE_CC cannot say "+PTX": every variant is held to what the
                // PyPI variant carries (download.pytorch.org's wheels could not be read).
                EXPECT_EQ(code_of(*row).ptx, pypi_code.ptx) << row->name();
                EXPECT_EQ(row->python_min, python_min) << row->name();
                EXPECT_EQ(row->python_max, python_max) << row->name();
                EXPECT_EQ(row->glibc, wheel_glibc(wheels, machine)) << row->name();
                EXPECT_EQ(row->pypi_default, variant_of(cuda) == pypi_variant) << row->name();
            }
        }
        EXPECT_EQ(rows, expected_rows) << version;
        // The PyPI wheel itself (x86_64): its library carries exactly the list its own file gives.
        const FrameworkBuildRow* pypi_row = row_of(Framework::pytorch, version, pypi_variant);
        ASSERT_NE(pypi_row, nullptr) << version;
        EXPECT_EQ(code_of(*pypi_row), pypi_code) << pypi_row->name();
    }
}

TEST(FrameworkBuildTable, the_pypi_variant_of_every_release_carries_what_cudacheck_inspect_reads_in_its_wheel) {
    // Each release's cp312 x86_64 wheel on PyPI, read by `cudacheck inspect`: its libtorch_cuda.so's
    // generic SASS and PTX are the table's row for that release's PyPI variant.
    for (const std::string version :
         {"2.15.0", "2.14.1", "2.13.0", "2.11.0", "2.10.0", "2.9.1", "2.8.0", "2.7.1", "2.6.0"}) {
        const std::string summary = "pytorch/torch-" + version + "-cp312-x86_64.inspect-summary.json";
        const auto document = nlohmann::json::parse(fixture(summary));
        const std::string variant = torch_version_py_variant(document.at("version_py").get<std::string>());
        const FrameworkBuildRow* row = row_of(Framework::pytorch, version, variant);
        ASSERT_NE(row, nullptr) << version << " " << variant;
        EXPECT_TRUE(row->pypi_default) << row->name();
        EXPECT_EQ(code_of(*row), measured_code(summary, "torch/lib/libtorch_cuda.so")) << row->name();
        for (const FrameworkBuildRow& other : framework_build_table()) {
            if (other.framework == Framework::pytorch && other.version == version && other.machine == Machine::x86_64 &&
                other.variant != variant) {
                EXPECT_FALSE(other.pypi_default) << other.name();
            }
        }
        // The wheel's platform tag: the glibc pip holds it to; where the libraries' symbol versions
        // need more (2.6.0's manylinux1 wheel: GLIBC_2.17), that.
        const std::vector<PypiWheel> wheels = pypi_wheels("pytorch/pypi-torch-linux-wheels.txt", "torch", version);
        MajorMinor glibc = wheel_glibc(wheels, Machine::x86_64);
        if (document.contains("glibc_symbols_max"))
            glibc = std::max(glibc, *MajorMinor::parse(document.at("glibc_symbols_max").get<std::string>()));
        EXPECT_EQ(row->glibc, glibc) << row->name();
    }
}

TEST(FrameworkBuildTable, every_pytorch_rows_pythons_are_those_of_its_releases_wheels_on_pypi) {
    // The CPython versions of the release's wheels on PyPI for the row's machine (the other variants'
    // indexes at download.pytorch.org publish the same set; they could not be read here).
    std::set<std::string> versions;
    for (const FrameworkBuildRow& row : framework_build_table()) {
        if (row.framework != Framework::pytorch) continue;
        versions.insert(std::string(row.version));
        const std::vector<PypiWheel> wheels =
            pypi_wheels("pytorch/pypi-torch-linux-wheels.txt", "torch", std::string(row.version));
        EXPECT_EQ(wheel_pythons(wheels, row.machine), std::pair(row.python_min, row.python_max))
            << row.name() << " " << to_string(row.machine);
    }
    EXPECT_EQ(versions.size(), 9U);
}

TEST(FrameworkBuildTable, pytorch_2_10_matches_build_cuda_sh_and_the_matrix_for_both_machines) {
    const std::string script = fixture("pytorch/build_cuda.sh.799d09f2.case.sh");
    const std::string matrix = fixture("pytorch/generate_binary_build_matrix.py.2.10-period.excerpt.py");
    for (const Machine machine : {Machine::x86_64, Machine::aarch64}) {
        const auto lists = evaluate_build_cuda(script, machine);
        for (const std::string cuda : {"12.6", "12.8", "13.0"}) {
            const FrameworkBuildRow* row = row_of(Framework::pytorch, "2.10.0", variant_of(cuda), machine);
            ASSERT_NE(row, nullptr) << cuda << " " << to_string(machine);
            EXPECT_EQ(code_of(*row), lists.at(cuda)) << row->name() << " " << to_string(machine);
            EXPECT_EQ(row->pypi_default, machine == Machine::x86_64 && cuda == python_string(matrix, "CUDA_STABLE"));
        }
    }
    const std::vector<MajorMinor> pythons = matrix_pythons(matrix);
    for (const FrameworkBuildRow& row : framework_build_table())
        if (row.framework == Framework::pytorch && row.version == "2.10.0") {
            EXPECT_EQ(row.python_min, pythons.front());
            EXPECT_EQ(row.python_max, pythons.back());
            EXPECT_EQ(row.glibc, matrix_manylinux(matrix));
            const auto arches = python_list(matrix, "CUDA_ARCHES");
            EXPECT_NE(std::find(arches.begin(), arches.end(), row.cuda.to_string()), arches.end()) << row.name();
        }
}

TEST(FrameworkBuildTable, pytorch_2_9_has_the_matrix_variants_pythons_and_default) {
    const std::string matrix = fixture("pytorch/generate_binary_build_matrix.py.2.9-period.excerpt.py");
    const auto x86_lists = evaluate_build_cuda(fixture("pytorch/build_cuda.sh.799d09f2.case.sh"), Machine::x86_64);
    const auto older_lists = evaluate_build_cuda(fixture("pytorch/build_cuda.sh.00c7a380.case.sh"), Machine::x86_64);
    const std::vector<MajorMinor> pythons = matrix_pythons(matrix);
    for (const std::string& cuda : python_list(matrix, "CUDA_ARCHES")) {
        const FrameworkBuildRow* row = row_of(Framework::pytorch, "2.9.1", variant_of(cuda));
        ASSERT_NE(row, nullptr) << cuda;
        EXPECT_EQ(row->python_min, pythons.front());
        EXPECT_EQ(row->python_max, pythons.back());
        EXPECT_EQ(row->pypi_default, cuda == python_string(matrix, "CUDA_STABLE"));
        EXPECT_EQ(row->glibc, matrix_manylinux(matrix));
        EXPECT_EQ(code_of(*row), cuda == "13.0" ? x86_lists.at(cuda) : older_lists.at(cuda)) << row->name();
    }
}

TEST(FrameworkBuildTable, pytorch_2_8_matches_build_cuda_sh_of_its_period) {
    const auto lists = evaluate_build_cuda(fixture("pytorch/build_cuda.sh.00c7a380.case.sh"), Machine::x86_64);
    ASSERT_EQ(lists.size(), 3U);
    for (const auto& [cuda, code] : lists) {
        const FrameworkBuildRow* row = row_of(Framework::pytorch, "2.8.0", variant_of(cuda));
        ASSERT_NE(row, nullptr) << cuda;
        EXPECT_EQ(code_of(*row), code) << row->name();
    }
    // 2.8 is the last release for Python 3.9: the 2.9 matrix starts at 3.10; 2.7.1's METADATA
    // (tests/fixtures/frameworks/wheels/torch-2.7.1) says Requires-Python >=3.9.0.
    EXPECT_EQ(matrix_pythons(fixture("pytorch/generate_binary_build_matrix.py.2.9-period.excerpt.py")).front(),
              (MajorMinor{3, 10}));
    EXPECT_NE(read_text(std::string(CUDACHECK_SOURCE_DIR) +
                        "/tests/fixtures/frameworks/wheels/torch-2.7.1/torch-2.7.1.dist-info/METADATA")
                  .find("Requires-Python: >=3.9.0"),
              std::string::npos);
    EXPECT_EQ(row_of(Framework::pytorch, "2.8.0", "cu128")->python_min, (MajorMinor{3, 9}));
}

// HERMETIC_CUDA_VERSION and HERMETIC_CUDA_COMPUTE_CAPABILITIES per config ("cuda", "cuda_v12", ...).
std::map<std::string, std::pair<std::string, Code>> parse_bazelrc(const std::string& text) {
    std::map<std::string, std::pair<std::string, Code>> configs;
    const std::regex version(R"re((?:build|common):(\w+) --repo_env=HERMETIC_CUDA_VERSION="([\d.]+)")re");
    const std::regex capabilities(
        R"re((?:build|common):(\w+) --repo_env[ =]HERMETIC_CUDA_COMPUTE_CAPABILITIES="([^"]+)")re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), version); it != std::sregex_iterator(); ++it)
        configs[(*it)[1]].first = (*it)[2];
    for (auto it = std::sregex_iterator(text.begin(), text.end(), capabilities); it != std::sregex_iterator(); ++it)
        configs[(*it)[1]].second = parse_bazel_capabilities((*it)[2]);
    return configs;
}

std::pair<MajorMinor, MajorMinor> setup_py_pythons(const std::string& text) {
    std::smatch match;
    EXPECT_TRUE(std::regex_search(text, match, std::regex(R"(python_requires='>=(\d+\.\d+)')")));
    const MajorMinor minimum = *MajorMinor::parse(match[1].str());
    MajorMinor maximum = minimum;
    const std::regex classifier(R"(Programming Language :: Python :: (\d+\.\d+))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), classifier); it != std::sregex_iterator(); ++it)
        maximum = std::max(maximum, *MajorMinor::parse((*it)[1].str()));
    return {minimum, maximum};
}

TEST(FrameworkBuildTable, jax_rows_match_bazelrc_and_setup_py_at_their_tags) {
    struct Case {
        std::string tag, version, config, variant;
    };
    for (const Case& c :
         {Case{"jax-v0.11.0", "0.11.0", "cuda_v13", "cuda13"}, Case{"jax-v0.11.0", "0.11.0", "cuda_v12", "cuda12"},
          Case{"jax-v0.10.0", "0.10.0", "cuda_v13", "cuda13"}, Case{"jax-v0.10.0", "0.10.0", "cuda_v12", "cuda12"},
          Case{"jax-v0.6.0", "0.6.0", "cuda", "cuda12"}}) {
        const auto configs = parse_bazelrc(fixture("jax/" + c.tag + ".bazelrc-cuda-lines.txt"));
        const auto [python_min, python_max] = setup_py_pythons(fixture("jax/" + c.tag + ".setup.py-python-lines.txt"));
        for (const Machine machine : {Machine::x86_64, Machine::aarch64}) {
            const FrameworkBuildRow* row = row_of(Framework::jax, c.version, c.variant, machine);
            ASSERT_NE(row, nullptr) << c.tag << " " << c.variant;
            const auto& [cuda, code] = configs.at(c.config);
            EXPECT_EQ(row->cuda, *CudaVersion::parse(cuda.substr(0, cuda.rfind('.')))) << row->name();
            EXPECT_EQ(code_of(*row), code) << row->name();
            EXPECT_EQ(row->python_min, python_min) << row->name();
            EXPECT_EQ(row->python_max, python_max) << row->name();
        }
    }
    // The manylinux floor auditwheel accepts for the x86_64 wheels.
    EXPECT_NE(fixture("jax/jax-v0.11.0.run_auditwheel.sh-lines-38-50.txt").find("manylinux_2_27"), std::string::npos);
    // Every row: the PJRT wheel's code as `cudacheck inspect` reads it, and the plugin wheels' tags.
    for (const Case& c :
         {Case{"", "0.11.0", "", "cuda13"}, Case{"", "0.11.0", "", "cuda12"}, Case{"", "0.10.0", "", "cuda13"},
          Case{"", "0.10.0", "", "cuda12"}, Case{"", "0.6.0", "", "cuda12"}}) {
        const std::string major = c.variant.substr(4);
        const Code measured =
            measured_code("jax/jax_cuda" + major + "_pjrt-" + c.version + "-x86_64.inspect-summary.json",
                          "jax_plugins/xla_cuda" + major + "/xla_cuda_plugin.so");
        const std::vector<PypiWheel> plugins = pypi_wheels("jax/pypi-jax-cuda" + major + "-plugin-linux-wheels.txt",
                                                           "jax-cuda" + major + "-plugin", c.version);
        for (const Machine machine : {Machine::x86_64, Machine::aarch64}) {
            const FrameworkBuildRow* row = row_of(Framework::jax, c.version, c.variant, machine);
            ASSERT_NE(row, nullptr) << c.version << " " << c.variant;
            EXPECT_EQ(code_of(*row), measured) << row->name();
            EXPECT_EQ(row->glibc, wheel_glibc(plugins, machine)) << row->name();
        }
    }
}

TEST(FrameworkBuildTable, jax_0_12_rows_match_the_wheels_pip_installs_for_jax_cuda_extras) {
    // `pip install "jax[cuda13]"` takes the newest jax, and jax's METADATA pins its plugin to its own
    // version: jax 0.12.0.1 installs jax-cuda13-plugin 0.12.0.1, never the plugin's 0.12.1.
    const std::string jax_metadata = fixture("jax/jax-0.12.0.1-METADATA-lines.txt");
    for (const std::string major : {"12", "13"})
        EXPECT_NE(jax_metadata.find("jax-cuda" + major + "-plugin[with-cuda]<=0.12.0.1,>=0.12.0.1; extra == \"cuda" +
                                    major + "\""),
                  std::string::npos)
            << major;
    // The plugin pins its PJRT wheel, which carries the GPU code (xla_cuda_plugin.so).
    EXPECT_NE(
        fixture("jax/jax-cuda13-plugin-0.12.0.1-METADATA-lines.txt").find("Requires-Dist: jax-cuda13-pjrt==0.12.0.1"),
        std::string::npos);
    // jaxlib's Requires-Python and classifiers: the Pythons.
    const std::string jaxlib = fixture("jax/jaxlib-0.12.0.1-METADATA-lines.txt");
    std::smatch floor;
    ASSERT_TRUE(std::regex_search(jaxlib, floor, std::regex(R"(Requires-Python: >=(\d+\.\d+))")));
    MajorMinor newest = *MajorMinor::parse(floor[1].str());
    const std::regex classifier(R"(Programming Language :: Python :: (\d+\.\d+))");
    for (auto it = std::sregex_iterator(jaxlib.begin(), jaxlib.end(), classifier); it != std::sregex_iterator(); ++it)
        newest = std::max(newest, *MajorMinor::parse((*it)[1].str()));
    for (const std::string major : {"12", "13"}) {
        const std::string summary = "jax/jax_cuda" + major + "_pjrt-0.12.0.1-x86_64.inspect-summary.json";
        const Code code = measured_code(summary, "jax_plugins/xla_cuda" + major + "/xla_cuda_plugin.so");
        // The toolkit: the PTX ISA version of the library's PTX, as inspect reads it, is the toolkit's
        // that wrote it (PTX ISA release notes: 8.7 is CUDA 12.8's, 8.8 12.9's, 9.0 13.0's).
        const std::map<std::string, CudaVersion> isa_toolkit{
            {"8.7", {12, 8}}, {"8.8", {12, 9}}, {"9.0", {13, 0}}, {"9.1", {13, 1}}, {"9.2", {13, 2}}};
        const auto document = nlohmann::json::parse(fixture(summary));
        std::set<std::string> isas;
        for (const auto& library : document.at("libraries"))
            if (library.at("path") == "jax_plugins/xla_cuda" + major + "/xla_cuda_plugin.so")
                for (const auto& isa : library.at("ptx_isa")) isas.insert(isa.get<std::string>());
        ASSERT_EQ(isas.size(), 1U) << summary;
        ASSERT_TRUE(isa_toolkit.contains(*isas.begin())) << *isas.begin();
        const CudaVersion ptx_cuda = isa_toolkit.at(*isas.begin());
        const std::vector<PypiWheel> plugins = pypi_wheels("jax/pypi-jax-cuda" + major + "-plugin-linux-wheels.txt",
                                                           "jax-cuda" + major + "-plugin", "0.12.0.1");
        for (const Machine machine : {Machine::x86_64, Machine::aarch64}) {
            const FrameworkBuildRow* row = row_of(Framework::jax, "0.12.0.1", "cuda" + major, machine);
            ASSERT_NE(row, nullptr) << major << " " << to_string(machine);
            EXPECT_EQ(code_of(*row), code) << row->name();
            EXPECT_EQ(row->cuda, ptx_cuda) << row->name();
            EXPECT_EQ(row->python_min, *MajorMinor::parse(floor[1].str())) << row->name();
            EXPECT_EQ(row->python_max, newest) << row->name();
            EXPECT_EQ(wheel_pythons(plugins, machine), std::pair(row->python_min, row->python_max)) << row->name();
            EXPECT_EQ(row->glibc, wheel_glibc(plugins, machine)) << row->name();
        }
    }
    // The aarch64 PJRT wheel carries the same code as the x86_64 one.
    EXPECT_EQ(measured_code("jax/jax_cuda13_pjrt-0.12.0.1-aarch64.inspect-summary.json",
                            "jax_plugins/xla_cuda13/xla_cuda_plugin.so"),
              measured_code("jax/jax_cuda13_pjrt-0.12.0.1-x86_64.inspect-summary.json",
                            "jax_plugins/xla_cuda13/xla_cuda_plugin.so"));
}

TEST(FrameworkBuildTable, cupy_rows_match_install_rst_and_the_wheels_on_pypi) {
    for (const auto& [tag, version] : {std::pair{"v14.2.0", "14.2.0"}, std::pair{"v13.6.0", "13.6.0"}}) {
        const std::string requirements = fixture(std::string("cupy/") + tag + ".install.rst-requirements-lines.txt");
        std::vector<MajorMinor> pythons;
        const std::regex listed(R"(v(\d+\.\d+))");
        const std::string python_line = requirements.substr(requirements.find("`Python <"));
        for (auto it = std::sregex_iterator(python_line.begin(), python_line.end(), listed);
             it != std::sregex_iterator(); ++it)
            pythons.push_back(*MajorMinor::parse((*it)[1].str()));
        const std::string table = fixture(std::string("cupy/") + tag + ".install.rst-pypi-table-lines.txt");
        const std::regex command(R"(- ``pip install (cupy-cuda\d+x)``)");  // the table rows, not the notes
        int variants = 0;
        for (auto it = std::sregex_iterator(table.begin(), table.end(), command); it != std::sregex_iterator(); ++it) {
            const FrameworkBuildRow* row = row_of(Framework::cupy, version, (*it)[1].str());
            ASSERT_NE(row, nullptr) << tag << " " << (*it)[1];
            EXPECT_EQ(row->python_min, pythons.front());
            EXPECT_EQ(row->python_max, pythons.back());
            EXPECT_EQ(row->code, GpuCodeKind::runtime);
            ++variants;
        }
        EXPECT_EQ(variants, tag == std::string("v14.2.0") ? 2 : 3);
    }
    // The glibc: the platform tags of the wheels on PyPI (manylinux2014: 2.17), for every variant and
    // both machines. build-wheel.yml's CIBW_MANYLINUX_X86_64_IMAGE manylinux_2_28 is the image of the
    // CI's own build, not the tag of the published wheels.
    EXPECT_NE(fixture("cupy/v14.2.0.build-wheel.yml-manylinux-lines.txt").find("manylinux_2_28"), std::string::npos);
    for (const auto& [variant, version] :
         {std::pair{"cupy-cuda13x", "14.2.0"}, std::pair{"cupy-cuda12x", "14.2.0"}, std::pair{"cupy-cuda13x", "13.6.0"},
          std::pair{"cupy-cuda12x", "13.6.0"}, std::pair{"cupy-cuda11x", "13.6.0"}}) {
        const std::vector<PypiWheel> wheels =
            pypi_wheels(std::string("cupy/pypi-") + variant + "-linux-wheels.txt", variant, version);
        for (const Machine machine : {Machine::x86_64, Machine::aarch64}) {
            const FrameworkBuildRow* row = row_of(Framework::cupy, version, variant, machine);
            ASSERT_NE(row, nullptr) << variant << " " << version;
            EXPECT_EQ(row->glibc, wheel_glibc(wheels, machine)) << row->name();
            EXPECT_EQ(wheel_pythons(wheels, machine), std::pair(row->python_min, row->python_max)) << row->name();
        }
    }
}

TEST(FrameworkBuildTable, tensorflow_rows_match_their_wheels_build_info_and_tags) {
    // Each release's wheel has tensorflow/python/platform/build_info.py, written by its build:
    // cuda_version and cuda_compute_capabilities ("sm_60", ..., "compute_90").
    for (const std::string version : {"2.21.0", "2.20.0", "2.19.1"}) {
        const std::string build_info = fixture("tensorflow/tensorflow-" + version + "-build_info.py");
        std::smatch match;
        ASSERT_TRUE(std::regex_search(build_info, match, std::regex(R"re('cuda_version', '(\d+\.\d+)\.\d+')re")));
        const CudaVersion cuda = *CudaVersion::parse(match[1].str());
        ASSERT_TRUE(
            std::regex_search(build_info, match, std::regex(R"re('cuda_compute_capabilities', \[([^\]]*)\])re")));
        std::string list = match[1];
        list.erase(std::remove_if(list.begin(), list.end(), [](char c) { return c == '\'' || c == ' '; }), list.end());
        const std::vector<PypiWheel> wheels =
            pypi_wheels("tensorflow/pypi-tensorflow-linux-wheels.txt", "tensorflow", version);
        const FrameworkBuildRow* row = row_of(Framework::tensorflow, version, "and-cuda");
        ASSERT_NE(row, nullptr) << version;
        EXPECT_EQ(row->cuda, cuda) << version;
        EXPECT_EQ(code_of(*row), parse_bazel_capabilities(list)) << version;
        EXPECT_EQ(wheel_pythons(wheels, Machine::x86_64), std::pair(row->python_min, row->python_max)) << version;
        EXPECT_EQ(row->glibc, wheel_glibc(wheels, Machine::x86_64)) << version;
        // [and-cuda] pins NVIDIA's CUDA 12 wheels.
        EXPECT_NE(fixture("tensorflow/tensorflow-" + version + "-METADATA-lines.txt")
                      .find("Requires-Dist: nvidia-cuda-runtime-cu12"),
                  std::string::npos);
    }
    // The stored .bazelrc (not at a release tag) says the same of the official builds.
    const auto configs = parse_bazelrc(fixture("tensorflow/bazelrc.0071ad1d.cuda-lines.txt"));
    EXPECT_EQ(configs.at("cuda").first, "12.5.1");
    EXPECT_EQ(code_of(*row_of(Framework::tensorflow, "2.21.0", "and-cuda")), configs.at("cuda_clang").second);
}

TEST(FrameworkBuildTable, every_row_is_sourced_ordered_and_consistent) {
    std::map<std::pair<Framework, Machine>, std::string> previous;
    for (const FrameworkBuildRow& row : framework_build_table()) {
        // A project's file at a tag or commit, or the release's page on PyPI (its wheels).
        EXPECT_TRUE(row.source.starts_with("https://github.com/") ||
                    row.source.starts_with("https://pypi.org/project/"))
            << row.name();
        EXPECT_LE(row.python_min, row.python_max) << row.name();
        EXPECT_EQ(row.code == GpuCodeKind::compiled, !row.sass.empty()) << row.name();
        const auto listed =
            static_cast<std::size_t>(std::count(row.sass.begin(), row.sass.end(), ',')) + (row.sass.empty() ? 0U : 1U);
        EXPECT_EQ(row.targets().sass.size(), listed) << row.name();
        // PyTorch's command is made from the version and the variant; the others are written out.
        EXPECT_EQ(row.install.empty(), row.framework == Framework::pytorch) << row.name();
        // Newest release first within a framework and machine.
        const std::string version(row.version);
        const auto key = std::pair{row.framework, row.machine};
        if (previous.contains(key)) {
            EXPECT_LE(*MajorMinor::parse(version), *MajorMinor::parse(previous[key])) << row.name();
        }
        previous[key] = version;
    }
}

// One machine of the matrix the advice is checked on.
struct Scenario {
    int gpu;
    CudaVersion driver;
    MajorMinor python;
    MajorMinor glibc;
};

// A PyTorch release as its published files describe it: its Pythons and manylinux floor (the
// x86_64 wheels on PyPI) and its CUDA variants, newest first, with their code.
struct PublishedRelease {
    std::string version;
    MajorMinor python_min, python_max, glibc;
    std::vector<std::pair<std::string, Code>> variants;  // CUDA "13.0" -> code
    std::string pypi_variant;  // "cu132": the variant of its wheel on PyPI (that wheel's torch/version.py)
};

std::vector<PublishedRelease> published_pytorch_releases() {
    std::vector<PublishedRelease> releases;
    const auto add = [&](const std::string& version, const std::map<std::string, Code>& variants) {
        PublishedRelease release;
        release.version = version;
        const std::vector<PypiWheel> wheels = pypi_wheels("pytorch/pypi-torch-linux-wheels.txt", "torch", version);
        std::tie(release.python_min, release.python_max) = wheel_pythons(wheels, Machine::x86_64);
        release.glibc = wheel_glibc(wheels, Machine::x86_64);
        const std::string summary = "pytorch/torch-" + version + "-cp312-x86_64.inspect-summary.json";
        release.pypi_variant =
            torch_version_py_variant(nlohmann::json::parse(fixture(summary)).at("version_py").get<std::string>());
        for (const auto& [cuda, code] : variants) release.variants.insert(release.variants.begin(), {cuda, code});
        releases.push_back(release);
    };
    for (const std::string& version : torch_releases_by_arch) {
        const std::string summary = "pytorch/torch-" + version + "-cp312-x86_64.inspect-summary.json";
        const Code pypi = measured_code(summary, "torch/lib/libtorch_cuda.so");
        std::map<std::string, Code> variants;
        for (const auto& [cuda, ccs] :
             parse_releases_code_cc(fixture("pytorch/torch-" + version + "-cuda-init-PYTORCH_RELEASES_CODE_CC.py"),
                                    Machine::x86_64))
            variants[cuda] = Code{ccs, pypi.ptx};
        add(version, variants);
    }
    std::map<std::string, Code> v2_11;
    for (const auto& [cuda, ccs] :
         parse_releases_code_cc(fixture("pytorch/torch-2.11.0-cuda-init-PYTORCH_RELEASES_CODE_CC.py")))
        v2_11[cuda] = Code{ccs, {}};
    add("2.11.0", v2_11);
    add("2.8.0", evaluate_build_cuda(fixture("pytorch/build_cuda.sh.00c7a380.case.sh"), Machine::x86_64));
    // 2.6.0's PyPI wheel (CUDA 12.4), the only 2.6 variant whose files were read: its tag is
    // manylinux1, its libraries need GLIBC_2.17 at most (the summary's glibc_symbols_max).
    const std::string summary = "pytorch/torch-2.6.0-cp312-x86_64.inspect-summary.json";
    add("2.6.0", {{"12.4", measured_code(summary, "torch/lib/libtorch_cuda.so")}});
    releases.back().glibc =
        *MajorMinor::parse(nlohmann::json::parse(fixture(summary)).at("glibc_symbols_max").get<std::string>());
    return releases;
}

// The PyTorch build the rules choose for a scenario, from the published files alone: the newest
// release whose Pythons include the interpreter's and whose wheels' glibc floor this glibc meets,
// with a CUDA variant the driver runs (same major or newer) whose code serves the GPU (SASS by
// PyTorch's rule, or PTX at most the GPU's with a driver at least the build's CUDA); within a
// release one with SASS before one through PTX, then the variant of PyPI's wheel, else the highest
// such CUDA. A driver runs sm_120 only from CUDA 12.8 (CUDA 12.8 release notes:
// the first toolkit with compute capability 12.0). The releases between those modelled here (2.12,
// 2.10, 2.9, 2.7) publish no variant that the next newer one lacks for these scenarios. "" when
// nothing fits.
std::string expected_pytorch(const Scenario& s) {
    if (s.gpu == 120 && s.driver < CudaVersion{12, 8}) return "";
    for (const PublishedRelease& release : published_pytorch_releases()) {
        if (s.python < release.python_min || s.python > release.python_max || s.glibc < release.glibc) continue;
        std::vector<std::string> native, through_ptx;  // fitting variants, highest CUDA first
        for (const auto& [cuda_text, code] : release.variants) {
            const CudaVersion cuda = *CudaVersion::parse(cuda_text);
            if (s.driver.major < cuda.major) continue;
            if (torch_rule_covers(code.sass, s.gpu)) native.push_back(variant_of(cuda_text));
            else if (std::any_of(code.ptx.begin(), code.ptx.end(), [&](int cc) { return cc <= s.gpu; }) &&
                     s.driver >= cuda)
                through_ptx.push_back(variant_of(cuda_text));
        }
        for (const std::vector<std::string>* fitting : {&native, &through_ptx}) {
            if (fitting->empty()) continue;
            const bool pypi = std::find(fitting->begin(), fitting->end(), release.pypi_variant) != fitting->end();
            return release.version + "+" + (pypi ? release.pypi_variant : fitting->front());
        }
    }
    return "";
}

TEST(FrameworkAdvice, pytorch_for_sm_120_sm_61_and_sm_90_agrees_with_the_published_lists) {
    int fitted = 0;
    for (const int gpu : {120, 61, 90})
        for (const CudaVersion driver : {CudaVersion{12, 2}, CudaVersion{12, 8}, CudaVersion{13, 0}})
            for (const MajorMinor python : {MajorMinor{3, 9}, MajorMinor{3, 12}, MajorMinor{3, 14}})
                for (const MajorMinor glibc : {MajorMinor{2, 17}, MajorMinor{2, 28}, MajorMinor{2, 35}}) {
                    const Scenario s{gpu, driver, python, glibc};
                    MachineFacts machine;
                    machine.driver_cuda = driver;
                    machine.gpus = {GpuArch{gpu, ArchVariant::generic}};
                    machine.pythons = {python};
                    machine.glibc = glibc;
                    const BuildAdvice advice = advise_build(machine, Framework::pytorch, python);
                    const std::string expected = expected_pytorch(s);
                    const std::string label = fmt::format("sm_{} driver CUDA {} Python {} glibc {}", gpu,
                                                          driver.to_string(), python.to_string(), glibc.to_string());
                    if (expected.empty()) {
                        EXPECT_FALSE(advice.fits()) << label << ": chose " << advice.build->name();
                        EXPECT_FALSE(advice.problem.empty()) << label;
                        if (glibc < MajorMinor{2, 28}) {
                            EXPECT_NE(advice.problem.find("glibc"), std::string::npos)
                                << label << ": " << advice.problem;
                        }
                        continue;
                    }
                    ASSERT_TRUE(advice.fits()) << label << ": " << advice.problem;
                    ++fitted;
                    EXPECT_EQ(fmt::format("{}+{}", advice.build->version, advice.build->variant), expected) << label;
                    // PyPI's own build from PyPI, the others from their index (PyTorch's install page).
                    EXPECT_EQ(advice.command,
                              advice.build->pypi_default
                                  ? fmt::format("pip install torch=={}", advice.build->version)
                                  : fmt::format("pip install torch=={} --index-url https://download.pytorch.org/whl/{}",
                                                advice.build->version, advice.build->variant));
                    EXPECT_NE(advice.why.find(fmt::format("Python {} supported", python.to_string())),
                              std::string::npos)
                        << advice.why;
                }
    EXPECT_GT(fitted, 20);
}

MachineFacts machine_with(int gpu, CudaVersion driver, MajorMinor python = {3, 12}, MajorMinor glibc = {2, 35}) {
    MachineFacts machine;
    machine.driver_cuda = driver;
    machine.gpus = {GpuArch{gpu, ArchVariant::generic}};
    machine.pythons = {python};
    machine.glibc = glibc;
    return machine;
}

TEST(FrameworkAdvice, explains_a_choice_in_one_line) {
    const BuildAdvice sm120 = advise_build(machine_with(120, {12, 8}), Framework::pytorch, {3, 12});
    ASSERT_TRUE(sm120.fits());
    // 2.14 and 2.15 build sm_120 only with CUDA 13; 2.13's CUDA 12.9 variant is the newest a 12.8
    // driver runs (PYTORCH_RELEASES_CODE_CC of each wheel).
    EXPECT_EQ(sm120.command, "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu129");
    EXPECT_EQ(sm120.why,
              "driver CUDA 12.8 runs CUDA 12.9 builds (minor-version compatibility, driver >= 525.60.13); sm_120 in "
              "the build's list; Python 3.12 supported; glibc 2.35 >= 2.28");
    ASSERT_FALSE(sm120.passed_over.empty());
    EXPECT_NE(sm120.passed_over.front().find("2.15.0 (cu134): needs driver >= 580 (CUDA 13.0)"), std::string::npos)
        << sm120.passed_over.front();

    const BuildAdvice sm61 = advise_build(machine_with(61, {12, 2}), Framework::pytorch, {3, 12});
    ASSERT_TRUE(sm61.fits());
    EXPECT_EQ(sm61.build->variant, "cu126");
    EXPECT_NE(sm61.why.find("driver CUDA 12.2 runs CUDA 12.6 builds (minor-version compatibility"), std::string::npos);
    EXPECT_NE(sm61.why.find("sm_61 runs the build's sm_60"), std::string::npos) << sm61.why;
    EXPECT_NE(sm61.passed_over.front().find("has no code for sm_61"), std::string::npos) << sm61.passed_over.front();
}

TEST(FrameworkAdvice, names_the_driver_to_install_when_none_runs) {
    const BuildAdvice advice = advise_build(machine_with(120, {12, 2}), Framework::pytorch, {3, 12});
    EXPECT_FALSE(advice.fits());
    ASSERT_NE(advice.with_newer_driver, nullptr);
    EXPECT_EQ(advice.with_newer_driver->name(), "PyTorch 2.15.0+cu134");
    EXPECT_EQ(advice.driver_to_install, "580 (CUDA 13.0)");
    // For Python 3.9 the newest that would run is 2.8.0+cu129, and sm_120 itself needs CUDA 12.8.
    const BuildAdvice py39 = advise_build(machine_with(120, {12, 2}, {3, 9}), Framework::pytorch, {3, 9});
    ASSERT_NE(py39.with_newer_driver, nullptr);
    EXPECT_EQ(py39.with_newer_driver->name(), "PyTorch 2.8.0+cu129");
    EXPECT_EQ(py39.driver_to_install, "570.26 (CUDA 12.8)");
    EXPECT_NE(py39.problem.find("sm_120 is supported from CUDA 12.8"), std::string::npos) << py39.problem;

    MachineFacts no_driver = machine_with(90, {13, 0});
    no_driver.driver_cuda.reset();
    const BuildAdvice without = advise_build(no_driver, Framework::pytorch, {3, 12});
    EXPECT_FALSE(without.fits());
    EXPECT_EQ(without.driver_to_install, "580 (CUDA 13.0)");
}

TEST(FrameworkAdvice, names_the_last_build_for_a_gpu_too_old_for_every_current_one) {
    // sm_35 (Kepler): only the CUDA 11.8 builds of 2.6 and 2.7 carry sm_37, which does not serve 3.5.
    const BuildAdvice kepler = advise_build(machine_with(35, {11, 4}), Framework::pytorch, {3, 12});
    EXPECT_FALSE(kepler.fits());
    EXPECT_EQ(kepler.with_newer_driver, nullptr);
    EXPECT_NE(kepler.problem.find("no PyTorch build in the table has code for sm_35"), std::string::npos)
        << kepler.problem;
    // sm_37 (K80) on its last driver branch, 470 (CUDA 11.4): the newest build with its code is
    // 2.7.1+cu118, which that driver runs through minor-version compatibility.
    const BuildAdvice k80 = advise_build(machine_with(37, {11, 4}), Framework::pytorch, {3, 12});
    ASSERT_TRUE(k80.fits()) << k80.problem;
    EXPECT_EQ(k80.build->name(), "PyTorch 2.7.1+cu118");
    // A Python no build supports (2.15 is the first for 3.15).
    const BuildAdvice py316 = advise_build(machine_with(90, {13, 0}, {3, 16}), Framework::pytorch, {3, 16});
    EXPECT_FALSE(py316.fits());
    EXPECT_NE(py316.problem.find("does not support Python 3.16"), std::string::npos) << py316.problem;
    const BuildAdvice py315 = advise_build(machine_with(90, {13, 0}, {3, 15}), Framework::pytorch, {3, 15});
    ASSERT_TRUE(py315.fits()) << py315.problem;
    EXPECT_EQ(py315.build->version, "2.15.0");
}

TEST(FrameworkAdvice, the_gpu_machine_gets_the_newest_build_of_every_framework) {
    // Driver 580.159.04 (CUDA 13.0), one H200 (sm_90), Python 3.12.3, glibc 2.39. PyTorch: 2.15's
    // PyPI build (CUDA 13.2, which a 13.0 driver runs by minor-version compatibility; sm_90 SASS):
    // every variant of 2.15 carries sm_90, and PyPI's is the one whose publication its wheel confirms.
    MachineFacts h200 = machine_with(90, {13, 0}, {3, 12}, {2, 39});
    const std::vector<BuildAdvice> advice = advise_builds(h200);
    ASSERT_EQ(advice.size(), 4U);
    EXPECT_EQ(advice[0].command, "pip install torch==2.15.0");
    ASSERT_TRUE(advice[0].fits());
    EXPECT_EQ(advice[0].build->name(), "PyTorch 2.15.0+cu132");
    EXPECT_NE(advice[0].why.find("driver CUDA 13.0 runs CUDA 13.2 builds (minor-version compatibility"),
              std::string::npos)
        << advice[0].why;
    ASSERT_TRUE(advice[1].fits());
    EXPECT_EQ(advice[1].build->name(), "JAX 0.12.0.1 (cuda13)");
    EXPECT_EQ(advice[1].command, R"(pip install "jax[cuda13]")");
    EXPECT_EQ(advice[2].command, R"(pip install "cupy-cuda13x[ctk]")");
    EXPECT_EQ(advice[3].framework, Framework::tensorflow);
    ASSERT_TRUE(advice[3].fits());
    EXPECT_EQ(advice[3].build->version, "2.21.0");
    EXPECT_NE(advice[3].why.find("sm_90 in the build's list"), std::string::npos) << advice[3].why;
}

TEST(FrameworkAdvice, other_frameworks_follow_their_own_rules) {
    // JAX's CUDA 12 plugins carry sm_120 SASS (built with CUDA 12.9: a 12.8 driver runs it by
    // minor-version compatibility, though it could not JIT their PTX); the CUDA 13 ones need 580.
    const BuildAdvice jax = advise_build(machine_with(120, {12, 8}), Framework::jax, {3, 12});
    ASSERT_TRUE(jax.fits()) << jax.problem;
    EXPECT_EQ(jax.build->name(), "JAX 0.12.0.1 (cuda12)");
    EXPECT_EQ(jax.command, R"(pip install "jax[cuda12]")");
    EXPECT_NE(jax.why.find("sm_120 in the build's list"), std::string::npos) << jax.why;
    // Python 3.10: 0.6 is the last release for it.
    const BuildAdvice jax310 = advise_build(machine_with(90, {12, 8}, {3, 10}), Framework::jax, {3, 10});
    ASSERT_TRUE(jax310.fits()) << jax310.problem;
    EXPECT_EQ(jax310.command, R"(pip install "jax[cuda12]==0.6.*")");
    // glibc 2.17: of JAX only 0.6, whose wheels are manylinux2014 (0.10 on: manylinux_2_27); CuPy's
    // wheels are manylinux2014; TensorFlow 2.21 moved to manylinux_2_27, 2.20 is the newest for
    // 2.17; of PyTorch only 2.6.0's PyPI wheel (manylinux1, GLIBC_2.17 symbols).
    const MachineFacts old_glibc = machine_with(90, {12, 8}, {3, 12}, {2, 17});
    const BuildAdvice jax_old = advise_build(old_glibc, Framework::jax, {3, 12});
    ASSERT_TRUE(jax_old.fits()) << jax_old.problem;
    EXPECT_EQ(jax_old.build->name(), "JAX 0.6.0 (cuda12)");
    const BuildAdvice cupy = advise_build(old_glibc, Framework::cupy, {3, 12});
    ASSERT_TRUE(cupy.fits());
    EXPECT_EQ(cupy.build->name(), "CuPy 14.2.0 (cupy-cuda12x)");
    const BuildAdvice tf_old = advise_build(old_glibc, Framework::tensorflow, {3, 12});
    ASSERT_TRUE(tf_old.fits()) << tf_old.problem;
    EXPECT_EQ(tf_old.build->version, "2.20.0");
    const BuildAdvice torch_old = advise_build(old_glibc, Framework::pytorch, {3, 12});
    ASSERT_TRUE(torch_old.fits()) << torch_old.problem;
    EXPECT_EQ(torch_old.build->name(), "PyTorch 2.6.0+cu124");
    // CuPy compiles on the machine, but CUDA 13 builds nothing for sm_61.
    const BuildAdvice pascal = advise_build(machine_with(61, {13, 0}), Framework::cupy, {3, 12});
    ASSERT_TRUE(pascal.fits());
    EXPECT_EQ(pascal.build->variant, "cupy-cuda12x");
    // No TensorFlow CUDA build for aarch64 in the table.
    MachineFacts arm = machine_with(90, {13, 0});
    arm.machine = Machine::aarch64;
    const BuildAdvice tf = advise_build(arm, Framework::tensorflow, {3, 12});
    EXPECT_FALSE(tf.fits());
    EXPECT_NE(tf.problem.find("aarch64"), std::string::npos);
    EXPECT_TRUE(advise_build(arm, Framework::pytorch, {3, 12}).fits());
}

TEST(FrameworkAdvice, without_a_gpu_it_says_so_and_on_aarch64_it_takes_the_aarch64_builds) {
    MachineFacts no_gpu = machine_with(90, {13, 0});
    no_gpu.gpus.clear();
    const BuildAdvice advice = advise_build(no_gpu, Framework::pytorch, {3, 12});
    ASSERT_TRUE(advice.fits());
    EXPECT_EQ(advice.build->name(), "PyTorch 2.15.0+cu132");
    EXPECT_NE(advice.why.find("no GPU given (pass --arch)"), std::string::npos) << advice.why;
    // A GH200 (sm_90, aarch64): the aarch64 lists of PYTORCH_RELEASES_CODE_CC keep 9.0.
    MachineFacts gh200 = machine_with(90, {13, 0});
    gh200.machine = Machine::aarch64;
    const BuildAdvice arm = advise_build(gh200, Framework::pytorch, {3, 12});
    ASSERT_TRUE(arm.fits());
    EXPECT_EQ(arm.build->machine, Machine::aarch64);
    EXPECT_EQ(arm.build->name(), "PyTorch 2.15.0+cu132");
    EXPECT_TRUE(advise_builds(MachineFacts{}).empty());
}

TEST(FrameworkAdvice, every_gpu_must_be_served) {
    MachineFacts mixed = machine_with(90, {13, 0});
    mixed.gpus.push_back({61, ArchVariant::generic});
    const BuildAdvice advice = advise_build(mixed, Framework::pytorch, {3, 12});
    ASSERT_TRUE(advice.fits());
    EXPECT_EQ(advice.build->variant, "cu126");
    EXPECT_EQ(advice.runs.size(), 2U);
}

TEST(InstalledBuild, the_gpu_machines_torch_runs_and_the_newer_build_is_named) {
    // The installed version, as torch/version.py states it on the GPU machine.
    const std::string version_py = read_text(std::string(CUDACHECK_SOURCE_DIR) +
                                             "/tests/fixtures/frameworks/h200-venv/lib/python3.12/site-packages/"
                                             "torch/version.py");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(version_py, match, std::regex(R"(__version__ = '([^']+)')")));
    ASSERT_EQ(match[1].str(), "2.11.0+cu130");
    const MachineFacts h200 = machine_with(90, {13, 0}, {3, 12}, {2, 39});
    // It runs there; 2.15.0 (published 2026-10-28) is newer and runs too.
    const InstalledJudgement torch = judge_installed(h200, {Framework::pytorch, match[1].str(), "torch", {3, 12}});
    EXPECT_EQ(torch.verdict, InstalledVerdict::runs_older) << torch.message;
    EXPECT_EQ(torch.installed, row_of(Framework::pytorch, "2.11.0", "cu130"));
    EXPECT_EQ(torch.fix, "to upgrade: PyTorch 2.15.0+cu132: pip install torch==2.15.0");
    EXPECT_EQ(judge_installed(h200, {Framework::jax, "0.11.2", "jax-cuda13-plugin", {3, 12}}).verdict,
              InstalledVerdict::runs_older);
    EXPECT_EQ(judge_installed(h200, {Framework::pytorch, "2.15.0+cu134", "torch", {3, 12}}).verdict,
              InstalledVerdict::best_fit);
    // The PyPI wheel (no local version) is 2.15's cu132, the advised build.
    const InstalledJudgement pypi = judge_installed(h200, {Framework::pytorch, "2.15.0", "torch", {3, 12}});
    EXPECT_EQ(pypi.installed, row_of(Framework::pytorch, "2.15.0", "cu132"));
    EXPECT_EQ(pypi.verdict, InstalledVerdict::best_fit);
    // Another variant of 2.15 with sm_90 SASS (cu126: 5.0-9.0) runs as well: nothing to change.
    const InstalledJudgement cu126 = judge_installed(h200, {Framework::pytorch, "2.15.0+cu126", "torch", {3, 12}});
    EXPECT_EQ(cu126.verdict, InstalledVerdict::best_fit) << cu126.message;
    EXPECT_NE(cu126.message.find("runs here as well as PyTorch 2.15.0+cu132 would"), std::string::npos)
        << cu126.message;
    EXPECT_EQ(judge_installed(h200, {Framework::jax, "0.12.1", "jax-cuda13-plugin", {3, 12}}).verdict,
              InstalledVerdict::best_fit);
    EXPECT_EQ(judge_installed(h200, {Framework::cupy, "14.2.0", "cupy-cuda13x", {3, 12}}).verdict,
              InstalledVerdict::best_fit);
}

TEST(InstalledBuild, a_nightly_or_a_release_candidate_is_not_judged_by_the_releases_row) {
    // PyTorch's nightlies are "2.12.0.dev20260101+cu130" (download.pytorch.org/whl/nightly), release
    // candidates "2.12.0rc1": neither is 2.12.0, whose arch list the row states.
    const MachineFacts h200 = machine_with(90, {13, 0}, {3, 12}, {2, 39});
    for (const char* version : {"2.12.0.dev20260101+cu130", "2.12.0rc1", "2.12.0a0+git1234"}) {
        const InstalledJudgement judgement = judge_installed(h200, {Framework::pytorch, version, "torch", {3, 12}});
        EXPECT_EQ(judgement.verdict, InstalledVerdict::unknown) << version;
        EXPECT_EQ(judgement.installed, nullptr) << version;
        EXPECT_NE(judgement.message.find("pre-release or nightly"), std::string::npos) << judgement.message;
        EXPECT_EQ(judgement.fix, "the build that fits here is PyTorch 2.15.0+cu132: pip install torch==2.15.0");
    }
    // A post-release and a patch release are the series' rows.
    EXPECT_EQ(judge_installed(h200, {Framework::pytorch, "2.11.0.post1+cu130", "torch", {3, 12}}).installed,
              row_of(Framework::pytorch, "2.11.0", "cu130"));
    EXPECT_EQ(judge_installed(h200, {Framework::pytorch, "2.11.1+cu130", "torch", {3, 12}}).installed,
              row_of(Framework::pytorch, "2.11.0", "cu130"));
    // Not a version at all: not in the table, said as such.
    const InstalledJudgement garbage = judge_installed(h200, {Framework::pytorch, "banana", "torch", {3, 12}});
    EXPECT_EQ(garbage.verdict, InstalledVerdict::unknown);
    EXPECT_NE(garbage.message.find("is not a CUDA build in cudacheck's table"), std::string::npos) << garbage.message;
}

TEST(InstalledBuild, a_cuda_13_build_on_a_570_driver_is_too_new_and_the_fix_says_what_to_install) {
    const InstalledJudgement judgement =
        judge_installed(machine_with(90, {12, 8}), {Framework::pytorch, "2.11.0+cu130", "torch", {3, 12}});
    EXPECT_EQ(judgement.verdict, InstalledVerdict::does_not_run);
    EXPECT_NE(judgement.message.find("needs driver >= 580 (CUDA 13.0)"), std::string::npos) << judgement.message;
    EXPECT_NE(judgement.fix.find("pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cu126"),
              std::string::npos)
        << judgement.fix;
    EXPECT_NE(judgement.fix.find("or install driver >= 580"), std::string::npos) << judgement.fix;
}

TEST(InstalledBuild, judges_other_cases) {
    const MachineFacts pascal = machine_with(61, {13, 0});
    const InstalledJudgement cu128 = judge_installed(pascal, {Framework::pytorch, "2.11.0+cu128", "torch", {3, 12}});
    EXPECT_EQ(cu128.verdict, InstalledVerdict::does_not_run);
    EXPECT_NE(cu128.message.find("has no code for sm_61"), std::string::npos);
    EXPECT_NE(cu128.fix.find("whl/cu126"), std::string::npos) << cu128.fix;

    const MachineFacts h200 = machine_with(90, {13, 0});
    const InstalledJudgement older = judge_installed(h200, {Framework::pytorch, "2.10.0+cu128", "torch", {3, 12}});
    EXPECT_EQ(older.verdict, InstalledVerdict::runs_older);
    EXPECT_NE(older.fix.find("torch==2.15.0"), std::string::npos);
    // A PyPI wheel without a local version is that release's PyPI variant (2.10: cu128).
    EXPECT_EQ(judge_installed(h200, {Framework::pytorch, "2.10.0", "torch", {3, 12}}).installed,
              row_of(Framework::pytorch, "2.10.0", "cu128"));
    const InstalledJudgement cpu = judge_installed(h200, {Framework::pytorch, "2.11.0+cpu", "torch", {3, 12}});
    EXPECT_EQ(cpu.verdict, InstalledVerdict::unknown);
    EXPECT_NE(cpu.fix.find("pip install torch==2.15.0"), std::string::npos) << cpu.fix;
    EXPECT_EQ(judge_installed(h200, {Framework::pytorch, "garbage", "torch", {3, 12}}).verdict,
              InstalledVerdict::unknown);
}

TEST(FrameworkBuildTable, says_how_old_it_is) {
    using namespace std::chrono;
    const sys_days checked = year{2026} / December / day{5};
    EXPECT_EQ(framework_table_date(), "2026-12-05");
    const std::string twelve = describe_table_age(checked + days{12});
    EXPECT_TRUE(twelve.starts_with("table of framework builds as of 2026-12-05 (12 days old; newest known: PyTorch "))
        << twelve;
    // Every framework's newest row is named, so a newer release on PyPI shows the table is behind.
    for (const char* name : {"JAX ", "CuPy ", "TensorFlow "}) EXPECT_NE(twelve.find(name), std::string::npos) << twelve;
    EXPECT_NE(describe_table_age(checked + days{200}).find("update cudacheck"), std::string::npos);
    EXPECT_TRUE(
        describe_table_age(checked - days{1}).starts_with("table of framework builds as of 2026-12-05 (newest"));
}

TEST(MajorMinor, parses_python_and_glibc_versions) {
    EXPECT_EQ(MajorMinor::parse("3.12.3"), (MajorMinor{3, 12}));
    EXPECT_EQ(MajorMinor::parse("2.39"), (MajorMinor{2, 39}));
    EXPECT_EQ(MajorMinor::parse("2.11.0+cu130"), (MajorMinor{2, 11}));
    for (const char* bad : {"", "3", "3.", ".3", "x.1", "3.x", "-1.2"}) EXPECT_FALSE(MajorMinor::parse(bad)) << bad;
    EXPECT_EQ(parse_machine("amd64"), Machine::x86_64);
    EXPECT_EQ(parse_machine("arm64"), Machine::aarch64);
    EXPECT_FALSE(parse_machine("ppc64le"));
}

}  // namespace
}  // namespace cudacheck
