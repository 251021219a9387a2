#include "gpu/library_support.hpp"

#include "core/system.hpp"
#include "probes/probes.hpp"

#include <cmath>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck::gpu {

CheckInfo library_check_info(std::string id, std::string title, std::string description, CudaLibrary library) {
    return CheckInfo{std::move(id), std::move(title), std::move(description), Scope::device, Level::standard, {"cuda.devices"},
                     [library](Probes& probes) { probes.prefetch_libraries({library}); }};
}

const LoadedLibrary* require_library(CheckContext& context, ResultBuilder& result, CudaLibrary id) {
    const LoadedLibrary& library = context.probes.library(id);
    result.evidence(fmt::format("{}_soname", sys::to_lower(library.name)), library.soname);
    if (!library.ok()) {
        for (const std::string& attempt : library.tried) result.evidence("tried", attempt);
        result.add(Code::library_not_found,
                   fmt::format("{} cannot be loaded: {}", library.soname, library.tried.empty() ? "" : library.tried.front()),
                   fmt::format("Install {} (it provides {}), or add the directory holding it to LD_LIBRARY_PATH. Tried: {}.",
                               library_install_hint(id, CUDART_VERSION / 1000), library.soname, fmt::join(library.tried, "; ")));
        return nullptr;
    }
    result.evidence(fmt::format("{}_path", sys::to_lower(library.name)), library.library.loaded_path());
    if (library.outside_loader_path)
        result.evidence("note", fmt::format("{} is not on the loader's path; found in a toolkit directory (programs need an rpath or "
                                            "LD_LIBRARY_PATH to find it)",
                                            library.soname));
    return &library;
}

bool SymbolResolver::report(ResultBuilder& result) const {
    if (missing_.empty()) return true;
    result.add(Code::library_symbol_missing,
               fmt::format("{} ({}) lacks {}", library_.name, library_.library.loaded_path(), fmt::join(missing_, ", ")),
               fmt::format("Install the {} matching CUDA {}: {}.", library_.name, CUDART_VERSION / 1000,
                           library_install_hint(library_.id, CUDART_VERSION / 1000)));
    return false;
}

void AccuracyAccumulator::add(double actual, double reference) {
    ++count_;
    if (!std::isfinite(actual)) {
        ++non_finite_;
        return;
    }
    error_squares_ += (actual - reference) * (actual - reference);
    reference_squares_ += reference * reference;
}

Accuracy AccuracyAccumulator::result() const {
    Accuracy accuracy;
    accuracy.count = count_;
    accuracy.non_finite = non_finite_;
    accuracy.relative_error = reference_squares_ > 0 ? std::sqrt(error_squares_ / reference_squares_) : std::sqrt(error_squares_);
    return accuracy;
}

std::string describe(const Accuracy& accuracy, double tolerance) {
    if (accuracy.non_finite > 0)
        return fmt::format("{} of {} values not finite (NaN/Inf)", accuracy.non_finite, accuracy.count);
    return fmt::format("relative error {:.2e} (tolerance {:.0e})", accuracy.relative_error, tolerance);
}

}  // namespace cudacheck::gpu
