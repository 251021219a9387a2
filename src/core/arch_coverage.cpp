#include "core/arch_coverage.hpp"

#include "core/system.hpp"

#include <charconv>
#include <fmt/format.h>

namespace cudacheck {

EmbeddedTargets parse_cmake_architectures(std::string_view architectures) {
    EmbeddedTargets targets;
    for (const std::string& entry : sys::split(architectures, ';')) {
        int number = 0;
        const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), number);
        if (error != std::errc{} || number <= 0) continue;  // "native", "all": not a fixed list
        const std::string_view suffix(end, static_cast<std::size_t>(entry.data() + entry.size() - end));
        if (suffix.empty() || suffix == "-real") targets.sass.push_back(number);
        if (suffix.empty() || suffix == "-virtual") targets.ptx.push_back(number);
    }
    return targets;
}

ImageVerdict kernel_image_for(const EmbeddedTargets& targets, int cc_major, int cc_minor) {
    const int device = cc_major * 10 + cc_minor;
    ImageVerdict best;
    // The runtime prefers the newest compatible SASS, then the newest compatible PTX.
    for (int sass : targets.sass)
        if (sass / 10 == cc_major && sass % 10 <= cc_minor && (best.kind != ImageKind::native || sass > best.target))
            best = {ImageKind::native, sass};
    if (best.kind == ImageKind::native) return best;
    for (int ptx : targets.ptx)
        if (ptx <= device && (best.kind != ImageKind::ptx_jit || ptx > best.target)) best = {ImageKind::ptx_jit, ptx};
    return best;
}

std::string ImageVerdict::describe() const {
    switch (kind) {
        case ImageKind::native: return fmt::format("runs natively (sm_{} SASS)", target);
        case ImageKind::ptx_jit: return fmt::format("runs through PTX JIT (compute_{}; the first launch compiles)", target);
        case ImageKind::none: return "no kernel image for this GPU";
    }
    return {};
}

}  // namespace cudacheck
