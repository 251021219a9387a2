#include "cuda/library_families.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cudacheck {

namespace {

constexpr int first_cuda_major = 11;

}  // namespace

std::vector<int> LibraryFamily::cuda_majors_of(std::string_view soname) const {
    std::vector<int> majors;
    for (std::size_t i = 0; i < sonames.size(); ++i)
        if (!soname.empty() && sonames[i] == soname) majors.push_back(first_cuda_major + static_cast<int>(i));
    return majors;
}

std::string_view LibraryFamily::soname_for(int cuda_major) const {
    const int index = cuda_major - first_cuda_major;
    return index >= 0 && index < static_cast<int>(sonames.size()) ? sonames[static_cast<std::size_t>(index)]
                                                                  : std::string_view();
}

std::vector<std::string_view> LibraryFamily::distinct_sonames() const {
    std::vector<std::string_view> distinct;
    for (auto it = sonames.rbegin(); it != sonames.rend(); ++it)
        if (!it->empty() && std::find(distinct.begin(), distinct.end(), *it) == distinct.end()) distinct.push_back(*it);
    return distinct;
}

std::string LibraryFamily::install_hint(int cuda_major) const {
    if (package.empty()) return {};
    std::string pip(wheel);
    std::replace(pip.begin(), pip.end(), '_', '-');  // nvidia_cuda_nvrtc -> nvidia-cuda-nvrtc
    // CUDA 13's wheels dropped the suffix (nvidia-cublas), cuDNN's and NCCL's did not (nvidia-cudnn-cu13).
    if (wheel_always_suffixed || cuda_major < 13) pip += fmt::format("-cu{}", cuda_major);
    return fmt::format("the {} or `pip install {}`",
                       fmt::format(fmt::runtime(package), fmt::arg("toolkit", fmt::format("{}-0", cuda_major)),
                                   fmt::arg("major", cuda_major)),
                       pip);
}

int soname_major(std::string_view soname) {
    const std::size_t at = soname.rfind(".so.");
    if (at == std::string_view::npos) return -1;
    int value = 0;
    bool any = false;
    for (std::size_t i = at + 4; i < soname.size() && soname[i] != '.'; ++i) {
        if (soname[i] < '0' || soname[i] > '9') return -1;
        value = value * 10 + (soname[i] - '0');
        any = true;
    }
    return any ? value : -1;
}

std::span<const LibraryFamily> library_families() { return library_family_table; }

const LibraryFamily* find_library_family(std::string_view name) {
    for (const LibraryFamily& family : library_family_table)
        if (family.name == name) return &family;
    return nullptr;
}

const LibraryFamily* family_of_soname(std::string_view soname) {
    for (const LibraryFamily& family : library_family_table)
        if (!family.cuda_majors_of(soname).empty()) return &family;
    return nullptr;
}

std::vector<std::string_view> sonames_opened_by(std::string_view soname) {
    std::vector<std::string_view> opened;
    const LibraryFamily* family = family_of_soname(soname);
    if (family == nullptr) return opened;
    for (const std::string_view name : family->opens)
        if (const LibraryFamily* target = find_library_family(name))
            for (const int major : family->cuda_majors_of(soname))
                if (const std::string_view wanted = target->soname_for(major);
                    !wanted.empty() && std::find(opened.begin(), opened.end(), wanted) == opened.end())
                    opened.push_back(wanted);
    return opened;
}

std::size_t index_of(const LibraryFamily& family) {
    return static_cast<std::size_t>(&family - library_family_table.data());
}

std::span<const std::string_view> cudnn9_sublibraries() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> sonames;
        for (const LibraryFamily& family : library_family_table)
            if (family.cudnn_sublibrary) sonames.push_back(family.sonames.back());  // one soname for every CUDA major
        return sonames;
    }();
    return names;
}

}  // namespace cudacheck
