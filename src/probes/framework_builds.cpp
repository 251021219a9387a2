#include "probes/framework_builds.hpp"

#include "util/json_read.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cudacheck {

std::string_view to_string(Accelerator accelerator) {
    switch (accelerator) {
        case Accelerator::cuda: return "CUDA";
        case Accelerator::rocm: return "ROCm";
        case Accelerator::cpu: return "CPU only";
        case Accelerator::unknown: return "unknown";
    }
    return "";
}

std::optional<std::string> cuda_of_local_version(std::string_view version) {
    const std::size_t plus = version.find("+cu");
    if (plus == std::string_view::npos) return std::nullopt;
    const std::string_view digits = version.substr(plus + 3);
    // cu118 -> 11.8, cu130 -> 13.0: the last digit is the minor (PyTorch's wheel index names).
    if (digits.size() < 3 || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
    return fmt::format("{}.{}", digits.substr(0, digits.size() - 1), digits.substr(digits.size() - 1));
}

namespace {

std::optional<int> major_of(std::string_view version) {
    const std::size_t dot = version.find_first_not_of("0123456789");
    const std::string_view digits = version.substr(0, dot);
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    return std::stoi(std::string(digits));
}

const InstalledDistribution* find(const std::vector<InstalledDistribution>& installed, std::string_view name) {
    const auto found = std::find_if(installed.begin(), installed.end(), [&](const InstalledDistribution& d) { return d.name == name; });
    return found == installed.end() ? nullptr : &*found;
}

// Reads `relative` under site-packages, noting it as read or as a problem.
std::optional<std::string> read_noted(const std::string& site_packages, const std::string& relative, FrameworkBuild& build) {
    const std::string path = site_packages + "/" + relative;
    std::optional<std::string> text = sys::read_file(path, 1 << 20);
    if (text) build.files.push_back(path);
    else build.problems.push_back(fmt::format("{}: missing or unreadable", path));
    return text;
}

std::optional<DistributionMetadata> metadata_noted(const InstalledDistribution& distribution, FrameworkBuild& build) {
    const std::string path = distribution.dist_info + "/METADATA";
    const std::optional<std::string> text = sys::read_file(path, 1 << 20);
    if (!text) {
        build.problems.push_back(fmt::format("{}: missing or unreadable", path));
        return std::nullopt;
    }
    build.files.push_back(path);
    std::optional<DistributionMetadata> metadata = parse_metadata(*text);
    if (!metadata) build.problems.push_back(fmt::format("{}: no Name and Version header: not a distribution's metadata", path));
    return metadata;
}

// nvidia-* and cuda-toolkit requirements: the CUDA wheels a framework pins or needs, those under
// `extra` included ("with-cuda" for the JAX plugin) and those of other extras left out.
std::vector<Requirement> cuda_wheels_of(const DistributionMetadata& metadata, std::optional<std::string_view> extra = std::nullopt) {
    std::vector<Requirement> wheels;
    for (const Requirement& requirement : metadata.requires_dist) {
        if (!sys::starts_with(requirement.name, "nvidia-") && requirement.name != "cuda-toolkit") continue;
        const std::optional<std::string> needs_extra = requirement.extra();
        if (needs_extra && (!extra || *needs_extra != *extra)) continue;
        wheels.push_back(requirement);
    }
    return wheels;
}

std::optional<FrameworkBuild> read_torch(const std::string& site, const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* torch = find(installed, "torch");
    if (torch == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "PyTorch", .distribution = "torch", .version = torch->version};
    if (const std::optional<std::string> text = read_noted(site, "torch/version.py", build)) {
        const PythonLiterals literals = parse_python_literals(*text);
        const auto value = [&](std::string_view name) -> std::optional<std::string> {
            const auto found = literals.find(name);
            return found == literals.end() ? std::nullopt : found->second;
        };
        if (const auto version = value("__version__")) build.version = *version;
        else build.problems.push_back(fmt::format("{}/torch/version.py: no __version__ literal", site));
        if (!literals.contains("cuda")) build.problems.push_back(fmt::format("{}/torch/version.py: no cuda assignment", site));
        build.cuda = value("cuda");
        build.rocm = value("hip");
        if (build.cuda) build.cuda_major = major_of(*build.cuda);
        build.accelerator = build.cuda ? Accelerator::cuda : build.rocm ? Accelerator::rocm : literals.contains("cuda") ? Accelerator::cpu : Accelerator::unknown;
    }
    if (const auto metadata = metadata_noted(*torch, build)) build.cuda_wheels = cuda_wheels_of(*metadata);
    return build;
}

// torchvision and torchaudio: version.py's local version names the CUDA build; METADATA the torch.
std::optional<FrameworkBuild> read_torch_extension(const std::string& site, const std::vector<InstalledDistribution>& installed,
                                                   std::string_view name) {
    const InstalledDistribution* distribution = find(installed, name);
    if (distribution == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = std::string(name), .distribution = std::string(name), .version = distribution->version};
    if (const std::optional<std::string> text = read_noted(site, std::string(name) + "/version.py", build)) {
        const PythonLiterals literals = parse_python_literals(*text);
        if (const auto found = literals.find("__version__"); found != literals.end() && found->second) build.version = *found->second;
    }
    build.cuda = cuda_of_local_version(build.version);
    if (build.cuda) build.cuda_major = major_of(*build.cuda);
    build.accelerator = build.cuda ? Accelerator::cuda
                        : build.version.find("+cpu") != std::string::npos ? Accelerator::cpu
                        : build.version.find("+rocm") != std::string::npos ? Accelerator::rocm
                                                                           : Accelerator::unknown;
    if (const auto metadata = metadata_noted(*distribution, build))
        for (const Requirement& requirement : metadata->requires_dist)
            if (requirement.name == "torch" && !requirement.extra()) build.requires_torch = requirement.specifier;
    return build;
}

// JAX: jaxlib alone runs on the CPU; a jax-cudaNN-plugin adds the GPU (its package name carries
// the CUDA major, its version.py the version, its METADATA the minimum library versions).
std::optional<FrameworkBuild> read_jax(const std::string& site, const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* jaxlib = find(installed, "jaxlib");
    const InstalledDistribution* plugin = nullptr;
    int plugin_major = 0;
    for (const InstalledDistribution& distribution : installed)
        if (sys::starts_with(distribution.name, "jax-cuda") && distribution.name.size() > 15 &&
            distribution.name.substr(distribution.name.size() - 7) == "-plugin") {
            plugin = &distribution;
            plugin_major = major_of(distribution.name.substr(8)).value_or(0);
        }
    if (jaxlib == nullptr && plugin == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "JAX", .distribution = plugin != nullptr ? plugin->name : "jaxlib"};
    build.version = jaxlib != nullptr ? jaxlib->version : plugin->version;
    if (plugin == nullptr) {
        build.accelerator = Accelerator::cpu;
        return build;
    }
    build.accelerator = Accelerator::cuda;
    if (plugin_major > 0) build.cuda_major = plugin_major, build.cuda = std::to_string(plugin_major);
    const std::string module = fmt::format("jax_cuda{}_plugin/version.py", plugin_major);
    if (const std::optional<std::string> text = read_noted(site, module, build)) {
        const PythonLiterals literals = parse_python_literals(*text);
        const auto found = literals.find("_version");
        if (found != literals.end() && found->second && jaxlib != nullptr && *found->second != jaxlib->version)
            build.problems.push_back(fmt::format("{}/{}: plugin version {} differs from jaxlib {}", site, module, *found->second, jaxlib->version));
    }
    if (const auto metadata = metadata_noted(*plugin, build)) build.cuda_wheels = cuda_wheels_of(*metadata, "with-cuda");
    return build;
}

// CuPy: cupy-cuda13x names the CUDA major; its _wheel.json ({"cuda": "13.x", ...}) says the same.
std::optional<FrameworkBuild> read_cupy(const std::string& site, const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* cupy = nullptr;
    for (const InstalledDistribution& distribution : installed)
        if (distribution.name == "cupy" || sys::starts_with(distribution.name, "cupy-cuda") || sys::starts_with(distribution.name, "cupy-rocm"))
            cupy = &distribution;
    if (cupy == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "CuPy", .distribution = cupy->name, .version = cupy->version};
    if (sys::starts_with(cupy->name, "cupy-rocm")) build.accelerator = Accelerator::rocm;
    else if (sys::starts_with(cupy->name, "cupy-cuda")) {
        build.accelerator = Accelerator::cuda;
        build.cuda_major = major_of(cupy->name.substr(9));
    }
    if (build.accelerator != Accelerator::cuda) return build;
    const std::string path = site + "/cupy/.data/_wheel.json";
    std::string error;
    if (const std::optional<ordered_json> wheel = read_json_file(path, error)) {
        build.files.push_back(path);
        if (wheel->is_object() && wheel->contains("cuda") && (*wheel)["cuda"].is_string()) build.cuda = (*wheel)["cuda"].get<std::string>();
        else build.problems.push_back(fmt::format("{}: no \"cuda\" string", path));
        if (build.cuda && build.cuda_major && major_of(*build.cuda) != build.cuda_major)
            build.problems.push_back(fmt::format("{}: says CUDA {} but the package is {}", path, *build.cuda, cupy->name));
    } else {
        build.problems.push_back(fmt::format("{}: {}", path, error));
    }
    return build;
}

std::optional<FrameworkBuild> read_triton(const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* triton = find(installed, "triton");
    if (triton == nullptr) return std::nullopt;
    // Triton compiles its kernels at run time with the ptxas it ships; what matters is the torch it
    // serves, which pins it (torch's METADATA: triton==3.6.0).
    return FrameworkBuild{.framework = "triton", .distribution = "triton", .version = triton->version};
}

}  // namespace

std::vector<FrameworkBuild> read_framework_builds(const std::string& site_packages, const std::vector<InstalledDistribution>& installed) {
    std::vector<FrameworkBuild> builds;
    const auto add = [&](std::optional<FrameworkBuild> build) {
        if (build) builds.push_back(std::move(*build));
    };
    add(read_torch(site_packages, installed));
    add(read_torch_extension(site_packages, installed, "torchvision"));
    add(read_torch_extension(site_packages, installed, "torchaudio"));
    add(read_jax(site_packages, installed));
    add(read_cupy(site_packages, installed));
    add(read_triton(installed));
    return builds;
}

}  // namespace cudacheck
