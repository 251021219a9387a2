// The one way a function reports that reading or parsing failed: it returns Expected<T>, a value or
// an Error, in the manner of C++23's std::expected and ccache's expected<T, E> for I/O. The project
// builds as C++20 (and its release build uses zig's libc++), so std::expected is not available.
// Exceptions stay for what a caller cannot handle in place: a CUDA library failing inside a check
// (caught by the engine and turned into that check's result) and broken invariants (logic_error).
//
//     const Expected<Policy> policy = read_policy_file(path);
//     if (!policy) {
//         usage_error(policy.error().message);
//         return exit_usage;
//     }
//     apply_policy(*policy, report);
//
//     Expected<void> commit() { ...; if (failed) return Error{fmt::format("cannot write {}", path), errno}; return {};
//     }
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace cudacheck {

namespace expected_detail {
// Asking an Expected for what it does not hold is a bug in the caller, not a failure to report.
[[noreturn]] inline void misuse(const std::string& what) { throw std::logic_error(what); }
}  // namespace expected_detail

// What went wrong, for the person reading the output: `message` is the whole one-line text a caller
// shows (callers may prefix it, never reword it). `code` is the errno behind it where one exists
// (0 otherwise), for a caller that acts on the kind of failure rather than on the text.
struct Error {
    std::string message;
    int code = 0;
};

template <typename T>
class [[nodiscard]] Expected {
    static_assert(!std::is_reference_v<T> && !std::is_same_v<std::remove_cv_t<T>, Error>,
                  "Expected<T> holds a value that is not an Error");

public:
    // A value: anything T can be built from (`return text;`, `return std::vector<int>{};`).
    template <typename U = T>
        requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, Expected> &&
                 !std::is_same_v<std::remove_cvref_t<U>, Error>)
    Expected(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}
    // A failure: `return Error{"cannot read x: y"};`, or another Expected's `return other.error();`.
    Expected(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

    [[nodiscard]] bool has_value() const { return state_.index() == 0; }
    explicit operator bool() const { return has_value(); }

    // The value; asking for it when there is none is a bug in the caller, reported with the error.
    [[nodiscard]] T& value() & { return checked(*this); }
    [[nodiscard]] const T& value() const& { return checked(*this); }
    [[nodiscard]] T&& value() && { return std::move(checked(*this)); }
    [[nodiscard]] T& operator*() & { return value(); }
    [[nodiscard]] const T& operator*() const& { return value(); }
    [[nodiscard]] T&& operator*() && { return std::move(value()); }
    [[nodiscard]] T* operator->() { return &value(); }
    [[nodiscard]] const T* operator->() const { return &value(); }
    template <typename U>
    [[nodiscard]] T value_or(U&& fallback) const& {
        return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
    }

    // The failure; only when there is no value.
    [[nodiscard]] const Error& error() const {
        if (has_value()) expected_detail::misuse("Expected::error() on a value");
        return std::get<1>(state_);
    }

private:
    template <typename Self>
    static auto& checked(Self& self) {
        if (!self.has_value())
            expected_detail::misuse("Expected::value() on an error: " + std::get<1>(self.state_).message);
        return std::get<0>(self.state_);
    }

    std::variant<T, Error> state_;
};

// Success with nothing to return, or an Error: `return {};` on success.
template <>
class [[nodiscard]] Expected<void> {
public:
    Expected() = default;
    Expected(Error error) : error_(std::move(error)), failed_(true) {}

    [[nodiscard]] bool has_value() const { return !failed_; }
    explicit operator bool() const { return has_value(); }
    void value() const {
        if (failed_) expected_detail::misuse("Expected::value() on an error: " + error_.message);
    }
    [[nodiscard]] const Error& error() const {
        if (!failed_) expected_detail::misuse("Expected::error() on a value");
        return error_;
    }

private:
    Error error_;
    bool failed_ = false;
};

}  // namespace cudacheck
