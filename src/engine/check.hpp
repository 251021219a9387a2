// What a check is: an id, a description, what it needs, and a run() that records its verdict in a
// ResultBuilder. A check never exits the process; an exception it throws becomes an `error` result.
#pragma once

#include "report/result_builder.hpp"
#include "util/environment.hpp"
#include "util/environment_profile.hpp"  // RunOptions::profile

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

class Probes;
struct ProgressFigure;  // engine/progress.hpp
struct LibraryFamily;   // cuda/library_families.hpp

// How much work a run may do. quick: no GPU kernels at all (only probes and queries);
// standard: brief GPU smoke work; full: longer, larger runs.
enum class Level { quick, standard, full };
[[nodiscard]] std::string_view to_string(Level level);
[[nodiscard]] std::optional<Level> level_from_string(std::string_view text);

// host: runs once, before any GPU work. device: runs once per selected device, devices at once.
// multi_device: runs once over every selected device together (peer copies, collectives), at the
// same time as the per-device checks; its result names no device. It may depend on host checks only.
enum class Scope { host, device, multi_device };
[[nodiscard]] std::string_view to_string(Scope scope);  // "host", "device", "multi"

struct CheckInfo {
    std::string id;           // "<area>.<name>", e.g. "driver.libcuda"
    std::string title;        // a few words for listings
    std::string description;  // one line
    Scope scope = Scope::host;
    Level min_level = Level::quick;       // not run below this level (skipped with the reason)
    std::vector<std::string> depends_on = {};  // ids; a failed dependency skips this check
    // Work to start as soon as the run begins, when CUDA will be initialised (e.g. opening a
    // large library in the background). Optional; must not fail or block.
    std::function<void(Probes&)> prepare = {};
    // Every catalogue code this check's findings may carry, but CC901-903, which the engine and the
    // supervisor give to any check. The catalogue's raised_by names exactly the checks that list a
    // code here, and every result the tests see carries only listed codes (tests/unit).
    std::vector<Code> raises = {};
    // What the check answers, as Markdown, for the check index of README.md and docs/checks.md
    // (`cudacheck list --markdown`); `list` prints the one-line description instead.
    std::string answers = {};
    // The CUDA libraries its process opens (Probes::library). A crash or hang of the check is
    // charged to a damaged file one of them would load, its own or one it loads, when there is one
    // (isolation/crash_attribution.hpp); such a check raises Code::library_damaged.
    std::vector<const LibraryFamily*> libraries = {};
    // A burn-in: it heats the GPU or holds it for long (gpu.stress, gpu.memtest). The engine starts
    // it on a device only once every other check of that device, and every multi-device check, has
    // finished, so their timed figures are those of a GPU at its usual clock and temperature (at
    // --level full, cublas.gemm measured after gpu.stress gave BF16 695 TFLOP/s at 1470-1980 MHz
    // against 800 a minute earlier). An ordering only: whatever those checks ended with, the
    // burn-in runs (its own depends_on still skips it). No check may depend on a burn-in.
    bool burn_in = false;
};

// --duration: how long gpu.stress runs its GEMMs on each GPU, and after how long gpu.memtest
// starts no further pattern (both --level full only).
inline constexpr double default_stress_seconds = 20.0;

struct RunOptions {
    Level level = Level::standard;
    std::vector<int> devices;  // CUDA ordinals to check; empty means every visible device
    bool verbose = false;
    double stress_seconds = default_stress_seconds;
    std::vector<std::string> python;  // --python: interpreters or environment roots to look at too
    Profile profile = Profile::none;  // --profile
};

// What a running check can see: the options, the environment and the shared probes.
struct CheckContext {
    const RunOptions& options;
    const Environment& environment;
    Probes& probes;
    std::optional<int> device;  // set for per-device checks
    // Set for multi-device checks: the selected devices its dependencies did not fail for, in
    // ordinal order. It may hold fewer than two; the check then skips with its reason.
    std::vector<int> devices;
    // Where a running check's live figure goes (engine/progress.hpp's report_progress); set by the
    // engine, empty when nobody listens.
    std::function<void(const ProgressFigure&)> progress = {};
    // The GPUs another process used while this check timed its work so far (set by the engine;
    // empty when no one did). A check that judges a rate asks before it calls a GPU slow.
    std::function<std::vector<GpuSharing>()> sharing = {};
};

class Check {
public:
    Check() = default;
    Check(const Check&) = delete;
    Check& operator=(const Check&) = delete;
    virtual ~Check() = default;
    [[nodiscard]] virtual const CheckInfo& info() const = 0;
    virtual void run(CheckContext& context, ResultBuilder& result) const = 0;
};

// A check whose run() is a function: most checks are "gather facts, then judge them".
class FunctionCheck final : public Check {
public:
    using Body = std::function<void(CheckContext&, ResultBuilder&)>;
    FunctionCheck(CheckInfo info, Body body) : info_(std::move(info)), body_(std::move(body)) {}
    [[nodiscard]] const CheckInfo& info() const override { return info_; }
    void run(CheckContext& context, ResultBuilder& result) const override { body_(context, result); }

private:
    CheckInfo info_;
    Body body_;
};

using CheckList = std::vector<std::unique_ptr<Check>>;

}  // namespace cudacheck
