#include "probes/cuda_libraries.hpp"

#include "probes/driver_probe.hpp"
#include "probes/library_damage.hpp"
#include "util/actions.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"

#include <array>
#include <fmt/format.h>

namespace cudacheck {

LoadedLibrary load_cuda_library(const LibraryFamily& family, int cuda_major, const Environment& environment,
                                const LoaderSearch* search) {
    LoadedLibrary loaded;
    loaded.family = &family;
    loaded.name = std::string(family.name);
    loaded.soname = std::string(family.soname_for(cuda_major));
    // A damaged copy first in line, or a damaged library it needs, is never opened: the loader maps
    // it and the process dies with SIGBUS when a page past the end of a truncated file is touched,
    // which would cost every check of the run, not only those that use this library. A
    // copy renamed from another version maps safely and is opened. The search is this process's.
    DirectoryListings listings;
    std::optional<LoaderSearch> own_search;
    if (search == nullptr) own_search = loader_search(environment);
    const LoaderSearch& process_search = search != nullptr ? *search : *own_search;
    const Resolution first = resolve(loaded.soname, process_search, listings);
    const std::array<const LibraryFamily*, 1> opened{&family};
    for (const DamagedLoad& damaged :
         damaged_loads(opened, cuda_major, process_search, FollowedOpens::none, environment)) {
        if (damaged.damage.renamed) continue;
        loaded.damaged_path = damaged.resolution.real_path;
        loaded.damage = damaged.damage.reason;
        if (damaged.soname != loaded.soname) loaded.damaged_dependency = damaged.soname;
        const std::string what = loaded.damaged_dependency.empty() ? loaded.damaged_path
                                                                   : fmt::format("{} ({}, {})", loaded.damaged_path,
                                                                                 damaged.soname, damaged.loaded_how);
        loaded.library = DynamicLibrary::refused(loaded.soname, fmt::format("{}: {} is damaged: {}", loaded.soname,
                                                                            what, loaded.damage));
        loaded.tried.push_back(
            fmt::format("{} ({}): {}, not opened: {}", loaded.soname, first.rule, what, loaded.damage));
        return loaded;
    }
    // Opening runs the library's (and its dependencies') initialisers: announced, so that one that
    // kills or hangs the process is charged to this file; one that did so before is not opened again.
    const actions::Action opening{actions::Kind::load, first.found() ? first.real_path : loaded.soname};
    if (const actions::Failure* failure = actions::failed(opening)) {
        loaded.step_failure = *failure;
        if (first.found()) loaded.damaged_path = first.real_path;
        loaded.library = DynamicLibrary::refused(loaded.soname, fmt::format("{}: {} {}", loaded.soname,
                                                                            actions::describe(opening), failure->how));
        loaded.tried.push_back(fmt::format("{} ({}): {}, not opened again: {} {}", loaded.soname,
                                           first.found() ? first.rule : "loader search path", opening.subject,
                                           actions::describe(opening), failure->how));
        return loaded;
    }
    {
        const trace::Span span("dlopen " + loaded.soname);
        const actions::Announced announced(opening);
        loaded.library = DynamicLibrary::open(loaded.soname);
    }
    // Only a library the loader cannot find at all is looked for elsewhere: one it finds but cannot
    // load (damaged, wrong architecture, missing dependency) is what every program here would get.
    // glibc words a missing dependency the same way, but names the dependency first.
    const bool not_found = !loaded.library.ok() && sys::starts_with(loaded.library.error(), loaded.soname + ":") &&
                           loaded.library.error().find("cannot open shared object file") != std::string::npos;
    if (!loaded.library.ok())
        loaded.tried.push_back(fmt::format("{} (loader search path): {}", loaded.soname, loaded.library.error()));
    if (not_found) {
        std::vector<std::string> directories;
        for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
            if (auto root = environment.get(variable); root && !root->empty()) directories.push_back(*root + "/lib64");
        directories.push_back("/usr/local/cuda/lib64");
        directories.push_back("/usr/local/cuda/targets/x86_64-linux/lib");
        for (const std::string& directory : directories) {
            const std::string path = directory + "/" + loaded.soname;
            if (!sys::exists(path)) {
                loaded.tried.push_back(path + ": absent");
                continue;
            }
            const actions::Action opening_copy{actions::Kind::load, path};
            if (const actions::Failure* failure = actions::failed(opening_copy)) {
                loaded.tried.push_back(
                    fmt::format("{}: not opened again: {} {}", path, actions::describe(opening_copy), failure->how));
                continue;
            }
            const actions::Announced announced(opening_copy);
            DynamicLibrary candidate = DynamicLibrary::open(path);
            if (!candidate.ok()) {
                loaded.tried.push_back(fmt::format("{}: {}", path, candidate.error()));
                continue;
            }
            loaded.library = std::move(candidate);
            loaded.outside_loader_path = true;
            break;
        }
    }
    if (loaded.library.ok()) {
        const std::string prefix = loaded.soname.substr(0, loaded.soname.find(".so") + 4);  // "libcublas.so."
        loaded.file_version = library_version_from_path(loaded.library.loaded_path(), prefix);
    }
    return loaded;
}

}  // namespace cudacheck
