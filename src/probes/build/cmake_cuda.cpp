#include "probes/build/cmake_cuda.hpp"

#include "util/system.hpp"

#include <fmt/format.h>

#include <vector>

namespace cudacheck {

namespace {

// The directories find_program(nvcc) looks in before its PATHS, in its order (find_program's
// documentation, "the search process"), each with the rule a message names. The system prefixes
// (/usr/local, /usr, /opt: Platform/UnixPaths.cmake) come after PATH in that order but are not
// known yet when project() determines its compilers (CMakeSystemSpecificInformation.cmake, which
// loads them, runs after CMakeDetermine<LANG>Compiler.cmake): with PATH=/usr/bin:/bin, CMake 3.25
// does not find a /usr/local/bin/nvcc.
std::vector<std::pair<std::string, std::string>> find_program_directories(const Environment& environment) {
    std::vector<std::pair<std::string, std::string>> directories;
    const auto entries = [&](const char* variable) {
        std::vector<std::string> list;
        for (std::string& entry : sys::split(environment.get(variable).value_or(""), ':'))
            if (!entry.empty()) list.push_back(std::move(entry));
        return list;
    };
    for (const std::string& prefix : entries("CMAKE_PREFIX_PATH"))
        for (const char* sub : {"/bin", "/sbin"}) directories.emplace_back(prefix + sub, "CMAKE_PREFIX_PATH");
    for (const std::string& entry : entries("CMAKE_PROGRAM_PATH"))
        directories.emplace_back(entry, "CMAKE_PROGRAM_PATH");
    for (const std::string& entry : entries("PATH")) directories.emplace_back(entry, "nvcc on PATH");
    return directories;
}

}  // namespace

std::string program_word(std::string_view value) {
    value = sys::trim(value);
    return std::string(value.substr(0, value.find_first_of(" \t")));
}

CMakeCudaCompiler cmake_cuda_compiler(const Environment& environment) {
    if (const auto cudacxx = environment.get("CUDACXX"); cudacxx && !cudacxx->empty()) {
        CMakeCudaCompiler compiler{program_word(*cudacxx), "CUDACXX"};
        compiler.path = compiler.program.find('/') != std::string::npos
                            ? (sys::exists(compiler.program) ? compiler.program : std::string())
                            : sys::find_in_path(compiler.program, environment.get("PATH").value_or(""));
        if (compiler.path.empty()) compiler.failure = fmt::format("CUDACXX={} does not exist", *cudacxx);
        return compiler;
    }
    CMakeCudaCompiler compiler{"nvcc", ""};
    for (const auto& [directory, rule] : find_program_directories(environment))
        if (sys::is_executable_file(directory + "/nvcc")) {
            compiler.path = directory + "/nvcc";
            compiler.rule = rule;
            return compiler;
        }
    // The last fall-back: _CMAKE_CUDA_COMPILER_PATHS, "$ENV{CUDA_PATH}/bin".
    if (const auto cuda_path = environment.get("CUDA_PATH");
        cuda_path && !cuda_path->empty() && sys::is_executable_file(*cuda_path + "/bin/nvcc")) {
        compiler.path = *cuda_path + "/bin/nvcc";
        compiler.rule = "CUDA_PATH";
        return compiler;
    }
    compiler.failure = "CUDACXX is unset and no nvcc is on PATH or in $CUDA_PATH/bin";
    return compiler;
}

std::string toolkit_root_of_nvcc(const std::string& nvcc) {
    const std::string real = sys::real_path(nvcc);
    const std::size_t bin = real.find_last_of('/');
    if (bin == std::string::npos || bin == 0) return {};
    const std::size_t above = real.find_last_of('/', bin - 1);
    if (above == std::string::npos) return {};
    return above == 0 ? "/" : real.substr(0, above);
}

CMakeArchitecturesKind cmake_architectures_kind(std::string_view value) {
    if (value == "all") return CMakeArchitecturesKind::all;
    if (value == "all-major") return CMakeArchitecturesKind::all_major;
    if (value == "native") return CMakeArchitecturesKind::native;
    // CMakeDetermineCUDACompiler.cmake's pattern,
    // `^([0-9]+[af]?(-real|-virtual)?(;[0-9]+[af]?(-real|-virtual)?|;)*)$`: a first entry, then
    // entries or empty ones after each ';'. CMake 3.25 takes an `a` suffix (90a); newer releases
    // also `f` (100f), which is accepted here rather than refused for a CMake that may take it. Read
    // entry by entry rather than by std::regex, whose matcher recurses per character and overflows
    // the stack on a long CUDAARCHS.
    const auto entry = [](std::string_view text) {
        std::size_t digits = 0;
        while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
        if (digits == 0) return false;
        text.remove_prefix(digits);
        if (!text.empty() && (text.front() == 'a' || text.front() == 'f')) text.remove_prefix(1);
        return text.empty() || text == "-real" || text == "-virtual";
    };
    std::size_t start = 0;
    for (bool first = true;; first = false) {
        const std::size_t end = value.find(';', start);
        const std::string_view item =
            value.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!(item.empty() && !first) && !entry(item)) return CMakeArchitecturesKind::invalid;
        if (end == std::string_view::npos) return CMakeArchitecturesKind::list;
        start = end + 1;
    }
}

}  // namespace cudacheck
