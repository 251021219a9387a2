// host.os (checks/host_os.cpp): the verdict on the OS, the container it names and WSL1.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::bare_host;
using test::contains;
using test::judge;

TEST(HostOsCheck, passes_and_names_container) {
    HostInfo host = bare_host();
    host.container = "docker";
    const CheckResult result = judge("host.os", [&](ResultBuilder& r) { judge_host_os(host, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "Ubuntu 24.04.3 LTS"));
    EXPECT_TRUE(contains(result.message, "docker container"));
}

TEST(HostOsCheck, fails_under_wsl1) {
    HostInfo host = bare_host();
    host.wsl = "WSL1";
    host.kernel_release = "4.4.0-19041-Microsoft";
    const CheckResult result = judge("host.os", [&](ResultBuilder& r) { judge_host_os(host, r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC101");
    EXPECT_TRUE(contains(result.remediation, "wsl --set-version"));
}

}  // namespace
}  // namespace cudacheck
