// `cudacheck inspect` of wheels and installed distributions (inspect/package_inspection.hpp). The
// wheels are packed by the test (tests/support/make_wheel.py, Python's zipfile) around shared
// libraries nvcc built (tests/CMakeLists.txt: libsm80.so, SASS for sm_80 only; libsm90ptx.so, sm_90
// SASS and compute_90 PTX). The ground truth for each verdict is stated beside it: the flags the
// library was built with, the same library inspected on disk, and the wheel's own file name and
// METADATA for what pip would decide.
#include "inspect/package_inspection.hpp"

#include "report/report.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

using test::BinaryRun;
using test::run_cudacheck;
using test::TempDir;

const std::string fixtures = CUDACHECK_GPU_CODE_FIXTURES;
const std::string make_wheel = std::string(CUDACHECK_SOURCE_DIR) + "/tests/support/make_wheel.py";

InspectTarget arch(int major, int minor) { return InspectTarget{major, minor, std::nullopt, {}}; }

PackageInterpreter python(int major, int minor, std::pair<int, int> glibc = {2, 36}) {
    PackageInterpreter interpreter;
    interpreter.tags.major = major;
    interpreter.tags.minor = minor;
    interpreter.tags.glibc = glibc;
    interpreter.python_full_version = fmt::format("{}.{}.0", major, minor);
    interpreter.label = fmt::format("test (Python {}.{})", major, minor);
    return interpreter;
}

class PackageInspection : public ::testing::Test {
protected:
    void SetUp() override {
        if (!sys::is_executable_file("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 to pack wheels with";
    }
    // Packs a wheel named `file_name` in the test's directory; the extra arguments go to make_wheel.py.
    std::string wheel(const std::string& file_name, const std::string& name, const std::string& version,
                      std::vector<std::string> extra = {}) {
        const std::string out = dir.path() + "/" + file_name;
        std::vector<std::string> argv{"/usr/bin/python3", make_wheel, out, name, version};
        argv.insert(argv.end(), extra.begin(), extra.end());
        const sys::CommandResult result = sys::run_command(argv, std::chrono::seconds(60));
        EXPECT_EQ(result.exit_status, 0) << result.output;
        return out;
    }
    TempDir dir;
};

TEST_F(PackageInspection, a_wheel_with_sm80_sass_runs_on_sm80_and_sm86_but_not_on_sm90) {
    // Ground truth: libsm80.so was built with -gencode arch=compute_80,code=sm_80 only: SASS runs on
    // the same major with an equal or higher minor (8.0, 8.6), and there is no PTX for 9.0.
    const std::string path = wheel("gpu_pkg-1.0-py3-none-manylinux_2_17_x86_64.whl", "gpu-pkg", "1.0",
                                   {"--file", "gpu_pkg/libsm80.so=" + fixtures + "/libsm80.so"});
    const PackageContext context{{arch(8, 0), arch(8, 6), arch(9, 0)}, CudaVersion{13, 0}, python(3, 12)};
    const InspectedPackage package = inspect_wheel(path, context);
    ASSERT_FALSE(package.input_error) << package.input_error->message;
    EXPECT_EQ(package.name, "gpu-pkg");
    EXPECT_TRUE(package.not_installable.empty()) << package.not_installable;
    ASSERT_EQ(package.libraries.size(), 1u);
    EXPECT_EQ(package.libraries[0].file.path, "gpu_pkg/libsm80.so");
    ASSERT_EQ(package.per_target.size(), 3u);
    EXPECT_EQ(package.per_target[0], PackageVerdict::runs_natively);
    EXPECT_EQ(package.per_target[1], PackageVerdict::runs_natively);
    EXPECT_EQ(package.per_target[2], PackageVerdict::cannot_run);
    EXPECT_EQ(package.verdict, PackageVerdict::cannot_run);
    ASSERT_TRUE(package.finding);
    EXPECT_EQ(package.finding->code, "CC503");
    EXPECT_EQ(package_exit_code({package}), exit_check_failed);

    // The library read inside the wheel is the library read on disk.
    const GpuCodeScan on_disk = inspect_file(fixtures + "/libsm80.so");
    ASSERT_EQ(package.libraries[0].file.scan.objects.size(), on_disk.objects.size());
    for (std::size_t i = 0; i < on_disk.objects.size(); ++i) {
        EXPECT_EQ(package.libraries[0].file.scan.objects[i].arch, on_disk.objects[i].arch);
        EXPECT_EQ(package.libraries[0].file.scan.objects[i].offset, on_disk.objects[i].offset);
    }
}

TEST_F(PackageInspection, a_wheel_with_sm90_and_ptx_runs_natively_on_sm90_and_through_ptx_on_sm100) {
    // Ground truth: -gencode arch=compute_90,code=[sm_90,compute_90]: SASS for 9.0, PTX for any newer GPU.
    for (const bool stored : {false, true}) {
        std::vector<std::string> extra{"--file", "pkg/libsm90ptx.so=" + fixtures + "/libsm90ptx.so"};
        if (stored) extra.push_back("--stored");
        const std::string path = wheel(stored ? "stored-1.0-py3-none-any.whl" : "deflated-1.0-py3-none-any.whl",
                                       stored ? "stored" : "deflated", "1.0", extra);
        const PackageContext context{{arch(9, 0), arch(10, 0)}, CudaVersion{13, 0}, python(3, 12)};
        const InspectedPackage package = inspect_wheel(path, context);
        ASSERT_FALSE(package.input_error) << package.input_error->message;
        ASSERT_EQ(package.per_target.size(), 2u);
        EXPECT_EQ(package.per_target[0], PackageVerdict::runs_natively) << stored;
        EXPECT_EQ(package.per_target[1], PackageVerdict::runs_through_ptx) << stored;
        EXPECT_EQ(package.verdict, PackageVerdict::runs_through_ptx);
        EXPECT_EQ(package_exit_code({package}), exit_ok);
    }
}

TEST_F(PackageInspection, a_wrong_manylinux_tag_or_python_tag_is_not_installable) {
    // Ground truth: the file name's tags (pip reads them there). manylinux_2_39 needs glibc 2.39;
    // cp39 is CPython 3.9 only, not 3.12; Requires-Python >=3.13 excludes 3.12.0.
    const std::string library = "pkg/libsm90ptx.so=" + fixtures + "/libsm90ptx.so";
    const PackageContext context{{arch(9, 0)}, CudaVersion{13, 0}, python(3, 12, {2, 28})};
    const InspectedPackage glibc =
        inspect_wheel(wheel("pkg-1.0-py3-none-manylinux_2_39_x86_64.whl", "pkg", "1.0", {"--file", library}), context);
    EXPECT_EQ(glibc.verdict, PackageVerdict::not_installable);
    EXPECT_NE(glibc.why.find("2.39"), std::string::npos) << glibc.why;
    ASSERT_TRUE(glibc.finding);
    EXPECT_EQ(glibc.finding->code, "CC804");

    const InspectedPackage cp39 =
        inspect_wheel(wheel("pkg-1.0-cp39-cp39-manylinux_2_17_x86_64.whl", "pkg", "1.0", {"--file", library}), context);
    EXPECT_EQ(cp39.verdict, PackageVerdict::not_installable);
    EXPECT_NE(cp39.why.find("3.9"), std::string::npos) << cp39.why;

    const InspectedPackage requires_python = inspect_wheel(wheel("pkg-1.0-py3-none-any.whl", "pkg", "1.0",
                                                                 {"--file", library, "--requires-python", ">=3.13"}),
                                                           context);
    EXPECT_EQ(requires_python.verdict, PackageVerdict::not_installable);
    EXPECT_NE(requires_python.why.find(">=3.13"), std::string::npos) << requires_python.why;

    // The same wheels for a Python they were built for: installable.
    const PackageContext newer{{arch(9, 0)}, CudaVersion{13, 0}, python(3, 13, {2, 39})};
    EXPECT_EQ(inspect_wheel(dir.path() + "/pkg-1.0-py3-none-manylinux_2_39_x86_64.whl", newer).verdict,
              PackageVerdict::runs_natively);
    EXPECT_EQ(inspect_wheel(dir.path() + "/pkg-1.0-py3-none-any.whl", newer).verdict, PackageVerdict::runs_natively);
}

TEST_F(PackageInspection, nvidia_pins_of_a_newer_cuda_major_than_the_driver_cannot_run) {
    // Ground truth: the METADATA pins CUDA 13's cuDNN wheel; the driver is CUDA 12.8.
    const std::string path =
        wheel("fw-2.0-py3-none-any.whl", "fw", "2.0",
              {"--file", "fw/libsm90ptx.so=" + fixtures + "/libsm90ptx.so", "--requires",
               "nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"", "--requires", "numpy"});
    const InspectedPackage old_driver =
        inspect_wheel(path, PackageContext{{arch(9, 0)}, CudaVersion{12, 8}, python(3, 12)});
    ASSERT_EQ(old_driver.cuda.cuda_major, 13);
    EXPECT_EQ(old_driver.verdict, PackageVerdict::cannot_run);
    ASSERT_TRUE(old_driver.finding);
    EXPECT_EQ(old_driver.finding->code, "CC805");
    EXPECT_NE(old_driver.finding->remediation.find("580"), std::string::npos) << old_driver.finding->remediation;
    // The GPU code alone runs: only the driver stands in the way.
    ASSERT_EQ(old_driver.per_target.size(), 1u);
    EXPECT_EQ(old_driver.per_target[0], PackageVerdict::runs_natively);
    const InspectedPackage new_driver =
        inspect_wheel(path, PackageContext{{arch(9, 0)}, CudaVersion{13, 0}, python(3, 12)});
    EXPECT_EQ(new_driver.verdict, PackageVerdict::runs_natively);
}

TEST_F(PackageInspection, a_truncated_or_garbage_wheel_is_one_unreadable_row) {
    const std::string library = "pkg/libsm90ptx.so=" + fixtures + "/libsm90ptx.so";
    const std::string truncated =
        wheel("cut-1.0-py3-none-any.whl", "cut", "1.0", {"--file", library, "--truncate", "3000"});
    const PackageContext context{{arch(9, 0)}, CudaVersion{13, 0}, python(3, 12)};
    const InspectedPackage cut = inspect_wheel(truncated, context);
    EXPECT_EQ(cut.verdict, PackageVerdict::unreadable);
    ASSERT_TRUE(cut.input_error);
    EXPECT_EQ(cut.input_error->code, "CC806");
    const std::string garbage = dir.path() + "/garbage-1.0-py3-none-any.whl";
    std::ofstream(garbage) << std::string(5000, 'x');
    EXPECT_EQ(inspect_wheel(garbage, context).verdict, PackageVerdict::unreadable);
    const InspectedPackage missing = inspect_wheel(dir.path() + "/absent-1.0-py3-none-any.whl", context);
    ASSERT_TRUE(missing.input_error);
    EXPECT_EQ(missing.input_error->code, "CC801");
    EXPECT_EQ(package_exit_code({cut}), exit_usage);
}

TEST_F(PackageInspection, an_installed_distribution_is_judged_as_its_wheel) {
    // "Installed" the way pip lays a wheel out: its members under site-packages, RECORD listing them.
    const std::string path = wheel("gpu_pkg-1.0-py3-none-any.whl", "gpu-pkg", "1.0",
                                   {"--file", "gpu_pkg/libsm80.so=" + fixtures + "/libsm80.so", "--requires",
                                    "nvidia-cuda-runtime-cu12==12.4.127"});
    const std::string site = dir.path() + "/site-packages";
    const sys::CommandResult unpack =
        sys::run_command({"/usr/bin/python3", "-m", "zipfile", "-e", path, site}, std::chrono::seconds(60));
    ASSERT_EQ(unpack.exit_status, 0) << unpack.output;
    const PackageContext context{{arch(8, 6), arch(9, 0)}, CudaVersion{12, 2}, python(3, 12)};
    const std::vector<InspectedPackage> installed = inspect_site_packages(site, context);
    ASSERT_EQ(installed.size(), 1u);
    const InspectedPackage from_wheel = inspect_wheel(path, context);
    EXPECT_FALSE(installed[0].wheel);
    EXPECT_EQ(installed[0].name, "gpu-pkg");
    EXPECT_EQ(installed[0].cuda.cuda_major, 12);
    EXPECT_EQ(installed[0].per_target, from_wheel.per_target);
    EXPECT_EQ(installed[0].verdict, from_wheel.verdict);
    EXPECT_EQ(installed[0].verdict, PackageVerdict::cannot_run);  // no sm_90 code
    EXPECT_TRUE(has_dist_info(site));
}

TEST(PackageRecord, reads_paths_of_plain_and_quoted_rows) {
    EXPECT_EQ(parse_record_paths("a/b.so,sha256=x,12\n\"c,d/e.so\",,\r\n\"q\"\"uote.so\",sha256=y,3\n\n"),
              (std::vector<std::string>{"a/b.so", "c,d/e.so", "q\"uote.so"}));
    EXPECT_TRUE(parse_record_paths("").empty());
}

TEST(PackageInspectionCommand, inspects_published_nvidia_wheels_and_says_their_cuda_major) {
    // Real wheels from PyPI, fetched by tools/deps/test.sh (tests/fixtures/downloaded/wheels).
    const std::string wheels = std::string(CUDACHECK_SOURCE_DIR) + "/tests/fixtures/downloaded/wheels";
    const std::vector<std::pair<std::string, int>> expected{
        {"nvidia_cuda_runtime_cu11-11.8.89-py3-none-manylinux2014_x86_64.whl", 11},
        {"nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl", 12},
        {"nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl", 13}};
    for (const auto& [file, major] : expected) {
        const std::string path = wheels + "/" + file;
        if (!sys::exists(path)) GTEST_SKIP() << "SKIPPED: " << path << " not downloaded (tools/deps/test.sh)";
        const BinaryRun run = run_cudacheck({"inspect", "--arch", "sm_90", "--format", "json", path});
        ASSERT_EQ(run.exit_status, 0) << run.output;
        const nlohmann::json document = nlohmann::json::parse(run.output.substr(run.output.find('{')));
        ASSERT_EQ(document["packages"].size(), 1u);
        const nlohmann::json& package = document["packages"][0];
        EXPECT_EQ(package["cuda_major"], major) << file;
        EXPECT_EQ(package["verdict"], "no_gpu_code") << file;
        EXPECT_GE(package["shared_libraries"].get<int>(), 1) << file;
    }
}

TEST(PackageInspectionCommand, a_framework_sized_wheel_reads_as_its_library_unpacked) {
    // JAX's CUDA 13 PJRT plugin from PyPI (tools/deps/test.sh): its xla_cuda_plugin.so is read inside
    // the 129 MB wheel, and the ground truth is the same library unpacked by Python's zipfile and
    // inspected as a file. Its METADATA says nothing of CUDA; its name does (CUDA 13).
    const std::string wheel =
        std::string(CUDACHECK_SOURCE_DIR) +
        "/tests/fixtures/downloaded/wheels/jax_cuda13_pjrt-0.12.1-py3-none-manylinux_2_27_x86_64.whl";
    if (!sys::exists(wheel)) GTEST_SKIP() << "SKIPPED: " << wheel << " not downloaded (tools/deps/test.sh)";
    if (!sys::is_executable_file("/usr/bin/python3")) GTEST_SKIP() << "SKIPPED: no /usr/bin/python3";
    const std::string member = "jax_plugins/xla_cuda13/xla_cuda_plugin.so";
    const BinaryRun run = run_cudacheck({"inspect", "--arch", "sm_61,sm_90,sm_121", "--format", "json", wheel});
    const nlohmann::json document = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    ASSERT_EQ(document["packages"].size(), 1u) << run.output;
    const nlohmann::json& package = document["packages"][0];
    EXPECT_EQ(package["cuda_major"], 13);
    const nlohmann::json* library = nullptr;
    for (const nlohmann::json& item : package["libraries"])
        if (item["path"] == member) library = &item;
    ASSERT_NE(library, nullptr) << package.dump(1).substr(0, 2000);

    TempDir dir;
    const sys::CommandResult unpack = sys::run_command({"/usr/bin/python3", "-c",
                                                        "import sys, zipfile; open(sys.argv[3], "
                                                        "'wb').write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))",
                                                        wheel, member, dir.path() + "/xla_cuda_plugin.so"},
                                                       std::chrono::seconds(120));
    ASSERT_EQ(unpack.exit_status, 0) << unpack.output;
    const BinaryRun file = run_cudacheck(
        {"inspect", "--arch", "sm_61,sm_90,sm_121", "--format", "json", dir.path() + "/xla_cuda_plugin.so"});
    const nlohmann::json on_disk = nlohmann::json::parse(file.output.substr(file.output.find('{')))["files"][0];
    EXPECT_EQ((*library)["code_objects"], on_disk["code_objects"]);
    EXPECT_EQ((*library)["fatbins"], on_disk["fatbins"]);
    ASSERT_EQ((*library)["verdicts"].size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ((*library)["verdicts"][i]["status"], on_disk["verdicts"][i]["status"]) << i;
        EXPECT_EQ((*library)["verdicts"][i]["image"], on_disk["verdicts"][i]["image"]) << i;
    }
    // sm_61 has no image in it (CUDA 13 builds start at sm_75): the wheel cannot run there.
    EXPECT_EQ(package["per_target"][0]["verdict"], "cannot_run");
    EXPECT_EQ(package["per_target"][1]["verdict"], "runs_natively");
    EXPECT_EQ(run.exit_status, exit_check_failed) << run.output.substr(0, 2000);
}

}  // namespace
}  // namespace cudacheck
