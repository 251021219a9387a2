// A timeline of one run, for finding where a slow run spends its time: with CUDACHECK_TRACE=FILE
// the process that runs the checks writes each check, each wait for a GPU another check holds,
// each section timed alone on a GPU and the checks' own phases, in the Chrome trace event format
// (open FILE in https://ui.perfetto.dev or chrome://tracing). Off, it costs one flag test per span.
// docs/performance.md ("Where the time goes") shows how it is used.
//
// Every span is also an NVTX range (NVIDIA Tools Extension, the header-only NVTX 3 of the toolkit,
// which links nothing), and each check's thread is named, so that `nsys profile cudacheck` shows
// the same timeline beside the GPU's. NVTX talks to a tool only when one is attached:
// NVTX_INJECTION64_PATH names its library (nsys sets it); without it no NVTX call is made at all.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace cudacheck::trace {

// Turns tracing on when `file` (CUDACHECK_TRACE's value) names one; the timeline starts now.
void start(std::optional<std::string_view> file);
[[nodiscard]] bool enabled();
// Writes the file (atomically) with every span so far; a no-op when tracing is off.
void write();

// Names this thread in the timeline (the check it runs, e.g. "cublas.gemm[0]").
void name_thread(const std::string& name);

// Records the time from construction to destruction as `name` on this thread.
class Span {
public:
    explicit Span(std::string name);
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;
    ~Span();

private:
    std::string name_;
    std::chrono::steady_clock::time_point begin_;
};

// Records a span that has already ended.
void record(const std::string& name, std::chrono::steady_clock::time_point begin,
            std::chrono::steady_clock::time_point end);

}  // namespace cudacheck::trace
