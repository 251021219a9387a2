// The steps a check process takes outside any check's own code that can kill or hang it: opening a
// library, cuInit, creating a GPU's context, creating a library handle. Each is announced before it
// starts and when it ends (to the supervisor, through the Observer the worker installs), so that a
// death or a hang is charged to that step, never to whichever check happened to be next; a step
// that failed so is not taken again by the next process (`failed` answers), and the checks that
// need it report why instead of dying on it too.
//
// Process-wide: a check process runs one job. Without an observer (tests, `cudacheck` in process)
// announcing costs one relaxed load.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck::actions {

enum class Kind { load, driver_call, context, handle };

struct Action {
    Kind kind = Kind::load;
    // load: the file (or the soname, when the loader's pick is unknown); driver_call: "cuInit",
    // "nvmlInit"; context: the device ordinal; handle: "cuBLAS on device 0".
    std::string subject;
    auto operator<=>(const Action&) const = default;
};

// What became of an action in an earlier check process of the same run.
struct Failure {
    Action action;
    std::string how;         // "killed the check process (SIGSEGV, Segmentation fault)", "did not finish within 20 s
                             // (--timeout)"
    bool timed_out = false;
    bool operator==(const Failure&) const = default;
};

// "loading /x/libcublas.so.13", "cuInit", "creating the CUDA context of device 0", "creating a cuBLAS handle on device
// 0".
[[nodiscard]] std::string describe(const Action& action);
[[nodiscard]] std::string kind_name(Kind kind);  // "load", "driver_call", "context", "handle"
[[nodiscard]] std::optional<Kind> kind_from_name(std::string_view name);

class Observer {
public:
    virtual ~Observer() = default;
    // Called from the thread that takes the step; `id` is unique in the process.
    virtual void begun(std::uint64_t id, const Action& action) = 0;
    virtual void ended(std::uint64_t id) = 0;
};

// Installs the process's observer and the failures of earlier processes; once, before any step.
void install(Observer* observer, std::vector<Failure> failures);
// No more announcements (the observer is going away); returns once none is being made. The
// failures stay.
void detach();

// The failure of `action` in an earlier process of this run, if it failed: do not take it again.
[[nodiscard]] const Failure* failed(const Action& action);

// Announces a step for its lifetime.
class Announced {
public:
    explicit Announced(const Action& action);
    ~Announced();
    Announced(const Announced&) = delete;
    Announced& operator=(const Announced&) = delete;

private:
    std::uint64_t id_ = 0;
};

}  // namespace cudacheck::actions
