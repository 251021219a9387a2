// Facts about installed CUDA toolkits: the nvcc on PATH and its version, and every toolkit found
// in the usual places (CUDA_HOME, CUDA_PATH, /usr/local/cuda*, /opt/cuda).
#pragma once

#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct NvccVersion {
    std::string release;  // "13.0"
    std::string full;     // "13.0.88"
};
// Parses `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.88").
[[nodiscard]] std::optional<NvccVersion> parse_nvcc_version(std::string_view output);
// Parses a toolkit's version.json ("cuda": {"version": "13.0.2"}) or old version.txt ("CUDA Version 10.2.89").
[[nodiscard]] std::string parse_toolkit_version_file(std::string_view text);

struct Toolkit {
    std::string root;     // real path, e.g. /usr/local/cuda-13.0
    std::string version;  // from version.json, e.g. "13.0.2"; empty when unknown
    std::string nvcc;     // root/bin/nvcc when it exists and is executable
    std::vector<std::string> found_as;  // how it was found: "PATH", "CUDA_HOME", "/usr/local/cuda", ...
};

struct ToolkitFacts {
    std::string path_nvcc;              // nvcc found through PATH, empty if none
    std::string path_nvcc_root;         // the toolkit that nvcc runs from, wrapper scripts seen through
    std::string used_nvcc;              // the nvcc whose version is reported
    std::optional<NvccVersion> nvcc_version;
    std::string nvcc_failure;           // why `nvcc --version` gave nothing usable
    // Set when nvcc was not run (`--level quick` reads files only): why; nvcc_version then comes
    // from the toolkit's files, named in nvcc_version_source, and a wrapper on PATH stays
    // unresolved (path_nvcc_root empty).
    std::string nvcc_not_run;
    std::string nvcc_version_source;  // "version.json (cuda_nvcc)" or "include/cuda.h (CUDA_VERSION)"
    std::vector<Toolkit> toolkits;      // de-duplicated by real path
    std::string cuda_symlink;           // real path of /usr/local/cuda, empty if absent
    [[nodiscard]] const Toolkit* toolkit_at(std::string_view root) const;
};

// The toolkit root of an nvcc binary: realpath of <nvcc>/../..
[[nodiscard]] std::string toolkit_root_of(const std::string& nvcc_path);

// The directory nvcc runs from, from the `#$ _HERE_=` line of `nvcc --dryrun`; empty when absent.
[[nodiscard]] std::string parse_nvcc_dryrun_here(std::string_view output);

// The toolkit root nvcc really runs from. A real nvcc has nvcc.profile beside it; anything else on
// PATH named nvcc (a wrapper such as `exec /usr/local/cuda-13.0/bin/nvcc "$@"`) is asked with
// `--dryrun`, which prints the directory of the nvcc it ends up running.
[[nodiscard]] std::string resolve_nvcc_root(const std::string& nvcc_path,
                                            const Environment& environment = Environment::from_process());

// The environment for any nvcc this program asks a question (--version, --dryrun, --list-gpu-arch):
// this one without an empty TMPDIR, with which nvcc 13.0 writes and leaves tmpxft_* files at /
// (TMPDIR "" + "/tmpxft_..."; measured), unset, it uses /tmp and cleans up, and answers the same.
// nullopt when TMPDIR is not set to "": the child gets this process's environment.
[[nodiscard]] std::optional<std::vector<std::string>> environment_for_nvcc(const Environment& environment);

// nvcc's version as a toolkit's files give it, for when nvcc is not run: version.json's cuda_nvcc
// component ("cuda_nvcc": {"version": "13.0.88"}, the V13.0.88 `nvcc --version` prints; NVIDIA's
// installers write version.json since CUDA 11.1), else the release alone from cuda.h
// ("#define CUDA_VERSION 13000": "13.0", which is `nvcc --version`'s "release 13.0").
[[nodiscard]] std::optional<NvccVersion> parse_nvcc_component_version(std::string_view version_json);
[[nodiscard]] std::optional<NvccVersion> parse_cuda_h_version(std::string_view cuda_h);

// Looks in PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda, /usr/local/cuda-*, /opt/cuda (all under `root`)
// and runs the chosen `nvcc --version`. With `run_nvcc` false it starts no program: nvcc's version
// comes from its toolkit's files, and a wrapper on PATH is not seen through (`--dryrun`).
[[nodiscard]] ToolkitFacts collect_toolkits(const Environment& environment, const std::string& root = "",
                                            bool run_nvcc = true);

}  // namespace cudacheck
