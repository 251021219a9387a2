// What frameworks.builds judges, built from the released wheels' own files (tests/fixtures/frameworks)
// as the frameworks' suites and the message-length suite build it.
#pragma once

#include "probes/python/build_info.hpp"
#include "probes/python/frameworks_probe.hpp"
#include "probes/python/python_packages.hpp"
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

namespace cudacheck::test {

// The build of framework `name` ("PyTorch", "JAX") installed in `site` (a site-packages directory).
inline FrameworkFacts framework_from(const std::string& site, std::string_view name) {
    for (FrameworkBuild& build : read_framework_builds(site, installed_distributions(site)))
        if (build.framework == name) return FrameworkFacts{.build = std::move(build)};
    ADD_FAILURE() << "no " << name << " in " << site;
    return {};
}

// A GPU as the driver describes it, of what frameworks.builds reads: ordinal, name, compute capability.
inline DeviceInfo gpu(int ordinal, std::string name, int major, int minor) {
    DeviceInfo device;
    device.ordinal = ordinal;
    device.name = std::move(name);
    device.cc_major = major;
    device.cc_minor = minor;
    return device;
}

}  // namespace cudacheck::test
