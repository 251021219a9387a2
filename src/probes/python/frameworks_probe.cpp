#include "probes/python/frameworks_probe.hpp"

#include "util/atomic_file.hpp"
#include "util/json_read.hpp"
#include "util/path.hpp"
#include "util/python_packaging.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <future>
#include <set>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace cudacheck {

namespace {

bool same_isa_or_newer(const PtxIsa& a, const PtxIsa& b) {
    return a.major > b.major || (a.major == b.major && a.minor >= b.minor);
}

void add_unique(std::vector<GpuArch>& archs, const GpuArch& arch) {
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(arch);
}

// The cache key: a reinstalled or rebuilt file has another size or modification time; a file
// swapped for another (renamed over it, even one of the same size with its mtime set back by
// `touch -d`) has another inode and change time, and no user can set a change time (stat(2),
// inode(7)). The real path comes last: it may hold a line break.
std::optional<std::string> cache_key(const std::string& path) {
    struct stat status{};
    if (::stat(path.c_str(), &status) != 0) return std::nullopt;
    const std::string real = sys::real_path(path);
    if (real.empty()) return std::nullopt;
    const auto nanoseconds = [](const timespec& time) {
        return static_cast<long long>(time.tv_sec) * 1'000'000'000LL + time.tv_nsec;
    };
    return fmt::format("{}\n{}\n{}\n{}\n{}\n{}", static_cast<long long>(status.st_size), nanoseconds(status.st_mtim),
                       nanoseconds(status.st_ctim), static_cast<unsigned long long>(status.st_dev),
                       static_cast<unsigned long long>(status.st_ino), real);
}

// The real path of a cache key: what follows its fifth line break.
std::string path_of_key(const std::string& key) {
    std::size_t at = 0;
    for (int line = 0; line < 5; ++line) {
        at = key.find('\n', at);
        if (at == std::string::npos) return {};
        ++at;
    }
    return key.substr(at);
}

// JSON strings are UTF-8 (RFC 8259), and nlohmann's dump() throws type_error.316 on other bytes
// (a non-UTF-8 path would end frameworks.builds in CC901). A key that is not UTF-8 is kept
// as hex, so the file system's real bytes come back exactly.
bool is_json_text(const std::string& text) {
    try {
        (void)ordered_json(text).dump();
        return true;
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

std::string to_hex(std::string_view bytes) {
    std::string hex;
    hex.reserve(bytes.size() * 2);
    for (const char byte : bytes) hex += fmt::format("{:02x}", static_cast<unsigned char>(byte));
    return hex;
}

std::optional<std::string> from_hex(std::string_view hex) {
    if (hex.size() % 2 != 0) return std::nullopt;
    std::string bytes;
    bytes.reserve(hex.size() / 2);
    const auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int high = digit(hex[i]);
        const int low = digit(hex[i + 1]);
        if (high < 0 || low < 0) return std::nullopt;
        bytes += static_cast<char>(high * 16 + low);
    }
    return bytes;
}

constexpr const char* cache_file_name = "gpu-code-v2.json";
constexpr std::uint64_t cache_size_limit = std::uint64_t{64} << 20;

std::string mode_words(mode_t mode) { return fmt::format("mode {:04o}", mode & 07777); }

// A cache directory or file that another user owns or may write (in a shared cache, user
// B could turn user A's CC621 into a PASS).
GpuCodeCacheRefusal untrusted(const std::string& path, const struct stat& status, bool directory) {
    const bool others_own = status.st_uid != ::geteuid();
    const std::string found =
        others_own ? fmt::format("belongs to {} ({}), not to {} who runs cudacheck", owner_words(status.st_uid),
                                 mode_words(status.st_mode), owner_words(::geteuid()))
                   : fmt::format("is writable by {} ({})", (status.st_mode & S_IWOTH) != 0 ? "every user" : "its group",
                                 mode_words(status.st_mode));
    GpuCodeCacheRefusal refusal{.not_a_file = false, .path = path};
    refusal.message = fmt::format(
        "the GPU code cache {} {} {}: another user could change what it says the frameworks' binaries carry, so it "
        "was neither read nor written (the binaries were read instead)",
        directory ? "directory" : "file", path, found);
    if (!directory)
        refusal.remediation =
            fmt::format("Remove it (`rm -f {}`): cudacheck writes a new one, mode 0600, on its next run.", path);
    else if (others_own)
        refusal.remediation = fmt::format(
            "Point CUDACHECK_CACHE_DIR at a directory of your own (e.g. `export "
            "CUDACHECK_CACHE_DIR=\"$HOME/.cache/cudacheck\"`; "
            "cudacheck creates it 0700), or have its owner remove {}; CUDACHECK_CACHE_DIR=off turns the cache off.",
            path);
    else
        refusal.remediation =
            fmt::format("Make it yours alone and drop what others may have written: `chmod 700 {} && rm -f {}/{}`.",
                        path, path, cache_file_name);
    return refusal;
}

// Where the cache directory or file should be, something else: a FIFO, a device, a link.
GpuCodeCacheRefusal not_a_file(const std::string& path, const struct stat& status, bool directory) {
    GpuCodeCacheRefusal refusal{.not_a_file = true, .path = path};
    if (directory) {
        refusal.message = fmt::format(
            "the GPU code cache directory {} is {}, not a directory: the cache was neither read nor written", path,
            sys::file_type_words(status.st_mode));
        refusal.remediation =
            "Remove it, or point CUDACHECK_CACHE_DIR at a directory of your own; CUDACHECK_CACHE_DIR=off turns the "
            "cache off.";
    } else {
        refusal.message = fmt::format(
            "the GPU code cache file {} is {}, not a regular file{}: it was neither read nor written (the frameworks' "
            "binaries were read instead)",
            path, sys::file_type_words(status.st_mode),
            S_ISLNK(status.st_mode) ? " (a link is never followed there: it could name any file)" : "");
        refusal.remediation =
            fmt::format("Remove it (`rm {}`): cudacheck writes a new cache file there, mode 0600, on its next run.",
                        path);
    }
    return refusal;
}

std::vector<std::string> arch_names(const std::vector<GpuArch>& archs, bool sass) {
    std::vector<std::string> names;
    for (const GpuArch& arch : archs) names.push_back(sass ? arch.sass_name() : arch.virtual_name());
    return names;
}

std::vector<GpuArch> parse_archs(const ordered_json& names) {
    std::vector<GpuArch> archs;
    if (!names.is_array()) return archs;
    for (const ordered_json& name : names)
        if (name.is_string())
            if (const std::optional<GpuArch> arch = parse_gpu_arch(name.get<std::string>())) archs.push_back(*arch);
    return archs;
}

}  // namespace

GpuCodeSummary summarize_gpu_code(const std::string& path, const GpuCodeScan& scan) {
    GpuCodeSummary summary{.path = path, .fatbins = scan.fatbins};
    // Per kind, the fatbinaries carrying each target and those carrying any; a bare cubin or PTX
    // file is one unit.
    std::map<std::pair<int, int>, std::set<std::size_t>> carriers;  // (kind, arch number * 4 + variant)
    std::map<int, std::set<std::size_t>> any;
    std::map<std::pair<int, int>, GpuArch> archs;
    for (const CodeObject& object : scan.objects) {
        if (object.kind == CodeKind::lto_ir) continue;
        const int kind = object.kind == CodeKind::sass ? 0 : 1;
        const std::size_t unit = object.fatbin.value_or(0);
        const std::pair key{kind, object.arch.number * 4 + static_cast<int>(object.arch.variant)};
        carriers[key].insert(unit);
        any[kind].insert(unit);
        archs.emplace(key, object.arch);
        if (object.kind == CodeKind::ptx && object.ptx_isa &&
            (!summary.newest_ptx_isa || !same_isa_or_newer(*summary.newest_ptx_isa, *object.ptx_isa)))
            summary.newest_ptx_isa = object.ptx_isa;
    }
    for (const auto& [key, units] : carriers) {  // ordered by kind, then arch
        const bool full = units.size() * 2 >= any[key.first].size();
        EmbeddedTargets& into = full ? summary.targets : summary.partial;
        (key.first == 0 ? into.sass : into.ptx).push_back(archs.at(key));
    }
    if (scan.error != ScanError::none) summary.problem = scan.error_message;
    return summary;
}

GpuCodeCache::GpuCodeCache(std::string directory) : directory_(std::move(directory)) {}

bool GpuCodeCache::refuse(GpuCodeCacheRefusal refusal) {
    if (!refusal_) refusal_ = std::move(refusal);
    entries_.clear();
    changed_ = false;
    return false;
}

std::optional<GpuCodeCacheRefusal> GpuCodeCache::refusal() {
    std::lock_guard lock(mutex_);
    return refusal_;
}

int GpuCodeCache::open_directory(bool create) {
    if (create) {
        struct stat status{};
        if (::lstat(directory_.c_str(), &status) != 0 && errno == ENOENT) {
            // The cache directory and, for ~/.cache/cudacheck, its parent: the user's own, 0700.
            ::mkdir(sys::directory_of(directory_).c_str(), 0700);
            ::mkdir(directory_.c_str(), 0700);  // EEXIST: made meanwhile, and checked below like any
        }
    }
    // Followed if it is a link (~/.cache often is one): what is checked is the directory it opens.
    const int fd = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int error_number = errno;
        struct stat status{};
        if (error_number == ENOTDIR && ::stat(directory_.c_str(), &status) == 0)
            refuse(not_a_file(directory_, status, true));
        errno = error_number;
        return -1;
    }
    struct stat status{};
    if (::fstat(fd, &status) != 0 || !S_ISDIR(status.st_mode)) {
        ::close(fd);
        return -1;
    }
    if (status.st_uid != ::geteuid() || (status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        refuse(untrusted(directory_, status, true));
        ::close(fd);
        return -1;
    }
    return fd;
}

bool GpuCodeCache::file_acceptable(int directory, bool& exists) {
    exists = false;
    struct stat status{};
    if (::fstatat(directory, cache_file_name, &status, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
    exists = true;
    const std::string path = directory_ + "/" + cache_file_name;
    if (!S_ISREG(status.st_mode)) return refuse(not_a_file(path, status, false));
    if (status.st_uid != ::geteuid() || (status.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return refuse(untrusted(path, status, false));
    return true;
}

void GpuCodeCache::load() {
    loaded_ = true;
    if (directory_.empty()) return;
    const int directory = open_directory(false);
    if (directory < 0) return;
    bool exists = false;
    if (!file_acceptable(directory, exists) || !exists) {
        ::close(directory);
        return;
    }
    // Opened without following a link and without blocking, and checked again on the descriptor: the
    // file read is the one checked.
    const int fd = ::openat(directory, cache_file_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    ::close(directory);
    if (fd < 0) return;
    struct stat status{};
    std::string text;
    if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_uid == ::geteuid() &&
        (status.st_mode & (S_IWGRP | S_IWOTH)) == 0 && static_cast<std::uint64_t>(status.st_size) <= cache_size_limit) {
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
            if (text.size() > cache_size_limit) {
                text.clear();
                break;
            }
        }
    }
    ::close(fd);
    const Expected<ordered_json> document = parse_json_text(text, directory_ + "/" + cache_file_name);
    if (!document || !document->is_object() || !document->contains("entries") || !(*document)["entries"].is_array())
        return;
    for (const ordered_json& entry : (*document)["entries"]) {
        if (!entry.is_object()) continue;
        std::optional<std::string> key;
        if (entry.contains("key") && entry["key"].is_string()) key = entry["key"].get<std::string>();
        else if (entry.contains("key_hex") && entry["key_hex"].is_string())
            key = from_hex(entry["key_hex"].get<std::string>());
        if (!key) continue;
        GpuCodeSummary summary{.path = path_of_key(*key), .from_cache = true};
        if (entry.contains("sass")) summary.targets.sass = parse_archs(entry["sass"]);
        if (entry.contains("ptx")) summary.targets.ptx = parse_archs(entry["ptx"]);
        if (entry.contains("partial_sass")) summary.partial.sass = parse_archs(entry["partial_sass"]);
        if (entry.contains("partial_ptx")) summary.partial.ptx = parse_archs(entry["partial_ptx"]);
        if (entry.contains("ptx_isa") && entry["ptx_isa"].is_array() && entry["ptx_isa"].size() == 2 &&
            entry["ptx_isa"][0].is_number_integer() && entry["ptx_isa"][1].is_number_integer())
            summary.newest_ptx_isa = PtxIsa{entry["ptx_isa"][0].get<int>(), entry["ptx_isa"][1].get<int>()};
        if (entry.contains("fatbins") && entry["fatbins"].is_number_unsigned())
            summary.fatbins = entry["fatbins"].get<std::size_t>();
        entries_.emplace(std::move(*key), std::move(summary));
    }
}

GpuCodeSummary GpuCodeCache::summary_of(const std::string& path) {
    const std::optional<std::string> key = cache_key(path);
    {
        std::lock_guard lock(mutex_);
        if (!loaded_) load();
        if (key)
            if (const auto found = entries_.find(*key); found != entries_.end()) {
                GpuCodeSummary summary = found->second;
                summary.path = path;
                return summary;
            }
    }
    // Read without the lock, so that several files can be read at once (BackgroundScans below).
    GpuCodeSummary summary = summarize_gpu_code(path, inspect_file(path));
    std::lock_guard lock(mutex_);
    // A file that cannot be read now (removed, no permission), or that changed while it was read, is
    // not remembered.
    if (key && !directory_.empty() && !refusal_ && summary.problem.empty() && cache_key(path) == key) {
        entries_.emplace(*key, summary);
        changed_ = true;
    }
    return summary;
}

Expected<void> GpuCodeCache::save() {
    std::lock_guard lock(mutex_);
    if (!changed_ || directory_.empty() || refusal_) return {};
    changed_ = false;
    ordered_json entries = ordered_json::array();
    for (const auto& [key, summary] : entries_) {
        // Entries of files that are gone or changed are dropped as the cache is written.
        if (cache_key(path_of_key(key)) != key) continue;
        ordered_json entry = ordered_json::object();
        if (is_json_text(key)) entry["key"] = key;
        else entry["key_hex"] = to_hex(key);
        entry["sass"] = arch_names(summary.targets.sass, true);
        entry["ptx"] = arch_names(summary.targets.ptx, false);
        entry["partial_sass"] = arch_names(summary.partial.sass, true);
        entry["partial_ptx"] = arch_names(summary.partial.ptx, false);
        entry["fatbins"] = summary.fatbins;
        if (summary.newest_ptx_isa) entry["ptx_isa"] = {summary.newest_ptx_isa->major, summary.newest_ptx_isa->minor};
        entries.push_back(std::move(entry));
    }
    const std::string file = directory_ + "/" + cache_file_name;
    const int directory = open_directory(true);
    if (directory < 0) {
        if (refusal_) return {};  // refused: the finding says why
        const int error_number = errno;
        return Error{fmt::format("cannot create {}: {}", directory_, std::strerror(error_number)), error_number};
    }
    bool exists = false;
    if (!file_acceptable(directory, exists)) {
        ::close(directory);
        return {};  // refused: the finding says why
    }
    // Written beside it under a name of this process and renamed over it, both relative to the
    // directory just checked: no link is followed, and nothing but the user writes there.
    const std::string temporary = fmt::format(".{}.{}.tmp", cache_file_name, ::getpid());
    ::unlinkat(directory, temporary.c_str(), 0);  // left by a killed process of this pid
    const int fd = ::openat(directory, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int error_number = errno;
        ::close(directory);
        return Error{fmt::format("cannot write {}: {}", file, std::strerror(error_number)), error_number};
    }
    ::fchmod(fd, 0600);
    const std::string text =
        ordered_json{{"format", "cudacheck GPU code cache"}, {"version", 1}, {"entries", std::move(entries)}}.dump(
            -1, ' ', false, nlohmann::json::error_handler_t::replace) +
        "\n";
    std::optional<std::string> why;  // the first step that failed
    if (const Expected<void> written = write_whole(fd, text); !written) why = written.error().message;
    if (!why && ::fsync(fd) != 0) why = write_error_words(errno);
    if (::close(fd) != 0 && !why) why = write_error_words(errno);
    if (!why && ::renameat(directory, temporary.c_str(), directory, cache_file_name) != 0) why = std::strerror(errno);
    if (why) ::unlinkat(directory, temporary.c_str(), 0);
    ::close(directory);
    if (why) return Error{fmt::format("cannot write {}: {}", file, *why)};
    return {};
}

std::string cache_directory(const Environment& environment) {
    if (auto chosen = environment.get("CUDACHECK_CACHE_DIR"); chosen && !chosen->empty())
        return *chosen == "off" ? std::string() : *chosen;
    if (auto xdg = environment.get("XDG_CACHE_HOME"); xdg && sys::starts_with(*xdg, "/")) return *xdg + "/cudacheck";
    if (auto home = environment.get("HOME"); home && sys::starts_with(*home, "/")) return *home + "/.cache/cudacheck";
    return {};
}

std::string framework_subject(const EnvironmentFacts& environment, const FrameworkFacts& framework) {
    return fmt::format("{}: {}", environment.environment.prefix, framework.build.framework);
}

const FrameworkLibrary* FrameworkFacts::library(std::string_view family) const {
    for (const FrameworkLibrary& library : libraries)
        if (library.family == family) return &library;
    return nullptr;
}

namespace {

// How a framework's process finds its CUDA libraries, from each framework's own loader:
struct LoadingModel {
    std::string root = {};                      // the binary whose closure is followed
    std::vector<std::string> dlopens = {};      // sonames the root opens with dlopen()
    std::vector<std::string> wheel_first = {};  // sonames loaded from the NVIDIA wheels first, by path
    std::string preload_rule = {};              // the rule those are reported with
    std::string gpu_code = {};                  // the binary whose embedded GPU code decides coverage
    std::string description = {};
};

std::vector<std::string> sonames_for(int cuda_major, std::initializer_list<std::string_view> families) {
    std::vector<std::string> sonames;
    for (const std::string_view name : families)
        if (const LibraryFamily* family = find_library_family(name))
            if (const std::string_view soname = family->soname_for(cuda_major); !soname.empty())
                sonames.emplace_back(soname);
    return sonames;
}

std::optional<LoadingModel> loading_model(const FrameworkBuild& build, const std::string& site) {
    if (build.accelerator != Accelerator::cuda) return std::nullopt;
    const int major = build.cuda_major.value_or(0);
    if (build.framework == "PyTorch") {
        // libtorch_cuda.so needs the CUDA libraries as DT_NEEDED and finds them through its DT_RPATH
        // ($ORIGIN/../../nvidia/cudnn/lib:...: readelf -d of the 2.11 wheel,
        // docs/examples/h200/frameworks/readelf-dynamic.txt); torch/__init__.py's _load_global_deps
        // preloads the wheels only after that load has failed.
        const std::string root = site + "/torch/lib/libtorch_cuda.so";
        LoadingModel model{.root = root,
                           .gpu_code = root,
                           .description =
                               "libtorch_cuda.so's DT_NEEDED through its DT_RPATH, then the loader's search"};
        // Newer releases (2.11 on the GPU machine) preload the wheels every time, once
        // libtorch_global_deps.so has brought libcudart in: `if "libcudart.so" not in _maps:
        // return` then `_preload_cuda_deps()`, which loads each library of its list by path from
        // site-packages (docs/examples/h200/frameworks/torch-preload-cuda-deps.py).
        if (const std::optional<std::string> init = sys::read_file(site + "/torch/__init__.py", 1 << 20);
            init && init->find("\"libcudart.so\" not in _maps") != std::string::npos) {
            model.wheel_first = sonames_for(major, {"cuBLASLt", "cuBLAS", "cuDNN", "NVRTC", "cudart", "cuFFT", "cuRAND",
                                                    "nvJitLink", "cuSPARSE", "cuSOLVER", "NCCL"});
            model.preload_rule = "preloaded by torch (_preload_cuda_deps)";
            model.description =
                "torch's _preload_cuda_deps loads the wheels by path, then libtorch_cuda.so's DT_NEEDED through its "
                "DT_RPATH";
        }
        return model;
    }
    if (build.framework == "JAX" && major > 0) {
        // The PJRT plugin has no CUDA DT_NEEDED: XLA opens the libraries with dlopen() from the
        // plugin, whose DT_RPATH names the wheels ($ORIGIN/../../nvidia/cu13/lib, .../cudnn/lib,
        // .../nccl/lib).
        const std::string root = fmt::format("{}/jax_plugins/xla_cuda{}/xla_cuda_plugin.so", site, major);
        return LoadingModel{.root = root,
                            .dlopens = sonames_for(major, {"cudart", "cuBLAS", "cuBLASLt", "cuFFT", "cuSOLVER",
                                                           "cuSPARSE", "cuDNN", "NCCL"}),
                            .gpu_code = root,
                            .description = "xla_cuda_plugin.so dlopen()s the CUDA libraries through its DT_RPATH"};
    }
    if (build.framework == "CuPy" && major > 0) {
        // CuPy links the runtime statically and opens the other libraries through
        // cuda.pathfinder: the NVIDIA wheels in site-packages first, then the loader's search
        // (NVIDIA/cuda-python, cuda_pathfinder/README.md, "Search Priority"). Its kernels are
        // compiled at run time by NVRTC, so no embedded GPU code decides where it runs.
        const std::string root = extension_module(site + "/cupy_backends/cuda/api", "runtime.");
        if (root.empty()) return std::nullopt;
        std::vector<std::string> dlopens =
            sonames_for(major, {"NVRTC", "cuBLAS", "cuBLASLt", "cuRAND", "cuFFT", "cuSPARSE", "cuSOLVER"});
        return LoadingModel{.root = root,
                            .dlopens = dlopens,
                            .wheel_first = dlopens,
                            .preload_rule = "NVIDIA wheel (cuda.pathfinder)",
                            .description =
                                "cuda.pathfinder: the NVIDIA wheels in site-packages, then the loader's search"};
    }
    return std::nullopt;
}

// Where an NVIDIA wheel of this site-packages holds `soname`: the CUDA 13 wheels share
// nvidia/cu13/lib, the older ones have nvidia/<component>/lib.
std::string wheel_file(const std::string& site, std::string_view soname, DirectoryListings& listings) {
    const std::string nvidia = site + "/nvidia";
    for (const std::string& package : listings.names(nvidia)) {
        const std::string lib = nvidia + "/" + package + "/lib";
        if (listings.contains(lib, soname)) return lib + "/" + std::string(soname);
    }
    return {};
}

// The GPU code of a few libraries read at once, each on a thread of its own, so that on a cold page
// cache the disk serves the files together, and the reading overlaps the rest of the gathering (the
// load closure reads the CUDA libraries' headers). Each is GpuCodeCache::summary_of, started where
// the file is first known and taken where it was read before, so the facts, and what the cache
// keeps, are those of reading the files one after the other. At most most_started files are started
// per environment (one or two frameworks in practice); the others are read where they are taken. A
// result not taken is waited for as the object goes (std::async's future).
class BackgroundScans {
public:
    explicit BackgroundScans(GpuCodeCache& cache) : cache_(cache) {}
    BackgroundScans(const BackgroundScans&) = delete;
    BackgroundScans& operator=(const BackgroundScans&) = delete;
    ~BackgroundScans() = default;

    void start(const std::string& path) {
        if (path.empty() || started_.size() >= most_started || started_.contains(path)) return;
        try {
            started_.emplace(path, std::async(std::launch::async, [this, path] { return cache_.summary_of(path); }));
        } catch (const std::system_error&) {  // no thread to be had: read where it is taken
        }
    }
    // The summary of `path`: the one started for it, else read now.
    [[nodiscard]] GpuCodeSummary summary_of(const std::string& path) {
        if (const auto found = started_.find(path); found != started_.end() && found->second.valid())
            return found->second.get();
        return cache_.summary_of(path);
    }

private:
    static constexpr std::size_t most_started = 4;
    GpuCodeCache& cache_;
    std::map<std::string, std::future<GpuCodeSummary>> started_;
};

// The binaries whose GPU code gather_framework reads for this build: the one its build info names,
// and the one its loading model's coverage rests on when that model's root exists.
std::vector<std::string> gpu_code_files(const FrameworkBuild& build, const std::string& site_packages) {
    std::vector<std::string> files;
    if (!build.gpu_binary.empty()) files.push_back(build.gpu_binary);
    if (const std::optional<LoadingModel> model = loading_model(build, site_packages);
        model && !model->gpu_code.empty() && sys::exists(model->root))
        files.push_back(model->gpu_code);
    return files;
}

FrameworkFacts gather_framework_with(FrameworkBuild build, const std::string& site_packages, const LoaderSearch& search,
                                     DirectoryListings& listings, BackgroundScans& scans,
                                     const Environment& environment, const std::string& root) {
    FrameworkFacts facts{.build = std::move(build)};
    for (const std::string& file : gpu_code_files(facts.build, site_packages)) scans.start(file);
    // The build's own binary decides the coverage unless the loading model names another.
    const auto own_gpu_code = [&] {
        if (!facts.build.gpu_binary.empty()) facts.gpu_code = scans.summary_of(facts.build.gpu_binary);
    };
    const std::optional<LoadingModel> model = loading_model(facts.build, site_packages);
    if (!model) {
        own_gpu_code();
        return facts;
    }
    facts.loader_root = model->root;
    facts.loader_model = model->description;
    if (!sys::exists(model->root)) {
        facts.load_problems.push_back(
            fmt::format("{}: missing, though the {} build is for CUDA", model->root, facts.build.framework));
        own_gpu_code();
        return facts;
    }
    std::vector<Preloaded> preloaded;
    for (const std::string& soname : model->wheel_first)
        if (std::string path = wheel_file(site_packages, soname, listings); !path.empty())
            preloaded.push_back({soname, std::move(path), model->preload_rule});
    const LoadClosure closure = load_closure(model->root, search, listings, preloaded, model->dlopens);
    facts.load_problems = closure.problems;
    for (const LoadedObject& object : closure.objects) {
        const LibraryFamily* family = family_of_soname(object.soname);
        if (family == nullptr) continue;
        if (!object.resolution.found()) {
            facts.unresolved.push_back(object.soname);
            continue;
        }
        FrameworkLibrary library{.family = std::string(family->name), .object = object};
        if (const std::optional<LibraryCopy> copy =
                describe_copy(object.resolution.path, *family, listings, environment, root)) {
            library.version = copy->version;
            library.origin = copy->origin;
            library.package = copy->package;
        }
        facts.libraries.push_back(std::move(library));
    }
    own_gpu_code();
    if (!model->gpu_code.empty()) facts.gpu_code = scans.summary_of(model->gpu_code);
    return facts;
}

}  // namespace

FrameworkFacts gather_framework(FrameworkBuild build, const std::string& site_packages, const LoaderSearch& search,
                                DirectoryListings& listings, GpuCodeCache& cache, const Environment& environment,
                                const std::string& root) {
    BackgroundScans scans(cache);
    return gather_framework_with(std::move(build), site_packages, search, listings, scans, environment, root);
}

std::string_view to_string(Coverage coverage) {
    switch (coverage) {
        case Coverage::native: return "native";
        case Coverage::ptx_jit: return "ptx_jit";
        case Coverage::ptx_too_new: return "ptx_too_new";
        case Coverage::none: return "none";
        case Coverage::nvrtc: return "nvrtc";
        case Coverage::unknown: break;
    }
    return "unknown";
}

namespace {

// The architectures a build states: TensorFlow's "sm_80" / "compute_90", xformers'
// TORCH_CUDA_ARCH_LIST entries "8.0", "8.6+PTX", "9.0a" (PyTorch's cpp_extension: "+PTX" adds PTX of
// that architecture to its SASS).
std::optional<EmbeddedTargets> stated_targets(const std::vector<std::string>& architectures) {
    EmbeddedTargets targets;
    for (const std::string& entry : architectures) {
        std::string text = entry;
        bool ptx = sys::starts_with(text, "compute_");
        bool sass = !ptx;
        if (const std::size_t plus = text.find("+PTX"); plus != std::string::npos) text.erase(plus), ptx = true;
        const std::optional<GpuArch> arch = parse_gpu_arch(text);
        if (!arch) continue;
        if (sass) add_unique(targets.sass, *arch);
        if (ptx) add_unique(targets.ptx, *arch);
    }
    if (targets.sass.empty() && targets.ptx.empty()) return std::nullopt;
    return targets;
}

}  // namespace

std::vector<std::string> framework_gpu_targets(const FrameworkFacts& framework) {
    std::optional<EmbeddedTargets> targets;
    if (framework.gpu_code && framework.gpu_code->problem.empty()) targets = framework.gpu_code->targets;
    else targets = stated_targets(framework.build.architectures);
    if (!targets) return {};
    std::vector<std::string> names = arch_names(targets->sass, true);
    for (std::string& name : arch_names(targets->ptx, false)) names.push_back(std::move(name));
    return names;
}

GpuCoverage framework_gpu_coverage(const FrameworkFacts& framework, int cc_major, int cc_minor,
                                   std::optional<CudaVersion> driver_cuda) {
    std::optional<EmbeddedTargets> targets;
    std::optional<PtxIsa> isa;
    if (framework.gpu_code && framework.gpu_code->problem.empty() &&
        (!framework.gpu_code->targets.sass.empty() || !framework.gpu_code->targets.ptx.empty())) {
        targets = framework.gpu_code->targets;
        isa = framework.gpu_code->newest_ptx_isa;
    } else {
        targets = stated_targets(framework.build.architectures);
    }
    if (!targets) {
        if (framework.build.framework == "CuPy" && framework.build.cuda_major) {
            const auto lowest = minimum_compute_capability(*framework.build.cuda_major);
            const bool compiles = !lowest || std::pair(cc_major, cc_minor) >= *lowest;
            return {compiles ? Coverage::nvrtc : Coverage::none,
                    fmt::format("compiled at run time by NVRTC {} {}", *framework.build.cuda_major,
                                compiles ? fmt::format("for sm_{}{}", cc_major, cc_minor)
                                         : fmt::format("for sm_{}{} and newer only", lowest->first, lowest->second))};
        }
        return {Coverage::unknown, "the build states no GPU architectures"};
    }
    const ImageVerdict image = kernel_image_for(*targets, cc_major, cc_minor);
    if (image.kind == ImageKind::native) return {Coverage::native, fmt::format("{} SASS", image.target.sass_name())};
    if (image.kind == ImageKind::none) {
        std::vector<std::string> names = arch_names(targets->sass, true);
        for (std::string& name : arch_names(targets->ptx, false)) names.push_back(std::move(name));
        return {Coverage::none, fmt::format("no SASS for sm_{}{} and no PTX at or below it (carries {})", cc_major,
                                            cc_minor, fmt::join(names, " "))};
    }
    GpuCoverage coverage{Coverage::ptx_jit,
                         fmt::format("{} PTX, JIT-compiled by the driver", image.target.virtual_name())};
    if (isa) {
        coverage.ptx_needs = minimum_cuda_for_ptx_isa(isa->major, isa->minor);
        if (coverage.ptx_needs)
            coverage.how += fmt::format(" (PTX ISA {}.{}: needs a CUDA {} driver)", isa->major, isa->minor,
                                        coverage.ptx_needs->to_string());
        if (coverage.ptx_needs && driver_cuda && !driver_can_jit(*coverage.ptx_needs, *driver_cuda))
            coverage.coverage = Coverage::ptx_too_new;
    }
    return coverage;
}

std::string import_module_of(std::string_view framework) {
    static const std::map<std::string_view, std::string_view> modules{
        {"PyTorch", "torch"},         {"JAX", "jax"},   {"CuPy", "cupy"},
        {"TensorFlow", "tensorflow"}, {"vLLM", "vllm"}, {"flash-attn", "flash_attn"}};
    if (const auto found = modules.find(framework); found != modules.end()) return std::string(found->second);
    return std::string(framework);  // torchvision, torchaudio, xformers, triton, bitsandbytes
}

namespace {

// The frameworks' modules whose import the report states for every environment.
constexpr std::array framework_modules{"torch", "torchvision", "torchaudio",  "jax",
                                       "cupy",  "tensorflow",  "xformers",    "triton",
                                       "vllm",  "flash_attn",  "bitsandbytes"};

// The source directory of an editable install (PEP 610 direct_url.json: `"dir_info": {"editable":
// true}` and a file:// URL); "" when the distribution is not editable.
std::string editable_source(const std::string& dist_info) {
    const Expected<ordered_json> document = read_json_file(dist_info + "/direct_url.json");
    if (!document || !document->is_object() || !document->contains("url") || !(*document)["url"].is_string()) return {};
    const ordered_json& dir_info = document->contains("dir_info") ? (*document)["dir_info"] : ordered_json();
    if (!dir_info.is_object() || !dir_info.contains("editable") || dir_info["editable"] != true) return {};
    const std::string url = (*document)["url"].get<std::string>();
    if (!sys::starts_with(url, "file://")) return {};
    std::string path;  // percent-decoded (RFC 3986), as pip writes spaces and the like
    for (std::size_t at = 7; at < url.size(); ++at) {
        if (url[at] == '%' && at + 2 < url.size() && std::isxdigit(static_cast<unsigned char>(url[at + 1])) &&
            std::isxdigit(static_cast<unsigned char>(url[at + 2]))) {
            const auto nibble = [](char c) {
                return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10;
            };
            path += static_cast<char>(nibble(url[at + 1]) * 16 + nibble(url[at + 2]));
            at += 2;
        } else {
            path += url[at];
        }
    }
    return path;
}

bool is_under(const std::string& path, const std::string& directory) {
    return !directory.empty() && (path == directory || sys::starts_with(path, directory + "/"));
}

// The distribution of `module` among a directory's installs ("cupy" -> cupy-cuda13x).
const InstalledDistribution* distribution_of_module(const std::vector<InstalledDistribution>& installed,
                                                    const std::string& module) {
    const std::string name = packaging::normalize_name(module);
    for (const InstalledDistribution& distribution : installed)
        if (distribution.name == name || sys::starts_with(distribution.name, name + "-")) return &distribution;
    return nullptr;
}

// The version a copy of a framework states in its own files, install record or not: torch's and
// JAX's version.py, CuPy's _version.py.
std::string version_of_copy(const std::string& location) {
    for (const char* file : {"/version.py", "/_version.py"})
        if (const std::optional<std::string> text = sys::read_file(location + file, 1 << 16)) {
            const PythonLiterals literals = parse_python_literals(*text);
            for (const char* name : {"__version__", "_version", "version"})
                if (const auto found = literals.find(name); found != literals.end() && found->second)
                    return *found->second;
        }
    return {};
}

ImportFacts import_facts(const ImportModel& model, const std::string& module, DirectoryListings& listings) {
    const ImportResolution resolution = resolve_import(model, module, &listings);
    ImportFacts facts{.module = module,
                      .kind = resolution.kind,
                      .file = resolution.file,
                      .location = resolution.location};
    if (resolution.entry) facts.entry = model.sys_path[*resolution.entry];
    if (resolution.finder != nullptr) facts.finder_pth = resolution.finder->pth;
    return facts;
}

// One install of a framework found on an environment's path.
struct FoundInstall {
    std::string site;
    FrameworkBuild build;
    std::string editable;  // its editable source directory; "" when not editable
};

// Whether `import` gets this install's own copy.
bool is_own_copy(const ImportFacts& imported, const FoundInstall& install) {
    if (imported.kind == ImportKind::not_found) return false;
    if (!install.editable.empty()) return is_under(imported.location, install.editable);
    return imported.entry && imported.entry->path == install.site && imported.kind != ImportKind::namespace_package;
}

// The frameworks of one environment: every install on its path, in path order; the one judged is
// the one `import` gets where that is an install, else the first.
void gather_environment(EnvironmentFacts& facts, const std::vector<std::string>& directories,
                        const LoaderSearch& search, DirectoryListings& listings, GpuCodeCache& cache,
                        const Environment& environment, const std::string& root) {
    std::vector<std::pair<std::string, std::vector<FoundInstall>>> installs;  // framework -> installs, first seen first
    for (const std::string& site : directories) {
        const std::vector<InstalledDistribution> installed = installed_distributions(site);
        for (FrameworkBuild& build : read_framework_builds(site, installed)) {
            auto entry = std::find_if(installs.begin(), installs.end(),
                                      [&](const auto& pair) { return pair.first == build.framework; });
            if (entry == installs.end()) entry = installs.insert(installs.end(), {build.framework, {}});
            const InstalledDistribution* distribution =
                distribution_of_module(installed, import_module_of(build.framework));
            std::string editable = distribution != nullptr ? editable_source(distribution->dist_info) : std::string();
            entry->second.push_back({site, std::move(build), std::move(editable)});
        }
    }
    // An interpreter that cannot start (PYTHONHOME without a standard library) imports nothing;
    // python_home_invalid says so once, instead of one import failure per framework.
    const bool starts = facts.path.modelled && facts.path.fatal.empty();
    // First which install of each framework is judged, then their GPU code starts reading, all
    // files at once (BackgroundScans), then each framework is gathered.
    struct Chosen {
        std::optional<ImportFacts> imported;
        std::size_t index = 0;
    };
    std::vector<Chosen> choices;
    for (auto& [framework, found] : installs) {
        std::optional<ImportFacts> imported;
        std::size_t chosen = 0;
        if (starts) {
            imported = import_facts(facts.path, import_module_of(framework), listings);
            for (std::size_t index = 0; index < found.size(); ++index)
                if (is_own_copy(*imported, found[index])) {
                    chosen = index;
                    break;
                }
            imported->own_copy = is_own_copy(*imported, found[chosen]);
            if (!imported->own_copy && imported->kind != ImportKind::not_found &&
                imported->kind != ImportKind::namespace_package) {
                const std::string directory =
                    imported->kind == ImportKind::package ? sys::directory_of(imported->location) : std::string();
                const InstalledDistribution* other =
                    directory.empty() ? nullptr
                                      : distribution_of_module(installed_distributions(directory), imported->module);
                imported->other_install = other != nullptr;
                imported->other_version = other != nullptr ? other->version : version_of_copy(imported->location);
            }
        }
        choices.push_back({std::move(imported), chosen});
    }
    BackgroundScans scans(cache);
    for (std::size_t framework = 0; framework < installs.size(); ++framework) {
        const FoundInstall& install = installs[framework].second[choices[framework].index];
        for (const std::string& file : gpu_code_files(install.build, install.site)) scans.start(file);
    }
    for (std::size_t framework = 0; framework < installs.size(); ++framework) {
        std::vector<FoundInstall>& found = installs[framework].second;
        const std::size_t chosen = choices[framework].index;
        std::optional<ImportFacts>& imported = choices[framework].imported;
        FrameworkFacts gathered = gather_framework_with(std::move(found[chosen].build), found[chosen].site, search,
                                                        listings, scans, environment, root);
        gathered.site_packages = found[chosen].site;
        gathered.import = std::move(imported);
        for (std::size_t index = 0; index < found.size(); ++index)
            if (index != chosen)
                gathered.shadowed_installs.push_back(
                    fmt::format("{} ({})", found[index].site, found[index].build.version));
        facts.frameworks.push_back(std::move(gathered));
    }
    if (!facts.path.modelled) return;
    for (const char* module : framework_modules) {
        ImportFacts imported = starts ? import_facts(facts.path, module, listings) : ImportFacts{.module = module};
        const bool installed =
            std::any_of(facts.frameworks.begin(), facts.frameworks.end(), [&](const FrameworkFacts& framework) {
                return import_module_of(framework.build.framework) == module;
            });
        if (imported.kind != ImportKind::not_found || installed) facts.imports.push_back(std::move(imported));
    }
}

// The environment a pip script on PATH installs into, against the python3 first on PATH.
std::vector<PipMismatch> pip_mismatches(const Environment& environment, const PythonFacts& facts,
                                        const std::string& root) {
    std::vector<PipMismatch> mismatches;
    const auto python3 = std::find_if(facts.environments.begin(), facts.environments.end(),
                                      [](const EnvironmentFacts& found) { return found.bare_python3; });
    if (python3 == facts.environments.end() || python3->environment.interpreter.empty()) return mismatches;
    const std::string path = environment.get("PATH").value_or("");
    for (const char* name : {"pip", "pip3"}) {
        const std::string pip = sys::find_in_path(name, path);
        if (pip.empty()) continue;
        // pyenv's shims dispatch to the version python3 runs too.
        if (sys::file_name_of(sys::directory_of(pip)) == "shims") continue;
        const std::optional<std::string> head = sys::read_file(pip, 4096);
        const std::string interpreter = head ? script_interpreter(*head) : std::string();
        if (interpreter.empty() || sys::file_name_of(interpreter) == "env") continue;
        const std::string names[] = {interpreter};
        const PythonEnvironments owner = find_python_environments(Environment(), names, root);
        if (owner.environments.empty() || !owner.environments.front().problem.empty()) continue;
        const PythonEnvironment& pip_environment = owner.environments.front();
        const auto real = [](const std::string& prefix) {
            return sys::real_path(prefix).empty() ? prefix : sys::real_path(prefix);
        };
        if (real(pip_environment.prefix) == real(python3->environment.prefix)) continue;
        // Installing where python3 looks anyway (a venv with system site-packages) is not a mismatch.
        const bool seen = std::any_of(
            pip_environment.site_packages.begin(), pip_environment.site_packages.end(), [&](const std::string& site) {
                return std::any_of(python3->path.sys_path.begin(), python3->path.sys_path.end(),
                                   [&](const SysPathEntry& entry) { return real(entry.path) == real(site); });
            });
        if (seen) continue;
        // pip and pip3 of one installation are one finding.
        const auto same = std::find_if(mismatches.begin(), mismatches.end(),
                                       [&](const PipMismatch& other) { return other.interpreter == interpreter; });
        if (same != mismatches.end()) same->pip += " and " + pip;
        else
            mismatches.push_back({pip, interpreter, pip_environment.prefix, python3->environment.interpreter,
                                  python3->environment.prefix});
    }
    return mismatches;
}

}  // namespace

PythonFacts collect_python_facts(const Environment& environment, std::span<const std::string> extra,
                                 const std::string& root, const std::string& cache_dir) {
    PythonFacts facts;
    PythonEnvironments found = find_python_environments(environment, extra, root);
    facts.notes = std::move(found.notes);
    const LoaderSearch search = loader_search(environment, root);
    DirectoryListings listings;
    GpuCodeCache cache(cache_dir);
    const ImportContext context{.environment = environment,
                                .current_directory = sys::current_directory(),
                                .set_uid = ::getuid() != ::geteuid() || ::getgid() != ::getegid(),
                                .root = root};
    for (std::size_t index = 0; index < found.environments.size(); ++index) {
        EnvironmentFacts environment_facts{.environment = std::move(found.environments[index]),
                                           .bare_python3 = found.bare_python3 == index};
        environment_facts.path = model_imports(environment_facts.environment, context);
        // Where importlib.metadata finds distributions: every sys.path entry, in order (the
        // site-packages alone when the path cannot be modelled).
        const std::vector<std::string> directories = environment_facts.path.modelled
                                                         ? distribution_directories(environment_facts.path)
                                                         : environment_facts.environment.site_packages;
        gather_environment(environment_facts, directories, search, listings, cache, environment, root);
        facts.environments.push_back(std::move(environment_facts));
    }
    facts.pip_mismatches = pip_mismatches(environment, facts, root);
    if (const Expected<void> saved = cache.save(); !saved) facts.cache_problem = saved.error().message;
    facts.cache_refused = cache.refusal();
    return facts;
}

}  // namespace cudacheck
