// What a process that opens a CUDA library would load that is damaged (probes/library_damage.hpp):
// on directories of stand-ins with the sonames, DT_NEEDED and DT_RUNPATH of NVIDIA's files
// (tests/CMakeLists.txt), one of them truncated as a full disk leaves a file.
#include "probes/library_damage.hpp"
#include "support/library_directory.hpp"
#include "util/environment.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace cudacheck {
namespace {

// What a process opening `library` (CUDA 13's soname) from the directory would load that is damaged.
std::vector<DamagedLoad> damaged_in(const test::LibraryDirectory& directory, const LibraryFamily& library,
                                    FollowedOpens opens) {
    const std::array<const LibraryFamily*, 1> libraries{&library};
    return damaged_loads(libraries, 13, directory.search(), opens, Environment{});
}

// That exactly one damaged file was found: `soname` at `real_path`, loaded as `loaded_how` says.
void expect_only(const std::vector<DamagedLoad>& damaged, const std::string& soname, const std::string& real_path,
                 const std::string& loaded_how) {
    ASSERT_EQ(damaged.size(), 1u);
    EXPECT_EQ(damaged[0].soname, soname);
    EXPECT_EQ(damaged[0].resolution.real_path, real_path);
    EXPECT_EQ(damaged[0].loaded_how, loaded_how);
}

TEST(DamagedLoads, names_a_truncated_cudnn_sub_library_that_the_shim_opens_itself) {
    const test::LibraryDirectory directory;
    directory.place("libcudnn_stand_in.so", "libcudnn.so.9");
    const std::string graph = directory.place_truncated("libcudnn_graph_stand_in.so", "libcudnn_graph.so.9");
    const std::vector<DamagedLoad> damaged =
        damaged_in(directory, cuda_library::cudnn, FollowedOpens::cudnn_sublibraries);
    expect_only(damaged, "libcudnn_graph.so.9", graph, "opened by libcudnn.so.9 itself (dlopen) when a call needs it");
    ASSERT_EQ(damaged.size(), 1u);
    EXPECT_EQ(damaged[0].used_soname, "libcudnn.so.9");
    EXPECT_EQ(damaged[0].family, "cuDNN graph");
    EXPECT_FALSE(damaged[0].damage.renamed);
    EXPECT_TRUE(damaged[0].damage.reason.starts_with("truncated: its headers describe")) << damaged[0].damage.reason;
}

TEST(DamagedLoads, leaves_out_what_the_library_opens_only_later_when_asked_for_what_dlopen_maps_at_once) {
    const test::LibraryDirectory directory;
    directory.place("libcudnn_stand_in.so", "libcudnn.so.9");
    directory.place_truncated("libcudnn_graph_stand_in.so", "libcudnn_graph.so.9");
    // Opening libcudnn.so.9 maps no sub-library: cudacheck still opens it, and cudnn.conv runs.
    EXPECT_TRUE(damaged_in(directory, cuda_library::cudnn, FollowedOpens::none).empty());
}

TEST(DamagedLoads, names_a_truncated_dependency_that_the_library_needs_at_load_time) {
    const test::LibraryDirectory directory;
    directory.place("libcublas_stand_in.so", "libcublas.so.13");
    const std::string lt = directory.place_truncated("libcublasLt_stand_in.so", "libcublasLt.so.13");
    expect_only(damaged_in(directory, cuda_library::cublas, FollowedOpens::none), "libcublasLt.so.13", lt,
                "needed by libcublas.so.13 (DT_NEEDED)");
}

TEST(DamagedLoads, follows_what_the_table_says_a_library_opens_during_some_calls_only_when_asked) {
    const test::LibraryDirectory directory;
    directory.place("libcufft_stand_in.so", "libcufft.so.12");
    const std::string nvjitlink = directory.place_truncated("libcudart_stand_in.so", "libnvJitLink.so.13");
    EXPECT_TRUE(damaged_in(directory, cuda_library::cufft, FollowedOpens::cudnn_sublibraries).empty());
    expect_only(damaged_in(directory, cuda_library::cufft, FollowedOpens::all), "libnvJitLink.so.13", nvjitlink,
                "opened by libcufft.so.12 itself (dlopen) when a call needs it");
}

TEST(DamagedLoads, names_the_library_itself_when_its_own_file_is_damaged) {
    const test::LibraryDirectory directory;
    const std::string cudnn = directory.place_truncated("libcudnn_stand_in.so", "libcudnn.so.9");
    expect_only(damaged_in(directory, cuda_library::cudnn, FollowedOpens::all), "libcudnn.so.9", cudnn, "");
}

TEST(DamagedLoads, finds_nothing_when_every_file_is_whole_or_the_damaged_one_belongs_to_another_library) {
    const test::LibraryDirectory directory;
    directory.place("libcudnn_stand_in.so", "libcudnn.so.9");
    directory.place("libcudnn_graph_stand_in.so", "libcudnn_graph.so.9");
    directory.place_truncated("libcublasLt_stand_in.so", "libcublasLt.so.13");
    EXPECT_TRUE(damaged_in(directory, cuda_library::cudnn, FollowedOpens::all).empty());
}

TEST(DamagedLoads, marks_a_copy_of_another_library_under_the_wanted_name_as_renamed) {
    const test::LibraryDirectory directory;
    directory.place("libcudnn_stand_in.so", "libcudnn.so.9");
    directory.place("libcudart_stand_in.so", "libcudnn_graph.so.9");
    const std::vector<DamagedLoad> damaged = damaged_in(directory, cuda_library::cudnn, FollowedOpens::all);
    ASSERT_EQ(damaged.size(), 1u);
    EXPECT_TRUE(damaged[0].damage.renamed);
    EXPECT_EQ(damaged[0].damage.reason,
              "its SONAME is libcudart.so.13, not libcudnn_graph.so.9: a copy of another library or version under this "
              "name");
}

TEST(DamagedCopyRemediation, names_the_file_the_installer_and_the_ld_library_path_entry) {
    const Resolution resolution{"libcudnn_graph.so.9", "LD_LIBRARY_PATH entry /opt/x/lib",
                                "/opt/x/lib/libcudnn_graph.so.9", "/opt/x/lib/libcudnn_graph.so.9.19.0"};
    EXPECT_EQ(damaged_copy_remediation(resolution, "nvidia-cudnn-cu13"),
              "Reinstall what installed it (nvidia-cudnn-cu13), or remove /opt/x/lib/libcudnn_graph.so.9.19.0; or take "
              "/opt/x/lib off LD_LIBRARY_PATH.");
    const Resolution cached{"libcudnn_cnn.so.9", "ld.so.cache", "/usr/lib/x86_64-linux-gnu/libcudnn_cnn.so.9",
                            "/usr/lib/x86_64-linux-gnu/libcudnn_cnn.so.9.14.0"};
    EXPECT_EQ(damaged_copy_remediation(cached, ""),
              "Reinstall what installed it, or remove /usr/lib/x86_64-linux-gnu/libcudnn_cnn.so.9.14.0.");
}

// A copy found in a directory of this origin, installed by `package` ("" when no wheel says).
LibraryCopy copy_from(LibraryOrigin origin, std::string package = {}) {
    LibraryCopy copy;
    copy.origin = origin;
    copy.package = std::move(package);
    return copy;
}

TEST(InstalledBy, names_the_wheel_else_what_the_copys_directory_says_else_nothing) {
    EXPECT_EQ(installed_by(copy_from(LibraryOrigin::pip_wheel, "nvidia-cudnn-cu13")), "nvidia-cudnn-cu13");
    EXPECT_EQ(installed_by(copy_from(LibraryOrigin::toolkit)), "the CUDA toolkit");
    EXPECT_EQ(installed_by(copy_from(LibraryOrigin::system)), "the distribution's package");
    EXPECT_EQ(installed_by(copy_from(LibraryOrigin::ld_library_path)), "")
        << "a directory on LD_LIBRARY_PATH says nothing of its installer";
}

}  // namespace
}  // namespace cudacheck
