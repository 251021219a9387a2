#include "inspect/package_inspection.hpp"

#include "report/catalog.hpp"
#include "report/report.hpp"
#include "util/system.hpp"
#include "util/zip_archive.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <fmt/format.h>
#include <span>

namespace cudacheck {

namespace {

// METADATA, WHEEL and RECORD are text of a few kB to a few MB (RECORD of a PyTorch wheel: ~1.5 MB).
constexpr std::size_t metadata_limit = packaging::max_metadata_bytes;
constexpr std::size_t record_limit = std::size_t{32} << 20;

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string base_name(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// "lib/libfoo.so", "libfoo.so.12", "_C.cpython-312-x86_64-linux-gnu.so": the loader's names for
// shared objects (a wheel's Python extensions are shared objects too, and may carry GPU code).
bool is_shared_library_name(std::string_view path) {
    const std::string name = base_name(path);
    return name.ends_with(".so") || name.find(".so.") != std::string::npos;
}

// The `.dist-info` directory of a wheel: `{name}-{version}.dist-info/` at the top (the wheel spec's
// "File contents"); the one holding METADATA when there are several.
std::string dist_info_prefix(const ZipArchive& archive) {
    for (const ZipMember& member : archive.members()) {
        const std::string_view name = member.name;
        const std::size_t slash = name.find('/');
        if (slash == std::string_view::npos || name.substr(slash + 1) != "METADATA") continue;
        if (name.substr(0, slash).ends_with(".dist-info")) return std::string(name.substr(0, slash + 1));
    }
    return {};
}

// The tags of a WHEEL file's "Tag:" lines, for an installed distribution.
std::vector<std::string> wheel_file_tags(std::string_view wheel_file) {
    std::vector<std::string> tags;
    for (const std::string& line : sys::split(wheel_file, '\n')) {
        const std::string_view text = sys::trim(line);
        if (text.starts_with("Tag:")) tags.emplace_back(sys::trim(text.substr(4)));
    }
    return tags;
}

// What the distribution's METADATA says, into the package.
void read_metadata(std::string_view text, const PackageContext& context, InspectedPackage& package) {
    const Expected<packaging::Metadata> metadata = packaging::parse_metadata(text);
    if (!metadata) {
        package.input_error = make_finding(Code::inspect_archive_damaged,
                                           fmt::format("METADATA cannot be read: {}", metadata.error().message));
        return;
    }
    package.name = metadata->name;
    package.version = metadata->version;
    package.requires_python = metadata->requires_python;
    packaging::MarkerEnvironment environment;
    if (context.interpreter)
        environment =
            packaging::marker_environment(context.interpreter->tags, context.interpreter->python_full_version);
    package.cuda = packaging::cuda_major_of_requirements(metadata->requires_dist, environment);
    // The distribution itself may be of one CUDA major: by its name (jax-cuda13-plugin, cupy-cuda12x,
    // nvidia-cublas-cu12) or, for CUDA 13's un-suffixed NVIDIA wheels, by its version (nvidia-cublas
    // 13.1.0.3): judged as a requirement pinning exactly this distribution.
    if (Expected<packaging::Requirement> self =
            packaging::parse_requirement(fmt::format("{}=={}", metadata->name, metadata->version))) {
        const packaging::CudaRequirements own =
            packaging::cuda_major_of_requirements(std::span(&*self, 1), environment);
        if (!own.pins.empty()) {
            const int major = own.pins.front().cuda_major;
            if (package.cuda.pins.empty()) package.cuda.cuda_major = major;
            else if (package.cuda.cuda_major != major) package.cuda.cuda_major.reset();
            package.cuda.pins.insert(package.cuda.pins.begin(), own.pins.front());
        }
    }
}

// CC805 when the CUDA major the pins need is newer than the driver's: the CUDA libraries it brings
// refuse to start ("CUDA driver version is insufficient for CUDA runtime version"; NVIDIA's CUDA
// compatibility guide: minor-version compatibility holds within a major only).
void judge_driver(const PackageContext& context, InspectedPackage& package) {
    if (!package.cuda.cuda_major || !context.driver_cuda) return;
    const int needs = *package.cuda.cuda_major;
    if (needs <= context.driver_cuda->major) return;
    const std::string pin = package.cuda.pins.empty() ? std::string() : package.cuda.pins.front().why;
    const auto minimum = minimum_driver_for(CudaVersion{needs, 0});
    package.driver_finding =
        make_finding(Code::package_needs_newer_driver,
                     fmt::format("{} {} needs CUDA {} ({}), and this driver is CUDA {}", package.name, package.version,
                                 needs, pin, context.driver_cuda->to_string()),
                     fmt::format("Install the NVIDIA driver {} or newer (CUDA {}), or a build of {} for CUDA {} "
                                 "(`cudacheck advise` "
                                 "names it).",
                                 minimum ? *minimum : std::string_view("for that CUDA release"), needs, package.name,
                                 context.driver_cuda->major));
}

// One shared library's GPU code: scanned through `source` (a mapped file or a zip member).
PackageLibrary judge_library(std::string path, std::uint64_t size, GpuCodeScan scan, const PackageContext& context) {
    PackageLibrary library;
    library.size = size;
    library.file.path = std::move(path);
    library.file.scan = std::move(scan);
    const GpuCodeScan& read = library.file.scan;
    if (read.error == ScanError::none || read.error == ScanError::malformed)
        for (const InspectTarget& target : context.targets)
            library.file.verdicts.push_back(judge_target(read, target, context.driver_cuda));
    if (read.error == ScanError::unreadable)
        library.file.input_error = make_finding(Code::inspect_unreadable, read.error_message);
    if (read.error == ScanError::malformed)
        library.file.input_error = make_finding(Code::inspect_malformed, read.error_message);
    return library;
}

bool carries_gpu_code(const PackageLibrary& library) {
    return !library.file.scan.objects.empty() || library.file.input_error.has_value();
}

// The verdict from what was found, worst first.
void conclude(const PackageContext& context, InspectedPackage& package) {
    package.per_target.assign(context.targets.size(), PackageVerdict::no_gpu_code);
    const TargetVerdict* worst_failure = nullptr;
    const PackageLibrary* failing_library = nullptr;
    std::size_t with_code = 0;
    for (const PackageLibrary& library : package.libraries) {
        if (library.file.scan.objects.empty()) continue;
        ++with_code;
        for (std::size_t i = 0; i < library.file.verdicts.size() && i < package.per_target.size(); ++i) {
            const TargetVerdict& verdict = library.file.verdicts[i];
            PackageVerdict& answer = package.per_target[i];
            if (verdict.status == Status::skip) continue;
            PackageVerdict here = verdict.status == Status::fail             ? PackageVerdict::cannot_run
                                  : verdict.image.kind == ImageKind::ptx_jit ? PackageVerdict::runs_through_ptx
                                                                             : PackageVerdict::runs_natively;
            if (here == PackageVerdict::cannot_run && !worst_failure) {
                worst_failure = &verdict;
                failing_library = &library;
            }
            answer = std::min(answer, here);
        }
    }
    const auto first_error = std::find_if(package.libraries.begin(), package.libraries.end(),
                                          [](const PackageLibrary& library) { return library.file.input_error; });
    if (package.input_error) {
        package.verdict = PackageVerdict::unreadable;
        package.why = package.input_error->message;
        return;
    }
    if (first_error != package.libraries.end()) {
        package.verdict = PackageVerdict::unreadable;
        package.why = fmt::format("{}: {}", first_error->file.path, first_error->file.input_error->message);
        package.input_error = first_error->file.input_error;
        return;
    }
    if (!package.not_installable.empty()) {
        package.verdict = PackageVerdict::not_installable;
        package.why = package.not_installable;
        package.finding = make_finding(
            Code::package_not_installable,
            fmt::format("pip would not install {} {} here: {}", package.name, package.version, package.not_installable),
            context.interpreter
                ? fmt::format("Pick the wheel built for this interpreter and machine ({}, {}, glibc {}): `cudacheck "
                              "advise` names the build that fits, or `pip download --only-binary=:all: {}=={}` lists "
                              "the one pip would take.",
                              context.interpreter->tags.version_text(), context.interpreter->tags.machine,
                              context.interpreter->tags.glibc
                                  ? fmt::format("{}.{}", context.interpreter->tags.glibc->first,
                                                context.interpreter->tags.glibc->second)
                                  : std::string("unknown"),
                              package.name, package.version)
                : std::string());
        return;
    }
    if (package.driver_finding) {
        package.verdict = PackageVerdict::cannot_run;
        package.why = package.driver_finding->message;
        package.finding = package.driver_finding;
        return;
    }
    if (worst_failure) {
        package.verdict = PackageVerdict::cannot_run;
        package.why = fmt::format("{}: {}", failing_library->file.path, worst_failure->message);
        package.finding = worst_failure->finding;
        return;
    }
    if (with_code == 0) {
        package.verdict = PackageVerdict::no_gpu_code;
        package.why = package.shared_libraries == 0
                          ? std::string("no shared library")
                          : fmt::format("none of its {} shared librar{} carries GPU code", package.shared_libraries,
                                        package.shared_libraries == 1 ? "y" : "ies");
        if (package.cuda.cuda_major)
            package.why += fmt::format("; it needs CUDA {} libraries", *package.cuda.cuda_major);
        return;
    }
    if (context.targets.empty()) {
        package.verdict = PackageVerdict::not_judged;
        package.why = fmt::format("{} librar{} with GPU code; no GPU and no --arch to judge them for", with_code,
                                  with_code == 1 ? "y" : "ies");
        return;
    }
    package.verdict = *std::min_element(package.per_target.begin(), package.per_target.end());
    if (package.verdict == PackageVerdict::no_gpu_code) package.verdict = PackageVerdict::runs_natively;
    package.why =
        fmt::format("{} librar{} with GPU code: {} on {}", with_code, with_code == 1 ? "y" : "ies",
                    package.verdict == PackageVerdict::runs_through_ptx ? "some only through PTX JIT" : "SASS",
                    context.targets.size() == 1 ? context.targets.front().label()
                                                : fmt::format("all {} targets", context.targets.size()));
}

}  // namespace

std::string_view to_string(PackageVerdict verdict) {
    switch (verdict) {
        case PackageVerdict::unreadable: return "unreadable";
        case PackageVerdict::not_installable: return "not_installable";
        case PackageVerdict::cannot_run: return "cannot_run";
        case PackageVerdict::runs_through_ptx: return "runs_through_ptx";
        case PackageVerdict::runs_natively: return "runs_natively";
        case PackageVerdict::no_gpu_code: return "no_gpu_code";
        case PackageVerdict::not_judged: return "not_judged";
    }
    return "unknown";
}

bool is_wheel_path(const std::string& path) { return path.ends_with(".whl"); }

bool has_dist_info(const std::string& directory) {
    const std::vector<std::string> entries = sys::list_directory(directory);
    return std::any_of(entries.begin(), entries.end(),
                       [](const std::string& entry) { return entry.ends_with(".dist-info"); });
}

int package_exit_code(const std::vector<InspectedPackage>& packages) {
    int code = exit_ok;
    for (const InspectedPackage& package : packages) {
        if (package.verdict == PackageVerdict::unreadable) return exit_usage;
        if (package.verdict == PackageVerdict::not_installable || package.verdict == PackageVerdict::cannot_run)
            code = exit_check_failed;
    }
    return code;
}

std::vector<std::string> parse_record_paths(std::string_view record) {
    std::vector<std::string> paths;
    std::size_t at = 0;
    while (at < record.size()) {
        std::string field;
        if (record[at] == '"') {
            // A quoted field: "" is a quote (the csv module's default dialect, which writes RECORD).
            for (++at; at < record.size(); ++at) {
                if (record[at] != '"') {
                    field += record[at];
                } else if (at + 1 < record.size() && record[at + 1] == '"') {
                    field += '"';
                    ++at;
                } else {
                    ++at;
                    break;
                }
            }
        } else {
            const std::size_t end = record.find_first_of(",\n", at);
            field = std::string(record.substr(at, end == std::string_view::npos ? record.size() - at : end - at));
            at = end == std::string_view::npos ? record.size() : end;
        }
        if (!field.empty() && field.back() == '\r') field.pop_back();
        if (!field.empty()) paths.push_back(std::move(field));
        // The rest of the row (hash, size) is not needed.
        const std::size_t end = record.find('\n', at);
        at = end == std::string_view::npos ? record.size() : end + 1;
    }
    return paths;
}

InspectedPackage inspect_wheel(const std::string& path, const PackageContext& context) {
    const auto start = std::chrono::steady_clock::now();
    InspectedPackage package;
    package.path = path;
    package.wheel = true;
    try {
        const Expected<packaging::WheelName> wheel_name = packaging::parse_wheel_filename(base_name(path));
        if (wheel_name) {
            package.name = wheel_name->distribution;
            package.version = wheel_name->version;
            for (const packaging::Tag& tag : wheel_name->tags()) package.tags.push_back(tag.text());
        } else {
            package.not_installable = fmt::format("not a wheel file name pip accepts: {}", wheel_name.error().message);
        }
        Expected<ZipArchive> archive = ZipArchive::open(path);
        if (!archive) {
            package.input_error = archive.error().code != 0
                                      ? make_finding(Code::inspect_unreadable, archive.error().message)
                                      : make_finding(Code::inspect_archive_damaged,
                                                     fmt::format("not a readable wheel: {}", archive.error().message));
            conclude(context, package);
            package.duration_ms = milliseconds_since(start);
            return package;
        }
        const std::string dist_info = dist_info_prefix(*archive);
        const ZipMember* metadata = dist_info.empty() ? nullptr : archive->find(dist_info + "METADATA");
        if (!metadata) {
            package.input_error = make_finding(Code::inspect_archive_damaged,
                                               "not a wheel: no *.dist-info/METADATA at its top (the wheel spec)");
        } else if (Expected<std::string> text = archive->read_member(*metadata, metadata_limit); !text) {
            package.input_error =
                make_finding(Code::inspect_archive_damaged,
                             fmt::format("{}: {}", sys::printable(metadata->name), text.error().message));
        } else {
            read_metadata(*text, context, package);
        }
        if (context.interpreter && package.not_installable.empty() && wheel_name) {
            package.fit = packaging::wheel_fits(*wheel_name, context.interpreter->tags);
            std::vector<std::string> reasons;
            if (!package.fit->fits) reasons.push_back(package.fit->why_not);
            if (!package.requires_python.empty()) {
                const Expected<bool> allows =
                    packaging::python_allows(package.requires_python, context.interpreter->python_full_version);
                if (allows && !*allows)
                    reasons.push_back(fmt::format("it requires Python {}, this interpreter is {}",
                                                  package.requires_python, context.interpreter->python_full_version));
            }
            for (const std::string& reason : reasons)
                package.not_installable += (package.not_installable.empty() ? "" : "; ") + reason;
        }
        judge_driver(context, package);
        for (const ZipMember& member : archive->members()) {
            if (member.is_directory() || !is_shared_library_name(member.name) || package.input_error) continue;
            ++package.shared_libraries;
            const std::string shown = sys::printable(member.name);
            Expected<std::unique_ptr<ZipMemberSource>> source = archive->open_member(member);
            GpuCodeScan scan;
            if (!source) {
                scan.error = ScanError::unreadable;
                scan.error_message = source.error().message;
            } else {
                scan = scan_gpu_code(**source);
            }
            // A linker script or another non-ELF file named .so is no library: nothing to judge.
            if (scan.error == ScanError::unrecognised) continue;
            PackageLibrary library = judge_library(shown, member.uncompressed_size, std::move(scan), context);
            if (source) library.bytes_inflated = (*source)->counters().bytes_inflated;
            if (carries_gpu_code(library)) package.libraries.push_back(std::move(library));
        }
    } catch (const std::exception& error) {
        // One wheel must never end the listing of the others (a bad_alloc would end the command).
        package.libraries.clear();
        package.input_error =
            make_finding(Code::inspect_archive_damaged,
                         fmt::format("reading it failed ({}); the wheel is likely corrupt", error.what()));
    }
    conclude(context, package);
    package.duration_ms = milliseconds_since(start);
    return package;
}

std::vector<InspectedPackage> inspect_site_packages(const std::string& site_packages, const PackageContext& context) {
    std::vector<InspectedPackage> packages;
    for (const std::string& entry : sys::list_directory(site_packages)) {
        if (!entry.ends_with(".dist-info")) continue;
        const auto start = std::chrono::steady_clock::now();
        const std::string directory = site_packages + "/" + entry;
        InspectedPackage package;
        package.path = directory;
        package.wheel = false;
        const Expected<std::string> metadata = sys::read_regular_file(directory + "/METADATA", metadata_limit);
        if (!metadata) continue;  // not a distribution pip installed (an egg-info, a half-removed one)
        read_metadata(*metadata, context, package);
        if (const Expected<std::string> wheel = sys::read_regular_file(directory + "/WHEEL", 1 << 16))
            package.tags = wheel_file_tags(*wheel);
        judge_driver(context, package);
        const Expected<std::string> record = sys::read_regular_file(directory + "/RECORD", record_limit);
        if (record) {
            for (const std::string& file : parse_record_paths(*record)) {
                if (!is_shared_library_name(file) || file.starts_with("/")) continue;
                ++package.shared_libraries;
                const std::string full = site_packages + "/" + file;
                GpuCodeScan scan;
                try {
                    scan = inspect_file(full);
                } catch (const std::exception& error) {
                    scan.error = ScanError::malformed;
                    scan.error_message = fmt::format("reading it failed ({})", error.what());
                }
                if (scan.error == ScanError::unrecognised) continue;
                // A file RECORD names but that is gone: pip's record is stale, nothing to judge.
                if (scan.error == ScanError::unreadable && !sys::exists(full)) continue;
                PackageLibrary library = judge_library(full, 0, std::move(scan), context);
                if (carries_gpu_code(library)) package.libraries.push_back(std::move(library));
            }
        }
        if (package.libraries.empty() && !package.cuda.cuda_major && package.cuda.pins.empty() && !package.input_error)
            continue;
        conclude(context, package);
        package.duration_ms = milliseconds_since(start);
        packages.push_back(std::move(package));
    }
    std::sort(packages.begin(), packages.end(), [](const InspectedPackage& a, const InspectedPackage& b) {
        return packaging::normalize_name(a.name) < packaging::normalize_name(b.name);
    });
    return packages;
}

}  // namespace cudacheck
