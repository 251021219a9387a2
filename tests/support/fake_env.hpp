// Shared by the fake driver libraries: their answers come from FAKE_* variables read at each call,
// so one loaded fake serves every test in a process.
#pragma once

#include <cstdlib>

namespace cudacheck::fake {

inline int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

inline const char* env_text(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : fallback;
}

}  // namespace cudacheck::fake
