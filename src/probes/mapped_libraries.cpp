#include "probes/mapped_libraries.hpp"

#include "cuda/library_families.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <link.h>

namespace cudacheck {

bool is_cuda_library_file_name(std::string_view file_name) {
    for (const LibraryFamily& family : library_families())
        for (std::string_view soname : family.distinct_sonames())
            if (file_name == soname || (sys::starts_with(file_name, soname) && file_name.size() > soname.size() &&
                                        file_name[soname.size()] == '.'))
                return true;
    return false;
}

std::vector<std::string> mapped_cuda_libraries() {
    std::vector<std::string> names;
    // dl_iterate_phdr(3) visits every loaded object, the main program first (empty name).
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
                static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
            return 0;
        },
        &names);
    std::vector<std::string> paths;
    for (const std::string& name : names) {
        if (!is_cuda_library_file_name(sys::file_name_of(name))) continue;
        // As DynamicLibrary::loaded_path and the locator's copies name a file: symbolic links resolved.
        const std::string real = sys::real_path(name);
        paths.push_back(real.empty() ? name : real);
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

}  // namespace cudacheck
