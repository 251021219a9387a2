// The Python side of the machine, gathered once per run for the framework checks: each
// Python environment (python_environments), the frameworks installed in it and what each was
// built for (build_info), which copy of each CUDA library its process loads (load_closure,
// the dynamic loader's own rules applied to the framework's binaries) and the GPU code its
// binaries carry (cuda/gpu_code, as `cudacheck inspect` reads it). Only files are read: nothing
// is imported, loaded or run.
//
// Reading the GPU code of libtorch_cuda.so (456 MB) touches the header of each of its thousands
// of fatbinary entries: about 11 MB of pages, asked of the disk in waves (inspect_file), ~0.04 s
// cold on the project's machine (docs/performance.md, "Cold first run"); each framework's file is
// read on its own thread. The summary is cached by real path, size, modification and change time
// and inode in the user's own cache directory (GpuCodeCache), so a standard run reads it once per
// install.
#pragma once

#include "cuda/arch_coverage.hpp"
#include "cuda/cuda_facts.hpp"
#include "cuda/gpu_code.hpp"
#include "probes/library_locator.hpp"
#include "probes/load_closure.hpp"
#include "probes/python/build_info.hpp"
#include "probes/python/python_environments.hpp"
#include "probes/python/python_imports.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cudacheck {

// The GPU code of one binary, as much as the judges need: which SASS and PTX targets it embeds
// and the newest PTX ISA among them. A large library is many modules, one fatbinary each, and
// some carry extra targets for a few kernels (libtorch_cuda.so 2.11: sm_89 and the `a` variants
// in a few of its modules, while torch.cuda.get_arch_list() names 7.5 8.0 8.6 9.0 10.0 12.0): a
// target in fewer than half of the fatbinaries that carry code of its kind is partial, and only
// the others decide where the library runs.
struct GpuCodeSummary {
    std::string path = {};
    EmbeddedTargets targets = {};  // those in at least half of the fatbinaries
    EmbeddedTargets partial = {};  // those in fewer
    std::optional<PtxIsa> newest_ptx_isa = {};
    std::size_t fatbins = 0;
    std::string problem = {};  // why it could not be read ("malformed: ..."); "" when read
    bool from_cache = false;
};
[[nodiscard]] GpuCodeSummary summarize_gpu_code(const std::string& path, const GpuCodeScan& scan);

// Why the GPU code cache was not used: a cache another user can write could make a
// framework without code for the GPU look fine, so it is neither read nor written.
struct GpuCodeCacheRefusal {
    bool not_a_file = false;  // a FIFO, a link, a device where the file or directory should be; else owner or mode
    std::string path = {};    // the directory or file refused
    std::string message = {};  // one line: the path and what was found (owner, mode, type)
    std::string remediation = {};
};

// GpuCodeSummary per file, kept in one JSON file (`<cache directory>/gpu-code-v2.json`) and keyed
// by real path, size, mtime, ctime, device and inode, so a reinstalled wheel, or a file swapped for
// another with the same size and mtime (a user can set mtime, not ctime), is read again. An
// unreadable or damaged cache is ignored (and rewritten); one that cannot be written only costs the
// next run the scan. The cache is the user's own: the directory (created 0700) and the
// file (0600) must belong to the effective user and be writable by no one else, and the file must
// be a regular file opened without following a link; otherwise it is refused (refusal()).
class GpuCodeCache {
public:
    explicit GpuCodeCache(std::string directory);  // "" disables the cache
    [[nodiscard]] GpuCodeSummary summary_of(const std::string& path);
    // Writes the cache back if anything new was read; the error when it could not be written (a
    // refused cache is not written, and is no error here: refusal() says why).
    [[nodiscard]] Expected<void> save();
    // Why the cache was neither read nor written; none when it was used, or never needed.
    [[nodiscard]] std::optional<GpuCodeCacheRefusal> refusal();

private:
    std::string directory_;
    bool loaded_ = false;
    bool changed_ = false;
    std::optional<GpuCodeCacheRefusal> refusal_;
    // key: "<size>\n<mtime ns>\n<ctime ns>\n<device>\n<inode>\n<real path>" (the path last: it may hold "\n")
    std::map<std::string, GpuCodeSummary> entries_;
    std::mutex mutex_;
    void load();
    int open_directory(bool create);  // the cache directory, checked; -1 when absent or refused
    bool file_acceptable(int directory, bool& exists);  // the cache file, checked with lstat; false: refused
    bool refuse(GpuCodeCacheRefusal refusal);
};
// $CUDACHECK_CACHE_DIR, else $XDG_CACHE_HOME/cudacheck, else $HOME/.cache/cudacheck; "" when
// none can be named or CUDACHECK_CACHE_DIR is "off".
[[nodiscard]] std::string cache_directory(const Environment& environment);

// One CUDA library a framework's process loads.
struct FrameworkLibrary {
    std::string family = {};  // the library table's name: "cuDNN", "cuBLAS"
    LoadedObject object = {};  // soname, who needs it, where it resolves and by which rule
    std::string version = {};  // "9.19.0.56"; "" when unknown
    LibraryOrigin origin = LibraryOrigin::other;
    std::string package = {};  // the wheel, "nvidia-cudnn-cu13"; "" when not from one
};

// What `import <module>` gets in an environment's interpreter, set against the install
// whose files the judges read.
struct ImportFacts {
    std::string module = {};  // "torch"
    ImportKind kind = ImportKind::not_found;
    std::string file = {};      // its __file__; "" for a namespace package or when nothing is found
    std::string location = {};  // the package's directory, the module's file, a namespace's first portion
    std::optional<SysPathEntry> entry = {};  // the sys.path entry it came from; none for an editable finder
    std::string finder_pth = {};  // the .pth that installed the editable finder that answered
    bool own_copy = true;  // it is the judged install's copy (in its site-packages, or its editable source)
    bool other_install = false;    // another copy with an install record (*.dist-info) of its own
    std::string other_version = {};  // the version of the copy imported instead; "" when unknown
};
// The Python module a framework is imported as: "torch" for PyTorch, "flash_attn" for flash-attn.
[[nodiscard]] std::string import_module_of(std::string_view framework);

// One framework of one environment.
struct FrameworkFacts {
    FrameworkBuild build = {};
    // The binary whose loading is modelled ("<site>/torch/lib/libtorch_cuda.so"); "" when the
    // framework has no CUDA binary of its own (a CPU build, triton, the torch extensions).
    std::string loader_root = {};
    std::string loader_model = {};  // how its libraries are found, one line, for evidence
    std::vector<FrameworkLibrary> libraries = {};  // the CUDA libraries of its closure, load order
    std::vector<std::string> unresolved = {};  // CUDA sonames it needs that resolve nowhere
    std::vector<std::string> load_problems = {};  // binaries whose dynamic section cannot be read
    std::optional<GpuCodeSummary> gpu_code = {};  // of its GPU-code binary, when it has one
    std::string site_packages = {};  // where its install record is
    std::optional<ImportFacts> import = {};  // what `import` gets; none when the path could not be modelled
    // Other installs of it later on the interpreter's path, never imported: "<site-packages> (<version>)".
    std::vector<std::string> shadowed_installs = {};
    [[nodiscard]] const FrameworkLibrary* library(std::string_view family) const;
};

// Where a framework's GPU code runs on one GPU with this driver: from its binary's embedded code
// (the rules of cuda/arch_coverage.hpp, and PTX no newer than the driver can compile), from the
// architecture list its build states (TensorFlow, xformers), or, for CuPy, whether its NVRTC
// compiles for the GPU at all.
enum class Coverage { native, ptx_jit, ptx_too_new, none, nvrtc, unknown };
[[nodiscard]] std::string_view to_string(Coverage coverage);  // "native", "ptx_jit", ...
struct GpuCoverage {
    Coverage coverage = Coverage::unknown;
    std::string how;  // "sm_90 SASS", "compute_90 PTX (ISA 9.0, needs a CUDA 13.0 driver)", ...
    std::optional<CudaVersion> ptx_needs = {};  // the driver CUDA its PTX needs, for ptx_jit/ptx_too_new
};
[[nodiscard]] GpuCoverage framework_gpu_coverage(const FrameworkFacts& framework, int cc_major, int cc_minor,
                                                 std::optional<CudaVersion> driver_cuda);
// The targets a framework carries, as its binary or its build list them: "sm_90", "compute_120".
[[nodiscard]] std::vector<std::string> framework_gpu_targets(const FrameworkFacts& framework);

struct EnvironmentFacts {
    PythonEnvironment environment = {};
    bool bare_python3 = false;  // the environment a bare `python3` on PATH uses
    ImportModel path = {};      // the sys.path its interpreter builds here
    // What `import` gets for each framework module that imports here, installed or not.
    std::vector<ImportFacts> imports = {};
    std::vector<FrameworkFacts> frameworks = {};
};

// A pip first on PATH that installs into another environment than the `python3` first on PATH
// ("I installed torch but Python does not see it").
struct PipMismatch {
    std::string pip;              // "/usr/bin/pip3"
    std::string interpreter;      // the interpreter its script runs
    std::string pip_prefix;       // that interpreter's environment
    std::string python3;          // the python3 first on PATH
    std::string python3_prefix;   // its environment
};

// "<environment prefix>: <framework>", the subject of a framework's findings and its report entry.
[[nodiscard]] std::string framework_subject(const EnvironmentFacts& environment, const FrameworkFacts& framework);

struct PythonFacts {
    std::vector<EnvironmentFacts> environments = {};
    std::vector<std::string> notes = {};  // from find_python_environments
    std::string cache_problem = {};       // why the GPU code cache could not be written; "" when fine
    std::optional<GpuCodeCacheRefusal> cache_refused = {};  // why it was not used at all
    std::vector<PipMismatch> pip_mismatches = {};
};

// What a framework's process loads, for one framework build in `site_packages`: the loading rules
// of each framework (see frameworks_probe.cpp) applied with the loader's search.
[[nodiscard]] FrameworkFacts gather_framework(FrameworkBuild build, const std::string& site_packages,
                                              const LoaderSearch& search, DirectoryListings& listings,
                                              GpuCodeCache& cache, const Environment& environment,
                                              const std::string& root = "");

// Everything, for every environment found (`extra`: the --python arguments).
[[nodiscard]] PythonFacts collect_python_facts(const Environment& environment, std::span<const std::string> extra,
                                               const std::string& root, const std::string& cache_directory);

}  // namespace cudacheck
