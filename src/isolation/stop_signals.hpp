// SIGINT, SIGTERM and SIGHUP during a run: they must not kill cudacheck, which then stops its worker
// and still writes the partial report. The handler only records the signal and wakes the
// supervision loop through a pipe it polls. `cudacheck run` installs them first, before any
// temporary file exists (a signal in the first milliseconds of `-o report.json` would otherwise
// leave `.report.json.tmp.XXXXXX` behind), and hands them to the supervisor.
#pragma once

namespace cudacheck {

// Installs the handlers for its lifetime and restores the previous ones after. A stop signal that
// was ignored when it was created stays ignored (`nohup cudacheck`, or `cudacheck &` from a
// script: SIGHUP, or SIGINT, is then meant not to stop it). Meanwhile SIGPIPE is ignored (a worker
// that died before reading its job makes write() fail, not kill us), and SIGXFSZ is caught and
// dropped, so that a write past the file-size limit (`ulimit -f`) fails with EFBIG, which the
// writer reports, instead of killing the process with a half-written file. Handlers that catch
// are reset by exec: the worker starts with the default ones. One at a time (the handler has one
// pipe).
class StopSignals {
public:
    enum class OnSignal {
        // Record it and make fd() readable: the supervision loop stops the worker, and the run
        // ends with a partial report.
        stop_the_run,
        // Nothing polls (--no-isolation: the checks run in this process): remove every
        // AtomicFile's temporary file and exit with 128 + the signal at once.
        exit_now,
    };

    explicit StopSignals(OnSignal on_signal = OnSignal::stop_the_run);
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
    ~StopSignals();

    // Readable once a stop signal arrived; poll it with the worker's pipes.
    [[nodiscard]] int fd() const;
    // SIGINT, SIGTERM or SIGHUP once one arrived, else 0.
    [[nodiscard]] int received() const;
};

}  // namespace cudacheck
