#include "util/trace.hpp"

#include "util/atomic_file.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#ifndef CUDACHECK_NO_NVTX
#include <nvtx3/nvToolsExt.h>
#endif
#include <mutex>
#include <nlohmann/json.hpp>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck::trace {
namespace {

using Clock = std::chrono::steady_clock;

struct Event {
    std::string name;
    int thread;
    Clock::time_point begin;
    Clock::time_point end;
};

std::atomic<bool> on{false};
#ifdef CUDACHECK_NO_NVTX
// Built without NVTX ranges (-DCUDACHECK_NVTX=OFF): the calls below are compiled out.
constexpr bool nvtx_on = false;
void nvtxNameOsThreadA(uint32_t, const char*) {}
void nvtxRangePushA(const char*) {}
void nvtxRangePop() {}
#else
// Whether a tool is attached to NVTX, once (NVTX reads the same variable when first called).
const bool nvtx_on = [] {
    const char* injection = std::getenv("NVTX_INJECTION64_PATH");
    return injection != nullptr && *injection != '\0';
}();
#endif
std::mutex mutex;
std::string path;
Clock::time_point origin;
std::vector<Event> events;
std::map<std::thread::id, int> thread_numbers;
std::map<int, std::string> thread_names;
int next_thread_number = 1;

// Under `mutex`.
int this_thread_number() {
    const auto [entry, added] = thread_numbers.emplace(std::this_thread::get_id(), next_thread_number);
    if (added) ++next_thread_number;
    return entry->second;
}

double microseconds(Clock::time_point time) { return std::chrono::duration<double, std::micro>(time - origin).count(); }

}  // namespace

void start(std::optional<std::string_view> file) {
    if (!file || file->empty()) return;
    const std::lock_guard<std::mutex> lock(mutex);
    path = std::string(*file);
    origin = Clock::now();
    on = true;
}

bool enabled() { return on; }

void name_thread(const std::string& name) {
    if (nvtx_on) nvtxNameOsThreadA(static_cast<uint32_t>(::syscall(SYS_gettid)), name.c_str());
    if (!on) return;
    const std::lock_guard<std::mutex> lock(mutex);
    // A new row each time: a finished thread's id can be reused by a later thread, whose spans
    // must not appear under the earlier one's name.
    const int number = next_thread_number++;
    thread_numbers[std::this_thread::get_id()] = number;
    thread_names[number] = name;
}

void record(const std::string& name, Clock::time_point begin, Clock::time_point end) {
    if (!on) return;
    const std::lock_guard<std::mutex> lock(mutex);
    events.push_back(Event{name, this_thread_number(), begin, end});
}

Span::Span(std::string name)
    : name_(on || nvtx_on ? std::move(name) : std::string()), begin_(on ? Clock::now() : Clock::time_point{}) {
    if (nvtx_on) nvtxRangePushA(name_.c_str());
}

Span::~Span() {
    if (nvtx_on) nvtxRangePop();
    if (on && begin_ != Clock::time_point{}) record(name_, begin_, Clock::now());
}

void write() {
    if (!on) return;
    const std::lock_guard<std::mutex> lock(mutex);
    nlohmann::json trace = nlohmann::json::array();
    // Where this timeline's zero lies on CLOCK_MONOTONIC (steady_clock on Linux), shared by every
    // process of the machine: traces of processes run side by side can be lined up.
    trace.push_back(
        {{"ph", "M"},
         {"name", "clock_origin"},
         {"pid", 1},
         {"args", {{"monotonic_ms", std::chrono::duration<double, std::milli>(origin.time_since_epoch()).count()}}}});
    for (const auto& [thread, name] : thread_names)
        trace.push_back(
            {{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", thread}, {"args", {{"name", name}}}});
    for (const Event& event : events)
        trace.push_back({{"ph", "X"},
                         {"name", event.name},
                         {"pid", 1},
                         {"tid", event.thread},
                         {"ts", microseconds(event.begin)},
                         {"dur", microseconds(event.end) - microseconds(event.begin)}});
    if (Expected<AtomicFile> file = AtomicFile::create(path))
        (void)file->commit(trace.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace cudacheck::trace
