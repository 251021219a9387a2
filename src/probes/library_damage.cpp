#include "probes/library_damage.hpp"

#include "util/elf_dynamic.hpp"
#include "util/mapped_file.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cudacheck {

std::optional<FileDamage> library_file_damage(const std::string& real_path, std::string_view soname) {
    // The file is mapped once for both readings of its headers.
    const Expected<MappedFile> file = MappedFile::open(real_path);
    if (!file) return FileDamage{"cannot be read: " + file.error().message};
    if (std::optional<std::string> damage = elf_damage(file->bytes(), native_elf_machine()))
        return FileDamage{std::move(*damage)};
    // A copy of another version renamed to the wanted soname ("libcublas.so.12 copied to
    // libcublas.so.13"): the loader takes it, and its symbols are another release's.
    if (const Expected<ElfDynamic> dynamic = read_elf_dynamic(file->bytes());
        dynamic && !dynamic->soname.empty() && dynamic->soname != soname)
        return FileDamage{fmt::format("its SONAME is {}, not {}: a copy of another library or version under this name",
                                      dynamic->soname, soname),
                          true};
    return std::nullopt;
}

std::string installed_by(const LibraryCopy& copy) {
    if (!copy.package.empty()) return copy.package;
    switch (copy.origin) {
        case LibraryOrigin::system: return "the distribution's package";
        case LibraryOrigin::toolkit: return "the CUDA toolkit";
        case LibraryOrigin::pip_wheel: return "the pip wheel";
        case LibraryOrigin::conda: return "the conda package";
        case LibraryOrigin::wsl: return "the Windows NVIDIA driver";
        case LibraryOrigin::ld_library_path:
        case LibraryOrigin::stub:
        case LibraryOrigin::other: break;
    }
    return {};
}

std::string damaged_copy_remediation(const Resolution& resolution, std::string_view installed_by) {
    return fmt::format("Reinstall what installed it{}, or remove {}{}.",
                       installed_by.empty() ? "" : fmt::format(" ({})", installed_by), resolution.real_path,
                       sys::starts_with(resolution.rule, "LD_LIBRARY_PATH")
                           ? fmt::format("; or take {} off LD_LIBRARY_PATH", sys::directory_of(resolution.path))
                           : std::string());
}

namespace {

// What installed the copy at the resolution's path, for the fix; "" when unknown.
std::string installer_of(const Resolution& resolution, const LibraryFamily& family, DirectoryListings& listings,
                         const Environment& environment) {
    const std::optional<LibraryCopy> copy = describe_copy(resolution.path, family, listings, environment);
    return copy ? installed_by(*copy) : std::string();
}

std::string loaded_how(const LoadedObject& object) {
    return object.dlopened ? fmt::format("opened by {} itself (dlopen) when a call needs it", object.needed_by)
                           : fmt::format("needed by {} (DT_NEEDED)", object.needed_by);
}

}  // namespace

std::vector<DamagedLoad> damaged_loads(std::span<const LibraryFamily* const> libraries, int cuda_major,
                                       const LoaderSearch& search, FollowedOpens opens,
                                       const Environment& environment) {
    std::vector<DamagedLoad> damaged;
    std::vector<std::string> seen;  // real paths judged already: libraries share dependencies
    DirectoryListings listings;
    const auto judge = [&](const std::string& used, const std::string& soname, const Resolution& resolution,
                           std::string how) {
        const LibraryFamily* family = family_of_soname(soname);
        // Only the table's libraries: what libraries.resolution reports, and what a CUDA library's
        // reinstall fixes (a damaged libz or libstdc++ is the system's, and breaks more than a check).
        if (family == nullptr || !resolution.found() ||
            std::find(seen.begin(), seen.end(), resolution.real_path) != seen.end())
            return;
        seen.push_back(resolution.real_path);
        if (std::optional<FileDamage> damage = library_file_damage(resolution.real_path, soname))
            damaged.push_back(DamagedLoad{used, soname, std::string(family->name), resolution, std::move(*damage),
                                          std::move(how), installer_of(resolution, *family, listings, environment)});
    };
    for (const LibraryFamily* library : libraries) {
        const std::string soname(library->soname_for(cuda_major));
        if (soname.empty()) continue;
        const Resolution root = resolve(soname, search, listings);
        judge(soname, soname, root, "");
        if (!root.found()) continue;
        const LoadClosure closure = load_closure(root.path, search, listings, {}, {}, 256, opens);
        for (const LoadedObject& object : closure.objects)
            judge(soname, object.soname, object.resolution, loaded_how(object));
    }
    return damaged;
}

}  // namespace cudacheck
