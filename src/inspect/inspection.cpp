#include "inspect/inspection.hpp"

#include "cuda/cuda_facts.hpp"
#include "report/catalog.hpp"
#include "report/report.hpp"

#include <algorithm>
#include <exception>
#include <fmt/format.h>

namespace cudacheck {

namespace {

void add_loadable(const CodeObject& object, EmbeddedTargets& targets) {
    if (object.kind == CodeKind::sass) targets.sass.push_back(object.arch);
    if (object.kind == CodeKind::ptx) targets.ptx.push_back(object.arch);
}

// The SASS and PTX of the whole file.
EmbeddedTargets loadable_targets(const GpuCodeScan& scan) {
    EmbeddedTargets targets;
    for (const CodeObject& object : scan.objects) add_loadable(object, targets);
    return targets;
}

// Fatbinaries with loadable code but none for this GPU: one pass over the objects, since large
// libraries hold thousands of fatbinaries (libcublasLt.so.13: 2782). The objects are in file
// order, so those of one fatbinary are consecutive and nothing is allocated per fatbinary.
std::size_t fatbins_without_image(const GpuCodeScan& scan, const InspectTarget& target) {
    std::size_t count = 0;
    for (auto first = scan.objects.begin(); first != scan.objects.end();) {
        const auto last = std::find_if(first, scan.objects.end(),
                                       [&](const CodeObject& object) { return object.fatbin != first->fatbin; });
        EmbeddedTargets module;
        if (first->fatbin)
            for (auto object = first; object != last; ++object) add_loadable(*object, module);
        if ((!module.sass.empty() || !module.ptx.empty()) &&
            kernel_image_for(module, target.cc_major, target.cc_minor).kind == ImageKind::none)
            ++count;
        first = last;
    }
    return count;
}

// "SASS sm_75, sm_90a; PTX compute_120" for messages.
std::string carried(const EmbeddedTargets& targets) {
    const auto names = [](const std::vector<GpuArch>& arches, auto name) {
        std::vector<std::string> unique;
        for (const GpuArch& arch : arches)
            if (std::find(unique.begin(), unique.end(), name(arch)) == unique.end()) unique.push_back(name(arch));
        return fmt::format("{}", fmt::join(unique, ", "));
    };
    std::string text;
    if (!targets.sass.empty())
        text = "SASS " + names(targets.sass, [](const GpuArch& arch) { return arch.sass_name(); });
    if (!targets.ptx.empty())
        text += (text.empty() ? "PTX " : "; PTX ") +
                names(targets.ptx, [](const GpuArch& arch) { return arch.virtual_name(); });
    return text;
}

Finding no_image_finding(const InspectTarget& target, const EmbeddedTargets& targets) {
    const GpuArch arch = target.arch();
    // Toolkits drop old architectures (Volta and older in CUDA 13): then the build needs an older one.
    const auto last_major = last_cuda_major_supporting(target.cc_major, target.cc_minor);
    const std::string toolkit =
        last_major ? fmt::format(" (with a CUDA {}.x toolkit, the last that builds for it)", *last_major)
                   : std::string();
    return make_finding(
        Code::no_kernel_image,
        fmt::format("no kernel image for {}: the file carries {}", target.label(), carried(targets)),
        fmt::format("Rebuild with code for compute capability {0}.{1}{3}: nvcc -gencode arch=compute_{2},code=sm_{2} "
                    "(and -gencode arch=compute_{2},code=compute_{2} for PTX that newer GPUs can JIT-compile), "
                    "CMAKE_CUDA_ARCHITECTURES={2}, or for PyTorch extensions TORCH_CUDA_ARCH_LIST=\"{0}.{1}\" "
                    "(\"{0}.{1}+PTX\" to add PTX).",
                    target.cc_major, target.cc_minor, arch.number, toolkit));
}

}  // namespace

std::string InspectTarget::label() const {
    if (!device) return fmt::format("{} (--arch)", arch().sass_name());
    return fmt::format("{} (GPU {}, {})", arch().sass_name(), *device, device_name);
}

TargetVerdict judge_target(const GpuCodeScan& scan, const InspectTarget& target,
                           std::optional<CudaVersion> driver_cuda) {
    TargetVerdict verdict;
    const EmbeddedTargets targets = loadable_targets(scan);
    if (targets.sass.empty() && targets.ptx.empty()) {
        verdict.status = Status::skip;
        verdict.message = scan.objects.empty() ? "no GPU code in this file"
                                               : "only LTO-IR, which needs device linking (nvlink) before it can run";
        return verdict;
    }
    verdict.image = kernel_image_for(targets, target.cc_major, target.cc_minor);
    // Only worth saying when the file as a whole has an image: otherwise every fatbinary lacks one.
    if (scan.fatbins > 1 && verdict.image.kind != ImageKind::none)
        verdict.fatbins_without_image = fatbins_without_image(scan, target);
    verdict.message = verdict.image.describe();
    switch (verdict.image.kind) {
        case ImageKind::none:
            verdict.status = Status::fail;
            verdict.finding = no_image_finding(target, targets);
            verdict.message = verdict.finding->message;
            return verdict;
        case ImageKind::native: return verdict;
        case ImageKind::ptx_jit: break;
    }
    // The driver JIT-compiles the newest ISA among the chosen PTX entries.
    for (const CodeObject& object : scan.objects)
        if (object.kind == CodeKind::ptx && object.arch == verdict.image.target && object.ptx_isa &&
            (!verdict.ptx_isa || std::pair{object.ptx_isa->major, object.ptx_isa->minor} >
                                     std::pair{verdict.ptx_isa->major, verdict.ptx_isa->minor}))
            verdict.ptx_isa = object.ptx_isa;
    if (!verdict.ptx_isa) return verdict;
    verdict.ptx_needs_cuda = minimum_cuda_for_ptx_isa(verdict.ptx_isa->major, verdict.ptx_isa->minor);
    const std::string isa = fmt::format("PTX ISA {}.{}", verdict.ptx_isa->major, verdict.ptx_isa->minor);
    if (!verdict.ptx_needs_cuda) {
        verdict.message += fmt::format("; {} is not in cudacheck's table, so the driver it needs is unknown", isa);
        return verdict;
    }
    verdict.message += fmt::format("; {} needs driver CUDA >= {}", isa, verdict.ptx_needs_cuda->to_string());
    if (driver_cuda && !driver_can_jit(*verdict.ptx_needs_cuda, *driver_cuda)) {
        const auto minimum = minimum_driver_for(*verdict.ptx_needs_cuda);
        verdict.status = Status::fail;
        verdict.finding = make_finding(
            Code::ptx_too_new,
            fmt::format("{} needs driver CUDA >= {}, and this driver is CUDA {}: the JIT would fail (222) on {}", isa,
                        verdict.ptx_needs_cuda->to_string(), driver_cuda->to_string(), target.label()),
            fmt::format("Update the NVIDIA driver to {0} or newer (CUDA {1}), or rebuild with SASS for this GPU: nvcc "
                        "-gencode "
                        "arch=compute_{2},code=sm_{2} (TORCH_CUDA_ARCH_LIST=\"{3}.{4}\" for PyTorch extensions).",
                        minimum ? *minimum : std::string_view("a newer release"), verdict.ptx_needs_cuda->to_string(),
                        target.arch().number, target.cc_major, target.cc_minor));
        verdict.message = verdict.finding->message;
    }
    return verdict;
}

InspectedFile inspect_and_judge(const std::string& path, const std::vector<InspectTarget>& targets,
                                std::optional<CudaVersion> driver_cuda) {
    InspectedFile file;
    file.path = path;
    try {
        file.scan = inspect_file(path);
        // A malformed file is still judged on the code read before the damage; the exit code is 2 anyway.
        if (file.scan.error == ScanError::none || file.scan.error == ScanError::malformed)
            for (const InspectTarget& target : targets)
                file.verdicts.push_back(judge_target(file.scan, target, driver_cuda));
    } catch (const std::exception& error) {
        // The last resort: nothing a file claims is allocated, but one file must never end the
        // listing of the others (a bad_alloc would end the whole command).
        file.scan = GpuCodeScan{};
        file.verdicts.clear();
        file.scan.error = ScanError::malformed;
        file.scan.error_message = fmt::format("reading it failed ({}); the file is likely corrupt", error.what());
    }
    switch (file.scan.error) {
        case ScanError::none: break;
        case ScanError::unreadable:
            file.input_error = make_finding(Code::inspect_unreadable, file.scan.error_message);
            break;
        case ScanError::unrecognised:
            file.input_error = make_finding(Code::inspect_unrecognised, file.scan.error_message);
            break;
        case ScanError::malformed:
            file.input_error = make_finding(Code::inspect_malformed, file.scan.error_message);
            break;
    }
    return file;
}

int inspect_exit_code(const std::vector<InspectedFile>& files) {
    int code = exit_ok;
    for (const InspectedFile& file : files) {
        if (file.input_error) return exit_usage;
        for (const TargetVerdict& verdict : file.verdicts)
            if (verdict.status == Status::fail) code = exit_check_failed;
    }
    return code;
}

}  // namespace cudacheck
