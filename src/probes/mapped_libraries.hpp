// Which CUDA library files this process has mapped: the copies its checks actually used (opened
// themselves, or loaded as dependencies of those), for the report's `libraries` section. Read from
// the loader's own list of loaded objects, so no check has to say what it opened.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// The real paths of the mapped objects whose file name is a soname of a library in the table
// (cuda/library_families.hpp), or that soname followed by a version ("libcublas.so.13.1.0.3"),
// sorted and distinct.
[[nodiscard]] std::vector<std::string> mapped_cuda_libraries();

// The same test on one file name, for the tests: whether it names a library of the table.
[[nodiscard]] bool is_cuda_library_file_name(std::string_view file_name);

}  // namespace cudacheck
