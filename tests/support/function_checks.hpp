// Checks made of a lambda (FunctionCheck) for the engine's and the registry's tests, and driver
// facts of two fake GPUs for the probes (ProbeSettings::collect_driver).
#pragma once

#include "engine/check.hpp"
#include "probes/driver_probe.hpp"
#include "report/catalog.hpp"
#include "report/result_builder.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck::test {

using Body = FunctionCheck::Body;

inline std::unique_ptr<Check> make_check(std::string id, Body body, std::vector<std::string> depends_on = {},
                                         Scope scope = Scope::host, Level level = Level::quick) {
    return std::make_unique<FunctionCheck>(CheckInfo{.id = std::move(id),
                                                     .title = "title",
                                                     .description = "description",
                                                     .scope = scope,
                                                     .min_level = level,
                                                     .depends_on = std::move(depends_on)},
                                           std::move(body));
}

inline Body passing(std::string message = "fine") {
    return [message](CheckContext&, ResultBuilder& result) { result.summary(message); };
}

inline Body failing(Code code) {
    return [code](CheckContext&, ResultBuilder& result) { result.add(code, "broken"); };
}

inline DriverFacts two_fake_devices(bool) {
    DriverFacts facts;
    facts.init_result = 0;
    facts.device_count = 2;
    for (int ordinal = 0; ordinal < 2; ++ordinal) {
        DeviceInfo device;
        device.ordinal = ordinal;
        device.name = "Fake GPU";
        facts.devices.push_back(device);
    }
    return facts;
}

}  // namespace cudacheck::test
