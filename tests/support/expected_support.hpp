// Assertions on util/expected results that show the error when they fail.
#pragma once

#include "util/expected.hpp"

#include <string>

namespace cudacheck::test {

// The error's message, "" for a value: EXPECT_EQ(error_of(result), "") prints the error on failure.
template <typename T>
[[nodiscard]] std::string error_of(const Expected<T>& result) {
    return result ? std::string() : result.error().message;
}

}  // namespace cudacheck::test
