// The registry and the selection of checks (engine/registry.cpp): order, ids, prefixes, typos.
#include "engine/registry.hpp"
#include "support/function_checks.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::make_check;
using test::passing;

TEST(Registry, rejects_dependency_registered_later) {
    CheckList checks;
    checks.push_back(make_check("a.dependent", passing(), {"a.base"}));
    checks.push_back(make_check("a.base", passing()));
    EXPECT_THROW(Registry{std::move(checks)}, std::logic_error);
}

TEST(Registry, matches_ids_and_prefixes) {
    const Registry registry(builtin_checks());
    EXPECT_EQ(registry.match("driver"),
              (std::vector<std::string>{"driver.kernel_module", "driver.node_services", "driver.libcuda", "driver.nvml",
                                        "driver.kernel_log"}));
    EXPECT_EQ(registry.match("driver."), registry.match("driver"));
    EXPECT_EQ(registry.match("cuda.devices"), (std::vector<std::string>{"cuda.devices"}));
    EXPECT_TRUE(registry.match("driv").empty()) << "a prefix must end at a dot";
}

TEST(Registry, suggests_closest_ids_for_a_typo) {
    const Registry registry(builtin_checks());
    EXPECT_EQ(registry.closest("driver.libcda").front(), "driver.libcuda");
    EXPECT_EQ(registry.closest("nvcc").front(), "toolkit.nvcc");
}

TEST(Selection, adds_dependencies_of_selected_checks) {
    const Registry registry(builtin_checks());
    const Selection selection = select_checks(registry, {"cuda.pairing"}, {});
    std::vector<std::string> ids;
    for (const Check* check : selection.checks) ids.push_back(check->info().id);
    EXPECT_EQ(ids, (std::vector<std::string>{"driver.libcuda", "cuda.pairing"}));
}

TEST(Selection, rejects_unknown_id_naming_closest) {
    const Registry registry(builtin_checks());
    try {
        (void)select_checks(registry, {"cuda.device"}, {});
        FAIL() << "expected SelectionError";
    } catch (const SelectionError& error) {
        EXPECT_NE(std::string(error.what()).find("cuda.devices"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("unknown check 'cuda.device'"), std::string::npos);
    }
    EXPECT_THROW((void)select_checks(registry, {}, {"nonsense"}), SelectionError);
}

TEST(Selection, skip_removes_checks_and_only_limits) {
    const Registry registry(builtin_checks());
    EXPECT_EQ(select_checks(registry, {}, {}).checks.size(), registry.checks().size());
    // host: host.os, host.container and host.limits; env: env.variables.
    EXPECT_EQ(select_checks(registry, {}, {"env", "host"}).checks.size(), registry.checks().size() - 4);
    EXPECT_EQ(select_checks(registry, {"env"}, {}).checks.size(), 1u);
}

TEST(Registry, rejects_multi_device_check_depending_on_a_per_device_check) {
    CheckList checks;
    checks.push_back(make_check("gpu.single", passing(), {}, Scope::device));
    checks.push_back(make_check("gpu.pairs", passing(), {"gpu.single"}, Scope::multi_device));
    EXPECT_THROW(Registry{std::move(checks)}, std::logic_error);
}

}  // namespace
}  // namespace cudacheck
