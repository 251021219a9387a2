#include "util/actions.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <mutex>

namespace cudacheck::actions {

namespace {

std::atomic<Observer*> installed_observer{nullptr};
// Held around each call of the observer, so that detach() returns only when none is under way.
std::mutex observer_mutex;
std::atomic<std::uint64_t> next_id{1};
// Written once by install(), before any step; read-only afterwards.
std::vector<Failure>& installed_failures() {
    static std::vector<Failure> failures;
    return failures;
}

}  // namespace

std::string describe(const Action& action) {
    switch (action.kind) {
        case Kind::load: return fmt::format("loading {}", action.subject);
        case Kind::driver_call: return action.subject;
        case Kind::context: return fmt::format("creating the CUDA context of device {}", action.subject);
        case Kind::handle: return fmt::format("creating a {} handle", action.subject);
    }
    return action.subject;
}

std::string kind_name(Kind kind) {
    switch (kind) {
        case Kind::load: return "load";
        case Kind::driver_call: return "driver_call";
        case Kind::context: return "context";
        case Kind::handle: return "handle";
    }
    return "load";
}

std::optional<Kind> kind_from_name(std::string_view name) {
    for (Kind kind : {Kind::load, Kind::driver_call, Kind::context, Kind::handle})
        if (kind_name(kind) == name) return kind;
    return std::nullopt;
}

void install(Observer* observer, std::vector<Failure> failures) {
    installed_failures() = std::move(failures);
    installed_observer.store(observer, std::memory_order_release);
}

void detach() {
    const std::lock_guard<std::mutex> lock(observer_mutex);
    installed_observer.store(nullptr, std::memory_order_release);
}

const Failure* failed(const Action& action) {
    const std::vector<Failure>& failures = installed_failures();
    const auto found = std::find_if(failures.begin(), failures.end(),
                                    [&](const Failure& failure) { return failure.action == action; });
    return found == failures.end() ? nullptr : &*found;
}

Announced::Announced(const Action& action) {
    if (installed_observer.load(std::memory_order_acquire) == nullptr) return;
    const std::lock_guard<std::mutex> lock(observer_mutex);
    Observer* observer = installed_observer.load(std::memory_order_acquire);
    if (observer == nullptr) return;
    id_ = next_id.fetch_add(1, std::memory_order_relaxed);
    observer->begun(id_, action);
}

Announced::~Announced() {
    if (id_ == 0) return;
    const std::lock_guard<std::mutex> lock(observer_mutex);
    if (Observer* observer = installed_observer.load(std::memory_order_acquire)) observer->ended(id_);
}

}  // namespace cudacheck::actions
