// What a site-packages directory says about the distributions installed in it, read from their
// files: the *.dist-info directories (PEP 376, names escaped as PEP 427 says), their METADATA
// headers (core metadata, packaging.python.org "Core metadata specifications"), the requirements
// those name (PEP 508), and the literal assignments of generated version files such as
// torch/version.py. Nothing is imported or executed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// A distribution's name normalised as PEP 503 does: lower case, runs of "-", "_" and "." as one
// "-" ("nvidia_cudnn_cu13" -> "nvidia-cudnn-cu13").
[[nodiscard]] std::string normalise_distribution_name(std::string_view name);

struct InstalledDistribution {
    std::string name;       // normalised
    std::string version;    // as in the directory name: "9.19.0.56"
    std::string dist_info;  // the *.dist-info directory's path
};
// "nvidia_cudnn_cu13-9.19.0.56.dist-info" -> {nvidia-cudnn-cu13, 9.19.0.56}; nullopt for another name.
[[nodiscard]] std::optional<InstalledDistribution> parse_dist_info_name(std::string_view directory_name);
// Every *.dist-info of a site-packages directory, sorted by name.
[[nodiscard]] std::vector<InstalledDistribution> installed_distributions(const std::string& site_packages);

// One Requires-Dist: "nvidia-cudnn-cu13<10.0,>=9.12.0.46; sys_platform == "linux" and extra == "with-cuda"".
struct Requirement {
    std::string name;       // normalised
    std::string extras;     // "cublas,cudart" of "cuda-toolkit[cublas,cudart]"; "" when none
    std::string specifier;  // "<10.0,>=9.12.0.46"; "" when any version
    std::string marker;     // after ";", trimmed; "" when none
    [[nodiscard]] std::optional<std::string> extra() const;  // the extra == "..." the marker requires, if any
};
[[nodiscard]] std::optional<Requirement> parse_requirement(std::string_view text);

struct DistributionMetadata {
    std::string name;
    std::string version;
    std::vector<Requirement> requires_dist;
    std::size_t unreadable_requirements = 0;
};
// The header block of a METADATA file (up to the first blank line); nullopt when it has no Name
// or no Version, which a real one always has.
[[nodiscard]] std::optional<DistributionMetadata> parse_metadata(std::string_view text);

// The module-level `name = 'value'` assignments of a generated Python file, annotations allowed
// (`cuda: Optional[str] = '13.0'`); None as nullopt, True/False/numbers as their text. Anything
// else (expressions, calls, multi-line values) is not a literal and is left out.
using PythonLiterals = std::map<std::string, std::optional<std::string>, std::less<>>;
[[nodiscard]] PythonLiterals parse_python_literals(std::string_view text);

// A number of decimal digits only, read without exceptions (`lib/python3.<20 digits>`
// threw from std::stoi); nullopt when `digits` is empty, holds anything else, or exceeds `limit`.
[[nodiscard]] std::optional<long> decimal_number(std::string_view digits, long limit = 1'000'000'000L);

// A specifier set's lower bound (">=9.12.0.46" -> "9.12.0.46", "==9.19.0.56" -> "9.19.0.56");
// nullopt when it sets none.
[[nodiscard]] std::optional<std::string> minimum_version(std::string_view specifier);
// Whether `version` satisfies every clause of `specifier` (==, !=, >=, <=, >, <, ~= on release
// numbers; a trailing ".*" of == matches a prefix). Local and pre-release parts are ignored.
[[nodiscard]] bool satisfies(std::string_view version, std::string_view specifier);

// A CPython extension module of `directory` by the start of its name: its file carries the
// interpreter's tag ("runtime.cpython-312-x86_64-linux-gnu.so", "flash_attn_2_cuda.cpython-312-...so").
// "" when there is none.
[[nodiscard]] std::string extension_module(const std::string& directory, std::string_view prefix);

}  // namespace cudacheck
