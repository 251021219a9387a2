#include "util/environment.hpp"

extern char** environ;

namespace cudacheck {

Environment Environment::from_process() {
    std::map<std::string, std::string, std::less<>> variables;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view text = *entry;
        const std::size_t equals = text.find('=');
        if (equals == std::string_view::npos) continue;
        variables.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
    }
    return Environment(std::move(variables));
}

std::optional<std::string> Environment::get(std::string_view name) const {
    const auto it = variables_.find(name);
    if (it == variables_.end()) return std::nullopt;
    return it->second;
}

void Environment::unset(std::string_view name) {
    const auto it = variables_.find(name);
    if (it != variables_.end()) variables_.erase(it);
}

}  // namespace cudacheck
