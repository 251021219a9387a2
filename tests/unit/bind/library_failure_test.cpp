// LibraryFailure (bind/library_failure.hpp): the call, the status, and the status's remediation.
#include "bind/library_failure.hpp"
#include "gpu/library_support.hpp"
#include "report/catalog.hpp"
#include "report/result_builder.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

namespace cudacheck {
namespace {

struct Tagged {
    using Status = int;
    static std::string remediation(Status status) { return "do " + std::to_string(status); }
};

TEST(LibraryFailure, names_the_call_and_the_status_and_keeps_the_status_for_the_remediation) {
    const LibraryFailure<Tagged> failure(3, "libCall(n=4)", describe_status("LIB_FAILED", 3));
    EXPECT_STREQ(failure.what(), "libCall(n=4) failed: LIB_FAILED (3)");
    EXPECT_EQ(failure.status(), 3);
    ResultBuilder builder;
    gpu::report_failure(builder, Code::library_call_failed, failure);
    const CheckResult result = std::move(builder).finish("x.y", std::nullopt);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].code, code_string(Code::library_call_failed));
    EXPECT_EQ(result.findings[0].remediation, "do 3");
}

}  // namespace
}  // namespace cudacheck
