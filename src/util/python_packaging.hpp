// Python's packaging rules, as pip applies them, as pure functions: whether a wheel installs on an
// interpreter (wheel file names, PEP 427 and PEP 491; the tags an interpreter accepts, in the order
// of packaging.tags), what a distribution's METADATA asks for (core metadata; PEP 508 requirements
// and markers; PEP 440 versions and specifiers), and which CUDA major its NVIDIA wheel pins pull in.
// Each rule follows the reference implementation pip vendors, pypa/packaging (src/packaging/tags.py,
// _manylinux.py, markers.py, specifiers.py, version.py, requirements.py), and is held to it by
// tests/unit/util/python_packaging_test.cpp, which runs the real pip and packaging.
//
// What is not modelled, and why: musl libc (musllinux tags; cudacheck's CUDA targets are glibc
// systems, and NVIDIA publishes no musllinux CUDA wheels), 32-bit interpreters on 64-bit kernels
// (armv8l, i686), macOS and Windows platform tags (a wheel for them is reported as "built for
// macOS/Windows"), and Python 2.
#pragma once

#include "util/expected.hpp"

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudacheck::packaging {

// ---- PEP 440 versions (packaging.version.Version) --------------------------------------------------

struct Version {
    std::uint64_t epoch = 0;
    std::vector<std::uint64_t> release;  // 2.11.0 -> {2, 11, 0}
    // Pre-release: 'a', 'b' or 'c' (rc) and its number; alpha, beta, pre, preview are spelled so.
    std::optional<std::pair<char, std::uint64_t>> pre;
    std::optional<std::uint64_t> post;
    std::optional<std::uint64_t> dev;
    std::vector<std::string> local;  // "+cu130" -> {"cu130"}; lower case, split at . - _

    [[nodiscard]] bool is_prerelease() const { return pre.has_value() || dev.has_value(); }
    [[nodiscard]] bool is_postrelease() const { return post.has_value(); }
    [[nodiscard]] std::uint64_t major() const { return release.empty() ? 0 : release[0]; }
    // The normalised text, str(Version): "1.0rc1.post2.dev3+cu130".
    [[nodiscard]] std::string text() const;
    // Without the local part ("2.11.0+cu130" -> "2.11.0"); and without pre/post/dev too.
    [[nodiscard]] Version public_version() const;
    [[nodiscard]] Version base_version() const;
};
// Versions compare as packaging's _cmpkey does (1.0 == 1.0.0, 1.0.dev0 < 1.0a1 < 1.0 < 1.0.post1,
// 1.0 < 1.0+local).
[[nodiscard]] std::strong_ordering operator<=>(const Version& a, const Version& b);
[[nodiscard]] bool operator==(const Version& a, const Version& b);
// "v1.0", " 1.0 ", "1.0-1", "1.0.RC1" are accepted as packaging accepts them; a numeric part of
// more than 18 digits is refused (packaging has unbounded integers; no real version needs them).
[[nodiscard]] Expected<Version> parse_version(std::string_view text);

// ---- Specifiers (packaging.specifiers) -------------------------------------------------------------

struct Specifier {
    std::string op;       // "==", "!=", "<=", ">=", "<", ">", "~=", "==="
    std::string version;  // as written after the operator, trimmed: "2.11.*", "13.0.2"
};
struct SpecifierSet {
    std::vector<Specifier> clauses;  // empty: any version
    [[nodiscard]] std::string text() const;
};
// "<10.0,>=9.12.0.46"; "" is the empty set (any version). An invalid clause is an Error naming it.
[[nodiscard]] Expected<SpecifierSet> parse_specifier_set(std::string_view text);
// SpecifierSet.contains(version, prereleases): every clause holds. `prereleases` nullopt: a
// pre-release is allowed only when a clause names one (">=2.0rc1"), as packaging decides.
[[nodiscard]] bool specifier_allows(const SpecifierSet& set, const Version& version,
                                    std::optional<bool> prereleases = std::nullopt);
[[nodiscard]] bool specifier_allows(const Specifier& clause, const Version& version, bool prereleases);

// ---- PEP 508 markers (packaging.markers) -----------------------------------------------------------

// The values markers compare, for one interpreter on this machine. A field left empty is not known
// here: a marker that needs it is not satisfied, with that reason.
struct MarkerEnvironment {
    std::string python_version;       // "3.12"
    std::string python_full_version;  // "3.12.3"
    std::string implementation_name = "cpython";
    std::string implementation_version;  // "3.12.3" for CPython
    std::string platform_python_implementation = "CPython";
    std::string sys_platform = "linux";
    std::string platform_system = "Linux";
    std::string platform_machine = "x86_64";
    std::string os_name = "posix";
    std::string platform_release;  // uname -r; rarely in real markers
    std::string platform_version;
};

struct MarkerVerdict {
    bool holds = false;
    std::string reason;  // why it is not known, when it does not hold for want of a value ("" otherwise)
};
// Evaluates `marker` (the text after ";" of a requirement) with `extra` as the extra being
// installed ("" for none), as Marker.evaluate({"extra": extra}) does: extras compare normalised
// (PEP 685), versions as PEP 440 specifiers where both sides allow it, strings otherwise. A value
// not known here makes its comparison unknown; and/or follow three-valued logic (unknown or true is
// true), and an unknown result does not hold, with the reason. A marker that does not parse is an Error.
[[nodiscard]] Expected<MarkerVerdict> evaluate_marker(std::string_view marker, const MarkerEnvironment& environment,
                                                      std::string_view extra = {});

// ---- PEP 508 requirements, core metadata -----------------------------------------------------------

// PEP 503 / packaging.utils.canonicalize_name: lower case, runs of - _ . as one "-".
[[nodiscard]] std::string normalize_name(std::string_view name);

struct Requirement {
    std::string name;  // as written: "nvidia-cudnn-cu13", "ml_dtypes"
    std::vector<std::string> extras;
    SpecifierSet specifier;
    std::string url;     // "name @ URL" requirements
    std::string marker;  // after ";", trimmed; "" for none
    [[nodiscard]] std::string normalized_name() const { return normalize_name(name); }
};
// "cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"", "torch (==2.11.0)".
[[nodiscard]] Expected<Requirement> parse_requirement(std::string_view text);

// Whether pip installs `requirement` as a dependency of a distribution installed with `extras`
// (pip's BaseDistribution.iter_dependencies plus the base requirements: the marker evaluated with
// extra "" and with each extra asked for; it applies when one holds).
[[nodiscard]] MarkerVerdict requirement_applies(const Requirement& requirement, const MarkerEnvironment& environment,
                                                std::span<const std::string> extras = {});

struct Metadata {
    std::string metadata_version;
    std::string name;
    std::string version;
    std::string requires_python;  // as written: ">=3.10,!=3.14.1"
    std::vector<Requirement> requires_dist;
    std::vector<std::string> provides_extra;
    // Requires-Dist lines that are not PEP 508, with why (pip would refuse the distribution).
    std::vector<std::pair<std::string, std::string>> unreadable_requirements;
    // Every header in order, continuation lines joined with "\n" (the email format's folding).
    std::vector<std::pair<std::string, std::string>> headers;
};
// The headers of a METADATA (or PKG-INFO) file: "Key: value" lines, a line starting with a space
// or tab continuing the one before, ending at the first blank line (the description body). An Error
// when there is no Name or no Version, or the text is larger than max_metadata_bytes.
inline constexpr std::size_t max_metadata_bytes = std::size_t{16} << 20;
[[nodiscard]] Expected<Metadata> parse_metadata(std::string_view text);

// ---- Wheel file names and tags (PEP 427, PEP 425, PEP 600) -----------------------------------------

struct Tag {
    std::string interpreter;  // "cp312", "py3"
    std::string abi;          // "cp312", "abi3", "none"
    std::string platform;     // "manylinux_2_28_x86_64", "any"
    [[nodiscard]] std::string text() const { return interpreter + "-" + abi + "-" + platform; }
    friend bool operator==(const Tag&, const Tag&) = default;
};

struct WheelName {
    std::string distribution;  // as in the file name: "nvidia_cublas_cu12"
    std::string version;       // "2.11.0+cu130" ('_' in a version means '-')
    std::optional<std::string> build;  // "1" of "pkg-1.0-1-py3-none-any.whl"
    std::vector<std::string> python_tags;    // "cp312.cp313" -> {cp312, cp313}
    std::vector<std::string> abi_tags;
    std::vector<std::string> platform_tags;  // "manylinux_2_17_x86_64.manylinux2014_x86_64" -> both
    // The expanded set, as packaging.utils.parse_wheel_filename returns it.
    [[nodiscard]] std::vector<Tag> tags() const;
};
// "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl" (a directory part is ignored).
[[nodiscard]] Expected<WheelName> parse_wheel_filename(std::string_view file_name);

// An interpreter as the tags see it.
struct Interpreter {
    int major = 3;
    int minor = 12;
    std::string implementation = "cp";  // "cp" (CPython) or "pp" (PyPy)
    // sys.abiflags: "" (3.8+ release builds), "t" (free-threaded 3.13t), "d" (debug), "m" (3.7 and older).
    std::string abiflags;
    // PyPy's ABI tag, from its extension suffix (".pypy310-pp73-x86_64-linux-gnu.so" -> "pypy310_pp73").
    std::string pypy_abi;
    std::string machine = "x86_64";  // platform.machine(): x86_64, aarch64, ppc64le, s390x
    // gnu_get_libc_version(); nullopt on a C library other than glibc (no manylinux tag fits then).
    std::optional<std::pair<int, int>> glibc;

    // "3.12", "cp312t" as the ABI tag would have it.
    [[nodiscard]] std::string version_text() const;
    [[nodiscard]] bool free_threaded() const { return abiflags.find('t') != std::string::npos; }
};

// Where packaging releases differ in the tags they list. pip up to 25.x vendors packaging 21.3 to
// 25.x, which list manylinux tags before linux_<arch> and no abi3t; packaging 26.1 added abi3t for
// free-threaded builds (PEP 803) and 26.3 moved linux_<arch> first (its tags.sys_tags docstring).
// The default is pip's own list (pip._internal.utils.compatibility_tags.get_supported).
struct TagRules {
    bool linux_first = false;
    bool abi3t = false;
    [[nodiscard]] static TagRules packaging_26_3() { return {true, true}; }
};

// _manylinux.platform_tags: manylinux_2_X_<arch> for X from the given glibc down to 2_5 (x86_64,
// i686) or 2_17 (every other architecture), each legacy alias (manylinux2014 = 2.17, manylinux2010
// = 2.12, manylinux1 = 2.5) right after its version; glibc 3.x would add 2.50 down first.
[[nodiscard]] std::vector<std::string> manylinux_platforms(std::string_view arch, std::pair<int, int> glibc);
// tags._linux_platforms: the manylinux platforms (when glibc is known), then linux_<arch> (first
// with rules.linux_first).
[[nodiscard]] std::vector<std::string> linux_platforms(const Interpreter& interpreter, TagRules rules = {});
// tags.cpython_tags(python_version, abis, platforms): each ABI on each platform, then abi3 (unless
// free-threaded), none, and abi3 of every older minor down to 3.2 (abi3t in place of abi3 for a
// free-threaded ABI, with rules.abi3t).
[[nodiscard]] std::vector<Tag> cpython_tags(int major, int minor, std::span<const std::string> abis,
                                            std::span<const std::string> platforms, TagRules rules = {});
// tags.compatible_tags(python_version, interpreter, platforms): pyXY-none-<platform> and the older
// minors, then <interpreter>-none-any, then pyXY-none-any and down.
[[nodiscard]] std::vector<Tag> compatible_tags(int major, int minor, std::string_view interpreter,
                                               std::span<const std::string> platforms);
// tags.generic_tags(interpreter, abis, platforms): for PyPy.
[[nodiscard]] std::vector<Tag> generic_tags(std::string_view interpreter, std::span<const std::string> abis,
                                            std::span<const std::string> platforms);
// tags._cpython_abis: "cp313t"; a debug build also loads release extensions ("cp312d", "cp312").
[[nodiscard]] std::vector<std::string> cpython_abis(const Interpreter& interpreter);
// The tags pip accepts for this interpreter, best first (index = priority): tags.sys_tags() with
// the <interpreter>-none-any tag that pip's get_supported adds (packaging 21.x's sys_tags lacks it).
[[nodiscard]] std::vector<Tag> supported_tags(const Interpreter& interpreter, TagRules rules = {});

struct WheelFit {
    bool fits = false;
    std::size_t priority = 0;  // the best matching tag's index in supported_tags (0 = best)
    Tag tag;                   // that tag
    std::string why_not;       // one line when it does not fit
};
// Whether pip would install the wheel on `interpreter`, by its tags alone (Requires-Python is the
// METADATA's: python_allows). Why not, in one line: "built for Python 3.11 (cp311), this
// interpreter is 3.12", "needs glibc 2.28 (manylinux_2_28), this machine has 2.17", "built for
// aarch64, this machine is x86_64"; both a Python and a platform reason are joined with "; ".
[[nodiscard]] WheelFit wheel_fits(const WheelName& wheel, const Interpreter& interpreter);
[[nodiscard]] WheelFit wheel_fits(const WheelName& wheel, std::span<const Tag> supported,
                                  const Interpreter& interpreter);

// Requires-Python against the interpreter's full version ("3.12.3"), as pip checks it
// (prereleases allowed). An Error when either does not parse.
[[nodiscard]] Expected<bool> python_allows(std::string_view requires_python, std::string_view python_full_version);

// ---- Which CUDA a distribution's NVIDIA pins need --------------------------------------------------

// The CUDA major a distribution name stands for: nvidia-*-cu11/-cu12/-cu13, jax-cuda12-plugin,
// jax-cuda13-pjrt, cupy-cuda12x (cupy-cuda11x, cupy-cuda102 -> 10). nullopt for other names.
[[nodiscard]] std::optional<int> cuda_major_of_name(std::string_view distribution);

struct CudaPin {
    std::string requirement;  // the Requires-Dist as written
    int cuda_major = 0;
    std::string why;  // "name nvidia-cudnn-cu13", "cuda-toolkit==13.0.2", "nvidia-cublas>=13.0.0.19"
};
struct CudaRequirements {
    std::optional<int> cuda_major;  // set when every pin agrees
    std::vector<CudaPin> pins;      // each requirement that names a CUDA major, whose marker holds
    // Requirements of CUDA's own wheels whose version range spans majors ("cuda-bindings<14,>=12.9.1"),
    // and pins that disagree with each other, one line each.
    std::vector<std::string> ambiguous;
};
// For the requirements that apply with `extras` (requirement_applies): nvidia-*-cuNN names, the
// CUDA 13 un-suffixed NVIDIA wheels whose version is the CUDA version (nvidia-cuda-runtime,
// nvidia-cublas, nvidia-cuda-nvrtc, nvidia-nvjitlink, ...), cuda-toolkit and cuda-bindings pins,
// jax-cudaNN-plugin/pjrt and cupy-cudaNNx names.
[[nodiscard]] CudaRequirements cuda_major_of_requirements(std::span<const Requirement> requires_dist,
                                                          const MarkerEnvironment& environment,
                                                          std::span<const std::string> extras = {});

// The marker values of `interpreter` on Linux, its full version given ("3.12.3"; "" for major.minor.0).
[[nodiscard]] MarkerEnvironment marker_environment(const Interpreter& interpreter,
                                                   std::string_view python_full_version = {});

}  // namespace cudacheck::packaging
