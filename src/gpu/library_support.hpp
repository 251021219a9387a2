// What every library check does first: open the library (a failure is a finding naming the paths
// tried and the package to install), record which file loaded, and resolve the functions it uses.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/library_version.hpp"
#include "bind/symbols.hpp"
#include "engine/check.hpp"
#include "gpu/cuda_runtime.hpp"
#include "probes/cuda_libraries.hpp"
#include "probes/library_locator.hpp"

#include <concepts>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck::gpu {

// The CheckInfo of a per-device check built on a CUDA library, from the check's own (id, title,
// description, answers, its own codes, dependencies and preparation): per device, at standard
// level or the check's own if higher, after cuda.devices; it opens the library in the background
// as soon as the run starts (then runs the check's own `prepare`), declares it first
// (CheckInfo::libraries), and raises what every such check can (a CUDA error, out of memory, a
// wrong result, the library missing, damaged, lacking a symbol or failing a call) before the
// check's own `raises`.
//   gpu::library_check_info({.id = "cufft.fft", .title = ..., .description = ..., .answers = ...}, cuda_library::cufft)
[[nodiscard]] CheckInfo library_check_info(CheckInfo check, const LibraryFamily& library);

// The library, or nullptr after adding a library_not_found finding. Adds evidence either way.
[[nodiscard]] const LoadedLibrary* require_library(CheckContext& context, ResultBuilder& result,
                                                   const LibraryFamily& library);

// For a library that cannot be loaded: the copies libraries.resolution found elsewhere on this
// machine, and what they mean for the fix: a copy of the same soname (add its directory to the
// loader's path), or only copies for other CUDA majors (install the one this CUDA needs). An empty
// remediation when there is no copy at all.
struct CopiesAdvice {
    std::vector<std::string> copies;  // "<path> (<version>, <origin>)"
    std::string remediation;
};
[[nodiscard]] CopiesAdvice advise_on_copies(const LibraryFacts& facts, std::string_view family, std::string_view soname,
                                            std::string_view install_hint);

// Binds `api` from the library by its symbol table (bind/symbols.hpp); false, after adding a
// library_symbol_missing finding naming every symbol it lacks, when one is missing.
//   if (!gpu::bind_library(*library, cublas_symbols, api, result)) return;
[[nodiscard]] bool report_missing_symbols(const LoadedLibrary& library, const std::vector<std::string>& missing,
                                          ResultBuilder& result);
template <typename Api, std::size_t Size>
[[nodiscard]] bool bind_library(const LoadedLibrary& library, const LibrarySymbol<Api> (&symbols)[Size], Api& api,
                                ResultBuilder& result) {
    return report_missing_symbols(library, bind_symbols(library.library, symbols, api), result);
}

// The same for entry points of the libcuda the probes opened and bound (bind/cuda_driver), whose
// absence is the driver's defect (libcuda_symbol_missing, as driver.libcuda reports it), not a CUDA
// library's.
[[nodiscard]] bool report_missing_libcuda_symbols(const DynamicLibrary& libcuda,
                                                  const std::vector<std::string>& missing, ResultBuilder& result);

// A failed call of a library as a finding with `code`: the call and the status named, and what the
// library's binding says to do about that status.
template <typename Library>
void report_failure(ResultBuilder& result, Code code, const LibraryFailure<Library>& failure) {
    result.add(code, failure.what(), failure.remediation());
}

// A library binding's tag (bind/library_failure.hpp) that says what to do about each status.
template <typename Library>
concept RemediesStatus = requires(typename Library::Status status) {
    { Library::remediation(status) } -> std::convertible_to<std::string>;
};

// The run() of a check built on one CUDA library, whose binding's tag is `Library`: the library
// opened (require_library), its functions bound from `symbols` (bind_library), `versions(library,
// api)` recording its version as evidence (false: the GPU work is not to run, after the finding
// that says why), then `body(library, api, device)` on the check's device (run_gpu_check: CUDA
// errors become findings), a failed call of the library (LibraryFailure<Library>) a
// library_call_failed finding with the tag's remediation. A tag with no remediation (cuDNN's,
// whose check judges each failure with the library's path) leaves its failures to `body`.
//   gpu::run_library_check<Cufft>(context, result, cuda_library::cufft, cufft_symbols, versions,
//                                 [&](const LoadedLibrary& library, const CufftApi& api, int device) { ... });
template <typename Library, typename Api, std::size_t Size, typename Versions, typename Body>
void run_library_check(CheckContext& context, ResultBuilder& result, const LibraryFamily& family,
                       const LibrarySymbol<Api> (&symbols)[Size], Versions&& versions, Body&& body) {
    const LoadedLibrary* library = require_library(context, result, family);
    if (library == nullptr) return;
    Api api;
    if (!bind_library(*library, symbols, api, result)) return;
    if (!std::forward<Versions>(versions)(*library, std::as_const(api))) return;
    run_gpu_check(context, result, [&](int device) {
        if constexpr (RemediesStatus<Library>) {
            try {
                body(*library, std::as_const(api), device);
            } catch (const LibraryFailure<Library>& failure) {
                report_failure(result, Code::library_call_failed, failure);
            }
        } else {
            body(*library, std::as_const(api), device);
        }
    });
}

// For run_library_check: a library whose version the check records elsewhere, or not at all.
inline constexpr auto no_version_evidence = [](const LoadedLibrary&, const auto&) { return true; };

// run_library_check's `versions` for a library with its own xGetVersion(int*) (`get_version`, the
// Api's member): "<library>_version" evidence (cufft_version, curand_version: named as
// require_library names "<library>_soname"), the version decoded, its major compared with the
// soname's only as evidence (a mismatch would already have made the symbols or a call fail), or
// the failed call and its status.
//   gpu::version_evidence(result, "cufftGetVersion", &CufftApi::get_version, CUFFT_SUCCESS, describe_status)
[[nodiscard]] std::string version_evidence_key(const LoadedLibrary& library);  // "cufft_version"
template <typename Api, typename Status>
[[nodiscard]] auto version_evidence(ResultBuilder& result, std::string_view call, Status (*Api::*get_version)(int*),
                                    Status success, std::string (*describe)(Status)) {
    return [&result, call, get_version, success, describe](const LoadedLibrary& library, const Api& api) {
        int version = 0;
        if (const Status status = (api.*get_version)(&version); status == success)
            result.evidence(version_evidence_key(library), describe_version(version, library.soname));
        else result.evidence(version_evidence_key(library), fmt::format("{} failed: {}", call, describe(status)));
        return true;
    };
}

// Accuracy of a GPU result against a float64 reference: relative Frobenius error
// ||actual - reference|| / ||reference||, and non-finite values (which never pass).
struct Accuracy {
    double relative_error = 0.0;
    std::size_t non_finite = 0;
    std::size_t count = 0;
    [[nodiscard]] bool within(double tolerance) const { return non_finite == 0 && relative_error <= tolerance; }
};

class AccuracyAccumulator {
public:
    void add(double actual, double reference);
    [[nodiscard]] Accuracy result() const;

private:
    double error_squares_ = 0.0;
    double reference_squares_ = 0.0;
    std::size_t non_finite_ = 0;
    std::size_t count_ = 0;
};

// "2.3e-07 (tolerance 1e-05)"
[[nodiscard]] std::string describe(const Accuracy& accuracy, double tolerance);

}  // namespace cudacheck::gpu
