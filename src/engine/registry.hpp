// The set of known checks and how a command line selects among them.
#pragma once

#include "engine/check.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

class Registry {
public:
    explicit Registry(CheckList checks);

    [[nodiscard]] const CheckList& checks() const { return checks_; }
    [[nodiscard]] const Check* find(std::string_view id) const;
    // Position in registration order, which is also the order of the report.
    [[nodiscard]] std::size_t index_of(std::string_view id) const;

    // Ids matching a token: the exact id, or every id under a prefix ("driver" or "driver.").
    [[nodiscard]] std::vector<std::string> match(std::string_view token) const;
    // Up to `count` known ids closest to an unknown token (edit distance, prefixes first).
    [[nodiscard]] std::vector<std::string> closest(std::string_view token, std::size_t count = 3) const;

private:
    CheckList checks_;
};

// Which checks run. --only/--skip take comma lists of ids or prefixes; dependencies of selected
// checks are added unless the user skipped them explicitly.
struct Selection {
    std::vector<const Check*> checks;    // registration order
    std::vector<std::string> explicitly_skipped;
};

// Thrown for an unknown id or prefix; the message names the closest known ids.
class SelectionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[nodiscard]] Selection select_checks(const Registry& registry, const std::vector<std::string>& only,
                                      const std::vector<std::string>& skip);

// Every check registers itself from its own file (src/checks/<area>_<name>.cpp), when the program
// starts: adding a check adds one file and edits no list (docs/architecture.md).
//   const CheckRegistration host_os_registration{100, make_host_os_check};
// `position` is the check's place in the report and in `cudacheck list`, ascending; a check's
// dependencies must have lower positions (the Registry refuses otherwise). The built-in checks take
// multiples of 100, so that a new check fits between two without renumbering.
class CheckRegistration {
public:
    using Factory = std::unique_ptr<Check> (*)();
    CheckRegistration(int position, Factory make);
};

// A new instance of every registered check, by position. Throws std::logic_error when two
// registrations share a position (the report order would depend on the link order).
[[nodiscard]] CheckList builtin_checks();

}  // namespace cudacheck
