// --profile: what the shell's environment is for. It is the run's vocabulary, but it is said of
// the environment (util/environment.hpp's snapshot) and read below the engine too: env.variables
// judges the environment by it and build planning (`cudacheck env`) writes the environment for it.
#pragma once

#include <optional>
#include <string_view>

namespace cudacheck {

// dev: synchronous launches, one GPU, for debugging; prod: asynchronous launches, no debugging
// variables; ci: reproducible results, one GPU. none: not said.
enum class Profile { none, dev, prod, ci };
[[nodiscard]] std::string_view to_string(Profile profile);  // "none", "dev", "prod", "ci"
[[nodiscard]] std::optional<Profile> profile_from_string(std::string_view text);

}  // namespace cudacheck
