// A toolkit's CUDA runtime as the loader sees it: the libcudart.so.<major> in the toolkit's library
// directory, and the copy the loader would take for that soname from here (LD_LIBRARY_PATH,
// ld.so.cache, the default directories). `cudacheck env` sets LD_LIBRARY_PATH only where the two
// differ.
#pragma once

#include "probes/library_locator.hpp"

#include <optional>
#include <string>

namespace cudacheck {

struct ToolkitRuntime {
    std::string library_directory = {};  // the toolkit's lib64 (lib where only that exists), as development_files gives
                                         // it
    std::string soname = {};  // "libcudart.so.13"; empty when the toolkit's CUDA major is not known
    std::string real_path = {};  // of <library_directory>/<soname>, symlinks resolved; empty when there is none
    Resolution found = {};  // what the loader opens for the soname; asked only when the toolkit has one
};

// `root` as builds name it (its links kept); `cuda_major` from its version.
[[nodiscard]] ToolkitRuntime toolkit_runtime(const std::string& root, std::optional<int> cuda_major,
                                             const LoaderSearch& loader);

}  // namespace cudacheck
