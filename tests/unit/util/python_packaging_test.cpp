// util/python_packaging: wheel names, interpreter tags, METADATA, requirements, markers, specifiers
// and CUDA pins, held to the real pip and packaging (tests/support/packaging_ground_truth.py): the
// tags of every interpreter found here against pip's own list, other interpreters' against
// packaging's functions called with explicit arguments, wheel verdicts against
// `pip install --dry-run --report` on wheels the test writes, and the rules against packaging on the
// requirements of real frameworks' METADATA (tests/fixtures/frameworks). Without Python or pip
// those comparisons are skipped; the hand-checked cases still run.
#include "util/python_packaging.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace cudacheck {
namespace {

namespace pk = packaging;
using nlohmann::json;

const std::string script = CUDACHECK_SOURCE_DIR "/tests/support/packaging_ground_truth.py";
const std::string frameworks = CUDACHECK_SOURCE_DIR "/tests/fixtures/frameworks";

struct Truth {
    std::optional<json> answer;
    std::string skip;  // why there is no answer (no Python, no pip)
};

// Runs the ground-truth script with `python`; a failure other than "pip missing" (77) fails the test.
Truth ground_truth(const std::string& python, const std::string& command, const json& request,
                   std::chrono::seconds limit = std::chrono::seconds(120)) {
    if (!std::filesystem::exists(python)) return {std::nullopt, python + " does not exist"};
    const test::TempDir dir;
    const std::string request_path = dir.write("request.json", request.dump());
    const std::string answer_path = dir.path() + "/answer.json";
    const sys::CommandResult result = sys::run_command({python, script, command, request_path, answer_path}, limit);
    if (result.exit_status == 77) return {std::nullopt, result.output};
    EXPECT_EQ(result.exit_status, 0) << python << " " << command << ": " << result.output << result.error;
    if (result.exit_status != 0) return {std::nullopt, "the script failed"};
    std::ifstream answer(answer_path);  // read whole: the rules' answer is over a megabyte
    return {json::parse(answer), {}};
}

std::vector<std::string> texts(const std::vector<pk::Tag>& tags) {
    std::vector<std::string> out;
    for (const pk::Tag& tag : tags) out.push_back(tag.text());
    return out;
}

pk::Interpreter interpreter(int major, int minor, std::optional<std::pair<int, int>> glibc,
                            std::string machine = "x86_64", std::string abiflags = "") {
    pk::Interpreter i;
    i.major = major;
    i.minor = minor;
    i.glibc = glibc;
    i.machine = std::move(machine);
    i.abiflags = std::move(abiflags);
    return i;
}

pk::WheelName wheel(std::string_view name) {
    Expected<pk::WheelName> parsed = pk::parse_wheel_filename(name);
    EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
    return parsed ? *parsed : pk::WheelName{};
}

std::tuple<int, int, int> packaging_version(const std::string& text) {
    int a = 0, b = 0, c = 0;
    std::sscanf(text.c_str(), "%d.%d.%d", &a, &b, &c);  // NOLINT(cert-err34-c): a test's own input
    return {a, b, c};
}

// ---- wheel names -------------------------------------------------------------------------------------

TEST(PythonPackaging, parses_wheel_file_names_with_compressed_tag_sets_and_build_tags) {
    const pk::WheelName torch = wheel("/tmp/x/torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(torch.distribution, "torch");
    EXPECT_EQ(torch.version, "2.11.0+cu130");
    EXPECT_FALSE(torch.build);
    EXPECT_EQ(torch.tags().size(), 1U);
    EXPECT_EQ(torch.tags()[0].text(), "cp312-cp312-manylinux_2_28_x86_64");

    const pk::WheelName tf = wheel("tensorflow-2.17.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
    EXPECT_EQ(tf.platform_tags, (std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"}));
    const pk::WheelName multi = wheel("demo-1.0-1b-cp312.cp313-abi3-any.whl");
    EXPECT_EQ(multi.build, "1b");
    EXPECT_EQ(multi.python_tags, (std::vector<std::string>{"cp312", "cp313"}));
    EXPECT_EQ(multi.tags().size(), 2U);

    for (const char* bad : {"torch-2.11.0-cp312-cp312-manylinux_2_28_x86_64.zip", "torch-2.11.0-cp312-any.whl",
                            "torch-2.11.0-x-y-cp312-none-any.whl", "torch-two-cp312-cp312-any.whl",
                            "to__rch-1.0-py3-none-any.whl", "demo-1.0-b1-py3-none-any.whl", "demo-1.0-py3--any.whl"}) {
        const Expected<pk::WheelName> parsed = pk::parse_wheel_filename(bad);
        EXPECT_FALSE(parsed) << bad;
        if (!parsed) {
            EXPECT_NE(parsed.error().message.find("invalid wheel file name"), std::string::npos);
        }
    }
}

// ---- tags ------------------------------------------------------------------------------------------------

TEST(PythonPackaging, cpython_abis_follow_the_interpreter_flags) {
    EXPECT_EQ(pk::cpython_abis(interpreter(3, 12, {{2, 28}})), (std::vector<std::string>{"cp312"}));
    EXPECT_EQ(pk::cpython_abis(interpreter(3, 13, {{2, 28}}, "x86_64", "t")), (std::vector<std::string>{"cp313t"}));
    EXPECT_EQ(pk::cpython_abis(interpreter(3, 11, {{2, 28}}, "x86_64", "d")),
              (std::vector<std::string>{"cp311d", "cp311"}));
    EXPECT_EQ(pk::cpython_abis(interpreter(3, 7, {{2, 28}}, "x86_64", "m")), (std::vector<std::string>{"cp37m"}));
    // PEP 600's floors: 2.5 on x86_64 (manylinux1), 2.17 elsewhere (manylinux2014).
    const std::vector<std::string> x86 = pk::manylinux_platforms("x86_64", {2, 17});
    EXPECT_EQ(x86.front(), "manylinux_2_17_x86_64");
    EXPECT_EQ(x86[1], "manylinux2014_x86_64");
    EXPECT_EQ(x86.back(), "manylinux1_x86_64");
    const std::vector<std::string> arm = pk::manylinux_platforms("aarch64", {2, 28});
    EXPECT_EQ(arm.back(), "manylinux2014_aarch64");
    EXPECT_TRUE(pk::manylinux_platforms("x86_64", {2, 4}).empty());
}

std::vector<std::string> extra_interpreters() {
    // Every interpreter CMake names, and pyenv's builds where there are any (3.8 to 3.13 on the
    // project's machine), so that several versions and pips are compared.
    std::vector<std::string> found{CUDACHECK_PYTHON, CUDACHECK_CLIENT_PYTHON, "/usr/bin/python3"};
    const char* home = std::getenv("HOME");
    const std::string pyenv = std::string(home ? home : "/root") + "/.pyenv/versions";
    std::error_code error;
    if (std::filesystem::is_directory(pyenv, error))
        for (const auto& entry : std::filesystem::directory_iterator(pyenv, error)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("3.", 0) == 0 && name.size() > 3 && !(name[2] < '8' && name[3] == '.'))
                found.push_back(entry.path().string() + "/bin/python3");
        }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
}

TEST(PythonPackaging, supported_tags_equal_pips_list_for_every_interpreter_found) {
    int compared = 0;
    std::string skips;
    for (const std::string& python : extra_interpreters()) {
        const Truth truth = ground_truth(python, "facts", json::object(), std::chrono::seconds(60));
        if (!truth.answer) {
            skips += python + ": " + truth.skip + "\n";
            continue;
        }
        const json& facts = *truth.answer;
        pk::Interpreter here;
        here.major = facts["major"];
        here.minor = facts["minor"];
        here.implementation = facts["implementation"];
        here.abiflags = facts["abiflags"];
        here.machine = facts["machine"];
        if (facts.contains("pypy_abi")) here.pypy_abi = facts["pypy_abi"];
        if (!facts["glibc"].is_null()) here.glibc = std::pair<int, int>{facts["glibc"][0], facts["glibc"][1]};
        const std::vector<std::string> ours = texts(pk::supported_tags(here));
        EXPECT_EQ(ours, facts["pip_supported"].get<std::vector<std::string>>())
            << python << ": pip's get_supported() differs";
        // pip's vendored packaging: the same list, but 21.x's sys_tags has no cpXY-none-any.
        if (std::get<0>(packaging_version(facts["pip_packaging"])) >= 22) {
            EXPECT_EQ(ours, facts["sys_tags"].get<std::vector<std::string>>()) << python;
        }
        // A stand-alone packaging 26.3 or newer: linux_<arch> first.
        if (facts["packaging_sys_tags"].is_array() && packaging_version(facts["packaging"]) >= std::tuple{26, 3, 0}) {
            EXPECT_EQ(texts(pk::supported_tags(here, pk::TagRules::packaging_26_3())),
                      facts["packaging_sys_tags"].get<std::vector<std::string>>())
                << python << ": packaging " << facts["packaging"].get<std::string>();
        }
        ++compared;
    }
    if (compared == 0) GTEST_SKIP() << "no interpreter with pip: " << skips;
    std::cout << "compared the tags of " << compared << " interpreters\n";
}

TEST(PythonPackaging, tags_of_other_interpreters_equal_packagings_functions) {
    struct Case {
        pk::Interpreter interpreter;
        bool linux_first = false;
    };
    std::vector<Case> cases{
        {interpreter(3, 12, {{2, 17}})},
        {interpreter(3, 13, {{2, 28}}, "x86_64", "t")},
        {interpreter(3, 11, {{2, 31}}, "aarch64", "d")},
        {interpreter(3, 7, {{2, 5}}, "x86_64", "m")},
        {interpreter(3, 10, {{2, 17}}, "ppc64le")},
        {interpreter(3, 14, {{3, 1}})},  // a glibc 3: every 2.x up to 2.50 below it
        {interpreter(3, 12, std::nullopt)},
        {interpreter(3, 12, {{2, 39}}, "x86_64"), true},
    };
    pk::Interpreter pypy = interpreter(3, 10, {{2, 28}});
    pypy.implementation = "pp";
    pypy.pypy_abi = "pypy310_pp73";
    cases.push_back({pypy});
    json request{{"cases", json::array()}};
    for (const Case& c : cases) {
        const pk::Interpreter& i = c.interpreter;
        json item{{"major", i.major},
                  {"minor", i.minor},
                  {"arch", i.machine},
                  {"linux_first", c.linux_first},
                  {"implementation", i.implementation}};
        item["abis"] = i.implementation == "cp" ? pk::cpython_abis(i) : std::vector<std::string>{i.pypy_abi};
        item["glibc"] = i.glibc ? json::array({i.glibc->first, i.glibc->second}) : json();
        request["cases"].push_back(item);
    }
    const Truth truth = ground_truth(CUDACHECK_PYTHON, "explicit", request);
    if (!truth.answer) GTEST_SKIP() << truth.skip;
    const auto version = packaging_version((*truth.answer)["packaging"]);
    for (std::size_t n = 0; n < cases.size(); ++n) {
        pk::TagRules rules;
        rules.linux_first = cases[n].linux_first;
        rules.abi3t = version >= std::tuple{26, 1, 0};
        const json& expected = (*truth.answer)["results"][n];
        const pk::Interpreter& i = cases[n].interpreter;
        const std::string label = request["cases"][n].dump();
        EXPECT_EQ(pk::linux_platforms(i, rules), expected["platforms"].get<std::vector<std::string>>()) << label;
        EXPECT_EQ(texts(pk::supported_tags(i, rules)), expected["tags"].get<std::vector<std::string>>()) << label;
    }
}

// ---- wheel verdicts against pip install --dry-run -----------------------------------------------------------

TEST(PythonPackaging, wheel_verdicts_match_pip_install_dry_run) {
    const std::map<std::string, std::vector<std::string>> groups{
        {"right", {"demo_right-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"}},
        {"wrong", {"demo_wrong-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"}},
        {"abi3", {"demo_abi3-1.0-cp38-abi3-manylinux_2_17_x86_64.whl"}},
        {"glibc", {"demo_glibc-1.0-cp312-cp312-manylinux_2_35_x86_64.whl"}},
        {"arm", {"demo_arm-1.0-cp312-cp312-manylinux_2_17_aarch64.manylinux2014_aarch64.whl"}},
        {"pure", {"demo_pure-1.0-py3-none-any.whl"}},
        {"multi", {"demo_multi-1.0-cp312.cp313-cp312.cp313-manylinux_2_17_x86_64.whl"}},
        {"newpy", {"demo_newpy-1.0-py313-none-any.whl"}},
        {"choice",
         {"demo_choice-1.0-py3-none-any.whl", "demo_choice-1.0-cp38-abi3-manylinux_2_5_x86_64.manylinux1_x86_64.whl",
          "demo_choice-1.0-cp312-abi3-manylinux_2_17_x86_64.whl",
          "demo_choice-1.0-cp312-cp312-manylinux_2_17_x86_64.whl",
          "demo_choice-1.0-cp312-cp312-manylinux_2_28_x86_64.whl",
          "demo_choice-1.0-cp312-none-manylinux_2_28_x86_64.whl",
          "demo_choice-1.0-cp312-cp312-manylinux_2_28_aarch64.whl",
          "demo_choice-1.0-cp313-cp313-manylinux_2_17_x86_64.whl"}},
    };
    struct Target {
        std::string id;
        pk::Interpreter interpreter;
    };
    const std::vector<Target> targets{{"cp312-glibc2.28", interpreter(3, 12, {{2, 28}})},
                                      {"cp311-glibc2.17", interpreter(3, 11, {{2, 17}})},
                                      {"cp312-aarch64", interpreter(3, 12, {{2, 28}}, "aarch64")}};
    json request{{"groups", json::array()}, {"interpreters", json::array()}};
    for (const auto& [name, wheels] : groups) request["groups"].push_back({{"name", name}, {"wheels", wheels}});
    for (const Target& t : targets)
        request["interpreters"].push_back({{"id", t.id},
                                           {"python_version", t.interpreter.version_text()},
                                           {"implementation", "cp"},
                                           {"abi", pk::cpython_abis(t.interpreter).front()},
                                           {"platforms", pk::linux_platforms(t.interpreter)}});
    const Truth truth = ground_truth(CUDACHECK_PYTHON, "pip", request, std::chrono::seconds(300));
    if (!truth.answer) GTEST_SKIP() << truth.skip;
    std::map<std::pair<std::string, std::string>, std::string> reasons;
    int agreed = 0;
    for (const json& result : (*truth.answer)["results"]) {
        const std::string group = result["group"], id = result["interpreter"];
        const pk::Interpreter& target =
            std::find_if(targets.begin(), targets.end(), [&](const Target& t) { return t.id == id; })->interpreter;
        // Ours: the fitting wheel with the best tag, as pip's candidate sort orders them.
        std::optional<std::string> chosen;
        std::size_t best = 0;
        std::string why_not;
        for (const std::string& file : groups.at(group)) {
            const pk::WheelFit fit = pk::wheel_fits(wheel(file), target);
            if (fit.fits && (!chosen || fit.priority < best)) {
                chosen = file;
                best = fit.priority;
            }
            if (!fit.fits) why_not = fit.why_not;
        }
        const std::optional<std::string> pip_chose =
            result["chosen"].is_null() ? std::nullopt : std::optional<std::string>(result["chosen"]);
        EXPECT_EQ(chosen, pip_chose) << group << " on " << id << " (ours would not: " << why_not << ")";
        if (!chosen) reasons[{group, id}] = why_not;
        agreed += chosen == pip_chose;
    }
    EXPECT_EQ(agreed, static_cast<int>(groups.size() * targets.size()));
    // Why not, in one line, for the cases pip refuses.
    auto reason = [&](const std::string& group, const std::string& id) { return reasons[{group, id}]; };
    EXPECT_EQ(reason("wrong", "cp312-glibc2.28"), "built for Python 3.11 (cp311), this interpreter is 3.12");
    EXPECT_EQ(reason("glibc", "cp312-glibc2.28"), "needs glibc 2.35 (manylinux_2_35), this machine has 2.28");
    EXPECT_EQ(reason("arm", "cp312-glibc2.28"), "built for aarch64, this machine is x86_64");
    EXPECT_EQ(reason("right", "cp312-aarch64"), "built for x86_64, this machine is aarch64");
    EXPECT_EQ(reason("newpy", "cp312-glibc2.28"), "built for Python 3.13 (py313), this interpreter is 3.12");
    EXPECT_EQ(reason("multi", "cp311-glibc2.17"),
              "built for Python 3.12, 3.13 (cp312.cp313), this interpreter is 3.11");
    EXPECT_EQ(reason("wrong", "cp312-aarch64"),
              "built for Python 3.11 (cp311), this interpreter is 3.12; built for x86_64, this machine is aarch64");
    std::cout << "pip " << (*truth.answer)["pip"].get<std::string>() << " agreed on " << agreed << " verdicts\n";
}

TEST(PythonPackaging, wheel_fit_reasons_name_the_abi_and_the_implementation) {
    pk::Interpreter threaded = interpreter(3, 13, {{2, 28}}, "x86_64", "t");
    EXPECT_EQ(pk::wheel_fits(wheel("d-1.0-cp313-cp313-manylinux_2_17_x86_64.whl"), threaded).why_not,
              "built for Python 3.13 with the GIL (cp313), this interpreter is free-threaded (3.13t)");
    EXPECT_EQ(pk::wheel_fits(wheel("d-1.0-cp38-abi3-manylinux_2_17_x86_64.whl"), threaded).why_not,
              "a stable-ABI wheel (cp38-abi3) does not load on free-threaded Python (3.13t)");
    EXPECT_TRUE(pk::wheel_fits(wheel("d-1.0-cp313-cp313t-manylinux_2_17_x86_64.whl"), threaded).fits);
    EXPECT_EQ(
        pk::wheel_fits(wheel("d-1.0-cp313-cp313t-manylinux_2_17_x86_64.whl"), interpreter(3, 13, {{2, 28}})).why_not,
        "built for free-threaded Python (cp313t), this interpreter is 3.13 with the GIL");
    pk::Interpreter pypy = interpreter(3, 10, {{2, 28}});
    pypy.implementation = "pp";
    pypy.pypy_abi = "pypy310_pp73";
    EXPECT_EQ(pk::wheel_fits(wheel("d-1.0-cp312-cp312-manylinux_2_17_x86_64.whl"), pypy).why_not,
              "a CPython ABI tag cp312 on another implementation (PyPy)");
    EXPECT_TRUE(pk::wheel_fits(wheel("d-1.0-pp310-pypy310_pp73-manylinux_2_17_x86_64.whl"), pypy).fits);
    EXPECT_TRUE(pk::wheel_fits(wheel("d-1.0-py3-none-any.whl"), pypy).fits);
    EXPECT_EQ(
        pk::wheel_fits(wheel("d-1.0-cp312-cp312-manylinux_2_17_x86_64.whl"), interpreter(3, 12, std::nullopt)).why_not,
        "needs glibc 2.17 (manylinux_2_17), this machine's C library is not glibc");
    EXPECT_EQ(pk::wheel_fits(wheel("d-1.0-cp312-cp312-win_amd64.whl"), interpreter(3, 12, {{2, 28}})).why_not,
              "built for Windows (win_amd64)");
    EXPECT_EQ(
        pk::wheel_fits(wheel("d-1.0-cp312-cp312-musllinux_1_2_x86_64.whl"), interpreter(3, 12, {{2, 28}})).why_not,
        "built for musl libc (musllinux_1_2), this machine's is glibc");
    // A real wheel from the fixtures: torch 2.0.1 for CPython 3.11, manylinux1.
    const pk::WheelFit torch =
        pk::wheel_fits(wheel("torch-2.0.1-cp311-cp311-manylinux1_x86_64.whl"), interpreter(3, 11, {{2, 17}}));
    EXPECT_TRUE(torch.fits);
    EXPECT_EQ(torch.tag.text(), "cp311-cp311-manylinux1_x86_64");
    const pk::WheelFit abi3 = pk::wheel_fits(wheel("vllm-0.9.1-cp38-abi3-manylinux1_x86_64.whl"),
                                             interpreter(3, 7, {{2, 17}}, "x86_64", "m"));
    EXPECT_EQ(abi3.why_not, "built for Python 3.8 or newer (cp38-abi3), this interpreter is 3.7");
}

// ---- METADATA, requirements, markers, specifiers ------------------------------------------------------------

TEST(PythonPackaging, metadata_headers_fold_and_stop_at_the_body) {
    const std::string text =
        "Metadata-Version: 2.4\r\nName: demo\r\nVersion: 1.0\r\nLicense: MIT\r\n        second line\r\n"
        "Requires-Python: >=3.10\r\nRequires-Dist: numpy>=2; python_version >= \"3.11\"\r\nRequires-Dist: ??bad\r\n"
        "Provides-Extra: cuda\r\n\r\nRequires-Dist: body-is-not-headers\r\n";
    const Expected<pk::Metadata> metadata = pk::parse_metadata(text);
    ASSERT_TRUE(metadata) << metadata.error().message;
    EXPECT_EQ(metadata->name, "demo");
    EXPECT_EQ(metadata->requires_python, ">=3.10");
    ASSERT_EQ(metadata->requires_dist.size(), 1U);
    EXPECT_EQ(metadata->requires_dist[0].name, "numpy");
    EXPECT_EQ(metadata->unreadable_requirements.size(), 1U);
    EXPECT_EQ(metadata->provides_extra, (std::vector<std::string>{"cuda"}));
    const auto license = std::find_if(metadata->headers.begin(), metadata->headers.end(),
                                      [](const auto& h) { return h.first == "License"; });
    ASSERT_NE(license, metadata->headers.end());
    EXPECT_EQ(license->second, "MIT\n        second line");
    EXPECT_FALSE(pk::parse_metadata("Name: x\n\nVersion: 1\n"));
    EXPECT_FALSE(pk::parse_metadata("Version: 1\n"));
}

// Every METADATA of the framework fixtures (real files from PyPI and the GPU machine's venv).
std::vector<pk::Metadata> fixture_metadata() {
    std::vector<pk::Metadata> all;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(frameworks))
        if (entry.path().filename() == "METADATA") {
            Expected<pk::Metadata> metadata = pk::parse_metadata(test::read_text(entry.path().string()));
            EXPECT_TRUE(metadata) << entry.path();
            if (!metadata) continue;
            EXPECT_TRUE(metadata->unreadable_requirements.empty()) << entry.path();
            all.push_back(std::move(*metadata));
        }
    return all;
}

TEST(PythonPackaging, requirements_markers_specifiers_and_versions_match_packaging_on_real_metadata) {
    std::vector<std::string> lines;
    std::vector<std::string> specifier_texts;
    for (const pk::Metadata& metadata : fixture_metadata()) {
        for (const auto& [key, value] : metadata.headers)
            if (key == "Requires-Dist") lines.push_back(value);
        if (!metadata.requires_python.empty()) specifier_texts.push_back(metadata.requires_python);
    }
    ASSERT_GT(lines.size(), 200U);
    // Versions: a fixed set for every specifier, and for each specifier the versions its clauses name
    // and their neighbours (pre, post, local, one more number).
    std::set<std::string> version_set{"3.12.3",    "3.13.0rc1",        "3.9",       "2.11.0+cu130", "13.0.2",
                                      "13.0.96",   "12.6.77",          "1!1.0",     "1.0.post1",    "1.0a1",
                                      "1.0.dev0",  "1.0b2.post3.dev4", "v1.0",      "1.0-1",        "1.0_RC_2",
                                      "1.0.0.0",   "5.0.0dev",         "2.7.1+cpu", "0.0.48.1",     "not a version",
                                      "1.0+abc.7", "1.0+abc.g1"};
    std::vector<Expected<pk::Requirement>> ours;
    for (const std::string& line : lines) {
        ours.push_back(pk::parse_requirement(line));
        ASSERT_TRUE(ours.back()) << ours.back().error().message;
        if (!ours.back()->specifier.clauses.empty()) specifier_texts.push_back(ours.back()->specifier.text());
    }
    auto neighbours = [](const std::string& specifier) {
        std::set<std::string> near;
        const Expected<pk::SpecifierSet> set = pk::parse_specifier_set(specifier);
        if (!set) return near;
        for (const pk::Specifier& clause : set->clauses) {
            std::string v = clause.version;
            if (v.size() > 2 && v.substr(v.size() - 2) == ".*") v.resize(v.size() - 2);
            for (const char* suffix : {"", "rc1", ".post1", "+cu130", ".1", ".dev0"}) near.insert(v + suffix);
        }
        return near;
    };
    std::set<std::string> all_versions = version_set;
    for (const std::string& specifier : specifier_texts)
        for (const std::string& v : neighbours(specifier)) all_versions.insert(v);
    const std::vector<std::string> versions(all_versions.begin(), all_versions.end());
    pk::MarkerEnvironment linux312 = pk::marker_environment(interpreter(3, 12, {{2, 28}}), "3.12.3");
    pk::MarkerEnvironment arm39 = pk::marker_environment(interpreter(3, 9, {{2, 17}}, "aarch64"), "3.9.18");
    pk::MarkerEnvironment windows313 = pk::marker_environment(interpreter(3, 13, std::nullopt, "AMD64"), "3.13.1");
    windows313.sys_platform = "win32";
    windows313.platform_system = "Windows";
    windows313.os_name = "nt";
    const std::vector<pk::MarkerEnvironment> environments{linux312, arm39, windows313};
    const std::vector<std::string> extras{"", "cuda13", "cuda12", "with-cuda", "with_cuda", "and-cuda", "test", "cu12"};
    auto environment_json = [](const pk::MarkerEnvironment& e) {
        return json{{"python_version", e.python_version},
                    {"python_full_version", e.python_full_version},
                    {"implementation_name", e.implementation_name},
                    {"implementation_version", e.implementation_version},
                    {"platform_python_implementation", e.platform_python_implementation},
                    {"sys_platform", e.sys_platform},
                    {"platform_system", e.platform_system},
                    {"platform_machine", e.platform_machine},
                    {"os_name", e.os_name},
                    {"platform_release", "6.1.0"},
                    {"platform_version", "#1 SMP"}};
    };
    json request{{"requirements", lines},
                 {"markers", json::array()},
                 {"specifiers", json::array()},
                 {"versions", versions}};
    struct MarkerCase {
        std::string marker;
        const pk::MarkerEnvironment* environment;
        std::string extra;
    };
    std::vector<MarkerCase> marker_cases;
    std::set<std::string> markers;
    for (const auto& requirement : ours)
        if (!requirement->marker.empty()) markers.insert(requirement->marker);
    markers.insert("(python_version < \"3.10\" or extra == 'cuda12') and os_name == \"posix\"");
    markers.insert("platform_machine in 'x86_64 aarch64' and 'linux' == sys_platform");
    markers.insert("python_full_version >= '3.12.3' and implementation_name != \"pypy\"");
    for (const std::string& marker : markers)
        for (const pk::MarkerEnvironment& environment : environments)
            for (const std::string& extra : extras) {
                marker_cases.push_back({marker, &environment, extra});
                request["markers"].push_back(
                    {{"marker", marker}, {"environment", environment_json(environment)}, {"extra", extra}});
            }
    struct SpecifierCase {
        std::string specifier, version;
        bool prereleases;
    };
    std::vector<SpecifierCase> specifier_cases;
    std::set<std::string> distinct(specifier_texts.begin(), specifier_texts.end());
    for (const std::string& spec : distinct) {
        std::set<std::string> candidates = version_set;
        for (const std::string& v : neighbours(spec)) candidates.insert(v);
        for (const std::string& version : candidates) {
            if (!pk::parse_version(version)) continue;
            for (const bool pre : {true, false}) {
                specifier_cases.push_back({spec, version, pre});
                request["specifiers"].push_back({{"specifier", spec}, {"version", version}, {"prereleases", pre}});
            }
        }
    }
    const Truth truth = ground_truth(CUDACHECK_PYTHON, "rules", request, std::chrono::seconds(300));
    if (!truth.answer) GTEST_SKIP() << truth.skip;
    const json& answer = *truth.answer;

    for (std::size_t n = 0; n < lines.size(); ++n) {
        const json& theirs = answer["requirements"][n];
        ASSERT_FALSE(theirs.contains("error")) << lines[n];
        const pk::Requirement& r = *ours[n];
        EXPECT_EQ(r.name, theirs["name"].get<std::string>()) << lines[n];
        std::vector<std::string> extras_sorted = r.extras;
        std::sort(extras_sorted.begin(), extras_sorted.end());
        EXPECT_EQ(extras_sorted, theirs["extras"].get<std::vector<std::string>>()) << lines[n];
        std::vector<std::string> clauses;
        for (const pk::Specifier& c : r.specifier.clauses) clauses.push_back(c.op + c.version);
        std::sort(clauses.begin(), clauses.end());
        EXPECT_EQ(clauses, theirs["specifier"].get<std::vector<std::string>>()) << lines[n];
        EXPECT_EQ(!r.marker.empty(), theirs["marker"].get<bool>()) << lines[n];
    }
    int marker_disagreements = 0;
    for (std::size_t n = 0; n < marker_cases.size(); ++n) {
        const MarkerCase& c = marker_cases[n];
        const Expected<pk::MarkerVerdict> verdict = pk::evaluate_marker(c.marker, *c.environment, c.extra);
        ASSERT_TRUE(verdict) << c.marker;
        const json& theirs = answer["markers"][n];
        ASSERT_TRUE(theirs.is_boolean()) << c.marker << ": " << theirs.dump();
        if (verdict->holds != theirs.get<bool>()) ++marker_disagreements;
        EXPECT_EQ(verdict->holds, theirs.get<bool>())
            << c.marker << " with extra '" << c.extra << "' on " << c.environment->platform_machine << " "
            << c.environment->python_full_version;
    }
    int specifier_disagreements = 0;
    for (std::size_t n = 0; n < specifier_cases.size(); ++n) {
        const SpecifierCase& c = specifier_cases[n];
        const pk::SpecifierSet set = *pk::parse_specifier_set(c.specifier);
        const bool allows = pk::specifier_allows(set, *pk::parse_version(c.version), c.prereleases);
        const json& theirs = answer["specifiers"][n];
        ASSERT_TRUE(theirs.is_boolean()) << c.specifier << " " << c.version << ": " << theirs.dump();
        if (allows != theirs.get<bool>()) ++specifier_disagreements;
        EXPECT_EQ(allows, theirs.get<bool>())
            << c.specifier << " contains " << c.version << " (prereleases " << c.prereleases << ")";
    }
    std::vector<pk::Version> parsed;
    for (std::size_t n = 0; n < versions.size(); ++n) {
        const Expected<pk::Version> v = pk::parse_version(versions[n]);
        const json& theirs = answer["versions"][n];
        EXPECT_EQ(v.has_value(), !theirs.is_null()) << versions[n];
        if (v && !theirs.is_null()) {
            EXPECT_EQ(v->text(), theirs.get<std::string>()) << versions[n];
            parsed.push_back(*v);
        }
    }
    std::stable_sort(parsed.begin(), parsed.end());
    std::vector<std::string> sorted;
    for (const pk::Version& v : parsed) sorted.push_back(v.text());
    // Equal versions (1.0 and 1.0.0.0) may come in either order: compare the sorted texts' ranks.
    const std::vector<std::string> their_sorted = answer["sorted"];
    ASSERT_EQ(sorted.size(), their_sorted.size());
    for (std::size_t n = 0; n < sorted.size(); ++n)
        EXPECT_EQ(*pk::parse_version(sorted[n]), *pk::parse_version(their_sorted[n])) << n;
    std::cout << "packaging " << answer["packaging"].get<std::string>() << ": " << lines.size() << " requirements, "
              << marker_cases.size() << " marker cases (" << marker_disagreements << " differ), "
              << specifier_cases.size() << " specifier cases (" << specifier_disagreements << " differ), "
              << versions.size() << " versions\n";
}

TEST(PythonPackaging, markers_not_known_here_do_not_hold_and_say_why) {
    pk::MarkerEnvironment environment = pk::marker_environment(interpreter(3, 12, {{2, 28}}), "3.12.3");
    const Expected<pk::MarkerVerdict> release = pk::evaluate_marker("platform_release >= '5.0'", environment);
    ASSERT_TRUE(release);
    EXPECT_FALSE(release->holds);
    EXPECT_EQ(release->reason, "the marker needs platform_release, which is not known here");
    // Unknown or true is true; unknown and false is false, with no reason to give.
    EXPECT_TRUE(pk::evaluate_marker("platform_release >= '5.0' or sys_platform == 'linux'", environment)->holds);
    const Expected<pk::MarkerVerdict> both =
        pk::evaluate_marker("platform_release >= '5.0' and os_name == 'nt'", environment);
    EXPECT_FALSE(both->holds);
    for (const char* bad : {"python_version >", "pyton_version == '3'", "(os_name == 'posix'", "os_name = 'posix'",
                            "os_name == 'posix' xor"})
        EXPECT_FALSE(pk::evaluate_marker(bad, environment)) << bad;
}

// ---- CUDA majors -----------------------------------------------------------------------------------------

pk::Metadata fixture(const std::string& relative) {
    Expected<pk::Metadata> metadata = pk::parse_metadata(test::read_text(frameworks + "/" + relative));
    EXPECT_TRUE(metadata) << relative;
    return metadata ? *metadata : pk::Metadata{};
}

TEST(PythonPackaging, cuda_major_of_the_frameworks_requirements) {
    const std::string venv = "h200-venv/lib/python3.12/site-packages/";
    const pk::MarkerEnvironment x86 = pk::marker_environment(interpreter(3, 12, {{2, 28}}), "3.12.3");
    const pk::MarkerEnvironment arm = pk::marker_environment(interpreter(3, 12, {{2, 28}}, "aarch64"), "3.12.3");
    auto major = [&](const std::string& path, const pk::MarkerEnvironment& environment,
                     std::vector<std::string> extras = {}) {
        return pk::cuda_major_of_requirements(fixture(path).requires_dist, environment, extras);
    };
    // torch 2.11: cuda-toolkit[...]==13.0.2, cuda-bindings<14,>=13.0.3 and the -cu13 wheels.
    const pk::CudaRequirements torch211 = major(venv + "torch-2.11.0.dist-info/METADATA", x86);
    EXPECT_EQ(torch211.cuda_major, 13);
    EXPECT_TRUE(torch211.ambiguous.empty());
    EXPECT_TRUE(std::any_of(torch211.pins.begin(), torch211.pins.end(), [](const pk::CudaPin& pin) {
        return pin.requirement.rfind("cuda-toolkit[", 0) == 0 && pin.cuda_major == 13;
    }));
    EXPECT_EQ(major("wheels/torch-2.7.1/torch-2.7.1.dist-info/METADATA", x86).cuda_major, 12);
    EXPECT_EQ(major("wheels/torch-2.0.1/torch-2.0.1.dist-info/METADATA", x86).cuda_major, 11);
    // torch 2.5.1's NVIDIA pins hold only on x86_64: none on aarch64.
    const pk::CudaRequirements aarch64 = major("wheels/torch-2.5.1-aarch64/torch-2.5.1.dist-info/METADATA", arm);
    EXPECT_FALSE(aarch64.cuda_major);
    EXPECT_TRUE(aarch64.pins.empty());
    // JAX: the plugin comes with the extra; jax[cuda13] -> 13, jax[cuda12] -> 12, plain jax -> none.
    EXPECT_EQ(major(venv + "jax-0.11.2.dist-info/METADATA", x86, {"cuda13"}).cuda_major, 13);
    EXPECT_EQ(major(venv + "jax-0.11.2.dist-info/METADATA", x86, {"cuda12"}).cuda_major, 12);
    EXPECT_FALSE(major(venv + "jax-0.11.2.dist-info/METADATA", x86).cuda_major);
    // The CUDA 13 plugin's un-suffixed NVIDIA wheels (nvidia-cublas>=13.0.0.19) and -cu13 ones;
    // nvidia-cufft>=12.0.0.15 carries cuFFT's own version and is not taken for CUDA 12.
    const pk::CudaRequirements plugin = major(venv + "jax_cuda13_plugin-0.11.2.dist-info/METADATA", x86, {"with-cuda"});
    EXPECT_EQ(plugin.cuda_major, 13);
    EXPECT_TRUE(plugin.ambiguous.empty());
    // jax 0.4.30's extra is spelt with_cuda; PEP 685 compares extras normalised.
    EXPECT_EQ(major("wheels/jax-cuda12-plugin-0.4.30/jax_cuda12_plugin-0.4.30.dist-info/METADATA", x86, {"with-cuda"})
                  .cuda_major,
              12);
    EXPECT_EQ(major("wheels/tensorflow-2.17.0/tensorflow-2.17.0.dist-info/METADATA", x86, {"and-cuda"}).cuda_major, 12);
    EXPECT_FALSE(major("wheels/tensorflow-2.17.0/tensorflow-2.17.0.dist-info/METADATA", x86).cuda_major);
    EXPECT_EQ(major(venv + "cupy_cuda13x-14.2.0.dist-info/METADATA", x86, {"ctk"}).cuda_major, 13);
    // numba-cuda's base cuda-bindings<14.0.0,>=12.9.1 spans two majors; its cu12 extra decides.
    const pk::CudaRequirements numba = major(venv + "numba_cuda-0.30.4.dist-info/METADATA", x86, {"cu12"});
    EXPECT_EQ(numba.cuda_major, 12);
    ASSERT_EQ(numba.ambiguous.size(), 1U);
    EXPECT_EQ(numba.ambiguous[0], "cuda-bindings<14.0.0,>=12.9.1 allows CUDA 12 to 13");
    // Names alone.
    EXPECT_EQ(pk::cuda_major_of_name("cupy-cuda12x"), 12);
    EXPECT_EQ(pk::cuda_major_of_name("cupy_cuda102"), 10);
    EXPECT_EQ(pk::cuda_major_of_name("jax_cuda13_pjrt"), 13);
    EXPECT_EQ(pk::cuda_major_of_name("nvidia_nccl_cu13"), 13);
    EXPECT_FALSE(pk::cuda_major_of_name("nvidia-cublas"));
    EXPECT_FALSE(pk::cuda_major_of_name("nvidia-ml-py"));
    // Pins that disagree are reported, not resolved.
    std::vector<pk::Requirement> mixed{*pk::parse_requirement("nvidia-cublas-cu12==12.6.4.1"),
                                       *pk::parse_requirement("nvidia-cuda-runtime==13.0.96")};
    const pk::CudaRequirements disagree = pk::cuda_major_of_requirements(mixed, x86);
    EXPECT_FALSE(disagree.cuda_major);
    ASSERT_EQ(disagree.ambiguous.size(), 1U);
    EXPECT_NE(disagree.ambiguous[0].find("the pins disagree"), std::string::npos);
}

TEST(PythonPackaging, requires_python_is_checked_with_prereleases_allowed) {
    EXPECT_TRUE(*pk::python_allows(">=3.10,!=3.14.1", "3.12.3"));
    EXPECT_FALSE(*pk::python_allows(">=3.10,!=3.14.1", "3.14.1"));
    EXPECT_FALSE(*pk::python_allows("<3.13,>=3.9", "3.13.0"));
    EXPECT_FALSE(*pk::python_allows(">=3.13", "3.13.0rc1"));
    EXPECT_TRUE(*pk::python_allows(">=3.12", "3.13.0rc1"));
    EXPECT_FALSE(pk::python_allows(">=3.x", "3.12.3"));
}

}  // namespace
}  // namespace cudacheck
