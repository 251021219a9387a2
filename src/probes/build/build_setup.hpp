// What a CUDA build on this machine would use, gathered once per run for toolkit.build,
// toolkit.compile and `cudacheck env`, so that the three agree: the toolkit (torch.utils.cpp_extension's rule,
// build_toolkit), its nvcc's version and the GPU architectures it compiles for, its development
// files, the host compilers installed (host_compilers) and the one nvcc would run, each judged by
// every installed toolkit's own include/crt/host_config.h (cuda/host_config), and ninja. Only
// files and `--version`-style outputs: nothing is compiled. The programs are asked concurrently
// (each takes 2-10 ms).
#pragma once

#include "cuda/host_config.hpp"
#include "probes/build/build_toolkit.hpp"
#include "probes/build/cmake_cuda.hpp"
#include "probes/build/host_compilers.hpp"
#include "probes/toolkit_probe.hpp"
#include "util/environment.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// How nvcc chooses its host compiler (the nvcc documentation, "NVCC_CCBIN" and
// "--compiler-bindir"): -ccbin on its command line (here: in NVCC_PREPEND_FLAGS or
// NVCC_APPEND_FLAGS, which nvcc adds to every command line), else NVCC_CCBIN, else gcc on PATH.
// -ccbin may name a directory, in which nvcc looks for gcc. PyTorch's extension builds put
// `-ccbin $CC` in front when CC is set.
struct HostCompilerPick {
    std::string program = {};  // as given: "gcc", "g++-13", "/opt/rh/gcc-toolset-12/root/usr/bin/gcc"
    std::string rule = {};     // "nvcc's default (gcc on PATH)", "NVCC_CCBIN", "-ccbin in NVCC_PREPEND_FLAGS", "CC
                               // (PyTorch passes -ccbin $CC)"
    std::string path = {};     // what runs; empty when not found
    std::optional<HostCompilerVersion> version = {};  // from its predefined macros (what host_config.h sees)
    std::string version_line = {};  // its `--version` first line
    std::string failure = {};       // why it cannot be run or read
    std::string identity = {};      // the compiler `--version` names (identify_compiler); "" for none
    // Why it is no C++ compiler nvcc can use: it cannot be executed, does not answer
    // within its time limit, or names no compiler and defines no compiler macros (/bin/true, a
    // script, a text file). "" for a compiler, or when that cannot be told.
    std::string unusable = {};
};

// The compiler's own predefined macros (`<compiler> -dM -E -x c++ /dev/null`), the integers among them.
[[nodiscard]] MacroValues parse_predefined_macros(std::string_view dump);
// The kind and version those macros give (clang's __clang_major__ first: clang also claims GNU 4.2.1).
[[nodiscard]] std::optional<HostCompilerVersion> version_from_macros(const MacroValues& macros);

// An option of NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS that makes nvcc stop before it builds a
// program, so the build reports success without building: a mode (--version, --help, --dryrun,
// --list-gpu-arch) or another phase
// (-E, -M, -c, --ptx, --cubin, --fatbin, --lib, ...), from the nvcc documentation's "Options for
// Specifying the Compilation Phase" and "Miscellaneous Options". nvcc adds these words to every
// command line, so such a build prints or stops early and still exits 0 (measured with nvcc 13.0:
// NVCC_APPEND_FLAGS=--version, -E and --dryrun).
struct NvccModeFlag {
    std::string word = {};      // as written: "--version"
    std::string variable = {};  // NVCC_PREPEND_FLAGS or NVCC_APPEND_FLAGS
    std::string what = {};      // "prints nvcc's version and stops"
    // Whether a build that already names its phase is stopped too: -c is what CMake and PyTorch
    // compile with, so only a plain `nvcc -o program x.cu` is changed by it.
    bool stops_every_build = true;
};
// The mode flag `word` is, or nullopt ("-E" and "--preprocess" alike).
[[nodiscard]] std::optional<NvccModeFlag> nvcc_mode_flag(std::string_view word);

// nvcc's -ccbin and -allow-unsupported-compiler among the words of NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS.
struct NvccFlagSettings {
    std::optional<std::string> ccbin = {};
    std::string ccbin_variable = {};  // the variable it came from
    bool allow_unsupported_compiler = false;
    std::vector<NvccModeFlag> mode_flags = {};  // options that stop a build before it builds
    // The variables' values when set and not empty, for messages ("NVCC_APPEND_FLAGS=--version").
    std::vector<std::pair<std::string, std::string>> variables = {};
};

// The directory nvcc writes its intermediate files to (a build fails where it cannot write):
// TMPDIR, /tmp when it is unset or
// empty, and whether a file can be created there with room for a build's intermediates.
struct TemporaryDirectory {
    std::string path = {};
    std::string source = {};   // "TMPDIR", or "/tmp (TMPDIR unset)"
    std::string problem = {};  // why nvcc cannot write there ("does not exist", "Read-only file system", "12 MiB
                               // free"); "" when it can
};
// `path` judged as nvcc's temporary directory: it exists, is a directory, a file can be created in
// it (O_CREAT|O_EXCL, then removed; root passes permission bits, not a read-only file system or
// /proc), and its file system has at least `minimum_free` bytes for this user.
[[nodiscard]] std::string temporary_directory_problem(const std::string& path,
                                                      std::uint64_t minimum_free = 64ull << 20);
[[nodiscard]] TemporaryDirectory nvcc_temporary_directory(const Environment& environment);
[[nodiscard]] NvccFlagSettings nvcc_flag_settings(const Environment& environment);

// One compiler judged by one toolkit's host_config.h.
struct CompilerAcceptance {
    bool accepted = false;
    std::string error = {};       // the first #error text reached ("-- unsupported GNU version! ..."), when rejected
    std::string unreadable = {};  // why the header could not be evaluated; "" when it was
};

// What one installed toolkit accepts.
struct ToolkitCompilerLimits {
    std::string root = {};
    std::string version = {};      // version.json's, or nvcc's for the build toolkit
    std::string host_config = {};  // the header's path; "" when the toolkit has none
    std::string unreadable = {};   // why it could not be read or evaluated
    std::vector<std::string> missing_files = {};  // development_files' missing: empty for a complete toolkit
    std::optional<int> gcc_newest = {};   // the newest gcc major it accepts (asked of the header for 1..60)
    std::optional<int> clang_newest = {};
    std::vector<CompilerAcceptance> compilers = {};  // one per BuildSetup::compilers entry, same order
    CompilerAcceptance nvcc_pick = {};                // for BuildSetup::nvcc_host_compiler
    CompilerAcceptance torch_pick = {};               // for BuildSetup::torch_host_compiler
    CompilerAcceptance cmake_pick = {};               // for BuildSetup::cmake.host_compiler (CUDAHOSTCXX)
};

// What nvcc answers about itself: `--version` and `--list-gpu-arch`.
struct NvccAnswers {
    std::optional<NvccVersion> version = {};
    std::string failure = {};                       // why there is no version
    std::vector<std::string> architectures = {};    // "compute_75", ...; empty when not answered
    bool timed_out = false;                         // `--version` was killed at its limit
};

// What a CMake project with CUDA enabled would use (probes/build/cmake_cuda has CMake's rules).
struct CMakeCudaSetup {
    std::string cmake = {};                // cmake on PATH; "" when none
    CMakeCudaCompiler compiler = {};       // its nvcc: CUDACXX, else CMake's search
    CMakeCudaCompiler compiler_without_cudacxx = {};  // what CMake's search gives when CUDACXX is set (for "unset
                                                      // CUDACXX")
    std::string toolkit_root = {};  // above that nvcc's bin/, links resolved; "" without one
    std::optional<std::size_t> toolkit = {};  // that toolkit's entry in BuildSetup::toolkits
    bool same_toolkit = false;  // it is the toolkit `choice` gives (BuildSetup::toolkits' first)
    DevelopmentFiles files = {};  // of toolkit_root
    NvccAnswers nvcc = {};  // of compiler.path (the build toolkit's answers when same_toolkit)
    std::optional<HostCompilerPick> host_compiler = {};  // CUDAHOSTCXX, when set
    std::optional<std::string> architectures = {};  // CUDAARCHS, when set and not empty
};

struct BuildSetup {
    BuildToolkitChoice choice = {};  // the toolkit PyTorch extension builds (and most scripts) take
    bool choice_exists = false;  // choice.root is a directory
    // What the rule gives when CUDA_HOME/CUDA_PATH are unset (for "unset CUDA_HOME" fixes).
    BuildToolkitChoice choice_without_variables = {};
    bool choice_without_variables_exists = false;
    DevelopmentFiles files = {};  // of choice.root
    // The CUDA library headers PyTorch's ATen/cuda/CUDAContext.h includes that the build finds
    // nowhere (build_toolkit.hpp: missing_torch_library_headers), as "<root>/include/cusparse.h".
    std::vector<std::string> missing_torch_headers = {};
    // Where the host compiler of a PyTorch .cu build (-ccbin $CC, else nvcc's) looks for `#include
    // <...>` by default (`-E -v`): asked only when the toolkit lacks one of those headers.
    std::vector<std::string> host_include_directories = {};
    std::optional<NvccVersion> nvcc_version = {};  // of choice.root's bin/nvcc
    std::string nvcc_failure = {};
    std::vector<std::string> nvcc_architectures = {};  // `nvcc --list-gpu-arch`: "compute_75", ...; empty when not
                                                       // asked or failed
    bool nvcc_timed_out = false;  // nvcc did not answer `--version` within its limit: a build would hang too
    TemporaryDirectory temporary = {};  // where nvcc writes its intermediate files
    std::vector<HostCompiler> compilers = {};  // every one found (host_compilers)
    NvccFlagSettings nvcc_flags = {};
    HostCompilerPick nvcc_host_compiler = {};  // what a plain nvcc command runs
    std::optional<HostCompilerPick> torch_host_compiler = {};  // -ccbin $CC, when CC is set
    HostCompilerPick torch_cxx = {};  // CXX, else c++: what PyTorch compiles .cpp files with
    CMakeCudaSetup cmake = {};
    // The build toolkit first (when it exists), then every other installed toolkit.
    std::vector<ToolkitCompilerLimits> toolkits = {};
    std::string ninja = {};  // on PATH; "" when none
    std::string ninja_version = {};  // `ninja --version`
    std::string machine = {};  // uname's machine, for the compilers' macros
    double gather_ms = 0.0;
};

// `root` prefixes fixed paths (/usr/local/cuda) for tests; "" is the real system.
[[nodiscard]] BuildSetup collect_build_setup(const Environment& environment, const ToolkitFacts& toolkits,
                                             const std::string& root = "");

// Judges one compiler version by a host_config.h's text (with the NVCC flags' -allow-unsupported-compiler).
[[nodiscard]] CompilerAcceptance judge_host_compiler(std::string_view host_config, const HostCompilerVersion& version,
                                                     std::string_view machine, bool allow_unsupported);
// The newest major of `kind` the header accepts, asking it for each major from 60 down to 1.
[[nodiscard]] std::optional<int> newest_accepted_major(std::string_view host_config, HostCompilerKind kind,
                                                       std::string_view machine);

}  // namespace cudacheck
