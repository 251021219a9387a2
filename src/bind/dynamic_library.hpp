// A library opened at run time (dlopen), move-only, closed on destruction. It records what was asked
// for, which file the loader actually picked and the loader's error text, because "which copy was
// loaded" is itself a diagnostic fact.
#pragma once

#include <string>
#include <string_view>

namespace cudacheck {

class DynamicLibrary {
public:
    DynamicLibrary() = default;
    // Opens `soname` with the normal loader search. Never throws; check ok(). RTLD_NODELETE: driver
    // libraries start threads and must not be unmapped while the runtime may still use them.
    [[nodiscard]] static DynamicLibrary open(std::string_view soname);
    // The library if something in this process already loaded it (RTLD_NOLOAD: never loads, never
    // runs its constructors), matched by file name or DT_SONAME, recording which file that was;
    // not ok() when it is not loaded. For "which copy did cuDNN's shim pick for its sub-libraries".
    [[nodiscard]] static DynamicLibrary find_loaded(std::string_view soname);
    // Not opened, on purpose, with `error` as the reason (a damaged file the loader would crash on).
    [[nodiscard]] static DynamicLibrary refused(std::string_view soname, std::string error);

    DynamicLibrary(DynamicLibrary&& other) noexcept;
    DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;
    ~DynamicLibrary();

    [[nodiscard]] bool ok() const { return handle_ != nullptr; }
    [[nodiscard]] const std::string& requested() const { return requested_; }
    // Real path of the file loaded (symlinks resolved), empty when not loaded.
    [[nodiscard]] const std::string& loaded_path() const { return loaded_path_; }
    [[nodiscard]] const std::string& error() const { return error_; }

    // Address of a symbol, or nullptr. The caller casts it to the function type it declared.
    [[nodiscard]] void* symbol(const char* name) const;
    template <typename Function>
    [[nodiscard]] Function function(const char* name) const {
        return reinterpret_cast<Function>(symbol(name));
    }

private:
    void close() noexcept;
    void* handle_ = nullptr;
    std::string requested_;
    std::string loaded_path_;
    std::string error_;
};

}  // namespace cudacheck
