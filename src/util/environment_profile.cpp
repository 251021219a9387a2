#include "util/environment_profile.hpp"

#include <array>
#include <cstddef>

namespace cudacheck {

namespace {
constexpr std::array<std::string_view, 4> profile_names{"none", "dev", "prod", "ci"};
}  // namespace

std::string_view to_string(Profile profile) { return profile_names[static_cast<std::size_t>(profile)]; }

std::optional<Profile> profile_from_string(std::string_view text) {
    for (std::size_t i = 0; i < profile_names.size(); ++i)
        if (profile_names[i] == text) return static_cast<Profile>(i);
    return std::nullopt;
}

}  // namespace cudacheck
