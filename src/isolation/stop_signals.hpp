// SIGINT and SIGTERM while a run is supervised: they must not kill the supervisor, which then
// stops its worker and still writes the partial report. The handler only records the signal and
// wakes the supervision loop through a pipe it polls.
#pragma once

namespace cudacheck {

// Installs the handlers for its lifetime and restores the previous ones after. SIGPIPE is ignored
// meanwhile: a worker that died before reading its job makes write() fail, not kill us. One at a
// time (the handler has one pipe).
class StopSignals {
public:
    StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
    ~StopSignals();

    // Readable once a stop signal arrived; poll it with the worker's pipes.
    [[nodiscard]] int fd() const;
    // SIGINT or SIGTERM once one arrived, else 0.
    [[nodiscard]] int received() const;
};

}  // namespace cudacheck
