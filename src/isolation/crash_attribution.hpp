// Whether a damaged library file explains a check's crash or hang. The announced loads
// (util/actions.hpp) cover the files cudacheck opens itself; the libraries those load on their own,
// later and possibly during a call (cuDNN's sub-libraries, NVRTC, nvJitLink), are not announced, so
// a check that died in one was a crash (CC902) with a GPU-fault fix. Before it decides that, the
// supervisor asks here: when the process of a check that declares its libraries
// (CheckInfo::libraries) would load a damaged file (probes/library_damage.hpp: the judgement
// libraries.resolution reports as CC605), the crash or hang is that file's finding, CC605, with the
// fix to reinstall or remove it. A crash with no such explanation stays CC902. Files only: the
// supervisor loads no library.
#pragma once

#include "engine/check.hpp"
#include "probes/library_locator.hpp"
#include "report/result.hpp"
#include "util/actions.hpp"
#include "util/activity.hpp"
#include "util/environment.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// How the check's process ended, as the supervisor words it.
struct CheckEnding {
    std::string what;        // "cudnn.conv crashed its process: killed by SIGBUS (Bus error)"
    bool timed_out = false;  // killed at the per-check limit: the result keeps the status `timeout`
};

// The finding (CC605) and the evidence that name the damaged file.
struct ChargedToLibrary {
    Finding finding;
    std::vector<Evidence> evidence;
};

// The damaged file the check's process would load, first in the loader's order, as the finding for
// `ending`; nullopt when the check declares no library or none of them loads a damaged file. Every
// library the table says they load is followed (FollowedOpens::all), as the process may have loaded
// any by the time it died. `cuda_major`: the runtime's, whose sonames the checks open.
[[nodiscard]] std::optional<ChargedToLibrary> charge_to_damaged_library(const CheckInfo& check,
                                                                        const CheckEnding& ending,
                                                                        const LoaderSearch& search, int cuda_major,
                                                                        const Environment& environment);
// The same for a worker of this process: its environment (which workers inherit), its loader search
// and the CUDA runtime cudacheck was built with (whose sonames Probes::library opens).
[[nodiscard]] std::optional<ChargedToLibrary> charge_to_damaged_library(const CheckInfo& check,
                                                                        const CheckEnding& ending);

// What the check's process was doing when it died or hung, besides a damaged library:
// CC902 and CC903 used to send everyone to look for GPU faults, also when a compiler hung or a
// parser crashed on a file. From the activity board (util/activity.hpp) and the announced steps.
struct Circumstances {
    std::string child;      // the program a thread of the check was waiting for (command line)
    std::string last_file;  // the last file it read
    std::string gpu_step;   // a GPU step (util/actions.hpp) one of its threads was in
    bool gpu = false;       // a GPU call may have been in flight: a GPU check, a check that opens CUDA
                            // libraries (their calls are not announced), or a step in flight
};

// For `check`: the board's entries of the threads labelled with it, or, when nothing there says
// more and it was the only check in flight, those of unlabelled threads (probes, helper threads).
[[nodiscard]] Circumstances circumstances_of(const CheckInfo& check, const std::vector<activity::ThreadActivity>& board,
                                             bool only_check_in_flight,
                                             const std::vector<actions::Action>& steps_in_flight);

// The finding for a check whose process died (CC902) or that ran past its limit (CC903) when no
// damaged library explains it: with a GPU call possibly in flight, the catalogue's advice (GPU
// faults); otherwise the message and the fix name the program that was running or the file read
// last, and say that no GPU call was in flight.
[[nodiscard]] Finding ending_finding(Code code, const CheckEnding& ending, const Circumstances& circumstances);

}  // namespace cudacheck
