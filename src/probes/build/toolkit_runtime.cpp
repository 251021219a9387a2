#include "probes/build/toolkit_runtime.hpp"

#include "cuda/library_families.hpp"
#include "probes/build/build_toolkit.hpp"
#include "util/system.hpp"

namespace cudacheck {

ToolkitRuntime toolkit_runtime(const std::string& root, std::optional<int> cuda_major, const LoaderSearch& loader) {
    ToolkitRuntime runtime;
    runtime.library_directory = development_files(root).library_directory;
    const LibraryFamily* cudart = find_library_family("cudart");
    if (cudart != nullptr && cuda_major) runtime.soname = std::string(cudart->soname_for(*cuda_major));
    if (runtime.soname.empty() || runtime.library_directory.empty()) return runtime;
    runtime.real_path = sys::real_path(runtime.library_directory + "/" + runtime.soname);
    if (runtime.real_path.empty()) return runtime;
    DirectoryListings listings;
    runtime.found = resolve(runtime.soname, loader, listings);
    return runtime;
}

}  // namespace cudacheck
