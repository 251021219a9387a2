// What every library check does first: open the library (a failure is a finding naming the paths
// tried and the package to install), record which file loaded, and resolve the functions it uses.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/symbols.hpp"
#include "engine/check.hpp"
#include "probes/cuda_libraries.hpp"
#include "probes/library_locator.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::gpu {

// The CheckInfo of a per-device check built on a CUDA library: standard level, needs cuda.devices,
// opens the library in the background as soon as the run starts, declares it (CheckInfo::libraries),
// and raises what every such check can (a CUDA error, out of memory, a wrong result, the library
// missing, damaged, lacking a symbol or failing a call) and `more_raises`.
[[nodiscard]] CheckInfo library_check_info(std::string id, std::string title, std::string description,
                                             const LibraryFamily& library, std::vector<Code> more_raises = {});

// The library, or nullptr after adding a library_not_found finding. Adds evidence either way.
[[nodiscard]] const LoadedLibrary* require_library(CheckContext& context, ResultBuilder& result, const LibraryFamily& library);

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
[[nodiscard]] bool report_missing_symbols(const LoadedLibrary& library, const std::vector<std::string>& missing, ResultBuilder& result);
template <typename Api, std::size_t Size>
[[nodiscard]] bool bind_library(const LoadedLibrary& library, const LibrarySymbol<Api> (&symbols)[Size], Api& api, ResultBuilder& result) {
    return report_missing_symbols(library, bind_symbols(library.library, symbols, api), result);
}

// The same for entry points of the libcuda the probes opened, whose absence is the driver's
// defect (libcuda_symbol_missing, as driver.libcuda reports it), not a CUDA library's.
[[nodiscard]] bool report_missing_libcuda_symbols(const DynamicLibrary& libcuda, const std::vector<std::string>& missing, ResultBuilder& result);
template <typename Api, std::size_t Size>
[[nodiscard]] bool bind_libcuda(const DynamicLibrary& libcuda, const LibrarySymbol<Api> (&symbols)[Size], Api& api, ResultBuilder& result) {
    return report_missing_libcuda_symbols(libcuda, bind_symbols(libcuda, symbols, api), result);
}

// A failed call of a library as a finding with `code`: the call and the status named, and what the
// library's binding says to do about that status.
template <typename Library>
void report_failure(ResultBuilder& result, Code code, const LibraryFailure<Library>& failure) {
    result.add(code, failure.what(), failure.remediation());
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
