#include "bind/dynamic_library.hpp"

#include <climits>
#include <cstdlib>
#include <dlfcn.h>
#include <link.h>

namespace cudacheck {

namespace {

void record_loaded_path(void* handle, std::string& loaded_path) {
    // The loader's own record of the file it mapped: the ground truth for "which copy".
    link_map* map = nullptr;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) {
        char resolved[PATH_MAX];
        loaded_path = ::realpath(map->l_name, resolved) != nullptr ? resolved : map->l_name;
    }
}

}  // namespace

DynamicLibrary DynamicLibrary::open(std::string_view soname) {
    DynamicLibrary library;
    library.requested_ = std::string(soname);
    ::dlerror();  // clear any earlier error
    library.handle_ = ::dlopen(library.requested_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (library.handle_ == nullptr) {
        const char* error = ::dlerror();
        library.error_ = error != nullptr ? error : "dlopen failed";
        return library;
    }
    record_loaded_path(library.handle_, library.loaded_path_);
    return library;
}

DynamicLibrary DynamicLibrary::refused(std::string_view soname, std::string error) {
    DynamicLibrary library;
    library.requested_ = std::string(soname);
    library.error_ = std::move(error);
    return library;
}

DynamicLibrary DynamicLibrary::find_loaded(std::string_view soname) {
    DynamicLibrary library;
    library.requested_ = std::string(soname);
    ::dlerror();
    // Takes a reference on the already-loaded object (released on destruction); loads nothing.
    library.handle_ = ::dlopen(library.requested_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (library.handle_ == nullptr) {
        const char* error = ::dlerror();
        library.error_ = error != nullptr ? error : "not loaded";
        return library;
    }
    record_loaded_path(library.handle_, library.loaded_path_);
    return library;
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(other.handle_),
      requested_(std::move(other.requested_)),
      loaded_path_(std::move(other.loaded_path_)),
      error_(std::move(other.error_)) {
    other.handle_ = nullptr;
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
    if (this != &other) {
        close();
        handle_ = other.handle_;
        other.handle_ = nullptr;
        requested_ = std::move(other.requested_);
        loaded_path_ = std::move(other.loaded_path_);
        error_ = std::move(other.error_);
    }
    return *this;
}

DynamicLibrary::~DynamicLibrary() { close(); }

void DynamicLibrary::close() noexcept {
    if (handle_ != nullptr) ::dlclose(handle_);
    handle_ = nullptr;
}

void* DynamicLibrary::symbol(const char* name) const {
    if (handle_ == nullptr) return nullptr;
    return ::dlsym(handle_, name);
}

}  // namespace cudacheck
