// What every library check does first: open the library (a failure is a finding naming the paths
// tried and the package to install), record which file loaded, and resolve the functions it uses.
#pragma once

#include "engine/check.hpp"
#include "probes/cuda_libraries.hpp"
#include "probes/library_locator.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::gpu {

// The CheckInfo of a per-device check built on a CUDA library: standard level, needs cuda.devices,
// and opens the library in the background as soon as the run starts.
[[nodiscard]] CheckInfo library_check_info(std::string id, std::string title, std::string description, CudaLibrary library);

// The library, or nullptr after adding a library_not_found finding. Adds evidence either way.
[[nodiscard]] const LoadedLibrary* require_library(CheckContext& context, ResultBuilder& result, CudaLibrary id);

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

// Fills a struct of function pointers from a library by name; `ok()` after all slots.
//   SymbolResolver resolve(library);
//   resolve(api.create, "cublasCreate_v2");
//   if (!resolve.report(result)) return;
class SymbolResolver {
public:
    explicit SymbolResolver(const LoadedLibrary& library) : library_(library) {}
    template <typename Function>
    void operator()(Function& slot, const char* name) {
        slot = library_.library.function<Function>(name);
        if (slot == nullptr) missing_.emplace_back(name);
    }
    // True when every symbol resolved; otherwise adds a library_symbol_missing finding.
    [[nodiscard]] bool report(ResultBuilder& result) const;

private:
    const LoadedLibrary& library_;
    std::vector<std::string> missing_;
};

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
