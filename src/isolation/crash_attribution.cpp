#include "isolation/crash_attribution.hpp"

#include "cudacheck/catalog.hpp"
#include "probes/library_damage.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION only: the major whose sonames the checks open
#include <fmt/format.h>

namespace cudacheck {

namespace {

// "It uses libcudnn.so.9; libcudnn_graph.so.9, opened by libcudnn.so.9 itself (dlopen) when a call
// needs it, resolves to /x/libcudnn_graph.so.9 (LD_LIBRARY_PATH entry /x) and is damaged: ..."
std::string explanation(const DamagedLoad& damaged) {
    if (damaged.loaded_how.empty())
        return fmt::format("It uses {}, which resolves to {} ({}) and is damaged: {}", damaged.soname, damaged.resolution.real_path,
                           damaged.resolution.rule, damaged.damage.reason);
    return fmt::format("It uses {}; {}, {}, resolves to {} ({}) and is damaged: {}", damaged.used_soname, damaged.soname, damaged.loaded_how,
                       damaged.resolution.real_path, damaged.resolution.rule, damaged.damage.reason);
}

}  // namespace

std::optional<ChargedToLibrary> charge_to_damaged_library(const CheckInfo& check, const CheckEnding& ending, const LoaderSearch& search,
                                                          int cuda_major, const Environment& environment) {
    if (check.libraries.empty()) return std::nullopt;
    const std::vector<DamagedLoad> damaged = damaged_loads(check.libraries, cuda_major, search, FollowedOpens::all, environment);
    if (damaged.empty()) return std::nullopt;
    const DamagedLoad& first = damaged.front();
    ChargedToLibrary charged;
    charged.finding = make_finding(Code::library_damaged, fmt::format("{}. {}", ending.what, explanation(first)),
                                   damaged_copy_remediation(first.resolution, first.installed_by),
                                   ending.timed_out ? std::optional<Status>(Status::timeout) : std::nullopt);
    charged.evidence.push_back({"damaged_copy", first.resolution.real_path});
    charged.evidence.push_back({"loaded_by", first.loaded_how.empty() ? fmt::format("{}, which {} opens", first.soname, check.id) : first.loaded_how});
    for (std::size_t i = 1; i < damaged.size(); ++i)
        charged.evidence.push_back({"also_damaged", fmt::format("{} at {}: {}", damaged[i].soname, damaged[i].resolution.real_path, damaged[i].damage.reason)});
    return charged;
}

std::optional<ChargedToLibrary> charge_to_damaged_library(const CheckInfo& check, const CheckEnding& ending) {
    if (check.libraries.empty()) return std::nullopt;  // no loader search to read
    const Environment environment = Environment::from_process();
    return charge_to_damaged_library(check, ending, loader_search(environment), CUDART_VERSION / 1000, environment);
}

}  // namespace cudacheck
