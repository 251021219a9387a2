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
#include <regex>
#include <set>
#include <sstream>
#include <string>
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

// Bazel's HERMETIC_CUDA_COMPUTE_CAPABILITIES: "sm_75,sm_80,compute_120" (compute_XY: PTX only).
Code parse_bazel_capabilities(const std::string& list) {
    Code code;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (item.starts_with("sm_")) code.sass.insert(std::stoi(item.substr(3)));
        if (item.starts_with("compute_")) code.ptx.insert(std::stoi(item.substr(8)));
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
    EXPECT_EQ(row_of(Framework::jax, "0.11.0", "cuda13")->glibc, (MajorMinor{2, 27}));
}

TEST(FrameworkBuildTable, cupy_and_tensorflow_rows_match_their_published_files) {
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
    EXPECT_NE(fixture("cupy/v14.2.0.build-wheel.yml-manylinux-lines.txt").find("manylinux_2_28"), std::string::npos);
    EXPECT_EQ(row_of(Framework::cupy, "14.2.0", "cupy-cuda13x")->glibc, (MajorMinor{2, 28}));

    const auto configs = parse_bazelrc(fixture("tensorflow/bazelrc.0071ad1d.cuda-lines.txt"));
    for (const std::string version : {"2.20.0", "2.19.0"}) {
        const FrameworkBuildRow* row = row_of(Framework::tensorflow, version, "and-cuda");
        ASSERT_NE(row, nullptr) << version;
        EXPECT_EQ(row->cuda, (CudaVersion{12, 5}));
        EXPECT_EQ(configs.at("cuda").first, "12.5.1");
        EXPECT_EQ(code_of(*row), configs.at("cuda_clang").second);
    }
}

TEST(FrameworkBuildTable, every_row_is_sourced_ordered_and_consistent) {
    std::map<std::pair<Framework, Machine>, std::string> previous;
    for (const FrameworkBuildRow& row : framework_build_table()) {
        EXPECT_TRUE(row.source.starts_with("https://github.com/")) << row.name();
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

// The PyTorch build the rules choose for a scenario, from the published files alone: the newest
// release whose Pythons include the interpreter's (2.11 takes the Pythons of the 2.10-period matrix,
// 2.8 is the one for 3.9), then its highest CUDA variant that the driver runs (same major or newer)
// and whose code serves the GPU (SASS by PyTorch's rule, or PTX at most the GPU's with a driver at
// least the build's CUDA). A driver runs sm_120 only from CUDA 12.8 (CUDA 12.8 release notes: first
// toolkit with compute capability 12.0). "" when nothing fits.
std::string expected_pytorch(const Scenario& s) {
    const std::string matrix = fixture("pytorch/generate_binary_build_matrix.py.2.10-period.excerpt.py");
    if (s.glibc < matrix_manylinux(matrix)) return "";
    if (s.gpu == 120 && s.driver < CudaVersion{12, 8}) return "";
    std::vector<std::pair<std::string, Code>> variants;  // CUDA "13.0" -> code, newest first
    std::string release;
    const std::vector<MajorMinor> pythons = matrix_pythons(matrix);
    if (std::find(pythons.begin(), pythons.end(), s.python) != pythons.end()) {
        release = "2.11.0";
        const auto releases =
            parse_releases_code_cc(fixture("pytorch/torch-2.11.0-cuda-init-PYTORCH_RELEASES_CODE_CC.py"));
        for (const auto& [cuda, ccs] : releases) variants.insert(variants.begin(), {cuda, Code{ccs, {}}});
    } else if (s.python == MajorMinor{3, 9}) {
        release = "2.8.0";
        for (const auto& [cuda, code] :
             evaluate_build_cuda(fixture("pytorch/build_cuda.sh.00c7a380.case.sh"), Machine::x86_64))
            variants.insert(variants.begin(), {cuda, code});
    } else {
        return "";
    }
    for (const auto& [cuda_text, code] : variants) {
        const CudaVersion cuda = *CudaVersion::parse(cuda_text);
        if (s.driver.major < cuda.major) continue;
        const bool native = torch_rule_covers(code.sass, s.gpu);
        const bool ptx =
            std::any_of(code.ptx.begin(), code.ptx.end(), [&](int cc) { return cc <= s.gpu; }) && s.driver >= cuda;
        if (native || ptx) return release + "+" + variant_of(cuda_text);
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
                    EXPECT_EQ(advice.command,
                              fmt::format("pip install torch=={} --index-url https://download.pytorch.org/whl/{}",
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
    EXPECT_EQ(sm120.command, "pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128");
    EXPECT_EQ(sm120.why,
              "driver CUDA 12.8 >= 12.8; sm_120 in the build's list; Python 3.12 supported; glibc 2.35 >= 2.28");
    ASSERT_FALSE(sm120.passed_over.empty());
    EXPECT_NE(sm120.passed_over.front().find("2.11.0 (cu130): needs driver >= 580 (CUDA 13.0)"), std::string::npos)
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
    EXPECT_EQ(advice.with_newer_driver->name(), "PyTorch 2.11.0+cu130");
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
    // A Python no build supports.
    const BuildAdvice py315 = advise_build(machine_with(90, {13, 0}, {3, 15}), Framework::pytorch, {3, 15});
    EXPECT_FALSE(py315.fits());
    EXPECT_NE(py315.problem.find("does not support Python 3.15"), std::string::npos) << py315.problem;
}

TEST(FrameworkAdvice, the_gpu_machine_gets_what_it_has_installed_for_every_framework) {
    // Driver 580.159.04 (CUDA 13.0), one H200 (sm_90), Python 3.12.3, glibc 2.39.
    MachineFacts h200 = machine_with(90, {13, 0}, {3, 12}, {2, 39});
    const std::vector<BuildAdvice> advice = advise_builds(h200);
    ASSERT_EQ(advice.size(), 4U);
    EXPECT_EQ(advice[0].command, "pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu130");
    EXPECT_EQ(advice[1].command, R"(pip install "jax[cuda13]")");
    EXPECT_EQ(advice[2].command, R"(pip install "cupy-cuda13x[ctk]")");
    EXPECT_EQ(advice[3].framework, Framework::tensorflow);
    ASSERT_TRUE(advice[3].fits());
    EXPECT_EQ(advice[3].build->version, "2.20.0");
    EXPECT_NE(advice[3].why.find("sm_90 through the build's compute_90 PTX (JIT)"), std::string::npos) << advice[3].why;
}

TEST(FrameworkAdvice, other_frameworks_follow_their_own_rules) {
    // JAX's CUDA 12 plugins carry sm_120 only as PTX from CUDA 12.9; a 12.8 driver cannot JIT it,
    // so 0.6 (built with 12.8) is the newest that runs there.
    const BuildAdvice jax = advise_build(machine_with(120, {12, 8}), Framework::jax, {3, 12});
    ASSERT_TRUE(jax.fits()) << jax.problem;
    EXPECT_EQ(jax.build->name(), "JAX 0.6.0 (cuda12)");
    EXPECT_EQ(jax.command, R"(pip install "jax[cuda12]==0.6.*")");
    // glibc 2.17: no JAX or PyTorch wheel installs; CuPy 13 and TensorFlow do.
    const MachineFacts old_glibc = machine_with(90, {12, 8}, {3, 12}, {2, 17});
    EXPECT_FALSE(advise_build(old_glibc, Framework::jax, {3, 12}).fits());
    const BuildAdvice cupy = advise_build(old_glibc, Framework::cupy, {3, 12});
    ASSERT_TRUE(cupy.fits());
    EXPECT_EQ(cupy.build->name(), "CuPy 13.6.0 (cupy-cuda12x)");
    EXPECT_TRUE(advise_build(old_glibc, Framework::tensorflow, {3, 12}).fits());
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
    EXPECT_EQ(advice.build->name(), "PyTorch 2.11.0+cu130");
    EXPECT_NE(advice.why.find("no GPU given (pass --arch)"), std::string::npos) << advice.why;
    // A GH200 (sm_90, aarch64): the aarch64 lists of build_cuda.sh drop 7.5 and 8.6, keep 9.0.
    MachineFacts gh200 = machine_with(90, {13, 0});
    gh200.machine = Machine::aarch64;
    const BuildAdvice arm = advise_build(gh200, Framework::pytorch, {3, 12});
    ASSERT_TRUE(arm.fits());
    EXPECT_EQ(arm.build->machine, Machine::aarch64);
    EXPECT_EQ(arm.build->name(), "PyTorch 2.10.0+cu130");
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

TEST(InstalledBuild, the_gpu_machines_torch_is_the_best_fit) {
    // The installed version, as torch/version.py states it on the GPU machine.
    const std::string version_py = read_text(std::string(CUDACHECK_SOURCE_DIR) +
                                             "/tests/fixtures/frameworks/h200-venv/lib/python3.12/site-packages/"
                                             "torch/version.py");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(version_py, match, std::regex(R"(__version__ = '([^']+)')")));
    ASSERT_EQ(match[1].str(), "2.11.0+cu130");
    const MachineFacts h200 = machine_with(90, {13, 0}, {3, 12}, {2, 39});
    const InstalledJudgement torch = judge_installed(h200, {Framework::pytorch, match[1].str(), "torch", {3, 12}});
    EXPECT_EQ(torch.verdict, InstalledVerdict::best_fit) << torch.message;
    EXPECT_TRUE(torch.fix.empty());
    EXPECT_EQ(judge_installed(h200, {Framework::jax, "0.11.2", "jax-cuda13-plugin", {3, 12}}).verdict,
              InstalledVerdict::best_fit);
    EXPECT_EQ(judge_installed(h200, {Framework::cupy, "14.2.0", "cupy-cuda13x", {3, 12}}).verdict,
              InstalledVerdict::best_fit);
}

TEST(InstalledBuild, a_cuda_13_build_on_a_570_driver_is_too_new_and_the_fix_says_what_to_install) {
    const InstalledJudgement judgement =
        judge_installed(machine_with(90, {12, 8}), {Framework::pytorch, "2.11.0+cu130", "torch", {3, 12}});
    EXPECT_EQ(judgement.verdict, InstalledVerdict::does_not_run);
    EXPECT_NE(judgement.message.find("needs driver >= 580 (CUDA 13.0)"), std::string::npos) << judgement.message;
    EXPECT_NE(judgement.fix.find("pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128"),
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
    EXPECT_NE(older.fix.find("torch==2.11.0"), std::string::npos);
    // A PyPI wheel without a local version is that release's PyPI variant (2.10: cu128).
    EXPECT_EQ(judge_installed(h200, {Framework::pytorch, "2.10.0", "torch", {3, 12}}).installed,
              row_of(Framework::pytorch, "2.10.0", "cu128"));
    const InstalledJudgement cpu = judge_installed(h200, {Framework::pytorch, "2.11.0+cpu", "torch", {3, 12}});
    EXPECT_EQ(cpu.verdict, InstalledVerdict::unknown);
    EXPECT_NE(cpu.fix.find("whl/cu130"), std::string::npos);
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
