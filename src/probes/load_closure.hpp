// What the dynamic loader loads for one object and everything it needs, without loading anything:
// each DT_NEEDED (and each library an object is known to dlopen: cuDNN's sub-libraries) resolved
// as glibc's ld.so does (ld.so(8); resolve() in library_locator.hpp has the
// order), breadth first, a soname already loaded reused. This is how cudacheck knows which cuDNN a
// PyTorch wheel loads: libtorch_cuda.so's DT_RPATH ($ORIGIN/../../nvidia/cudnn/lib) comes before
// LD_LIBRARY_PATH and ld.so.cache.
#pragma once

#include "probes/library_locator.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {

struct LoadedObject {
    std::string soname = {};     // as DT_NEEDED names it
    std::string needed_by = {};  // the file name of the object that needs it
    bool dlopened = false;  // opened by `needed_by` with dlopen (cuDNN's sub-libraries), not a DT_NEEDED
    Resolution resolution = {};  // path and rule; not found() when it resolves nowhere
    bool already_loaded = false;  // preloaded, or loaded earlier for another object
};

struct LoadClosure {
    std::string root_object;             // the object opened
    std::vector<LoadedObject> objects;   // in the order the loader loads them
    std::vector<std::string> problems;   // "<path>: <why its dynamic section cannot be read>"
    [[nodiscard]] const LoadedObject* find(std::string_view soname) const;
};

// Which libraries an object opens itself with dlopen() are followed: none (what dlopen() of the
// object maps at once: DT_NEEDED only), cuDNN 9's sub-libraries (which its shim needs for any call;
// frameworks' closures), or also every library the table says a library may open during some calls
// (LibraryFamily::opens: NVRTC, nvJitLink), for what a process may end up mapping.
enum class FollowedOpens { none, cudnn_sublibraries, all };

// A library a process loads by its path before the object (torch's _preload_cuda_deps, CuPy's
// cuda.pathfinder): loaded with everything it needs, so the object finds its soname loaded.
struct Preloaded {
    std::string soname;
    std::string path;
    std::string rule;  // why it is loaded: "preloaded by torch (_preload_cuda_deps)"
};

// The closure of `object_path` as dlopen() loads it into a process that first loaded `preloaded`
// (in order, each with its own closure). The C library's own objects (libc, libm, ld-linux,
// libpthread, libdl, librt, libgcc_s, libstdc++) are resolved but not followed. `root_dlopens`
// are sonames the object opens itself with dlopen() once loaded (the JAX plugin opens the CUDA
// libraries so), resolved with its own search paths. At most `limit` objects.
[[nodiscard]] LoadClosure load_closure(const std::string& object_path, const LoaderSearch& search,
                                       DirectoryListings& listings, const std::vector<Preloaded>& preloaded = {},
                                       const std::vector<std::string>& root_dlopens = {}, std::size_t limit = 256,
                                       FollowedOpens opens = FollowedOpens::cudnn_sublibraries);

}  // namespace cudacheck
