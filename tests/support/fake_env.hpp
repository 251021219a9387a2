// Shared by the fake driver libraries: their answers come from FAKE_* variables read at each call,
// so one loaded fake serves every test in a process.
//
// Per device: FAKE_GPU_STATE names a JSON file whose "devices" array holds, for each GPU by index,
// an object of the same FAKE_* names with the values for that GPU alone (a string or a number),
// in the manner of DCGM's NVML injection library, which replays per-GPU captures:
//   {"devices": [{}, {"FAKE_NVML_ECC_ERRORS": "0,2,0,2", "FAKE_NVML_CLOCK_EVENTS": "0x8"}]}
// is GPU 0 healthy and GPU 1 with uncorrectable ECC errors and a hardware slowdown. A name a GPU's
// object lacks falls back to the variable, then to the default.
#pragma once

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace cudacheck::fake {

inline int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

inline const char* env_text(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : fallback;
}

// The value FAKE_GPU_STATE gives `name` for GPU `device`, as text; false when it gives none (no
// file, unreadable or malformed JSON, no such GPU or name: the fakes then answer as without it).
inline bool state_value(int device, const char* name, std::string& value) {
    const char* path = std::getenv("FAKE_GPU_STATE");
    if (path == nullptr || *path == '\0' || device < 0) return false;
    std::ifstream in(path);
    const nlohmann::json state = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!state.is_object() || !state.contains("devices") || !state["devices"].is_array()) return false;
    const nlohmann::json& devices = state["devices"];
    if (static_cast<std::size_t>(device) >= devices.size() || !devices[device].is_object()) return false;
    const auto found = devices[device].find(name);
    if (found == devices[device].end()) return false;
    if (found->is_string()) value = found->get<std::string>();
    else if (found->is_number()) value = found->dump();
    else return false;
    return true;
}

// For GPU `device`: its own value from FAKE_GPU_STATE, else the variable, else the fallback.
// The text stays valid until the next call on this thread.
inline const char* device_text(int device, const char* name, const char* fallback) {
    thread_local std::string value;
    if (state_value(device, name, value)) return value.c_str();
    return env_text(name, fallback);
}

inline int device_int(int device, const char* name, int fallback) {
    std::string value;
    if (state_value(device, name, value)) return value.empty() ? fallback : std::atoi(value.c_str());
    return env_int(name, fallback);
}

}  // namespace cudacheck::fake
