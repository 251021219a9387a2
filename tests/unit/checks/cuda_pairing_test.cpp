// cuda.pairing (checks/cuda_pairing.cpp): the driver against the runtime and nvcc.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;
using test::judge;

TEST(PairingCheck, skips_when_driver_version_unknown) {
    PairingFacts facts{0, "", false, 13000, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::skip);
    EXPECT_TRUE(contains(result.skip_reason, "cuDriverGetVersion"));
}

TEST(PairingCheck, native_when_driver_matches_runtime) {
    PairingFacts facts{13000, "580.159.04", false, 13000, NvccVersion{"13.0", "13.0.88"}};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "native"));
}

TEST(PairingCheck, minor_version_compatible_when_same_major_older_minor) {
    PairingFacts facts{13000, "580.65.06", false, 13010, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "minor-version compatible"));
}

TEST(PairingCheck, insufficient_driver_names_versions_and_minimum) {
    PairingFacts facts{12020, "535.104.05", false, 13000, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC401");
    EXPECT_TRUE(contains(result.message, "driver 535.104.05 supports CUDA <= 12.2"));
    EXPECT_TRUE(contains(result.message, "580.65.06"));
    EXPECT_TRUE(contains(result.remediation, "580.65.06"));
    EXPECT_TRUE(contains(result.remediation, "cuda-compat-13-0"));
}

TEST(PairingCheck, forward_compatibility_is_recognised) {
    PairingFacts facts{13000, "580.65.06", true, 13000, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "forward compatibility"));
}

TEST(PairingCheck, warns_when_nvcc_major_newer_than_driver) {
    PairingFacts facts{12080, "570.86.15", false, 12080, NvccVersion{"13.0", "13.0.88"}};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC402");
    EXPECT_TRUE(contains(result.remediation, "580"));
}

TEST(PairingCheck, notes_newer_nvcc_minor_without_warning) {
    PairingFacts facts{13000, "580.65.06", false, 13000, NvccVersion{"13.1", "13.1.80"}};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    bool noted = false;
    for (const Evidence& evidence : result.evidence)
        noted |= evidence.key == "nvcc_note" && contains(evidence.value, "JIT");
    EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace cudacheck
