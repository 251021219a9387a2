#include "gpu/library_support.hpp"

#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cmath>
#include <cuda_runtime_api.h>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck::gpu {

CheckInfo library_check_info(CheckInfo check, const LibraryFamily& library) {
    std::vector<Code> raises{Code::cuda_call_failed,  Code::gpu_out_of_memory,      Code::wrong_result,
                             Code::library_not_found, Code::library_symbol_missing, Code::library_call_failed,
                             Code::library_damaged};
    raises.insert(raises.end(), check.raises.begin(), check.raises.end());
    std::vector<std::string> depends_on{"cuda.devices"};
    depends_on.insert(depends_on.end(), check.depends_on.begin(), check.depends_on.end());
    std::vector<const LibraryFamily*> libraries{&library};
    libraries.insert(libraries.end(), check.libraries.begin(), check.libraries.end());
    return CheckInfo{.id = std::move(check.id),
                     .title = std::move(check.title),
                     .description = std::move(check.description),
                     .scope = Scope::device,
                     .min_level = std::max(check.min_level, Level::standard),
                     .depends_on = std::move(depends_on),
                     .prepare =
                         [&library, own = std::move(check.prepare)](Probes& probes) {
                             probes.prefetch_libraries({&library});
                             if (own) own(probes);
                         },
                     .raises = std::move(raises),
                     .answers = std::move(check.answers),
                     .libraries = std::move(libraries),
                     .burn_in = check.burn_in};
}

const LoadedLibrary* require_library(CheckContext& context, ResultBuilder& result, const LibraryFamily& family) {
    const LoadedLibrary& library = context.probes.library(family);
    result.evidence(fmt::format("{}_soname", sys::to_lower(library.name)), library.soname);
    if (!library.ok() && !library.damaged_path.empty()) {
        std::error_code ignored;
        const auto size = std::filesystem::file_size(library.damaged_path, ignored);
        result.evidence("damaged_copy", library.damaged_path);
        // The headlines name the library; the file, its size and its damage are this evidence.
        result.evidence("damaged_size", fmt::format("{} bytes", ignored ? 0 : size),
                        static_cast<double>(ignored ? 0 : size), Unit::bytes);
        if (!library.damage.empty()) result.evidence("damage", library.damage);
        const std::string fix = fmt::format(
            "Reinstall the package {} came from, or remove it; if LD_LIBRARY_PATH puts {} first, take that directory "
            "off LD_LIBRARY_PATH.",
            library.damaged_path, std::filesystem::path(library.damaged_path).parent_path().string());
        if (library.step_failure && library.step_failure->timed_out) {
            result.add(Code::step_timed_out, sys::clip(fmt::format("loading {} {} earlier: not loaded again",
                                                                   library.soname, library.step_failure->how),
                                                       sys::max_headline));
        } else if (library.step_failure) {
            result.add(Code::library_damaged,
                       sys::clip(fmt::format("loading {} {} earlier: not loaded again", library.soname,
                                             library.step_failure->how),
                                 sys::max_headline),
                       fix);
        } else if (!library.damaged_dependency.empty()) {
            result.add(Code::library_damaged,
                       fmt::format("{} needs {}, which resolves to a damaged file, so it was not opened",
                                   library.soname, library.damaged_dependency),
                       fix);
        } else {
            result.add(Code::library_damaged,
                       fmt::format("{} resolves to a damaged file, so it was not opened", library.soname), fix);
        }
        return nullptr;
    }
    if (!library.ok()) {
        for (const std::string& attempt : library.tried) result.evidence("tried", attempt);
        const std::string install = family.install_hint(CUDART_VERSION / 1000);
        const CopiesAdvice advice =
            advise_on_copies(context.probes.library_locations(), library.name, library.soname, install);
        for (const std::string& copy : advice.copies) result.evidence("copy_elsewhere", copy);
        result.add(Code::library_not_found,
                   sys::clip(fmt::format("{} cannot be loaded: {}", library.soname,
                                         library.tried.empty() ? "" : library.tried.front()),
                             sys::max_headline),
                   !advice.remediation.empty() ? advice.remediation
                                               : fmt::format("Install {} (it provides {}); no copy was found on this "
                                                             "machine (see libraries.resolution). Tried: {}.",
                                                             install, library.soname, fmt::join(library.tried, "; ")));
        return nullptr;
    }
    result.evidence(fmt::format("{}_path", sys::to_lower(library.name)), library.library.loaded_path());
    if (library.outside_loader_path)
        result.evidence("note", fmt::format("{} is not on the loader's path; found in a toolkit directory (programs "
                                            "need an rpath or "
                                            "LD_LIBRARY_PATH to find it)",
                                            library.soname));
    return &library;
}

std::string version_evidence_key(const LoadedLibrary& library) {
    return fmt::format("{}_version", sys::to_lower(library.name));
}

CopiesAdvice advise_on_copies(const LibraryFacts& facts, std::string_view family, std::string_view soname,
                              std::string_view install_hint) {
    CopiesAdvice advice;
    const LibraryCopy* usable = nullptr;  // the first copy of this very soname, not a stub
    std::vector<std::string> other_sonames;
    for (const LibraryLocation& location : facts.libraries) {
        if (location.family == nullptr || location.family->name != family) continue;
        for (const LibraryCopy& copy : location.copies) {
            if (copy.origin == LibraryOrigin::stub) continue;
            advice.copies.push_back(fmt::format("{} ({}, {})", copy.path,
                                                copy.version.empty() ? "version unknown" : copy.version,
                                                to_string(copy.origin)));
            if (copy.soname == soname) {
                if (usable == nullptr) usable = &copy;
            } else if (std::find(other_sonames.begin(), other_sonames.end(), copy.soname) == other_sonames.end()) {
                other_sonames.push_back(copy.soname);
            }
        }
    }
    if (usable != nullptr) {
        const std::string directory = usable->path.substr(0, usable->path.rfind('/'));
        advice.remediation = fmt::format(
            "A copy is installed at {} ({}) but the loader does not search {}: `export "
            "LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH`, or for every "
            "program `echo {} | sudo tee /etc/ld.so.conf.d/cuda.conf && sudo ldconfig`.",
            usable->path, to_string(usable->origin), directory, directory, directory);
    } else if (!other_sonames.empty()) {
        advice.remediation =
            fmt::format("Only {} (for another CUDA major) is installed; this program needs {}: install {}.",
                        fmt::join(other_sonames, " and "), soname, install_hint);
    }
    return advice;
}

bool report_missing_symbols(const LoadedLibrary& library, const std::vector<std::string>& missing,
                            ResultBuilder& result) {
    if (missing.empty()) return true;
    result.evidence("missing_symbols", fmt::format("{} ({}) lacks {}", library.name, library.library.loaded_path(),
                                                   fmt::join(missing, ", ")));
    result.add(Code::library_symbol_missing, fmt::format("{} lacks {}", library.name, sys::first_items(missing, 80)),
               fmt::format("Install the {} matching CUDA {}: {}.", library.name, CUDART_VERSION / 1000,
                           library.family->install_hint(CUDART_VERSION / 1000)));
    return false;
}

bool report_missing_libcuda_symbols(const DynamicLibrary& libcuda, const std::vector<std::string>& missing,
                                    ResultBuilder& result) {
    if (missing.empty()) return true;
    result.evidence("missing_symbols",
                    fmt::format("libcuda ({}) lacks {}", libcuda.loaded_path(), fmt::join(missing, ", ")));
    result.add(Code::libcuda_symbol_missing, fmt::format("libcuda lacks {}", sys::first_items(missing, 100)),
               "Reinstall the NVIDIA driver; see driver.libcuda.");
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
    accuracy.relative_error =
        reference_squares_ > 0 ? std::sqrt(error_squares_ / reference_squares_) : std::sqrt(error_squares_);
    return accuracy;
}

std::string describe(const Accuracy& accuracy, double tolerance) {
    if (accuracy.non_finite > 0)
        return fmt::format("{} of {} values not finite (NaN/Inf)", accuracy.non_finite, accuracy.count);
    return fmt::format("relative error {:.2e} (tolerance {:.0e})", accuracy.relative_error, tolerance);
}

}  // namespace cudacheck::gpu
