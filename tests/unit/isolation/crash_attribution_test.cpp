// A check's crash or hang charged to a damaged library file its process loads (isolation/
// crash_attribution.hpp), on directories of stand-ins (support/library_directory.hpp); and the
// declarations it relies on: the checks that open a library say so and may raise CC605.
#include "isolation/crash_attribution.hpp"
#include "engine/registry.hpp"
#include "report/catalog.hpp"
#include "support/library_directory.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace cudacheck {
namespace {

const CheckEnding crashed{"cudnn.conv crashed its process: killed by SIGBUS (Bus error)"};
const CheckEnding hung{"cudnn.conv did not finish within 2 s (--timeout); its process was killed", true};

CheckInfo check_using(std::vector<const LibraryFamily*> libraries) {
    return CheckInfo{.id = "cudnn.conv",
                     .title = "title",
                     .description = "description",
                     .scope = Scope::device,
                     .min_level = Level::standard,
                     .libraries = std::move(libraries)};
}

std::optional<ChargedToLibrary> charge(const test::LibraryDirectory& directory, const CheckInfo& check,
                                       const CheckEnding& ending) {
    return charge_to_damaged_library(check, ending, directory.search(), 13, Environment{});
}

std::string evidence_of(const ChargedToLibrary& charged, std::string_view key) {
    for (const Evidence& line : charged.evidence)
        if (line.key == key) return line.value;
    return "(absent)";
}

TEST(CrashAttribution, charges_a_crash_to_a_damaged_sub_library_of_the_library_the_check_uses) {
    const test::LibraryDirectory directory;
    directory.place("libcudnn_stand_in.so", "libcudnn.so.9");
    const std::string graph = directory.place_truncated("libcudnn_graph_stand_in.so", "libcudnn_graph.so.9");
    const std::optional<ChargedToLibrary> charged = charge(directory, check_using({&cuda_library::cudnn}), crashed);
    ASSERT_TRUE(charged.has_value());
    const Finding& finding = charged->finding;
    EXPECT_EQ(finding.code, "CC605");
    EXPECT_EQ(finding.status, Status::fail);
    EXPECT_EQ(finding.message, crashed.what + ": libcudnn_graph.so.9 resolves to a damaged file");
    // The account behind the headline is evidence.
    const std::string account = evidence_of(*charged, "damaged");
    EXPECT_TRUE(account.starts_with(crashed.what +
                                    ". It uses libcudnn.so.9; libcudnn_graph.so.9, opened by libcudnn.so.9 itself"))
        << account;
    EXPECT_TRUE(
        test::contains(account, graph + " (LD_LIBRARY_PATH entry " + directory.path() + ") and is damaged: truncated"))
        << account;
    EXPECT_EQ(finding.remediation, "Reinstall what installed it, or remove " + graph + "; or take " + directory.path() +
                                       " off LD_LIBRARY_PATH.");
    EXPECT_FALSE(test::contains(finding.remediation, "dmesg")) << "no GPU-fault advice";
    EXPECT_EQ(evidence_of(*charged, "damaged_copy"), graph);
    EXPECT_EQ(evidence_of(*charged, "loaded_by"), "opened by libcudnn.so.9 itself (dlopen) when a call needs it");
}

TEST(CrashAttribution, keeps_a_hang_a_timeout_while_naming_the_damaged_dependency) {
    const test::LibraryDirectory directory;
    directory.place("libcublas_stand_in.so", "libcublas.so.13");
    const std::string lt = directory.place_truncated("libcublasLt_stand_in.so", "libcublasLt.so.13");
    const std::optional<ChargedToLibrary> charged = charge(directory, check_using({&cuda_library::cublas}), hung);
    ASSERT_TRUE(charged.has_value());
    EXPECT_EQ(charged->finding.code, "CC605");
    EXPECT_EQ(charged->finding.status, Status::timeout) << "killed at its limit: the report counts it as a timeout";
    EXPECT_EQ(charged->finding.message, hung.what + ": libcublasLt.so.13 resolves to a damaged file");
    EXPECT_TRUE(evidence_of(*charged, "damaged")
                    .starts_with(hung.what + ". It uses libcublas.so.13; libcublasLt.so.13, needed by libcublas.so.13"))
        << evidence_of(*charged, "damaged");
    EXPECT_TRUE(test::contains(charged->finding.remediation, "remove " + lt)) << charged->finding.remediation;
}

TEST(CrashAttribution, charges_nothing_when_the_damaged_library_is_not_one_the_check_loads) {
    const test::LibraryDirectory directory;
    directory.place("libcudnn_stand_in.so", "libcudnn.so.9");
    directory.place("libcudnn_graph_stand_in.so", "libcudnn_graph.so.9");
    directory.place_truncated("libcublasLt_stand_in.so", "libcublasLt.so.13");
    EXPECT_FALSE(charge(directory, check_using({&cuda_library::cudnn}), crashed).has_value())
        << "cuDNN loads no cuBLASLt";
    EXPECT_FALSE(charge(directory, check_using({}), crashed).has_value()) << "a check that declares no library";
    EXPECT_FALSE(charge(directory, check_using({&cuda_library::curand}), hung).has_value())
        << "a library that is not installed";
}

TEST(CrashAttribution, names_the_first_damaged_file_in_load_order_and_lists_the_others) {
    const test::LibraryDirectory directory;
    const std::string cudnn = directory.place_truncated("libcudnn_stand_in.so", "libcudnn.so.9");
    directory.place("libcublas_stand_in.so", "libcublas.so.13");
    const std::string lt = directory.place_truncated("libcublasLt_stand_in.so", "libcublasLt.so.13");
    const std::optional<ChargedToLibrary> charged =
        charge(directory, check_using({&cuda_library::cudnn, &cuda_library::cublas}), crashed);
    ASSERT_TRUE(charged.has_value());
    EXPECT_TRUE(test::contains(charged->finding.message, ": libcudnn.so.9 resolves to a damaged file"))
        << charged->finding.message;
    EXPECT_TRUE(test::contains(evidence_of(*charged, "damaged"), ". It uses libcudnn.so.9, which resolves to " + cudnn))
        << evidence_of(*charged, "damaged");
    EXPECT_EQ(evidence_of(*charged, "loaded_by"), "libcudnn.so.9, which cudnn.conv opens");
    EXPECT_TRUE(evidence_of(*charged, "also_damaged").starts_with("libcublasLt.so.13 at " + lt + ": truncated"))
        << evidence_of(*charged, "also_damaged");
}

// The supervisor charges a check's death to a library only through its declaration: each check that
// opens a CUDA library declares it, and may raise CC605 (the catalogue's raised_by follows).
TEST(CrashAttribution, every_check_that_opens_a_cuda_library_declares_it_and_raises_cc605) {
    const Registry registry(builtin_checks());
    for (const char* id :
         {"cublas.gemm", "cufft.fft", "curand.generate", "cudnn.conv", "nvrtc.compile", "gpu.stress"}) {
        const Check* check = registry.find(id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_FALSE(check->info().libraries.empty()) << id;
        for (const LibraryFamily* library : check->info().libraries)
            EXPECT_FALSE(library->soname_for(13).empty()) << id;
    }
    for (const auto& check : registry.checks()) {
        const CheckInfo& info = check->info();
        if (!info.libraries.empty()) {
            EXPECT_NE(std::find(info.raises.begin(), info.raises.end(), Code::library_damaged), info.raises.end())
                << info.id;
        }
    }
}

}  // namespace
}  // namespace cudacheck
