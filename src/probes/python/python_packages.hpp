// What a site-packages directory says about the distributions installed in it, read from their
// files: the *.dist-info directories (PEP 376, names escaped as PEP 427 says) and the literal
// assignments of generated version files such as torch/version.py. Nothing is imported or executed.
// The packaging rules themselves (METADATA, PEP 508 requirements and markers, PEP 440 versions and
// specifiers, name normalisation) are util/python_packaging's, held to pip and packaging by its test.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct InstalledDistribution {
    std::string name;       // normalised (packaging::normalize_name)
    std::string version;    // as in the directory name: "9.19.0.56"
    std::string dist_info;  // the *.dist-info directory's path
};
// "nvidia_cudnn_cu13-9.19.0.56.dist-info" -> {nvidia-cudnn-cu13, 9.19.0.56}; nullopt for another name.
[[nodiscard]] std::optional<InstalledDistribution> parse_dist_info_name(std::string_view directory_name);
// Every *.dist-info of a site-packages directory, sorted by name.
[[nodiscard]] std::vector<InstalledDistribution> installed_distributions(const std::string& site_packages);

// The module-level `name = 'value'` assignments of a generated Python file, annotations allowed
// (`cuda: Optional[str] = '13.0'`); None as nullopt, True/False/numbers as their text. Anything
// else (expressions, calls, multi-line values) is not a literal and is left out.
using PythonLiterals = std::map<std::string, std::optional<std::string>, std::less<>>;
[[nodiscard]] PythonLiterals parse_python_literals(std::string_view text);

// A number of decimal digits only, read without exceptions (`lib/python3.<20 digits>`
// threw from std::stoi); nullopt when `digits` is empty, holds anything else, or exceeds `limit`.
[[nodiscard]] std::optional<long> decimal_number(std::string_view digits, long limit = 1'000'000'000L);

// Whether an installed `version` ("2.11.0+cu130", "9.19.0.56") satisfies `specifier` ("==2.11.0",
// "<10.0,>=9.12.0.46"; "" is any version), as `pip check` asks it: packaging's
// SpecifierSet.contains(version, prereleases=True), the rules of util/python_packaging (PEP 440:
// a local part is ignored unless the specifier names one, "==2.11.*" matches a prefix, "~=" is a
// compatible release). True when either does not parse as PEP 440: cudacheck does not claim a
// mismatch it cannot show.
[[nodiscard]] bool satisfies(std::string_view version, std::string_view specifier);

// A CPython extension module of `directory` by the start of its name: its file carries the
// interpreter's tag ("runtime.cpython-312-x86_64-linux-gnu.so", "flash_attn_2_cuda.cpython-312-...so").
// "" when there is none.
[[nodiscard]] std::string extension_module(const std::string& directory, std::string_view prefix);

}  // namespace cudacheck
