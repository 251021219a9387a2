#include "isolation/crash_attribution.hpp"

#include "probes/library_damage.hpp"
#include "report/catalog.hpp"
#include "util/headline.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cuda_runtime_api.h>  // CUDART_VERSION only: the major whose sonames the checks open
#include <fmt/format.h>

namespace cudacheck {

namespace {

// "It uses libcudnn.so.9; libcudnn_graph.so.9, opened by libcudnn.so.9 itself (dlopen) when a call
// needs it, resolves to /x/libcudnn_graph.so.9 (LD_LIBRARY_PATH entry /x) and is damaged: ..."
std::string explanation(const DamagedLoad& damaged) {
    if (damaged.loaded_how.empty())
        return fmt::format("It uses {}, which resolves to {} ({}) and is damaged: {}", damaged.soname,
                           damaged.resolution.real_path, damaged.resolution.rule, damaged.damage.reason);
    return fmt::format("It uses {}; {}, {}, resolves to {} ({}) and is damaged: {}", damaged.used_soname,
                       damaged.soname, damaged.loaded_how, damaged.resolution.real_path, damaged.resolution.rule,
                       damaged.damage.reason);
}

}  // namespace

std::optional<ChargedToLibrary> charge_to_damaged_library(const CheckInfo& check, const CheckEnding& ending,
                                                          const LoaderSearch& search, int cuda_major,
                                                          const Environment& environment) {
    if (check.libraries.empty()) return std::nullopt;
    const std::vector<DamagedLoad> damaged =
        damaged_loads(check.libraries, cuda_major, search, FollowedOpens::all, environment);
    if (damaged.empty()) return std::nullopt;
    const DamagedLoad& first = damaged.front();
    ChargedToLibrary charged;
    // The headline names the file's library; which copy, by which rule, and its damage are evidence.
    charged.finding =
        make_finding(Code::library_damaged,
                     sys::clip(fmt::format("{}: {} resolves to a damaged file", ending.what, first.soname),
                               sys::max_headline),
                     damaged_copy_remediation(first.resolution, first.installed_by),
                     ending.timed_out ? std::optional<Status>(Status::timeout) : std::nullopt);
    charged.evidence.push_back({"damaged_copy", first.resolution.real_path});
    charged.evidence.push_back({"damaged", fmt::format("{}. {}", ending.what, explanation(first))});
    charged.evidence.push_back({"loaded_by", first.loaded_how.empty()
                                                 ? fmt::format("{}, which {} opens", first.soname, check.id)
                                                 : first.loaded_how});
    for (std::size_t i = 1; i < damaged.size(); ++i)
        charged.evidence.push_back(
            {"also_damaged", fmt::format("{} at {}: {}", damaged[i].soname, damaged[i].resolution.real_path,
                                         damaged[i].damage.reason)});
    return charged;
}

std::optional<ChargedToLibrary> charge_to_damaged_library(const CheckInfo& check, const CheckEnding& ending) {
    if (check.libraries.empty()) return std::nullopt;  // no loader search to read
    const Environment environment = Environment::from_process();
    return charge_to_damaged_library(check, ending, loader_search(environment), CUDART_VERSION / 1000, environment);
}

namespace {

// A command line or a path for a message: printable, and cut (a `python -c` script is long).
std::string shown(std::string_view text, std::size_t limit = 200) {
    std::string printable = sys::printable(text);
    if (printable.size() > limit) printable = printable.substr(0, limit) + "...";
    return printable;
}

}  // namespace

Circumstances circumstances_of(const CheckInfo& check, const std::vector<activity::ThreadActivity>& board,
                               bool only_check_in_flight, const std::vector<actions::Action>& steps_in_flight) {
    Circumstances found;
    const auto gather = [&](bool labelled) {
        const activity::ThreadActivity* latest_file = nullptr;
        for (const activity::ThreadActivity& thread : board) {
            if (labelled ? thread.check != check.id : !thread.check.empty()) continue;
            if (found.child.empty() && !thread.child.empty()) found.child = thread.child;
            if (!thread.last_file.empty() && (latest_file == nullptr || thread.file_order > latest_file->file_order))
                latest_file = &thread;
            if (found.gpu_step.empty() && thread.gpu_step_in_flight) found.gpu_step = thread.last_gpu_step;
        }
        if (latest_file != nullptr) found.last_file = latest_file->last_file;
    };
    gather(true);
    if (found.child.empty() && found.last_file.empty() && found.gpu_step.empty() && only_check_in_flight) gather(false);
    found.gpu =
        check.scope != Scope::host || !check.libraries.empty() || !steps_in_flight.empty() || !found.gpu_step.empty();
    return found;
}

Finding ending_finding(Code code, const CheckEnding& ending, const Circumstances& circumstances) {
    const std::optional<Status> status = ending.timed_out ? std::optional<Status>(Status::timeout) : std::nullopt;
    const std::string report = "report it with `cudacheck -v -o report.json` attached";
    // A program the check waits for is the likeliest culprit whatever else runs: it is named first.
    if (!circumstances.child.empty()) {
        const std::string command = shown(circumstances.child);
        // The headline names the command line when it fits, else the program; the whole command line
        // is the remediation's and the evidence's.
        const auto named = [&](std::string_view how) {
            std::string line = fmt::format("{}, {} `{}`", ending.what, how, command);
            if (line.size() <= sys::max_headline) return line;
            return sys::clip(
                fmt::format("{}, {} `{}`", ending.what, how,
                            shown(sys::file_name_of(circumstances.child.substr(0, circumstances.child.find(' '))), 40)),
                sys::max_headline);
        };
        if (ending.timed_out)
            return make_finding(code, named("waiting for"),
                                fmt::format("Run `{}` by hand to see why it does not finish (a compiler or interpreter "
                                            "that hangs, waits for "
                                            "input or a lock, or is a wrapper that never returns); fix or remove it, "
                                            "or raise --timeout "
                                            "SECONDS if it is only slow.",
                                            command),
                                status);
        return make_finding(code, named("while it ran"),
                            fmt::format("Run `{}` by hand to see what it does to the process that starts it; no GPU "
                                        "call was in flight. "
                                        "If it runs cleanly, {}.",
                                        command, report),
                            status);
    }
    if (circumstances.gpu) {
        if (!circumstances.gpu_step.empty())
            return make_finding(code,
                                sys::clip(fmt::format("{}, during a GPU step: {}", ending.what, circumstances.gpu_step),
                                          sys::max_headline),
                                {}, status);
        return make_finding(code, ending.what, {}, status);  // the catalogue's advice: GPU faults, the driver
    }
    if (!circumstances.last_file.empty()) {
        const std::string file = shown(circumstances.last_file);
        return make_finding(
            code, sys::clip(fmt::format("{}; no GPU call was in flight", ending.what), sys::max_headline),
            fmt::format("Look at {} (`ls -l`, its size and content): a file that is very large or deeply nested, or "
                        "one on a file system that "
                        "does not answer, can do this; move it aside and run again to confirm{}, and {}.",
                        file, ending.timed_out ? " (raise --timeout SECONDS if the machine is only slow)" : "", report),
            status);
    }
    return make_finding(code, fmt::format("{}; no GPU call was in flight", ending.what),
                        ending.timed_out
                            ? fmt::format("Raise --timeout SECONDS if the machine is only slow; otherwise {}.", report)
                            : fmt::format("This is a cudacheck bug or a damaged file it read: {}.", report),
                        status);
}

}  // namespace cudacheck
