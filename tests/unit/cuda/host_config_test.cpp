// cuda/host_config: the host compilers a toolkit accepts, read by preprocessing its own
// include/crt/host_config.h for a compiler's predefined macros; the #if expression
// evaluator, the conditional directives, and the installed toolkit's real header.
#include "cuda/host_config.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace cudacheck {
namespace {

using test::contains;

MacroValues gcc(int major, int minor = 0, bool allow = false) {
    return host_compiler_macros({HostCompilerKind::gcc, major, minor, 0}, "x86_64", allow);
}
MacroValues clang(int major, int minor = 0) {
    return host_compiler_macros({HostCompilerKind::clang, major, minor, 0}, "x86_64");
}

TEST(HostConfig, evaluates_the_expressions_host_config_h_uses) {
    const std::string clang_range =
        "(__clang_major__ >= 21) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))";
    EXPECT_EQ(evaluate_condition(clang_range, clang(21)), 1);
    EXPECT_EQ(evaluate_condition(clang_range, clang(20)), 0);
    EXPECT_EQ(evaluate_condition(clang_range, clang(3, 2)), 1);
    EXPECT_EQ(evaluate_condition("__ibmxl_vrm__ >= 0x0d010000 && __ibmxl_vrm__ < 0x0d020000",
                                 {{"__ibmxl_vrm__", 0x0d010000}}),
              1);
    EXPECT_EQ(evaluate_condition("!defined(__GNUC__) || !defined __LP64__", gcc(13)), 0);
    EXPECT_EQ(evaluate_condition("_MSC_VER < 1920 || _MSC_VER >= 1950", gcc(13)), 1) << "an unknown identifier is 0";
    EXPECT_EQ(evaluate_condition("__has_include(<features.h>) + 2", gcc(13)), 2)
        << "a function-like macro it does not know is 0";
    EXPECT_EQ(evaluate_condition("__GNUC__ * 100 + __GNUC_MINOR__ >= 1302 ? 7 : -1", gcc(13, 2)), 7);
    EXPECT_EQ(evaluate_condition("010 + 1L - (2u << 1)", {}), 5) << "octal and suffixes";
}

TEST(HostConfig, refuses_what_is_not_an_expression_without_crashing) {
    for (const std::string& bad :
         {std::string("1 +"), std::string("(1"), std::string("1 / 0"), std::string("defined("), std::string("1 ? 2"),
          std::string("\"text\""), std::string(""), std::string(100000, '(') + "1" + std::string(100000, ')'),
          std::string(100000, '!') + "1"})
        EXPECT_EQ(evaluate_condition(bad, {}), std::nullopt) << bad.substr(0, 20);
}

TEST(HostConfig, follows_conditionals_defines_and_comments) {
    const std::string header = R"(/* #error -- in a comment, never reached */
#if !defined(__HOST_CONFIG_H__)
#define __HOST_CONFIG_H__
#if defined(__CUDACC__)
#ifdef __GNUC__
#if __GNUC__ > 13 || \
    (__GNUC__ == 13 && __GNUC_MINOR__ > 2)
#error -- unsupported GNU version! gcc versions later than 13.2 are not supported! // and a comment
#elif __GNUC__ < 6
#error -- unsupported GNU version! gcc versions before 6 are not supported!
#else
#define CHECKED 2
#endif
#endif /* __GNUC__ */
#ifndef CHECKED
#error -- not checked
#endif
#undef CHECKED
#if defined(CHECKED)
#error -- still defined
#endif
#endif
#endif
)";
    EXPECT_EQ(evaluate_host_config(header, gcc(13, 2)).errors, std::vector<std::string>{});
    const HostConfigVerdict newer = evaluate_host_config(header, gcc(13, 3));
    ASSERT_EQ(newer.errors.size(), 2u) << "and CHECKED was never defined";
    EXPECT_EQ(newer.errors[0], "-- unsupported GNU version! gcc versions later than 13.2 are not supported!");
    EXPECT_EQ(newer.errors[1], "-- not checked");
    EXPECT_TRUE(contains(evaluate_host_config(header, gcc(5)).errors.at(0), "before 6"));
    MacroValues not_nvcc = gcc(20);
    not_nvcc.erase("__CUDACC__");
    EXPECT_TRUE(evaluate_host_config(header, not_nvcc).errors.empty()) << "host_config.h checks only under nvcc";
}

TEST(HostConfig, an_unbalanced_file_is_unreadable_not_misread) {
    EXPECT_TRUE(evaluate_host_config("#if 1\n#error x\n", gcc(13)).unreadable.has_value());
    EXPECT_TRUE(evaluate_host_config("#endif\n", gcc(13)).unreadable.has_value());
    EXPECT_TRUE(evaluate_host_config("#else\n", gcc(13)).unreadable.has_value());
    const HostConfigVerdict garbage = evaluate_host_config("#if __GNUC__ >\n#endif\n", gcc(13));
    ASSERT_TRUE(garbage.unreadable.has_value());
    EXPECT_TRUE(contains(*garbage.unreadable, "line 1")) << *garbage.unreadable;
    EXPECT_FALSE(evaluate_host_config(std::string(5000, '\n') + "#if 0\n#if (\n#endif\n#endif\n", gcc(13)).unreadable)
        << "an inactive #if is not evaluated";
}

// The installed toolkit's own header: a newest supported gcc exists, every later one stops with
// the header's own "unsupported GNU version" error, and -allow-unsupported-compiler lifts it.
TEST(HostConfig, the_installed_toolkits_header_bounds_gcc_and_clang) {
    const std::string path = "/usr/local/cuda/include/crt/host_config.h";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const std::string header = test::read_text(path);
    int newest_gcc = 0;
    for (int major = 6; major <= 40; ++major) {
        const HostConfigVerdict verdict = evaluate_host_config(header, gcc(major));
        ASSERT_FALSE(verdict.unreadable) << *verdict.unreadable;
        if (verdict.errors.empty()) {
            if (newest_gcc != 0) {
                EXPECT_EQ(newest_gcc, major - 1) << "the supported majors are one range";
            }
            newest_gcc = major;
        }
    }
    ASSERT_GE(newest_gcc, 9) << "every CUDA 11-13 toolkit accepts gcc 9";
    ASSERT_LT(newest_gcc, 40);
    const HostConfigVerdict newer = evaluate_host_config(header, gcc(newest_gcc + 1));
    ASSERT_EQ(newer.errors.size(), 1u);
    EXPECT_TRUE(contains(newer.errors[0], "unsupported GNU version")) << newer.errors[0];
    EXPECT_TRUE(contains(newer.errors[0], std::to_string(newest_gcc)))
        << "names the newest it accepts: " << newer.errors[0];
    EXPECT_TRUE(evaluate_host_config(header, gcc(newest_gcc + 1, 0, /*allow=*/true)).errors.empty());

    int newest_clang = 0;
    for (int major = 4; major <= 40; ++major)
        if (evaluate_host_config(header, clang(major)).errors.empty()) newest_clang = major;
    ASSERT_GE(newest_clang, 10);
    const HostConfigVerdict clang_newer = evaluate_host_config(header, clang(newest_clang + 1));
    ASSERT_FALSE(clang_newer.errors.empty());
    EXPECT_TRUE(contains(clang_newer.errors[0], "unsupported clang version")) << clang_newer.errors[0];
}

}  // namespace
}  // namespace cudacheck
