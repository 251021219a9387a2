#include "probes/load_closure.hpp"

#include "cuda/library_families.hpp"
#include "util/elf_dynamic.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <deque>
#include <fmt/format.h>
#include <map>
#include <memory>

namespace cudacheck {

const LoadedObject* LoadClosure::find(std::string_view soname) const {
    for (const LoadedObject& object : objects)
        if (object.soname == soname) return &object;
    return nullptr;
}

namespace {

bool is_c_runtime(std::string_view soname) {
    for (const std::string_view base :
         {"libc.so", "libm.so", "ld-linux", "libpthread.so", "libdl.so", "librt.so", "libgcc_s.so", "libstdc++.so"})
        if (sys::starts_with(soname, base)) return true;
    return false;
}

// What an object opens itself with dlopen() once loaded, by soname: cuDNN 9's libcudnn.so.9 is a
// shim that opens its seven sub-libraries (the library table's cudnn_sublibrary entries). It calls
// dlopen from its own code, so its own search paths apply: the pip wheel's shim has DT_RUNPATH
// $ORIGIN, which LD_LIBRARY_PATH precedes (LD_DEBUG=libs on the GPU machine,
// docs/examples/h200/frameworks/system-cudnn-first: with the system cuDNN 9.14 first on
// LD_LIBRARY_PATH, torch's wheel shim 9.19 took the system's libcudnn_graph.so.9, and torch
// refused the mix). The shim first tries names with its full version (libcudnn_graph.so.9.19.0,
// then .so.9.19); only the plain soname is modelled, which is what pip's and Debian's files carry.
// With FollowedOpens::all, also what the table says a library opens during some calls (NVRTC,
// nvJitLink: LibraryFamily::opens), by the same rule.
std::vector<std::string_view> dlopened_by(std::string_view soname, FollowedOpens opens) {
    std::vector<std::string_view> opened;
    if (opens == FollowedOpens::none) return opened;
    if (soname == "libcudnn.so.9") opened.assign(cudnn9_sublibraries().begin(), cudnn9_sublibraries().end());
    if (opens == FollowedOpens::all)
        for (const std::string_view other : sonames_opened_by(soname)) opened.push_back(other);
    return opened;
}

// One object in the loader's chain: its search paths and the object that loaded it.
struct Node {
    std::string path;
    std::string name;  // file name
    ElfDynamic dynamic;
    std::vector<std::string> rpath;    // expanded
    std::vector<std::string> runpath;  // expanded
    const Node* loader = nullptr;
};

}  // namespace

LoadClosure load_closure(const std::string& object_path, const LoaderSearch& search, DirectoryListings& listings,
                         const std::vector<Preloaded>& preloaded, const std::vector<std::string>& root_dlopens,
                         std::size_t limit, FollowedOpens opens) {
    LoadClosure closure;
    closure.root_object = object_path;
    std::map<std::string, std::string> loaded;  // soname -> path

    std::vector<std::unique_ptr<Node>> nodes;
    std::deque<Node*> queue;
    const auto open = [&](const std::string& path, const Node* loader) -> Node* {
        Expected<ElfDynamic> dynamic = read_elf_dynamic_file(path);
        if (!dynamic) {
            closure.problems.push_back(fmt::format("{}: {}", path, dynamic.error().message));
            return nullptr;
        }
        auto node = std::make_unique<Node>();
        node->path = path;
        node->name = std::string(sys::file_name_of(path));
        const std::string origin = sys::directory_of(path);
        // glibc ignores DT_RPATH when the object also has DT_RUNPATH. Both are bounded
        // (expand_search_path): what is left out is said, so a crafted path is not silently cut.
        std::size_t left_out = 0;
        if (dynamic->runpath) node->runpath = expand_search_path(*dynamic->runpath, origin, &left_out);
        else if (dynamic->rpath) node->rpath = expand_search_path(*dynamic->rpath, origin, &left_out);
        if (left_out > 0)
            closure.problems.push_back(
                fmt::format("{}: its {} is longer than a loader's search path can usefully be: {} entr{} left out "
                            "(cudacheck searches the first {} distinct directories, {} KiB in all, each under {} "
                            "bytes)",
                            path, dynamic->runpath ? "DT_RUNPATH" : "DT_RPATH", left_out, left_out == 1 ? "y" : "ies",
                            search_path_directory_limit, search_path_byte_limit / 1024, search_path_entry_limit));
        node->dynamic = std::move(*dynamic);
        node->loader = loader;
        if (!node->dynamic.soname.empty()) loaded.emplace(node->dynamic.soname, path);
        nodes.push_back(std::move(node));
        return nodes.back().get();
    };
    // What the process loaded first, each followed like the object itself.
    for (const Preloaded& early : preloaded) {
        if (loaded.contains(early.soname)) continue;
        closure.objects.push_back(
            LoadedObject{.soname = early.soname,
                         .needed_by = "",
                         .dlopened = true,
                         .resolution = Resolution{early.soname, early.rule, early.path, sys::real_path(early.path)}});
        loaded.emplace(early.soname, early.path);
        if (Node* node = open(early.path, nullptr)) queue.push_back(node);
    }
    Node* root_node = open(object_path, nullptr);
    if (root_node != nullptr) queue.push_back(root_node);
    while (!queue.empty() && closure.objects.size() < limit) {
        const Node* node = queue.front();
        queue.pop_front();
        ObjectSearchPaths paths;
        paths.object = node->name;
        paths.runpath = node->runpath;
        // The chain of loaders' DT_RPATHs, bounded as each object's own is (expand_search_path): a
        // chain of crafted objects would otherwise copy and search every one of them for each
        // object in it, quadratic work. Real chains are a few objects of a dozen directories each.
        std::size_t chain_directories = 0, chain_bytes = 0;
        for (const Node* in_chain = node; in_chain != nullptr; in_chain = in_chain->loader) {
            if (in_chain->rpath.empty()) continue;
            ObjectSearchPaths::Rpath rpath{in_chain->name, {}};
            for (const std::string& directory : in_chain->rpath) {
                if (chain_directories >= search_path_directory_limit ||
                    chain_bytes + directory.size() > search_path_byte_limit)
                    break;
                ++chain_directories;
                chain_bytes += directory.size();
                rpath.directories.push_back(directory);
            }
            if (rpath.directories.empty()) break;
            paths.rpath_chain.push_back(std::move(rpath));
        }
        std::vector<std::pair<std::string, bool>> wanted;  // soname, opened with dlopen
        for (const std::string& soname : node->dynamic.needed) wanted.emplace_back(soname, false);
        for (const std::string_view soname : dlopened_by(node->dynamic.soname, opens))
            wanted.emplace_back(std::string(soname), true);
        if (node == root_node)
            for (const std::string& soname : root_dlopens) wanted.emplace_back(soname, true);
        for (const auto& [soname, dlopened] : wanted) {
            if (closure.objects.size() >= limit) break;
            LoadedObject object{.soname = soname, .needed_by = node->name, .dlopened = dlopened};
            if (const auto seen = loaded.find(soname); seen != loaded.end()) {
                // Loaded once per process: the first object that named it decided where from.
                bool listed = false;
                for (const LoadedObject& earlier : closure.objects) listed = listed || earlier.soname == soname;
                if (listed) continue;
                object.already_loaded = true;
                object.resolution.soname = soname;
                object.resolution.path = seen->second;
                object.resolution.real_path = sys::real_path(seen->second);
                object.resolution.rule = "already loaded";
                closure.objects.push_back(std::move(object));
                continue;
            }
            object.resolution = resolve(soname, search, listings, &paths);
            if (object.resolution.found()) {
                loaded.emplace(soname, object.resolution.path);
                if (!is_c_runtime(soname))
                    if (Node* next = open(object.resolution.path, node)) queue.push_back(next);
            }
            closure.objects.push_back(std::move(object));
        }
    }
    return closure;
}

}  // namespace cudacheck
