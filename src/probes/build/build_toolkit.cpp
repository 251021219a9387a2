#include "probes/build/build_toolkit.hpp"

#include "util/system.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cudacheck {

BuildToolkitChoice torch_cuda_home(const Environment& environment, const std::string& root) {
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const auto value = environment.get(variable); value && !value->empty()) return {*value, variable};
    const std::string nvcc = sys::find_in_path("nvcc", environment.get("PATH").value_or(""));
    if (!nvcc.empty()) {
        // os.path.dirname twice, without resolving links.
        const std::string bin = nvcc.substr(0, nvcc.find_last_of('/'));
        const std::size_t slash = bin.find_last_of('/');
        return {slash == 0 ? "/" : bin.substr(0, slash == std::string::npos ? 0 : slash),
                fmt::format("nvcc on PATH ({})", nvcc)};
    }
    if (sys::exists(root + "/usr/local/cuda")) return {root + "/usr/local/cuda", "/usr/local/cuda"};
    return {};
}

DevelopmentFiles development_files(const std::string& toolkit_root) {
    DevelopmentFiles files;
    const auto present = [&](const std::string& path, std::string& slot) {
        if (sys::exists(path)) slot = path;
        else files.missing.push_back(path);
    };
    const std::string nvcc = toolkit_root + "/bin/nvcc";
    if (sys::is_executable_file(nvcc)) files.nvcc = nvcc;
    else files.missing.push_back(nvcc);
    present(toolkit_root + "/include/cuda_runtime.h", files.runtime_header);
    present(toolkit_root + "/include/crt/host_config.h", files.host_config);
    files.library_directory = toolkit_root + "/lib64";
    if (!sys::is_directory(files.library_directory) && sys::is_directory(toolkit_root + "/lib"))
        files.library_directory = toolkit_root + "/lib";
    present(files.library_directory + "/libcudart.so", files.cudart_shared);
    present(files.library_directory + "/libcudart_static.a", files.cudart_static);
    return files;
}

std::vector<std::string> missing_torch_library_headers(const std::string& toolkit_root, const Environment& environment,
                                                       const std::vector<std::string>& compiler_directories) {
    std::vector<std::string> directories{toolkit_root + "/include"};
    directories.insert(directories.end(), compiler_directories.begin(), compiler_directories.end());
    if (const auto value = environment.get("CUDA_INC_PATH"); value && !value->empty()) directories.push_back(*value);
    for (const char* variable : {"CPATH", "CPLUS_INCLUDE_PATH"}) {
        const std::string value = environment.get(variable).value_or("");
        for (std::size_t start = 0; start <= value.size();) {
            const std::size_t colon = std::min(value.find(':', start), value.size());
            // An empty element is the current directory to gcc: a build's own, unknown here.
            if (colon > start) directories.push_back(value.substr(start, colon - start));
            start = colon + 1;
        }
    }
    std::vector<std::string> missing;
    for (const char* header : torch_cuda_library_headers) {
        const bool found = std::any_of(directories.begin(), directories.end(), [&](const std::string& directory) {
            return sys::exists(directory + "/" + header);
        });
        if (!found) missing.push_back(toolkit_root + "/include/" + header);
    }
    return missing;
}

std::vector<std::string> parse_include_search_list(std::string_view verbose_output) {
    std::vector<std::string> directories;
    constexpr std::string_view start = "#include <...> search starts here:";
    const std::size_t at = verbose_output.find(start);
    if (at == std::string_view::npos) return directories;
    std::string_view rest = verbose_output.substr(at + start.size());
    while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        const std::string_view line = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        if (line.starts_with("End of search list.")) break;
        if (!line.starts_with(' ')) continue;  // the empty line after the start, and anything else
        std::string_view directory = sys::trim(line);
        // clang on macOS marks some "(framework directory)"; no such line names a header directory.
        if (directory.ends_with(" (framework directory)")) continue;
        if (!directory.empty()) directories.emplace_back(directory);
    }
    return directories;
}

}  // namespace cudacheck
