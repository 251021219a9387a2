#include "util/path.hpp"

namespace cudacheck::sys {

std::string directory_of(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

std::string_view file_name_of(std::string_view path) { return path.substr(path.find_last_of('/') + 1); }

}  // namespace cudacheck::sys
