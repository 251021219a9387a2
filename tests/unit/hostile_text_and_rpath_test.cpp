// Long text and long search paths: std::regex matched by recursion, one level per
// character, so a 50 KB metric name (`render --format prometheus`), a 35 KB CUBLAS_WORKSPACE_CONFIG
// (env.variables) or a toolkit's long version.txt or `nvcc --version` ended the process with
// SIGSEGV; `$ORIGIN` was expanded in place, token after token, so a 10 MB DT_RPATH took minutes and
// GiBs. Each case here runs in a process of its own (the binary, or a fork of this one for the
// readers), which must exit normally, within a bound in time, and within a bound in memory read
// from wait4's rusage.
#include "probes/developer_tools.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/load_closure.hpp"
#include "probes/toolkit_probe.hpp"
#include "support/test_support.hpp"
#include "util/elf_dynamic.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;

struct Measured {
    int status = -1;  // as wait4 gives it
    double wall_ms = 0.0;
    long max_rss_kb = 0;  // the child's own peak (ru_maxrss)
    std::string output;   // stdout and stderr, for runs of the binary
    [[nodiscard]] bool exited() const { return WIFEXITED(status); }
    [[nodiscard]] int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
    [[nodiscard]] std::string how() const {
        return WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                   : fmt::format("exit {}", exit_code());
    }
};

// Waits for `pid`, which SIGALRM ends after `limit_s` (set before its exec or its work).
Measured wait_for(pid_t pid, std::chrono::steady_clock::time_point start) {
    Measured measured;
    rusage usage{};
    while (::wait4(pid, &measured.status, 0, &usage) < 0 && errno == EINTR) {}
    measured.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    measured.max_rss_kb = usage.ru_maxrss;
    return measured;
}

// The built cudacheck with `arguments` and the environment plus `overrides`, its output in a file
// of `dir`.
Measured run_binary(const test::TempDir& dir, const std::vector<std::string>& arguments,
                    const std::vector<std::pair<std::string, std::string>>& overrides = {}, unsigned limit_s = 60) {
    const std::string output = dir.path() + "/output.txt";
    std::vector<std::string> argv{CUDACHECK_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const std::vector<std::string> environment = test::environment_with(overrides);
    std::vector<char*> argv_pointers, environment_pointers;
    for (const std::string& argument : argv) argv_pointers.push_back(const_cast<char*>(argument.c_str()));
    argv_pointers.push_back(nullptr);
    for (const std::string& entry : environment) environment_pointers.push_back(const_cast<char*>(entry.c_str()));
    environment_pointers.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int null = ::open("/dev/null", O_RDONLY);
        if (fd < 0 || null < 0 || ::dup2(null, 0) < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(126);
        ::alarm(limit_s);  // an exec keeps the alarm: a hang ends as SIGALRM
        ::execve(argv_pointers[0], argv_pointers.data(), environment_pointers.data());
        ::_exit(127);
    }
    Measured measured = wait_for(pid, start);
    std::ifstream file(output, std::ios::binary);  // whole: the reports here run to megabytes
    measured.output.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    return measured;
}

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
long status_kb(const char* field) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(field, 0) == 0 && line.size() > std::strlen(field) && line[std::strlen(field)] == ':')
            return std::stol(line.substr(std::strlen(field) + 1));
    return -1;
}

// `body` in a fork of this process, which exits 0 when it returns true. The child starts with this
// process's pages, so `max_rss_kb` is what the child added to them: its peak resident size
// (VmHWM, which a new process starts at its size, proc(5)) less its size when it started.
Measured run_forked(const std::function<bool()>& body, unsigned limit_s = 60) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return {};
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipe_fds[0]);
        ::alarm(limit_s);
        const long before = status_kb("VmRSS");
        const bool ok = body();
        const long grown = status_kb("VmHWM") - before;
        [[maybe_unused]] const ssize_t written = ::write(pipe_fds[1], &grown, sizeof grown);
        ::_exit(ok ? 0 : 1);
    }
    ::close(pipe_fds[1]);
    long grown = -1;
    [[maybe_unused]] const ssize_t got = ::read(pipe_fds[0], &grown, sizeof grown);
    ::close(pipe_fds[0]);
    Measured measured = wait_for(pid, start);
    measured.max_rss_kb = grown;
    return measured;
}

constexpr double generous_ms = 10'000;  // the bug took minutes or crashed; these take well under a second
constexpr long mib = 1024;              // in rusage's KiB

// A run_forked body that returned true (else `wrong` says what it got otherwise), in bounded time
// and memory; `what` names the work in the line printed with the figures.
void expect_bounded(const Measured& run, const char* wrong, const std::string& what) {
    ASSERT_TRUE(run.exited()) << run.how();
    EXPECT_EQ(run.exit_code(), 0) << wrong;
    EXPECT_LT(run.wall_ms, generous_ms);
    EXPECT_GE(run.max_rss_kb, 0) << "the child said nothing of its memory";
    EXPECT_LT(run.max_rss_kb, 256 * mib);
    std::printf("%s: %.0f ms, %ld MiB\n", what.c_str(), run.wall_ms, run.max_rss_kb / mib);
}

nlohmann::json example_report() {
    return nlohmann::json::parse(
        test::read_text(std::string(CUDACHECK_SOURCE_DIR) + "/docs/examples/h200/cudacheck.json"));
}

nlohmann::json* check_named(nlohmann::json& report, std::string_view id) {
    for (nlohmann::json& check : report["checks"])
        if (check["id"] == id) return &check;
    return nullptr;
}

// --- std::regex on long text -----------------------------------------------------------------

TEST(HostileText, prometheus_renders_50_kb_metric_names) {
    test::TempDir dir;
    nlohmann::json report = example_report();
    const std::string precision(50'000, 'b'), tail(50'000, 'a');
    nlohmann::json* gemm = check_named(report, "cublas.gemm");
    nlohmann::json* devices = check_named(report, "cuda.devices");
    ASSERT_NE(gemm, nullptr);
    ASSERT_NE(devices, nullptr);
    // One the table knows (gemm_<precision>_<size>), one with a device in its name, one neither.
    (*gemm)["metrics"].push_back({{"name", "gemm_" + precision + "_8192"}, {"value", 700.0}, {"unit", "TFLOP/s"}});
    (*devices)["metrics"].push_back({{"name", "device0." + tail}, {"value", 4.8}, {"unit", "GB/s"}});
    (*devices)["metrics"].push_back({{"name", std::string(50'000, '7')}, {"value", 1.0}, {"unit", "ms"}});
    const std::string path = dir.write("long-names.json", report.dump());

    const Measured run = run_binary(dir, {"render", "--format", "prometheus", path});
    ASSERT_TRUE(run.exited()) << run.how();  // SIGSEGV with a recursive matcher
    EXPECT_EQ(run.exit_code(), 0) << run.output.substr(0, 2000);
    EXPECT_LT(run.wall_ms, generous_ms);
    EXPECT_LT(run.max_rss_kb, 512 * mib);
    EXPECT_TRUE(contains(run.output, "precision=\"" + precision + "\",size=\"8192\""))
        << "the long precision is a label, as a short one is";
    // A name no family is known for is read as nothing but a name: its family is the whole of it.
    EXPECT_TRUE(contains(run.output, "cudacheck_cuda_devices_device0_" + tail +
                                         "_bytes_per_second{check=\"cuda.devices\",hostname="))
        << "a name no family is known for keeps its device0 in the family";
    EXPECT_TRUE(contains(run.output, "cudacheck_cuda_devices_" + std::string(50'000, '7') + "_seconds{"));
    // The metrics of the report itself come out as before.
    EXPECT_TRUE(contains(run.output, "cudacheck_gemm_tflops{check=\"cublas.gemm\""));
    std::printf("render --format prometheus, three 50 KB metric names: %.0f ms, %ld MiB\n", run.wall_ms,
                run.max_rss_kb / mib);
}

TEST(HostileText, env_variables_judges_a_35_kb_cublas_workspace_config) {
    test::TempDir dir;
    std::string valid;
    while (valid.size() < 35'000) valid += ":4096:8";
    for (const auto& [value, well_formed] :
         {std::pair{valid, true}, std::pair{valid + ":4096", false}, std::pair{valid + ":4096:x", false}}) {
        const Measured run =
            run_binary(dir, {"--only", "env.variables", "--format", "json"}, {{"CUBLAS_WORKSPACE_CONFIG", value}});
        ASSERT_TRUE(run.exited()) << run.how();  // SIGSEGV with a recursive matcher
        EXPECT_LT(run.wall_ms, generous_ms);
        EXPECT_LT(run.max_rss_kb, 512 * mib);
        const nlohmann::json report = nlohmann::json::parse(run.output, nullptr, false);
        ASSERT_TRUE(report.is_object()) << run.output.substr(0, 2000);
        const nlohmann::json* check = test::find_check(report, "env.variables");
        ASSERT_NE(check, nullptr);
        // With a recursive matcher the check's process died (CC902, SIGSEGV) and the run went on without it.
        EXPECT_NE((*check)["status"], "error") << (*check)["message"];
        bool invalid = false;
        for (const nlohmann::json& finding : (*check)["findings"])
            if (finding["code"] == "CC116") {
                invalid = true;
                EXPECT_TRUE(contains(finding["message"].get<std::string>(), "is not of the form :SIZE:COUNT"));
            }
        EXPECT_EQ(invalid, !well_formed) << value.substr(value.size() - 20);
        std::printf("env.variables, CUBLAS_WORKSPACE_CONFIG of %zu bytes: %.0f ms, %ld MiB\n", value.size(),
                    run.wall_ms, run.max_rss_kb / mib);
    }
}

// The hand-written scanners against the patterns they replace, on many short texts made of the
// pieces those patterns look for (short: there std::regex is safe): the same answer each time.
TEST(HostileText, the_scanners_read_short_texts_as_the_patterns_did) {
    std::mt19937 random(35);
    const auto text_of = [&](const std::vector<std::string>& pieces) {
        std::string text;
        const std::size_t count = 1 + random() % 9;
        for (std::size_t i = 0; i < count; ++i) text += pieces[random() % pieces.size()];
        return text;
    };
    const std::regex nvcc(R"(release (\d+\.\d+), V(\d+\.\d+\.\d+))"), legacy(R"(CUDA Version (\d+(?:\.\d+)*))");
    const std::regex compiler_tools(R"(Cuda compilation tools, release [0-9.]+, V([0-9][0-9.]*))"),
        cuda_gdb(R"(NVIDIA \(R\) cuda-gdb ([0-9][0-9.]*))"), nsight(R"([Vv]ersion ([0-9][0-9A-Za-z.\-]*))");
    const std::regex module(R"(NVRM version:.*?Kernel Module(?: for (\S+))?\s+(\d+(?:\.\d+)+))"),
        proprietary(R"(NVIDIA UNIX (\S+) Kernel Module)");
    // Pieces of matches and of near misses, so that texts match often enough and differ at the edges.
    const std::vector<std::string> version_pieces = {
        "release ",      "release 13.0",    ", V", ", V13.0.88", "1", "13", ".", "0", ".0", "x", " ", "V", ",",
        "CUDA Version ", "CUDA Version 10", "\n"};
    const std::vector<std::string> tool_pieces = {"Cuda compilation tools, release ",
                                                  "Cuda compilation tools, release 13.0",
                                                  ", V",
                                                  ", V13",
                                                  "NVIDIA (R) cuda-gdb ",
                                                  "NVIDIA (R) cuda-gdb 1",
                                                  "Version ",
                                                  "version ",
                                                  "version 2",
                                                  "V",
                                                  "1",
                                                  "2.",
                                                  ".",
                                                  "-",
                                                  "a",
                                                  "Z",
                                                  " ",
                                                  "_"};
    const std::vector<std::string> module_pieces = {"NVRM version:",
                                                    "NVRM version: NVIDIA UNIX ",
                                                    "NVIDIA UNIX ",
                                                    " ",
                                                    "  ",
                                                    "\t",
                                                    "\r",
                                                    "Kernel Module",
                                                    "Kernel Module  580.1",
                                                    " for ",
                                                    " for x86_64 ",
                                                    "Open ",
                                                    "x86_64",
                                                    "580",
                                                    ".",
                                                    "1",
                                                    "a"};
    std::size_t nvcc_found = 0, legacy_found = 0, tool_found = 0, module_found = 0;
    for (int trial = 0; trial < 20'000; ++trial) {
        const std::string text = text_of(version_pieces);
        std::smatch match;
        const std::optional<NvccVersion> version = parse_nvcc_version(text);
        if (std::regex_search(text, match, nvcc)) {
            ++nvcc_found;
            ASSERT_TRUE(version) << text;
            EXPECT_EQ(version->release, match[1].str()) << text;
            EXPECT_EQ(version->full, match[2].str()) << text;
        } else {
            EXPECT_FALSE(version) << text;
        }
        const bool legacy_matched = std::regex_search(text, match, legacy);
        legacy_found += legacy_matched ? 1 : 0;
        EXPECT_EQ(parse_toolkit_version_file(text), legacy_matched ? match[1].str() : "") << text;

        const std::string tool = text_of(tool_pieces);
        std::string expected;
        for (const std::regex* pattern : {&compiler_tools, &cuda_gdb, &nsight})
            if (std::regex_search(tool, match, *pattern)) {
                expected = match[1];
                ++tool_found;
                break;
            }
        EXPECT_EQ(parse_tool_version(tool), expected) << tool;

        const std::string line = text_of(module_pieces);
        const std::optional<ModuleVersion> driver = parse_proc_driver_version(line);
        if (std::regex_search(line, match, module)) {
            ++module_found;
            ASSERT_TRUE(driver) << line;
            EXPECT_EQ(driver->version, match[2].str()) << line;
            std::smatch arch;
            const std::string architecture = match[1].matched                             ? match[1].str()
                                             : std::regex_search(line, arch, proprietary) ? arch[1].str()
                                                                                          : "";
            EXPECT_EQ(driver->architecture, architecture) << line;
        } else {
            EXPECT_FALSE(driver) << line;
        }
        if (HasFailure()) break;
    }
    // Enough matches of each to compare something (and enough misses: the texts are random).
    for (const std::size_t found : {nvcc_found, legacy_found, tool_found, module_found}) EXPECT_GT(found, 200u);
    std::printf("matched: nvcc %zu, version.txt %zu, tools %zu, driver %zu of 20,000 texts each\n", nvcc_found,
                legacy_found, tool_found, module_found);
}

// What the toolkit probe reads, a megabyte long: version.txt, and what `nvcc --version` prints.
TEST(HostileText, toolkit_version_readers_take_a_megabyte) {
    std::string dotted = "1";
    while (dotted.size() < (1u << 20)) dotted += ".1";
    const std::string digits(1u << 20, '8');
    const Measured run = run_forked([&] {
        bool ok = parse_toolkit_version_file("CUDA Version " + dotted + "\n") == dotted;
        ok = parse_toolkit_version_file("CUDA Version " + digits) == digits && ok;
        const std::optional<NvccVersion> nvcc =
            parse_nvcc_version("Cuda compilation tools, release 13.0, V13.0." + digits + "\n");
        ok = nvcc && nvcc->release == "13.0" && nvcc->full == "13.0." + digits && ok;
        // The V number is the first three numbers after ", V", as the pattern's V(\d+\.\d+\.\d+) took them.
        const std::optional<NvccVersion> long_release =
            parse_nvcc_version("release " + digits + "." + digits + ", V1." + dotted);
        ok = long_release && long_release->release == digits + "." + digits && long_release->full == "1.1.1" && ok;
        ok = parse_tool_version("Cuda compilation tools, release " + dotted + ", V" + dotted) == dotted && ok;
        ok = parse_tool_version("NVIDIA Nsight Compute version " + digits + "-x") == digits + "-x" && ok;
        const std::optional<ModuleVersion> module = parse_proc_driver_version(
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + dotted + "  Release Build\n");
        ok = module && module->version == dotted && module->architecture == "x86_64" && ok;
        ok = !parse_proc_driver_version("NVRM version: " + std::string(1u << 20, ' ') + "Kernel Module " + digits) &&
             ok;  // one number only
        return ok;
    });
    expect_bounded(run, "a reader gave another answer", "toolkit, tool and driver version readers on 1 MiB texts");
}

// The same through the binary: a toolkit on PATH whose nvcc prints a 1 MB version, and a
// CUDA_HOME whose version.txt is 1 MB.
TEST(HostileText, toolkit_nvcc_runs_with_a_megabyte_long_version) {
    test::TempDir dir;
    std::string dotted = "13";
    while (dotted.size() < 1'000'000) dotted += ".0";
    const std::string banner =
        dir.write("banner.txt", "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, V13.0." +
                                    std::string(1'000'000, '8') + "\n");
    dir.write("cuda/bin/nvcc", "#!/bin/sh\nexec cat '" + banner + "'\n", 0755);
    dir.write("cuda/bin/nvcc.profile", "");  // its root is the directory above bin: no --dryrun
    dir.write("cuda/version.txt", "CUDA Version " + dotted + "\n");
    dir.write("home/version.txt", "CUDA Version " + dotted + "\n");
    const Measured run =
        run_binary(dir, {"--only", "toolkit.nvcc", "--format", "json"},
                   {{"PATH", dir.path() + "/cuda/bin:/usr/bin:/bin"}, {"CUDA_HOME", dir.path() + "/home"}});
    ASSERT_TRUE(run.exited()) << run.how();  // SIGSEGV with a recursive matcher
    EXPECT_LT(run.wall_ms, generous_ms);
    EXPECT_LT(run.max_rss_kb, 512 * mib);
    const nlohmann::json report = nlohmann::json::parse(run.output, nullptr, false);
    ASSERT_TRUE(report.is_object()) << run.output.substr(0, 2000);
    const nlohmann::json* check = test::find_check(report, "toolkit.nvcc");
    ASSERT_NE(check, nullptr);
    EXPECT_NE((*check)["status"], "error") << (*check)["message"];  // CC902, SIGSEGV, with a recursive matcher
    std::string nvcc_version;
    for (const nlohmann::json& evidence : (*check)["evidence"])
        if (evidence["key"] == "nvcc_version") nvcc_version = evidence["value"];
    EXPECT_EQ(nvcc_version, "13.0." + std::string(1'000'000, '8')) << "the whole V number, as the pattern read it";
    std::printf("toolkit.nvcc with a 1 MB nvcc --version and version.txt: %.0f ms, %ld MiB\n", run.wall_ms,
                run.max_rss_kb / mib);
}

// --- $ORIGIN in a long DT_RPATH ---------------------------------------------------------------

void put(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i)
        bytes[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
}

// A 64-bit shared library of headers only: one PT_LOAD of the whole file and a PT_DYNAMIC with
// DT_NEEDED `needed`, DT_SONAME and DT_RPATH `rpath` (System V gABI), what the loader and
// read_elf_dynamic read. Nothing else: it is never loaded.
std::vector<std::uint8_t> library_with_rpath(const std::string& soname, const std::vector<std::string>& needed,
                                             const std::string& rpath) {
    std::string strings(1, '\0');
    std::vector<std::pair<std::uint64_t, std::uint64_t>> entries;
    const auto add_string = [&](std::uint64_t tag, const std::string& text) {
        entries.emplace_back(tag, strings.size());
        strings += text;
        strings += '\0';
    };
    for (const std::string& name : needed) add_string(1, name);  // DT_NEEDED
    add_string(14, soname);                                       // DT_SONAME
    add_string(15, rpath);                                        // DT_RPATH
    constexpr std::size_t header = 64, program_header = 56, dynamic_at = header + 2 * program_header;
    const std::size_t dynamic_size = (entries.size() + 3) * 16;
    const std::size_t strings_at = dynamic_at + dynamic_size;
    entries.emplace_back(5, strings_at);      // DT_STRTAB (an address: the PT_LOAD maps the file at 0)
    entries.emplace_back(10, strings.size());  // DT_STRSZ
    entries.emplace_back(0, 0);                // DT_NULL
    std::vector<std::uint8_t> bytes(strings_at + strings.size());
    const std::uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    std::copy(std::begin(ident), std::end(ident), bytes.begin());
    put(bytes, 0x10, 3, 2);   // ET_DYN
    put(bytes, 0x12, native_elf_machine(), 2);
    put(bytes, 0x14, 1, 4);   // EV_CURRENT
    put(bytes, 0x20, header, 8);
    put(bytes, 0x34, header, 2);
    put(bytes, 0x36, program_header, 2);
    put(bytes, 0x38, 2, 2);
    put(bytes, 0x3a, 64, 2);
    const auto segment = [&](std::size_t at, std::uint32_t type, std::uint64_t offset, std::uint64_t size) {
        put(bytes, at, type, 4);
        put(bytes, at + 4, 4, 4);  // PF_R
        put(bytes, at + 8, offset, 8);
        put(bytes, at + 16, offset, 8);
        put(bytes, at + 24, offset, 8);
        put(bytes, at + 32, size, 8);
        put(bytes, at + 40, size, 8);
        put(bytes, at + 48, 8, 8);
    };
    segment(header, 1, 0, bytes.size());                                // PT_LOAD
    segment(header + program_header, 2, dynamic_at, dynamic_size);      // PT_DYNAMIC
    for (std::size_t i = 0; i < entries.size(); ++i) {
        put(bytes, dynamic_at + 16 * i, entries[i].first, 8);
        put(bytes, dynamic_at + 16 * i + 8, entries[i].second, 8);
    }
    std::copy(strings.begin(), strings.end(), bytes.begin() + static_cast<std::ptrdiff_t>(strings_at));
    return bytes;
}

std::string write_bytes(const test::TempDir& dir, const std::string& relative, const std::vector<std::uint8_t>& bytes) {
    return dir.write(relative, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

TEST(HostileRpath, expansion_is_linear_and_bounded) {
    // One entry of 1,400,000 $ORIGIN (9.8 MB): replaced in place, token after token, it ran for
    // minutes (over 60 s in `cudacheck env`).
    std::string tokens;
    for (int i = 0; i < 1'400'000; ++i) tokens += i % 2 == 0 ? "$ORIGIN" : "${ORIGIN}";
    std::string distinct;  // 600,000 distinct directories, and each once again
    for (int i = 0; i < 600'000; ++i) distinct += fmt::format("$ORIGIN/d{}:", i);
    const std::string origin = "/opt/venv/lib/python3.12/site-packages/torch/lib";
    const Measured run = run_forked([&] {
        std::size_t left_out = 0;
        const std::vector<std::string> one =
            expand_search_path("$ORIGIN/../../nvidia/cudnn/lib:" + tokens + ":${ORIGIN}", origin, &left_out);
        // The long entry is over PATH_MAX: the loader finds nothing there, and it is left out.
        bool ok = one == std::vector<std::string>{"/opt/venv/lib/python3.12/site-packages/nvidia/cudnn/lib", origin} &&
                  left_out == 1;
        const std::vector<std::string> many = expand_search_path(distinct + distinct, origin, &left_out);
        ok = many.size() == search_path_directory_limit && many.front() == origin + "/d0" &&
             many.back() == origin + "/d1023" && left_out == 2 * (600'000 - search_path_directory_limit) &&
             ok;  // a directory kept, listed again, is no loss
        // One directory written 1,000,000 times (15 MB): kept once, nothing left out.
        std::string same;
        for (int i = 0; i < 1'000'000; ++i) same += "$ORIGIN/../cuda/lib:";
        ok = expand_search_path(same, origin, &left_out) ==
                 std::vector<std::string>{"/opt/venv/lib/python3.12/site-packages/torch/cuda/lib"} &&
             left_out == 0 && ok;
        // Normal paths as before: in order, normalised, listed once.
        ok = expand_search_path("$ORIGIN/../lib:/usr/lib/:$ORIGIN/../lib:${ORIGIN}", "/a/b", &left_out) ==
                 std::vector<std::string>{"/a/lib", "/usr/lib", "/a/b"} &&
             left_out == 0 && ok;
        return ok;
    });
    expect_bounded(run, "expand_search_path gave other directories",
                   "expand_search_path of 9.8 MB, 2 x 6 MB and 15 MB DT_RPATHs");
}

// A 10 MB DT_RPATH on a torch-like library, followed by the loader simulation: the first
// directories still resolve, what is left out is a problem naming the file, and time and memory
// stay small.
TEST(HostileRpath, a_ten_megabyte_dt_rpath_is_followed_in_bounded_time_and_memory) {
    test::TempDir dir;
    const std::string lib = dir.path() + "/venv/site-packages/torch/lib";
    std::string rpath = "$ORIGIN/../../nvidia/cudnn/lib";
    for (int i = 0; i < 500'000; ++i) rpath += fmt::format(":$ORIGIN/d{:07}", i);
    rpath += ":";
    for (int i = 0; i < 300'000; ++i) rpath += "$ORIGIN";
    rpath += ":$ORIGIN/../../nvidia/cu13/lib";  // beyond the bound: not searched
    ASSERT_GT(rpath.size(), 10'000'000u);
    const std::string torch =
        write_bytes(dir, "venv/site-packages/torch/lib/libtorch_cuda.so",
                    library_with_rpath("libtorch_cuda.so", {"libcudnn.so.9", "libcudart.so.13", "libc.so.6"}, rpath));
    write_bytes(dir, "venv/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
                library_with_rpath("libcudnn.so.9", {"libc.so.6"}, "$ORIGIN"));
    write_bytes(dir, "venv/site-packages/nvidia/cu13/lib/libcudart.so.13",
                library_with_rpath("libcudart.so.13", {"libc.so.6"}, "$ORIGIN"));
    const Measured run = run_forked([&] {
        DirectoryListings listings;
        const LoadClosure closure = load_closure(torch, LoaderSearch{}, listings);
        const LoadedObject* cudnn = closure.find("libcudnn.so.9");
        const LoadedObject* cudart = closure.find("libcudart.so.13");
        bool ok = cudnn != nullptr &&
                  cudnn->resolution.path == dir.path() + "/venv/site-packages/nvidia/cudnn/lib/libcudnn.so.9";
        ok = cudart != nullptr && !cudart->resolution.found() && ok;
        ok = closure.problems.size() == 1 && contains(closure.problems[0], torch + ": its DT_RPATH is longer than") &&
             contains(closure.problems[0], "entries left out") && ok;
        if (!ok)
            for (const std::string& problem : closure.problems)
                std::fprintf(stderr, "problem: %.300s\n", problem.c_str());
        return ok;
    });
    expect_bounded(run, "the closure resolved otherwise, or said nothing of what it left out",
                   fmt::format("load_closure of a library with a {}-byte DT_RPATH", rpath.size()));
}

// The same library as PyTorch's libtorch_cuda.so in a venv (the GPU machine's metadata), through
// `cudacheck env`: over 60 s, replacing in place, with the 1,400,000 $ORIGIN (20.9 s and 515 MiB with
// 500,000 distinct directories).
TEST(HostileRpath, cudacheck_env_reads_a_venv_whose_torch_has_a_ten_megabyte_dt_rpath) {
    test::TempDir dir;
    const std::string venv = dir.path() + "/venv";
    std::filesystem::copy(std::string(CUDACHECK_SOURCE_DIR) + "/tests/fixtures/frameworks/h200-venv", venv,
                          std::filesystem::copy_options::recursive);
    std::string rpath = "$ORIGIN/../../nvidia/cudnn/lib:";
    for (int i = 0; i < 1'400'000; ++i) rpath += "$ORIGIN";
    for (int i = 0; i < 100'000; ++i) rpath += fmt::format(":$ORIGIN/d{:07}", i);
    ASSERT_GT(rpath.size(), 10'000'000u);
    write_bytes(dir, "venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
                library_with_rpath("libtorch_cuda.so", {"libcudnn.so.9", "libcudart.so.13", "libc.so.6"}, rpath));
    const Measured run = run_binary(dir, {"env"},
                                    {{"VIRTUAL_ENV", venv},
                                     {"PATH", venv + "/bin:/usr/bin:/bin"},
                                     {"HOME", dir.path()},
                                     {"XDG_CACHE_HOME", dir.path() + "/cache"}});
    ASSERT_TRUE(run.exited()) << run.how();
    EXPECT_TRUE(run.exit_code() == 0 || run.exit_code() == 1) << run.output.substr(0, 2000);  // 1: no CUDA toolkit here
    EXPECT_TRUE(contains(run.output, "# this machine's CUDA environment")) << run.output.substr(0, 2000);
    EXPECT_LT(run.wall_ms, generous_ms);
    EXPECT_LT(run.max_rss_kb, 512 * mib);
    std::printf("cudacheck env, a venv whose libtorch_cuda.so has a %zu-byte DT_RPATH: %.0f ms, %ld MiB\n",
                rpath.size(), run.wall_ms, run.max_rss_kb / mib);
}

}  // namespace
}  // namespace cudacheck
