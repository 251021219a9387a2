#include "cuda/arch_coverage.hpp"

#include "util/system.hpp"

#include <cctype>
#include <charconv>
#include <fmt/format.h>

namespace cudacheck {

namespace {

// "90a" -> {90, arch_specific} plus what follows it ("-real"); nothing when it starts with no number.
std::optional<std::pair<GpuArch, std::string_view>> leading_arch(std::string_view text) {
    int number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc{} || number <= 0 || number > 999) return std::nullopt;
    std::string_view rest(end, static_cast<std::size_t>(text.data() + text.size() - end));
    GpuArch arch{number, ArchVariant::generic};
    if (!rest.empty() && (rest.front() == 'a' || rest.front() == 'f')) {
        arch.variant = rest.front() == 'a' ? ArchVariant::arch_specific : ArchVariant::family;
        rest.remove_prefix(1);
    }
    return std::pair{arch, rest};
}

// The newer of two candidates; at the same number the variant that asks the most of the device
// (arch-specific, then family) is the one built for it.
int specificity(ArchVariant variant) {
    switch (variant) {
        case ArchVariant::arch_specific: return 2;
        case ArchVariant::family: return 1;
        case ArchVariant::generic: break;
    }
    return 0;
}

bool better(const GpuArch& candidate, const GpuArch& current) {
    if (candidate.number != current.number) return candidate.number > current.number;
    return specificity(candidate.variant) > specificity(current.variant);
}

}  // namespace

std::string GpuArch::suffix() const {
    switch (variant) {
        case ArchVariant::arch_specific: return fmt::format("{}a", number);
        case ArchVariant::family: return fmt::format("{}f", number);
        case ArchVariant::generic: break;
    }
    return std::to_string(number);
}

std::string GpuArch::sass_name() const { return "sm_" + suffix(); }
std::string GpuArch::virtual_name() const { return "compute_" + suffix(); }

std::optional<GpuArch> parse_gpu_arch(std::string_view text) {
    text = sys::trim(text);
    for (std::string_view prefix : {"sm_", "compute_"})
        if (sys::starts_with(text, prefix)) text.remove_prefix(prefix.size());
    // "9.0" and "12.0a": compute capability notation, as TORCH_CUDA_ARCH_LIST writes it; one minor digit.
    std::string joined(text);
    if (const std::size_t dot = text.find('.'); dot != std::string_view::npos) {
        const std::string_view minor = text.substr(dot + 1);
        if (minor.empty() || !std::isdigit(static_cast<unsigned char>(minor.front())) ||
            (minor.size() > 1 && std::isdigit(static_cast<unsigned char>(minor[1]))))
            return std::nullopt;
        joined = std::string(text.substr(0, dot)) + std::string(minor);
    }
    const auto parsed = leading_arch(joined);
    if (!parsed || !parsed->second.empty() || parsed->first.number < 10) return std::nullopt;
    return parsed->first;
}

EmbeddedTargets parse_cmake_architectures(std::string_view architectures) {
    EmbeddedTargets targets;
    for (const std::string& entry : sys::split(architectures, ';')) {
        const auto parsed = leading_arch(entry);
        if (!parsed) continue;  // "native", "all": not a fixed list
        const auto& [arch, suffix] = *parsed;
        if (suffix.empty() || suffix == "-real") targets.sass.push_back(arch);
        if (suffix.empty() || suffix == "-virtual") targets.ptx.push_back(arch);
    }
    return targets;
}

bool sass_runs_on(const GpuArch& sass, int cc_major, int cc_minor) {
    if (sass.variant == ArchVariant::arch_specific) return sass.major() == cc_major && sass.minor() == cc_minor;
    return sass.major() == cc_major && sass.minor() <= cc_minor;
}

bool ptx_compiles_for(const GpuArch& ptx, int cc_major, int cc_minor) {
    switch (ptx.variant) {
        case ArchVariant::arch_specific: return ptx.major() == cc_major && ptx.minor() == cc_minor;
        case ArchVariant::family: return ptx.major() == cc_major && ptx.minor() <= cc_minor;
        case ArchVariant::generic: break;
    }
    return ptx.number <= cc_major * 10 + cc_minor;
}

ImageVerdict kernel_image_for(const EmbeddedTargets& targets, int cc_major, int cc_minor) {
    ImageVerdict best;
    // The runtime prefers the newest compatible SASS, then the newest compatible PTX.
    for (const GpuArch& sass : targets.sass)
        if (sass_runs_on(sass, cc_major, cc_minor) && (best.kind != ImageKind::native || better(sass, best.target)))
            best = {ImageKind::native, sass};
    if (best.kind == ImageKind::native) return best;
    for (const GpuArch& ptx : targets.ptx)
        if (ptx_compiles_for(ptx, cc_major, cc_minor) && (best.kind != ImageKind::ptx_jit || better(ptx, best.target)))
            best = {ImageKind::ptx_jit, ptx};
    return best;
}

std::string ImageVerdict::describe() const {
    switch (kind) {
        case ImageKind::native: return fmt::format("runs natively ({} SASS)", target.sass_name());
        case ImageKind::ptx_jit:
            return fmt::format("runs through PTX JIT ({}; the first launch compiles)", target.virtual_name());
        case ImageKind::none: return "no kernel image for this GPU";
    }
    return {};
}

}  // namespace cudacheck
