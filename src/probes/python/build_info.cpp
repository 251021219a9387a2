#include "probes/python/build_info.hpp"

#include "util/json_read.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <span>
#include <sys/utsname.h>

namespace cudacheck {

std::string_view to_string(Accelerator accelerator) {
    switch (accelerator) {
        case Accelerator::cuda: return "cuda";
        case Accelerator::rocm: return "rocm";
        case Accelerator::cpu: return "cpu";
        case Accelerator::unknown: return "unknown";
    }
    return "";
}

std::optional<std::string> cuda_of_local_version(std::string_view version) {
    const std::size_t plus = version.find("+cu");
    if (plus == std::string_view::npos) return std::nullopt;
    const std::string_view digits = version.substr(plus + 3);
    // cu118 -> 11.8, cu130 -> 13.0: the last digit is the minor (PyTorch's wheel index names).
    if (digits.size() < 3 || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        return std::nullopt;
    return fmt::format("{}.{}", digits.substr(0, digits.size() - 1), digits.substr(digits.size() - 1));
}

namespace {

std::optional<int> major_of(std::string_view version) {
    const std::size_t dot = version.find_first_not_of("0123456789");
    const std::string_view digits = version.substr(0, dot);
    if (digits.size() > 3) return std::nullopt;
    const std::optional<long> number = decimal_number(digits);
    return number ? std::optional<int>(static_cast<int>(*number)) : std::nullopt;
}

const InstalledDistribution* find(const std::vector<InstalledDistribution>& installed, std::string_view name) {
    const auto found = std::find_if(installed.begin(), installed.end(),
                                    [&](const InstalledDistribution& d) { return d.name == name; });
    return found == installed.end() ? nullptr : &*found;
}

// Reads `relative` under site-packages, noting it as read or as a problem.
std::optional<std::string> read_noted(const std::string& site_packages, const std::string& relative,
                                      FrameworkBuild& build) {
    const std::string path = site_packages + "/" + relative;
    std::optional<std::string> text = sys::read_file(path, 1 << 20);
    if (text) build.files.push_back(path);
    else build.problems.push_back(fmt::format("{}: missing or unreadable", path));
    return text;
}

std::optional<packaging::Metadata> metadata_noted(const InstalledDistribution& distribution, FrameworkBuild& build) {
    const std::string path = distribution.dist_info + "/METADATA";
    const std::optional<std::string> text = sys::read_file(path, 1 << 20);
    if (!text) {
        build.problems.push_back(fmt::format("{}: missing or unreadable", path));
        return std::nullopt;
    }
    build.files.push_back(path);
    Expected<packaging::Metadata> metadata = packaging::parse_metadata(*text);
    if (!metadata) {
        build.problems.push_back(fmt::format("{}: {}", path, metadata.error().message));
        return std::nullopt;
    }
    return std::move(*metadata);
}

// Whether pip installs `requirement` beside its distribution installed with `extras`: its marker
// holds, or cannot be decided from files (a Python version Debian's dist-packages does not name),
// which keeps it as before markers were evaluated. Only a marker that is false leaves it out.
bool may_apply(const packaging::Requirement& requirement, const packaging::MarkerEnvironment& markers,
               std::span<const std::string> extras = {}) {
    const packaging::MarkerVerdict verdict = packaging::requirement_applies(requirement, markers, extras);
    return verdict.holds || !verdict.reason.empty();
}

// The torch a torch extension's METADATA requires (outside any extra), as its requires_torch.
void note_required_torch(const InstalledDistribution& distribution, const packaging::MarkerEnvironment& markers,
                         FrameworkBuild& build) {
    if (const auto metadata = metadata_noted(distribution, build))
        for (const packaging::Requirement& requirement : metadata->requires_dist)
            if (requirement.normalized_name() == "torch" && may_apply(requirement, markers))
                build.requires_torch = requirement.specifier.text();
}

// nvidia-* and cuda-toolkit requirements: the CUDA wheels a framework pins or needs, those under
// `extra` included ("with-cuda" for the JAX plugin; extras compare normalised, PEP 685: 0.4.30 says
// 'with_cuda', 0.11 "with-cuda"), those of other extras and those whose marker is false here left out.
std::vector<packaging::Requirement> cuda_wheels_of(const packaging::Metadata& metadata,
                                                   const packaging::MarkerEnvironment& markers,
                                                   std::optional<std::string> extra = std::nullopt) {
    std::vector<packaging::Requirement> wheels;
    std::vector<std::string> extras;
    if (extra) extras.push_back(std::move(*extra));
    for (const packaging::Requirement& requirement : metadata.requires_dist) {
        const std::string name = requirement.normalized_name();
        if (!sys::starts_with(name, "nvidia-") && name != "cuda-toolkit") continue;
        if (may_apply(requirement, markers, extras)) wheels.push_back(requirement);
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
        if (!literals.contains("cuda"))
            build.problems.push_back(fmt::format("{}/torch/version.py: no cuda assignment", site));
        build.cuda = value("cuda");
        build.rocm = value("hip");
        if (build.cuda) build.cuda_major = major_of(*build.cuda);
        build.accelerator = build.cuda                  ? Accelerator::cuda
                            : build.rocm                ? Accelerator::rocm
                            : literals.contains("cuda") ? Accelerator::cpu
                                                        : Accelerator::unknown;
    }
    if (const auto metadata = metadata_noted(*torch, build))
        build.cuda_wheels = cuda_wheels_of(*metadata, marker_environment_of_site(site));
    return build;
}

// torchvision and torchaudio: version.py's local version names the CUDA build; METADATA the torch.
std::optional<FrameworkBuild> read_torch_extension(const std::string& site,
                                                   const std::vector<InstalledDistribution>& installed,
                                                   std::string_view name) {
    const InstalledDistribution* distribution = find(installed, name);
    if (distribution == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = std::string(name),
                         .distribution = std::string(name),
                         .version = distribution->version};
    if (const std::optional<std::string> text = read_noted(site, std::string(name) + "/version.py", build)) {
        const PythonLiterals literals = parse_python_literals(*text);
        if (const auto found = literals.find("__version__"); found != literals.end() && found->second)
            build.version = *found->second;
    }
    build.cuda = cuda_of_local_version(build.version);
    if (build.cuda) build.cuda_major = major_of(*build.cuda);
    build.accelerator = build.cuda                                         ? Accelerator::cuda
                        : build.version.find("+cpu") != std::string::npos  ? Accelerator::cpu
                        : build.version.find("+rocm") != std::string::npos ? Accelerator::rocm
                                                                           : Accelerator::unknown;
    note_required_torch(*distribution, marker_environment_of_site(site), build);
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
            build.problems.push_back(fmt::format("{}/{}: plugin version {} differs from jaxlib {}", site, module,
                                                 *found->second, jaxlib->version));
    }
    if (const auto metadata = metadata_noted(*plugin, build))
        build.cuda_wheels = cuda_wheels_of(*metadata, marker_environment_of_site(site), "with-cuda");
    return build;
}

// CuPy: cupy-cuda13x names the CUDA major; its _wheel.json ({"cuda": "13.x", ...}) says the same.
std::optional<FrameworkBuild> read_cupy(const std::string& site, const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* cupy = nullptr;
    for (const InstalledDistribution& distribution : installed)
        if (distribution.name == "cupy" || sys::starts_with(distribution.name, "cupy-cuda") ||
            sys::starts_with(distribution.name, "cupy-rocm"))
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
    if (const Expected<ordered_json> wheel = read_json_file(path)) {
        build.files.push_back(path);
        if (wheel->is_object() && wheel->contains("cuda") && (*wheel)["cuda"].is_string())
            build.cuda = (*wheel)["cuda"].get<std::string>();
        else build.problems.push_back(fmt::format("{}: no \"cuda\" string", path));
        if (build.cuda && build.cuda_major && major_of(*build.cuda) != build.cuda_major)
            build.problems.push_back(
                fmt::format("{}: says CUDA {} but the package is {}", path, *build.cuda, cupy->name));
    } else {
        build.problems.push_back(fmt::format("{}: {}", path, wheel.error().message));
    }
    return build;
}

// TensorFlow: its build writes tensorflow/python/platform/build_info.py; the CUDA wheels it needs
// are under its "and-cuda" extra.
std::optional<FrameworkBuild> read_tensorflow(const std::string& site,
                                              const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* tensorflow = nullptr;
    for (const char* name : {"tensorflow", "tensorflow-cpu", "tf-nightly"})
        if (tensorflow == nullptr) tensorflow = find(installed, name);
    if (tensorflow == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "TensorFlow", .distribution = tensorflow->name, .version = tensorflow->version};
    if (const std::optional<std::string> text = read_noted(site, "tensorflow/python/platform/build_info.py", build)) {
        const std::map<std::string, std::string> info = parse_tensorflow_build_info(*text);
        const auto value = [&](const char* key) -> std::optional<std::string> {
            const auto found = info.find(key);
            return found == info.end() || found->second == "None" ? std::nullopt
                                                                  : std::optional<std::string>(found->second);
        };
        if (info.empty())
            build.problems.push_back(
                fmt::format("{}/tensorflow/python/platform/build_info.py: no build_info entries", site));
        build.accelerator = value("is_cuda_build") == "True"   ? Accelerator::cuda
                            : value("is_rocm_build") == "True" ? Accelerator::rocm
                            : info.empty()                     ? Accelerator::unknown
                                                               : Accelerator::cpu;
        if (build.accelerator == Accelerator::cuda) {
            build.cuda = value("cuda_version");
            if (build.cuda) build.cuda_major = major_of(*build.cuda);
            build.cudnn = value("cudnn_version");
            if (const auto capabilities = value("cuda_compute_capabilities"))
                build.architectures = sys::split(*capabilities, ',');
        }
    }
    if (const auto metadata = metadata_noted(*tensorflow, build))
        build.cuda_wheels = cuda_wheels_of(*metadata, marker_environment_of_site(site), "and-cuda");
    return build;
}

// xformers: its build writes xformers/cpp_lib.json with the CUDA (1206 for 12.6), the torch and the
// TORCH_CUDA_ARCH_LIST it was compiled with; it refuses to load its C++/CUDA part under another
// torch ("xFormers was built for: PyTorch ... with CUDA ...").
std::optional<FrameworkBuild> read_xformers(const std::string& site,
                                            const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* xformers = find(installed, "xformers");
    if (xformers == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "xformers", .distribution = "xformers", .version = xformers->version};
    const std::string path = site + "/xformers/cpp_lib.json";
    if (const Expected<ordered_json> lib = read_json_file(path)) {
        build.files.push_back(path);
        const ordered_json* version = lib->is_object() && lib->contains("version") ? &(*lib)["version"] : nullptr;
        if (version != nullptr && version->is_object()) {
            if (version->contains("cuda") && (*version)["cuda"].is_number_integer()) {
                const int cuda = (*version)["cuda"].get<int>();
                build.accelerator = Accelerator::cuda;
                build.cuda = fmt::format("{}.{}", cuda / 100, cuda % 100);
                build.cuda_major = cuda / 100;
            } else if (version->contains("hip") && (*version)["hip"].is_string()) {
                build.accelerator = Accelerator::rocm;
                build.rocm = (*version)["hip"].get<std::string>();
            }
            if (version->contains("torch") && (*version)["torch"].is_string())
                build.built_with_torch = (*version)["torch"].get<std::string>();
        } else {
            build.problems.push_back(fmt::format("{}: no \"version\" object", path));
        }
        if (lib->is_object() && lib->contains("env") && (*lib)["env"].is_object() &&
            (*lib)["env"].contains("TORCH_CUDA_ARCH_LIST") && (*lib)["env"]["TORCH_CUDA_ARCH_LIST"].is_string())
            for (const std::string& arch : sys::split((*lib)["env"]["TORCH_CUDA_ARCH_LIST"].get<std::string>(), ' '))
                if (!arch.empty()) build.architectures.push_back(arch);
    } else {
        build.problems.push_back(fmt::format("{}: {}", path, lib.error().message));
    }
    note_required_torch(*xformers, marker_environment_of_site(site), build);
    return build;
}

std::optional<FrameworkBuild> read_triton(const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* triton = find(installed, "triton");
    if (triton == nullptr) return std::nullopt;
    // Triton compiles its kernels at run time with the ptxas it ships; what matters is the torch it
    // serves, which pins it (torch's METADATA: triton==3.6.0).
    return FrameworkBuild{.framework = "triton", .distribution = "triton", .version = triton->version};
}

// vLLM pins the torch its kernels were compiled against (METADATA: torch==2.7.0 for 0.9.1).
std::optional<FrameworkBuild> read_vllm(const std::string& site, const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* vllm = find(installed, "vllm");
    if (vllm == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "vLLM", .distribution = "vllm", .version = vllm->version};
    build.cuda = cuda_of_local_version(build.version);
    if (build.cuda) build.cuda_major = major_of(*build.cuda), build.accelerator = Accelerator::cuda;
    note_required_torch(*vllm, marker_environment_of_site(site), build);
    return build;
}

// flash-attn's wheels are named "+cu{major}torch{M.m}cxx11abi{TRUE|FALSE}" (its setup.py,
// get_wheel_url), and PyPI carries only its source: pip records the wheel's URL in the
// distribution's direct_url.json (PEP 610), from which the torch and CUDA it was built for are read.
std::optional<FrameworkBuild> read_flash_attn(const std::string& site,
                                              const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* flash = find(installed, "flash-attn");
    if (flash == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "flash-attn",
                         .distribution = "flash-attn",
                         .version = flash->version,
                         .accelerator = Accelerator::cuda};
    build.gpu_binary = extension_module(site, "flash_attn_2_cuda");
    const std::string path = flash->dist_info + "/direct_url.json";
    if (!sys::exists(path)) return build;  // built here from source: nothing says for which torch
    const Expected<ordered_json> direct = read_json_file(path);
    if (!direct || !direct->is_object() || !direct->contains("url") || !(*direct)["url"].is_string()) {
        build.problems.push_back(fmt::format("{}: {}", path, direct ? "no \"url\" string" : direct.error().message));
        return build;
    }
    build.files.push_back(path);
    const std::string url = (*direct)["url"].get<std::string>();
    const std::size_t cu = url.find("+cu");
    const std::size_t torch = url.find("torch", cu == std::string::npos ? 0 : cu);
    if (cu == std::string::npos || torch == std::string::npos) return build;
    const std::string cuda_digits = url.substr(cu + 3, torch - cu - 3);
    if (!cuda_digits.empty() && cuda_digits.find_first_not_of("0123456789") == std::string::npos) {
        build.cuda_major = static_cast<int>(decimal_number(std::string_view(cuda_digits).substr(0, 2)).value_or(0));
        build.cuda = cuda_digits.size() > 2 ? fmt::format("{}.{}", cuda_digits.substr(0, 2), cuda_digits.substr(2))
                                            : cuda_digits;
    }
    const std::size_t abi = url.find("cxx11abi", torch);
    if (abi != std::string::npos) build.built_with_torch = url.substr(torch + 5, abi - torch - 5);
    return build;
}

// bitsandbytes carries one library per CUDA release and loads the one for torch.version.cuda
// (BNB_CUDA_VERSION overrides it): bitsandbytes/cextension.py, get_cuda_bnb_library_path.
std::optional<FrameworkBuild> read_bitsandbytes(const std::string& site,
                                                const std::vector<InstalledDistribution>& installed) {
    const InstalledDistribution* bnb = find(installed, "bitsandbytes");
    if (bnb == nullptr) return std::nullopt;
    FrameworkBuild build{.framework = "bitsandbytes", .distribution = "bitsandbytes", .version = bnb->version};
    constexpr std::string_view prefix = "libbitsandbytes_cuda";
    for (const std::string& name : sys::list_directory(site + "/bitsandbytes")) {
        if (!sys::starts_with(name, prefix)) continue;
        const std::string digits = name.substr(prefix.size(), name.find('.') - prefix.size());
        if (digits.size() < 3 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        build.cuda_libraries.push_back(
            fmt::format("{}.{}", digits.substr(0, digits.size() - 1), digits.substr(digits.size() - 1)));
    }
    // "12.6" < "12.10": as PEP 440 versions, not as text (every entry is digits "." digits).
    std::sort(build.cuda_libraries.begin(), build.cuda_libraries.end(), [](const std::string& a, const std::string& b) {
        const Expected<packaging::Version> va = packaging::parse_version(a);
        const Expected<packaging::Version> vb = packaging::parse_version(b);
        return va && vb ? *va < *vb : a < b;
    });
    build.accelerator = build.cuda_libraries.empty() ? Accelerator::cpu : Accelerator::cuda;
    return build;
}

}  // namespace

std::map<std::string, std::string> parse_tensorflow_build_info(std::string_view text) {
    // Every step below consumes at least one character or stops, and the entries and list items
    // kept are bounded (`[)` in a list once pushed empty strings for ever, 11.8 GiB in
    // 76 s). A real build_info.py has about 15 entries and a list of at most a few dozen items.
    constexpr std::size_t max_entries = 256;
    constexpr std::size_t max_items = 1024;
    std::map<std::string, std::string> info;
    const std::size_t start = text.find("OrderedDict([");
    if (start == std::string_view::npos) return info;
    std::size_t at = start + 13;
    // One Python literal at `at`: a quoted string, a bare word, or a list of those; its text.
    const auto skip_spaces = [&] {
        while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    };
    const auto atom = [&]() -> std::optional<std::string> {
        skip_spaces();
        if (at >= text.size()) return std::nullopt;
        if (text[at] == '\'' || text[at] == '"') {
            const char quote = text[at];
            const std::size_t close = text.find(quote, at + 1);
            if (close == std::string_view::npos) return std::nullopt;
            std::string value(text.substr(at + 1, close - at - 1));
            at = close + 1;
            return value;
        }
        const std::size_t end = text.find_first_of(",)]", at);
        // A bare word of no characters (`[)`, `(,`) is no literal, and reading it would not move.
        if (end == std::string_view::npos || end == at) return std::nullopt;
        std::string word(sys::trim(text.substr(at, end - at)));
        at = end;
        return word;
    };
    while (info.size() < max_entries) {
        skip_spaces();
        if (at >= text.size() || text[at] != '(') break;
        ++at;
        const std::optional<std::string> key = atom();
        skip_spaces();
        if (!key || at >= text.size() || text[at] != ',') break;
        ++at;
        skip_spaces();
        std::string value;
        if (at < text.size() && text[at] == '[') {
            ++at;
            std::vector<std::string> items;
            while (true) {
                skip_spaces();
                if (at < text.size() && text[at] == ']') break;
                const std::size_t before = at;
                const std::optional<std::string> item = atom();
                if (!item || at == before || items.size() >= max_items) return info;
                items.push_back(*item);
                skip_spaces();
                if (at < text.size() && text[at] == ',') ++at;
            }
            ++at;  // ]
            for (const std::string& item : items) value += (value.empty() ? "" : ",") + item;
        } else if (const std::optional<std::string> single = atom()) {
            value = *single;
        } else {
            break;
        }
        skip_spaces();
        if (at >= text.size() || text[at] != ')') break;
        ++at;
        info[*key] = value;
        skip_spaces();
        if (at < text.size() && text[at] == ',') ++at;
    }
    return info;
}

packaging::MarkerEnvironment marker_environment_of_site(std::string_view site_packages) {
    packaging::MarkerEnvironment markers;
    // The last "/python3.X/" of the path: lib/python3.12/site-packages, lib64/python3.12/...
    constexpr std::string_view stem = "/python3.";
    for (std::size_t at = site_packages.rfind(stem); at != std::string_view::npos;
         at = at == 0 ? std::string_view::npos : site_packages.rfind(stem, at - 1)) {
        const std::string_view rest = site_packages.substr(at + stem.size());
        const std::string_view digits = rest.substr(0, rest.find_first_not_of("0123456789"));
        const std::string_view after = rest.substr(digits.size());
        if (!(after.empty() || after.front() == '/' || after == "t" || sys::starts_with(after, "t/"))) continue;
        if (const std::optional<long> minor = decimal_number(digits, 999)) {
            markers.python_version = fmt::format("3.{}", *minor);
            break;
        }
    }
    markers.python_full_version.clear();   // not in the files
    markers.implementation_version.clear();
    struct utsname names{};
    markers.platform_machine = ::uname(&names) == 0 ? std::string(names.machine) : std::string();
    return markers;
}

std::vector<FrameworkBuild> read_framework_builds(const std::string& site_packages,
                                                  const std::vector<InstalledDistribution>& installed) {
    std::vector<FrameworkBuild> builds;
    const auto add = [&](std::optional<FrameworkBuild> build) {
        if (build) builds.push_back(std::move(*build));
    };
    add(read_torch(site_packages, installed));
    add(read_torch_extension(site_packages, installed, "torchvision"));
    add(read_torch_extension(site_packages, installed, "torchaudio"));
    add(read_jax(site_packages, installed));
    add(read_cupy(site_packages, installed));
    add(read_tensorflow(site_packages, installed));
    add(read_xformers(site_packages, installed));
    add(read_triton(installed));
    add(read_vllm(site_packages, installed));
    add(read_flash_attn(site_packages, installed));
    add(read_bitsandbytes(site_packages, installed));
    return builds;
}

}  // namespace cudacheck
