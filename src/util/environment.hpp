// A snapshot of the process environment. Checks read variables through it, never through getenv,
// so that tests can run a check against any environment without touching the real one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace cudacheck {

class Environment {
public:
    Environment() = default;
    explicit Environment(std::map<std::string, std::string, std::less<>> variables)
        : variables_(std::move(variables)) {}
    // The environment of this process (from environ).
    [[nodiscard]] static Environment from_process();

    // Empty optional when unset; an empty string when set to "".
    [[nodiscard]] std::optional<std::string> get(std::string_view name) const;
    [[nodiscard]] bool is_set(std::string_view name) const { return get(name).has_value(); }
    void set(std::string name, std::string value) { variables_[std::move(name)] = std::move(value); }
    void unset(std::string_view name);
    [[nodiscard]] const std::map<std::string, std::string, std::less<>>& all() const { return variables_; }

private:
    std::map<std::string, std::string, std::less<>> variables_;
};

}  // namespace cudacheck
