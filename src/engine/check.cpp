#include "engine/check.hpp"

#include <array>

namespace cudacheck {

namespace {
constexpr std::array<std::string_view, 3> level_names{"quick", "standard", "full"};
}  // namespace

std::string_view to_string(Scope scope) {
    switch (scope) {
        case Scope::host: return "host";
        case Scope::device: return "device";
        case Scope::multi_device: return "multi";
    }
    return "host";
}

std::string_view to_string(Level level) { return level_names[static_cast<std::size_t>(level)]; }

std::optional<Level> level_from_string(std::string_view text) {
    for (std::size_t i = 0; i < level_names.size(); ++i)
        if (level_names[i] == text) return static_cast<Level>(i);
    return std::nullopt;
}

}  // namespace cudacheck
