// Which host compilers a CUDA toolkit accepts, as the toolkit itself says: nvcc includes
// include/crt/host_config.h in every compilation, and its conditionals stop an unsupported host
// compiler with an #error ("#error -- unsupported GNU version! gcc versions later than 15 are not
// supported! ..."). Rather than a table of versions, the file is preprocessed here for a compiler's
// predefined macros (the conditional directives and #define/#undef of plain macros; #include is not
// followed), and the #error lines it reaches are what nvcc would stop with. The nvcc flag
// -allow-unsupported-compiler defines __NV_NO_HOST_COMPILER_CHECK, which the same file honours.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Object-like macros and their integer values, as a compiler predefines them.
using MacroValues = std::map<std::string, long long, std::less<>>;

enum class HostCompilerKind { gcc, clang };

struct HostCompilerVersion {
    HostCompilerKind kind = HostCompilerKind::gcc;
    int major = 0;
    int minor = 0;
    int patch = 0;
};

// "gcc 13.3.0", "clang 18.1.3".
[[nodiscard]] std::string to_string(const HostCompilerVersion& version);

// What gcc or clang predefines that host_config.h looks at on Linux (`gcc -dM -E - </dev/null`):
// __GNUC__ and friends (clang claims GNU 4.2.1), __clang_major__/__clang_minor__ for clang,
// __linux__, __LP64__ and the architecture's macro (`machine`: "x86_64", "aarch64", "ppc64le"),
// plus what nvcc defines for the host pass (__CUDACC__, __NVCC__) and, with
// -allow-unsupported-compiler, __NV_NO_HOST_COMPILER_CHECK.
[[nodiscard]] MacroValues host_compiler_macros(const HostCompilerVersion& compiler, std::string_view machine,
                                               bool allow_unsupported_compiler = false);

struct HostConfigVerdict {
    std::vector<std::string> errors;  // the #error texts reached, in order ("-- unsupported GNU version! ...")
    std::optional<std::string> unreadable;  // why the file could not be evaluated (an unbalanced #endif, an expression
                                            // it cannot read)
};

// Preprocesses host_config.h's text for `macros`.
[[nodiscard]] HostConfigVerdict evaluate_host_config(std::string_view header, const MacroValues& macros);

// The value of a preprocessor #if expression (integers, defined(), ! ~ unary - +, * / % + - << >>,
// comparisons, & ^ |, && ||, ?:, parentheses; an unknown identifier is 0, as C says); nullopt
// when it cannot be read.
[[nodiscard]] std::optional<long long> evaluate_condition(std::string_view expression, const MacroValues& macros);

}  // namespace cudacheck
