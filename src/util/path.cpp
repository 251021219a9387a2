#include "util/path.hpp"

#include <algorithm>
#include <vector>

namespace cudacheck::sys {

std::string directory_of(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

std::string_view file_name_of(std::string_view path) { return path.substr(path.find_last_of('/') + 1); }

std::string absolute_path(std::string_view path, std::string_view base) {
    const std::string joined =
        !path.empty() && path.front() == '/' ? std::string(path) : std::string(base) + "/" + std::string(path);
    const bool two_slashes =
        joined.size() >= 2 && joined[0] == '/' && joined[1] == '/' && (joined.size() == 2 || joined[2] != '/');
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start <= joined.size()) {
        const std::size_t slash = std::min(joined.find('/', start), joined.size());
        const std::string_view part = std::string_view(joined).substr(start, slash - start);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        start = slash + 1;
    }
    std::string normal = two_slashes ? "/" : "";
    for (const std::string_view part : parts) (normal += '/') += part;
    return normal.empty() ? "/" : normal;
}

}  // namespace cudacheck::sys
