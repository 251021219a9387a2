// util/expected: the value-or-Error result that reading and parsing return.
#include "util/expected.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace cudacheck;

Expected<int> half(int n) {
    if (n % 2 != 0) return Error{"odd: " + std::to_string(n), EINVAL};
    return n / 2;
}

Expected<std::string> text(bool ok) {
    if (!ok) return Error{"no text"};
    return "from a literal";  // built from what std::string is built from
}

Expected<void> check(bool ok) {
    if (!ok) return Error{"refused", EACCES};
    return {};
}

Expected<int> quarter(int n) {
    Expected<int> first = half(n);
    if (!first) return first.error();  // an error passes up unchanged
    return half(*first);
}

TEST(Expected, holds_a_value) {
    const Expected<int> result = half(8);
    ASSERT_TRUE(result.has_value());
    EXPECT_TRUE(static_cast<bool>(result));
    EXPECT_EQ(result.value(), 4);
    EXPECT_EQ(*result, 4);
}

TEST(Expected, holds_an_error_with_its_message_and_errno) {
    const Expected<int> result = half(7);
    ASSERT_FALSE(result.has_value());
    EXPECT_FALSE(static_cast<bool>(result));
    EXPECT_EQ(result.error().message, "odd: 7");
    EXPECT_EQ(result.error().code, EINVAL);
}

TEST(Expected, error_code_is_zero_when_none_is_given) { EXPECT_EQ(text(false).error().code, 0); }

TEST(Expected, value_is_built_from_anything_the_type_is_built_from) {
    const Expected<std::string> result = text(true);
    ASSERT_TRUE(result);
    EXPECT_EQ(*result, "from a literal");
    EXPECT_EQ(result->size(), std::string("from a literal").size());
}

TEST(Expected, passes_another_results_error_up_unchanged) {
    EXPECT_EQ(*quarter(8), 2);
    const Expected<int> failed = quarter(6);  // 6 / 2 = 3, which is odd
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().message, "odd: 3");
    EXPECT_EQ(failed.error().code, EINVAL);
}

TEST(Expected, value_on_an_error_is_a_logic_error_naming_the_error) {
    const Expected<int> result = half(5);
    try {
        (void)result.value();
        FAIL() << "value() returned on an error";
    } catch (const std::logic_error& error) {
        EXPECT_NE(std::string(error.what()).find("odd: 5"), std::string::npos) << error.what();
    }
}

TEST(Expected, error_on_a_value_is_a_logic_error) {
    const Expected<int> result = half(2);
    EXPECT_THROW((void)result.error(), std::logic_error);
}

TEST(Expected, value_or_gives_the_fallback_only_on_an_error) {
    EXPECT_EQ(half(10).value_or(-1), 5);
    EXPECT_EQ(half(11).value_or(-1), -1);
}

TEST(Expected, moves_a_move_only_value_out) {
    Expected<std::unique_ptr<int>> result = std::make_unique<int>(42);
    ASSERT_TRUE(result);
    std::unique_ptr<int> taken = std::move(result).value();
    ASSERT_NE(taken, nullptr);
    EXPECT_EQ(*taken, 42);
}

TEST(Expected, changes_the_value_in_place) {
    Expected<std::vector<int>> result = std::vector<int>{1, 2};
    result->push_back(3);
    (*result).push_back(4);
    EXPECT_EQ(*result, (std::vector<int>{1, 2, 3, 4}));
}

TEST(ExpectedVoid, succeeds_with_nothing) {
    const Expected<void> result = check(true);
    EXPECT_TRUE(result.has_value());
    EXPECT_TRUE(static_cast<bool>(result));
    EXPECT_NO_THROW(result.value());
    EXPECT_THROW((void)result.error(), std::logic_error);
}

TEST(ExpectedVoid, fails_with_an_error) {
    const Expected<void> result = check(false);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().message, "refused");
    EXPECT_EQ(result.error().code, EACCES);
    EXPECT_THROW(result.value(), std::logic_error);
}

}  // namespace
