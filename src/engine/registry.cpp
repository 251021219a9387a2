#include "engine/registry.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

namespace cudacheck {

Registry::Registry(CheckList checks) : checks_(std::move(checks)) {
    for (std::size_t i = 0; i < checks_.size(); ++i) {
        const CheckInfo& info = checks_[i]->info();
        for (std::size_t j = 0; j < i; ++j)
            if (checks_[j]->info().id == info.id) throw std::logic_error("duplicate check id " + info.id);
        // Dependencies must be registered earlier: that keeps the graph acyclic and the order meaningful.
        for (const std::string& dependency : info.depends_on) {
            const std::size_t at = index_of(dependency);
            if (at >= i)
                throw std::logic_error(info.id + " depends on " + dependency + ", which is not registered before it");
            // A multi-device check starts with the per-device checks, not after them.
            if (info.scope == Scope::multi_device && checks_[at]->info().scope != Scope::host)
                throw std::logic_error(info.id + " runs over several devices and may depend on host checks only, not " +
                                       dependency);
            // A burn-in starts after every other GPU check of its device (engine.cpp): a check
            // waiting for one would wait for itself.
            if (checks_[at]->info().burn_in)
                throw std::logic_error(info.id + " depends on " + dependency +
                                       ", a burn-in, which runs after the other checks of its device");
        }
    }
}

const Check* Registry::find(std::string_view id) const {
    for (const auto& check : checks_)
        if (check->info().id == id) return check.get();
    return nullptr;
}

std::size_t Registry::index_of(std::string_view id) const {
    for (std::size_t i = 0; i < checks_.size(); ++i)
        if (checks_[i]->info().id == id) return i;
    return checks_.size();
}

std::vector<std::string> Registry::match(std::string_view token) const {
    std::string prefix(sys::trim(token));
    if (!prefix.empty() && prefix.back() == '.') prefix.pop_back();
    std::vector<std::string> ids;
    if (prefix.empty()) return ids;
    for (const auto& check : checks_) {
        const std::string& id = check->info().id;
        if (id == prefix || sys::starts_with(id, prefix + ".")) ids.push_back(id);
    }
    return ids;
}

std::vector<std::string> Registry::closest(std::string_view token, std::size_t count) const {
    std::vector<std::pair<std::size_t, std::string>> scored;
    const std::string wanted = sys::to_lower(token);
    for (const auto& check : checks_) {
        const std::string& id = check->info().id;
        const std::string area = id.substr(0, id.find('.'));
        const std::string name = id.substr(id.find('.') + 1);
        // Score against the whole id and against its parts, so "cublas" finds "cublas.gemm"
        // and "libcuda" finds "driver.libcuda".
        std::size_t score = std::min(
            {sys::edit_distance(wanted, id), sys::edit_distance(wanted, area), sys::edit_distance(wanted, name)});
        if (id.find(wanted) != std::string::npos) score = 0;
        scored.emplace_back(score, id);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> ids;
    for (const auto& [score, id] : scored) {
        if (ids.size() == count) break;
        ids.push_back(id);
    }
    return ids;
}

Selection select_checks(const Registry& registry, const std::vector<std::string>& only,
                        const std::vector<std::string>& skip) {
    const auto expand = [&](const std::vector<std::string>& tokens) {
        std::vector<std::string> ids;
        for (const std::string& token : tokens) {
            if (sys::trim(token).empty()) continue;
            std::vector<std::string> matched = registry.match(token);
            if (matched.empty())
                throw SelectionError(fmt::format("unknown check '{}'; closest: {} (see `cudacheck list`)", token,
                                                 fmt::join(registry.closest(token), ", ")));
            ids.insert(ids.end(), matched.begin(), matched.end());
        }
        return ids;
    };
    const std::vector<std::string> only_ids = expand(only);
    const std::vector<std::string> skip_ids = expand(skip);
    const auto contains = [](const std::vector<std::string>& ids, const std::string& id) {
        return std::find(ids.begin(), ids.end(), id) != ids.end();
    };

    std::vector<bool> wanted(registry.checks().size(), only_ids.empty());
    for (const std::string& id : only_ids) wanted[registry.index_of(id)] = true;
    for (const std::string& id : skip_ids) wanted[registry.index_of(id)] = false;
    // Pull in dependencies (transitively: walk backwards, since dependencies come earlier).
    for (std::size_t i = wanted.size(); i-- > 0;) {
        if (!wanted[i]) continue;
        for (const std::string& dependency : registry.checks()[i]->info().depends_on)
            if (!contains(skip_ids, dependency)) wanted[registry.index_of(dependency)] = true;
    }

    Selection selection;
    selection.explicitly_skipped = skip_ids;
    for (std::size_t i = 0; i < wanted.size(); ++i)
        if (wanted[i]) selection.checks.push_back(registry.checks()[i].get());
    return selection;
}

namespace {

struct Registered {
    int position = 0;
    CheckRegistration::Factory make = nullptr;
};

// A function-local static: registrations run during static initialisation, in an order across
// files that C++ leaves open, and this list must exist before the first of them.
std::vector<Registered>& registrations() {
    static std::vector<Registered> list;
    return list;
}

}  // namespace

CheckRegistration::CheckRegistration(int position, Factory make) { registrations().push_back({position, make}); }

CheckList builtin_checks() {
    std::vector<Registered> sorted = registrations();
    std::sort(sorted.begin(), sorted.end(),
              [](const Registered& a, const Registered& b) { return a.position < b.position; });
    CheckList checks;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (i > 0 && sorted[i].position == sorted[i - 1].position)
            throw std::logic_error(fmt::format("two checks are registered at report position {}", sorted[i].position));
        checks.push_back(sorted[i].make());
    }
    return checks;
}

}  // namespace cudacheck
