// libraries.resolution: which file each CUDA library resolves to for a C/C++ program on this
// machine, by which search rule, and which other copies are installed. Nothing is
// loaded, so it runs at --level quick: the answer comes from directory listings and
// /etc/ld.so.cache, and it explains the "cannot open shared object file" and "version
// incompatibility" failures before any GPU work is tried.
#include "checks/checks.hpp"
#include "engine/report_builder.hpp"
#include "probes/library_damage.hpp"
#include "probes/probes.hpp"
#include "probes/python/python_packages.hpp"
#include "report/report_query.hpp"
#include "util/headline.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace cudacheck {

using sys::directory_of;

namespace {

// A finding's message is a headline; the whole account behind it, with every path and rule, is
// evidence under the finding's code and the library's soname (shown by -v and in the JSON report).
void detail(ResultBuilder& result, Code code, std::string_view soname, std::string text) {
    result.evidence(fmt::format("{} {}", code_string(code), soname), std::move(text));
}

std::string version_text(const LibraryCopy* copy) {
    return copy == nullptr || copy->version.empty() ? "version unknown" : copy->version;
}

// "9.19.0.56 pip_wheel (nvidia-cudnn-cu13) /site-packages/nvidia/cudnn/lib/libcudnn.so.9"
std::string describe(const LibraryCopy& copy) {
    return fmt::format("{} {}{} {}", version_text(&copy), to_string(copy.origin),
                       copy.package.empty() ? "" : fmt::format(" ({})", copy.package), copy.path);
}

const LibraryLocation* location_of(const LibraryFacts& facts, std::string_view family_name) {
    for (const LibraryLocation& location : facts.libraries)
        if (location.family->name == family_name) return &location;
    return nullptr;
}

// The copies that provide `soname`, stubs left out: a stub is never a copy to load at run time.
std::vector<const LibraryCopy*> usable_copies(const LibraryLocation& location, std::string_view soname) {
    std::vector<const LibraryCopy*> copies;
    for (const LibraryCopy& copy : location.copies)
        if (copy.soname == soname && copy.origin != LibraryOrigin::stub) copies.push_back(&copy);
    return copies;
}

bool is_stub(const Resolution& resolution, const LibraryCopy* copy) {
    return (copy != nullptr && copy->origin == LibraryOrigin::stub) ||
           resolution.real_path.find("/stubs/") != std::string::npos;
}

// The CUDA majors of the runtime a C/C++ program here gets: those of the libcudart sonames that
// resolve (of cuBLAS when there is no cudart), and the soname that says so.
struct RuntimeMajors {
    std::vector<int> majors;
    std::string evidence;  // "libcudart.so.13"
};

RuntimeMajors runtime_majors(const LibraryFacts& facts) {
    RuntimeMajors runtime;
    for (const char* name : {"cudart", "cuBLAS"}) {
        const LibraryLocation* location = location_of(facts, name);
        if (location == nullptr) continue;
        std::vector<std::string> sonames;
        for (const Resolution& resolution : location->resolutions) {
            for (int major : location->family->cuda_majors_of(resolution.soname)) runtime.majors.push_back(major);
            sonames.push_back(resolution.soname);
        }
        runtime.evidence = fmt::format("{}", fmt::join(sonames, ", "));
        if (!runtime.majors.empty()) return runtime;
    }
    return runtime;
}

bool serves_runtime(const LibraryFamily& family, std::string_view soname, const RuntimeMajors& runtime) {
    if (runtime.majors.empty()) return true;
    for (int major : family.cuda_majors_of(soname))
        if (std::find(runtime.majors.begin(), runtime.majors.end(), major) != runtime.majors.end()) return true;
    return false;
}

// "cuBLAS" -> "nvidia-cublas" for CUDA 13, "nvidia-cublas-cu12" before.
std::string pip_package(const LibraryFamily& family, int cuda_major) {
    std::string package(family.wheel);
    std::replace(package.begin(), package.end(), '_', '-');
    return cuda_major >= 13 ? package : fmt::format("{}-cu{}", package, cuda_major);
}

// For people: the loader's pick of each soname, then every other copy, one line each. Written from
// the report's `libraries` section, which programs read instead of these lines.
void add_evidence(const LibraryInfo& library, ResultBuilder& result) {
    for (const LibraryResolutionInfo& resolution : library.resolved)
        result.evidence(resolution.soname, describe_resolution(resolution));
    for (const LibraryCopyInfo& copy : library.copies) {
        const auto resolution =
            std::find_if(library.resolved.begin(), library.resolved.end(),
                         [&](const LibraryResolutionInfo& picked) { return picked.soname == copy.soname; });
        if (resolution != library.resolved.end() && resolution->real_path == copy.real_path) continue;
        result.evidence(copy.soname, (resolution != library.resolved.end() ? "also " : "not on the loader's path: ") +
                                         describe_copy(copy));
    }
}

// CC601: copies exist, none where the loader looks. Only for sonames of the runtime's CUDA major:
// a CUDA 12 wheel beside a CUDA 13 system serves Python alone and is not missing for anything.
void judge_outside_loader_path(const LibraryFacts& facts, const RuntimeMajors& runtime, ResultBuilder& result) {
    // Whether the sub-libraries go with libcudnn.so.9 when it is off the path (they are not
    // reported one by one).
    const bool sublibraries_resolve =
        std::any_of(facts.libraries.begin(), facts.libraries.end(), [](const LibraryLocation& location) {
            return location.family->cudnn_sublibrary && !location.resolutions.empty();
        });
    for (const LibraryLocation& location : facts.libraries) {
        const LibraryFamily& family = *location.family;
        // A sub-library missing beside a resolving libcudnn.so.9 is CC508; beside a missing one,
        // the finding on libcudnn.so.9 covers it.
        if (family.cudnn_sublibrary) continue;
        for (std::string_view soname : family.distinct_sonames()) {
            const std::vector<const LibraryCopy*> copies = usable_copies(location, soname);
            if (location.resolution_of(soname) != nullptr || copies.empty() || !serves_runtime(family, soname, runtime))
                continue;
            // A system-wide copy is the better suggestion; a wheel's directory is private to Python.
            const auto system_wide = std::find_if(copies.begin(), copies.end(), [](const LibraryCopy* copy) {
                return copy->origin != LibraryOrigin::pip_wheel;
            });
            const LibraryCopy& suggested = **(system_wide != copies.end() ? system_wide : copies.begin());
            const std::string directory = directory_of(suggested.path);
            std::vector<std::string> places;
            for (const LibraryCopy* copy : copies) places.push_back(describe(*copy));
            const std::string also_cudnn =
                family.name == "cuDNN" && !sublibraries_resolve ? ", with its sub-libraries" : "";
            std::string remediation =
                suggested.origin == LibraryOrigin::pip_wheel
                    ? fmt::format(
                          "Python processes that preload the wheel {} find it; for C/C++ programs `export "
                          "LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH`, "
                          "or install {} system-wide (NVIDIA's package for your CUDA).",
                          suggested.package.empty() ? directory : suggested.package, directory, family.name)
                    : fmt::format(
                          "`export LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH`, or for every program: "
                          "`echo {} | sudo tee /etc/ld.so.conf.d/cuda-libraries.conf && sudo ldconfig`.",
                          directory, directory);
            detail(result, Code::library_outside_loader_path, soname,
                   fmt::format("{} ({}{}) is not on the loader's path: a C/C++ program cannot open it; copies: {}",
                               soname, family.name, also_cudnn, fmt::join(places, "; ")));
            result.add(Code::library_outside_loader_path,
                       fmt::format("{} ({}{}) is not on the loader's path; {} cop{} elsewhere", soname, family.name,
                                   also_cudnn, places.size(), places.size() == 1 ? "y" : "ies"),
                       std::move(remediation));
        }
    }
}

// CC602: a C/C++ program built with a toolkit here loads an older copy of one of its libraries
// than the toolkit's own: the headers it was compiled with promise functions and fixes the copy it
// gets lacks. Copies that only differ (the system cuDNN beside a wheel's) are no finding: each
// consumer loads a consistent copy, frameworks.builds judges what each framework loads
// against what it was built for, and the evidence lists every copy.
void judge_versions(const LibraryFacts& facts, ResultBuilder& result) {
    for (const LibraryLocation& location : facts.libraries) {
        const LibraryFamily& family = *location.family;
        if (family.cudnn_sublibrary) continue;
        for (const Resolution& resolution : location.resolutions) {
            const LibraryCopy* loaded = location.copy_at(resolution.real_path);
            if (loaded == nullptr || loaded->version.empty() || loaded->origin == LibraryOrigin::toolkit) continue;
            for (const LibraryCopy& toolkit : location.copies) {
                if (toolkit.origin != LibraryOrigin::toolkit || toolkit.soname != resolution.soname ||
                    toolkit.version.empty() || satisfies(loaded->version, ">=" + toolkit.version))
                    continue;
                const std::string toolkit_lib = directory_of(toolkit.path);
                detail(result, Code::library_versions_differ, resolution.soname,
                       fmt::format("{} ({}): a C/C++ program built with the toolkit in {} ({} {}) loads the older {} "
                                   "from {} ({})",
                                   resolution.soname, family.name, directory_of(toolkit_lib), family.name,
                                   toolkit.version, loaded->version, resolution.path, resolution.rule));
                result.add(Code::library_versions_differ,
                           fmt::format("{}: programs built with the toolkit's {} {} load the older {}",
                                       resolution.soname, family.name, toolkit.version, loaded->version),
                           fmt::format("Give programs the toolkit's copy: `export LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH` "
                                       "(or link with -Wl,-rpath,{}), "
                                       "or remove the older {} from {}.",
                                       toolkit_lib, toolkit_lib, family.name, directory_of(loaded->path)));
                break;
            }
        }
    }
}

// CC603 (and CC508): libcudnn.so.9 loads its sub-libraries through the loader, so each of them
// must resolve to the same install as libcudnn.so.9 itself.
void judge_cudnn_sublibraries(const LibraryFacts& facts, ResultBuilder& result) {
    const LibraryLocation* cudnn = location_of(facts, "cuDNN");
    const Resolution* main = cudnn != nullptr ? cudnn->resolution_of("libcudnn.so.9") : nullptr;
    if (main == nullptr) return;
    const LibraryCopy* main_copy = cudnn->copy_at(main->real_path);
    const std::string main_directory = directory_of(main->real_path);
    std::vector<std::string> missing;
    std::vector<std::string> mixed;
    bool versions_differ = false;
    bool all_beside_main = true;
    for (const LibraryFamily& family : library_families()) {
        if (!family.cudnn_sublibrary) continue;
        const LibraryLocation* location = location_of(facts, family.name);
        const std::string soname(family.sonames.back());
        const Resolution* resolution = location != nullptr ? location->resolution_of(soname) : nullptr;
        if (resolution == nullptr) {
            missing.push_back(soname);
            continue;
        }
        const LibraryCopy* copy = location->copy_at(resolution->real_path);
        const bool version_differs =
            main_copy != nullptr && copy != nullptr && !same_release(main_copy->version, copy->version);
        if (!version_differs && directory_of(resolution->real_path) == main_directory) continue;
        versions_differ = versions_differ || version_differs;
        mixed.push_back(fmt::format("{} {} {} {} ({})", soname, version_text(copy),
                                    copy != nullptr ? to_string(copy->origin) : "other", resolution->path,
                                    resolution->rule));
        const bool beside_main =
            std::any_of(location->copies.begin(), location->copies.end(),
                        [&](const LibraryCopy& other) { return directory_of(other.real_path) == main_directory; });
        all_beside_main = all_beside_main && beside_main;
    }
    const std::string main_text =
        fmt::format("libcudnn.so.9 resolves to {} {} {} ({})", version_text(main_copy),
                    main_copy != nullptr ? to_string(main_copy->origin) : "other", main->path, main->rule);
    if (!missing.empty()) {
        detail(result, Code::cudnn_sublibrary_missing, "libcudnn.so.9",
               fmt::format("{} but {} resolve nowhere: cuDNN fails with CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
                           main_text, fmt::join(missing, ", ")));
        result.add(Code::cudnn_sublibrary_missing,
                   fmt::format("libcudnn.so.9 ({}) resolves, but {} of its sub-librar{} resolve nowhere: {}",
                               version_text(main_copy), missing.size(), missing.size() == 1 ? "y" : "ies",
                               sys::first_items(missing, 50)),
                   fmt::format("Install the missing sub-libraries from the same cuDNN {} as {} (the whole libcudnn9 "
                               "package or wheel), not from another "
                               "install.",
                               version_text(main_copy), main->path));
    }
    if (mixed.empty()) return;
    const std::string remediation = all_beside_main
                                        ? fmt::format(
                                              "Every sub-library of that cuDNN is in {}: put it first, `export "
                                              "LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH`, or remove the "
                                              "other install's cuDNN.",
                                              main_directory, main_directory)
                                        : fmt::format(
                                              "Install all of cuDNN {} in one place ({}), or remove the other install "
                                              "so that one cuDNN remains on the loader's path.",
                                              version_text(main_copy), main_directory);
    detail(result, Code::cudnn_sublibraries_mixed, "libcudnn.so.9",
           fmt::format("{} but {}", main_text, fmt::join(mixed, "; ")));
    result.add(Code::cudnn_sublibraries_mixed,
               fmt::format("{} cuDNN sub-librar{} resolve to another install or version than libcudnn.so.9 ({})",
                           mixed.size(), mixed.size() == 1 ? "y" : "ies", version_text(main_copy)),
               remediation, versions_differ ? Status::fail : Status::warn);
}

// CC604: a library that resolves, but only for another CUDA major than the runtime's.
void judge_cuda_majors(const LibraryFacts& facts, const RuntimeMajors& runtime, ResultBuilder& result) {
    for (const LibraryLocation& location : facts.libraries) {
        const LibraryFamily& family = *location.family;
        if (location.resolutions.empty() || family.name == "cudart") continue;
        for (int major : runtime.majors) {
            const std::string_view wanted = family.soname_for(major);
            // Absent for this major (nvJitLink in CUDA 11), resolving, or installed off the
            // loader's path (CC601 names that directory).
            if (wanted.empty() || location.resolution_of(wanted) != nullptr || !usable_copies(location, wanted).empty())
                continue;
            std::vector<std::string> found;
            for (const Resolution& resolution : location.resolutions)
                found.push_back(fmt::format("{} (CUDA {}) at {}", resolution.soname,
                                            fmt::join(family.cuda_majors_of(resolution.soname), "/"), resolution.path));
            detail(result, Code::library_cuda_major_mismatch, wanted,
                   fmt::format("{} resolves only as {} but the runtime is CUDA {} ({}): a CUDA {} program that uses {} "
                               "fails to open {}",
                               family.name, fmt::join(found, ", "), major, runtime.evidence, major, family.name,
                               wanted));
            result.add(Code::library_cuda_major_mismatch,
                       fmt::format("{} resolves only for another CUDA major than the runtime's {}: CUDA {} programs "
                                   "cannot open {}",
                                   family.name, major, major, wanted),
                       fmt::format("Install {} for CUDA {} (NVIDIA's CUDA {} package; `pip install {}` serves Python "
                                   "only), or build against CUDA {} "
                                   "throughout.",
                                   family.name, major, major, pip_package(family, major),
                                   fmt::join(family.cuda_majors_of(location.resolutions.front().soname), "/")));
        }
    }
}

// CC605: the copy a C/C++ program would load is not a loadable library of this machine (a
// truncated libcublas.so.13 first on LD_LIBRARY_PATH resolves "fine" while every program that
// opens it dies with SIGBUS). Only the headers are read.
void judge_damaged(const LibraryFacts& facts, ResultBuilder& result) {
    for (const LibraryLocation& location : facts.libraries)
        for (const Resolution& resolution : location.resolutions) {
            const std::optional<FileDamage> damage = library_file_damage(resolution.real_path, resolution.soname);
            if (!damage) continue;
            const LibraryCopy* copy = location.copy_at(resolution.real_path);
            const std::string origin = copy == nullptr ? std::string() : installed_by(*copy);
            detail(result, Code::library_damaged, resolution.soname,
                   fmt::format("{} ({}) resolves to {} ({}), which is damaged: {}", resolution.soname,
                               location.family->name, resolution.real_path, resolution.rule, damage->reason));
            const std::string head = fmt::format("{} resolves to a damaged file: ", resolution.soname);
            result.add(Code::library_damaged, head + sys::clip(damage->reason, sys::max_headline - head.size()),
                       damaged_copy_remediation(resolution, origin));
        }
}

// CC211: the first libcuda.so.1 on the path is the toolkit's stub.
void judge_stub_libcuda(const LibraryFacts& facts, ResultBuilder& result) {
    const LibraryLocation* libcuda = location_of(facts, "libcuda");
    const Resolution* resolution = libcuda != nullptr ? libcuda->resolution_of("libcuda.so.1") : nullptr;
    if (resolution == nullptr || !is_stub(*resolution, libcuda->copy_at(resolution->real_path))) return;
    const std::string directory = directory_of(resolution->path);
    std::string remediation;
    if (sys::starts_with(resolution->rule, "LD_LIBRARY_PATH"))
        remediation = fmt::format(
            "Remove {} from LD_LIBRARY_PATH; the stub belongs only on the linker's path (-L or LIBRARY_PATH).",
            directory);
    else if (resolution->rule == "ld.so.cache")
        remediation = fmt::format("Remove {} from the files in /etc/ld.so.conf.d, then `sudo ldconfig`.", directory);
    else
        remediation =
            fmt::format("Delete {}: a libcuda.so.1 in a system directory must be the driver's.", resolution->path);
    detail(result, Code::libcuda_stub, "libcuda.so.1",
           fmt::format("libcuda.so.1 resolves to the toolkit's stub {} ({}): every CUDA program started here fails "
                       "with CUDA_ERROR_STUB_LIBRARY (34)",
                       resolution->path, resolution->rule));
    result.add(Code::libcuda_stub,
               "libcuda.so.1 resolves to the toolkit's stub: every CUDA program here fails with "
               "CUDA_ERROR_STUB_LIBRARY (34)",
               std::move(remediation));
}

// The line shown when nothing is wrong (a finding's message replaces it otherwise): how many
// libraries resolve and by which rule, and which have several copies of one version.
std::string summarize(const LibraryFacts& facts, ResultBuilder& result) {
    std::map<std::string, int> by_rule;
    std::size_t resolving = 0;
    std::size_t found = 0;  // stubs alone do not count: they are no library to run with
    std::vector<std::string> several;
    for (const LibraryLocation& location : facts.libraries) {
        std::vector<std::string> origins;
        for (const LibraryCopy& copy : location.copies)
            if (copy.origin != LibraryOrigin::stub) origins.emplace_back(to_string(copy.origin));
        if (!location.resolutions.empty() || !origins.empty()) ++found;
        if (origins.size() > 1 && !location.family->cudnn_sublibrary)
            several.push_back(fmt::format("{} {}", location.family->name, fmt::join(origins, " + ")));
        if (location.resolutions.empty()) continue;
        ++resolving;
        const std::string& rule = location.resolutions.front().rule;
        ++by_rule[sys::starts_with(rule, "LD_LIBRARY_PATH") ? "LD_LIBRARY_PATH"
                  : sys::starts_with(rule, "default")       ? "default directories"
                                                            : rule];
    }
    if (found == 0) return "no CUDA library installed in the usual places";
    std::vector<std::string> rules;
    for (const auto& [rule, count] : by_rule) rules.push_back(fmt::format("{} {}", count, rule));
    const std::string head = fmt::format("{} of {} libraries found resolve for C/C++ programs", resolving, found);
    const std::string by_rules = rules.empty() ? "" : fmt::format(" ({})", fmt::join(rules, ", "));
    // Which libraries have several copies is evidence; the headline counts them.
    std::string tail;
    if (!several.empty()) {
        tail = fmt::format("; {} with several copies of one version", several.size());
        result.evidence("several_copies", fmt::format("{}", fmt::join(several, "; ")));
    }
    std::string summary = head + by_rules + tail;
    // A headline (util/headline.hpp): the count by rule goes to the evidence where it does not fit.
    if (summary.size() > sys::max_headline && !rules.empty()) {
        result.evidence("resolved_by", fmt::format("{}", fmt::join(rules, ", ")));
        summary = head + tail;
    }
    return summary;
}

}  // namespace

void judge_library_resolution(const LibraryFacts& facts, ResultBuilder& result) {
    // The same facts as the report's `libraries` section (engine/report_builder.cpp builds both).
    for (const LibraryInfo& library : libraries_section(facts).found) add_evidence(library, result);
    result.evidence("ld_so_cache", facts.cache_status);
    result.evidence("directories_searched", std::to_string(facts.directories_searched));

    const RuntimeMajors runtime = runtime_majors(facts);
    judge_stub_libcuda(facts, result);
    judge_damaged(facts, result);
    judge_outside_loader_path(facts, runtime, result);
    judge_versions(facts, result);
    judge_cudnn_sublibraries(facts, result);
    judge_cuda_majors(facts, runtime, result);

    result.summary(summarize(facts, result));
}

std::unique_ptr<Check> make_libraries_resolution_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "libraries.resolution",
                  .title = "CUDA library files",
                  .description = "Which file each CUDA library resolves to for a C/C++ program, by which search rule, "
                                 "and every other copy installed",
                  .raises = {Code::libcuda_stub, Code::cudnn_sublibrary_missing, Code::library_outside_loader_path,
                             Code::library_versions_differ, Code::cudnn_sublibraries_mixed,
                             Code::library_cuda_major_mismatch, Code::library_damaged},
                  .answers =
                      "which file each CUDA library (cudart, cuBLAS, cuFFT, cuRAND, cuSOLVER, cuSPARSE, cuDNN and its "
                      "sub-libraries, NVRTC, nvJitLink, NCCL, NVML, libcuda) resolves to for a C/C++ program, by which "
                      "loader rule, and every other copy installed; nothing is loaded"},
        [](CheckContext& context, ResultBuilder& result) {
            judge_library_resolution(context.probes.library_locations(), result);
        });
}

const CheckRegistration libraries_resolution_registration{700, make_libraries_resolution_check};

}  // namespace cudacheck
