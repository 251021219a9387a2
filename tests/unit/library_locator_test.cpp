// Where CUDA libraries resolve (probes/library_locator) and the verdicts of libraries.resolution,
// on crafted directory trees: each tree has its own etc/ld.so.cache, written in glibc's format,
// and the environment names only directories inside the tree, so the machine's own libraries
// never leak in. The cache parser is also run on a real cache captured from the dev machine.
#include "checks/checks.hpp"
#include "probes/library_locator.hpp"
#include "support/test_support.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <tuple>

namespace cudacheck {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The bytes of a "glibc-ld.so.cache1.1" file (glibc elf/cache.h) listing `entries` (soname, path).
std::string ld_so_cache(const std::vector<std::pair<std::string, std::string>>& entries, std::int32_t flags = native_ld_cache_flags()) {
    constexpr std::size_t header_size = 48;
    constexpr std::size_t entry_size = 24;
    const std::size_t strings_at = header_size + entries.size() * entry_size;
    std::string strings;
    std::string table(strings_at, '\0');
    const auto put = [&](std::size_t at, auto value) { std::memcpy(table.data() + at, &value, sizeof value); };
    std::memcpy(table.data(), "glibc-ld.so.cache1.1", 20);
    put(20, static_cast<std::uint32_t>(entries.size()));
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::size_t at = header_size + i * entry_size;
        put(at, flags);
        put(at + 4, static_cast<std::uint32_t>(strings_at + strings.size()));
        strings += entries[i].first + '\0';
        put(at + 8, static_cast<std::uint32_t>(strings_at + strings.size()));
        strings += entries[i].second + '\0';
    }
    put(24, static_cast<std::uint32_t>(strings.size()));
    table[28] = 2;  // little endian
    return table + strings;
}

const std::string system_directory = "usr/lib/x86_64-linux-gnu";

// A crafted machine: libraries are files whose names carry their versions, with soname links, as
// packages install them; the tree's ld.so.cache lists what `cache()` was told.
class Machine {
public:
    Machine() { environment_.set("PATH", ""); }
    // <directory>/<file> plus links named `links` pointing at it; returns the directory's full path.
    std::string library(const std::string& directory, const std::string& file, std::initializer_list<std::string> links = {}) {
        tree_.write(directory + "/" + file, "ELF");
        for (const std::string& link : links) tree_.symlink(file, directory + "/" + link);
        return tree_.path() + "/" + directory;
    }
    // A whole cuDNN 9 (main and the seven sub-libraries), versioned files with soname links.
    std::string cudnn(const std::string& directory, const std::string& version) {
        for (const LibraryFamily& family : library_families())
            if (family.name.starts_with("cuDNN"))
                library(directory, std::string(family.stem) + ".so." + version, {std::string(family.sonames.back())});
        return tree_.path() + "/" + directory;
    }
    // The same, unversioned, as wheels ship it, with the wheel's dist-info beside `site`.
    std::string cudnn_wheel(const std::string& site, const std::string& dist_info) {
        for (const LibraryFamily& family : library_families())
            if (family.name.starts_with("cuDNN")) library(site + "/nvidia/cudnn/lib", std::string(family.sonames.back()));
        tree_.make_dir(site + "/" + dist_info);
        return tree_.path() + "/" + site + "/nvidia/cudnn/lib";
    }
    // cuDNN from the distribution's package: in the multiarch directory, every soname in the cache.
    void system_cudnn(const std::string& version) {
        cudnn(system_directory, version);
        std::vector<std::string> sonames;
        for (const LibraryFamily& family : library_families())
            if (family.name.starts_with("cuDNN")) sonames.emplace_back(family.sonames.back());
        cache(system_directory, sonames);
    }
    // Lists the sonames of `directory` in the tree's ld.so.cache, as ldconfig does.
    void cache(const std::string& directory, const std::vector<std::string>& sonames) {
        for (const std::string& soname : sonames) cache_entries_.emplace_back(soname, "/" + directory + "/" + soname);
        tree_.write("etc/ld.so.cache", ld_so_cache(cache_entries_));
    }
    void set(const std::string& name, const std::string& value) { environment_.set(name, value); }
    [[nodiscard]] const std::string& root() const { return tree_.path(); }
    [[nodiscard]] const test::TempDir& tree() const { return tree_; }
    [[nodiscard]] LibraryFacts locate() const { return locate_libraries(environment_, tree_.path()); }
    [[nodiscard]] CheckResult judge() const {
        ResultBuilder builder;
        judge_library_resolution(locate(), builder);
        CheckResult result = std::move(builder).finish("libraries.resolution", std::nullopt);
        test::expect_codes_declared(result);
        return result;
    }

private:
    test::TempDir tree_;
    Environment environment_;
    std::vector<std::pair<std::string, std::string>> cache_entries_;
};

const LibraryLocation* location(const LibraryFacts& facts, std::string_view family) {
    for (const LibraryLocation& found : facts.libraries)
        if (found.family->name == family) return &found;
    return nullptr;
}

const Finding* finding_with(const CheckResult& result, std::string_view code) {
    for (const Finding& finding : result.findings)
        if (finding.code == code) return &finding;
    return nullptr;
}

std::string codes_of(const CheckResult& result) {
    std::string codes;
    for (const Finding& finding : result.findings) codes += finding.code + " ";
    return codes;
}

// --- /etc/ld.so.cache ----------------------------------------------------------------------------

// tests/fixtures/ldconfig/: the dev machine's /etc/ld.so.cache (Debian 12, glibc 2.36) and
// `ldconfig -p` printed from it at the same moment. The parser must find exactly what ldconfig does.
TEST(LdSoCache, parses_every_entry_ldconfig_prints_when_real_debian_12_cache) {
    const std::string bytes = test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/ldconfig/ld.so.cache-debian-12");
    const std::string printed = test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/ldconfig/ldconfig-p-debian-12.txt");
    const auto entries = parse_ld_so_cache(bytes);
    ASSERT_TRUE(entries.has_value());
    ASSERT_EQ(entries->size(), 649U);  // "649 libs found in cache"

    std::multiset<std::tuple<std::string, std::string, std::string>> expected;
    const std::regex line(R"(\t(\S+) \(([^)]*)\) => (\S+))");
    for (auto it = std::sregex_iterator(printed.begin(), printed.end(), line); it != std::sregex_iterator(); ++it)
        expected.emplace((*it)[1], (*it)[2], (*it)[3]);
    std::multiset<std::tuple<std::string, std::string, std::string>> parsed;
    for (const LdCacheEntry& entry : *entries) {
        EXPECT_EQ(entry.hwcap, 0U);
        // ldconfig prints FLAG_ELF_LIBC6 alone as "libc6", with FLAG_X8664_LIB64 as "libc6,x86-64",
        // FLAG_ELF (the i386 loader) as "ELF".
        parsed.emplace(entry.soname, entry.flags == 0x0303 ? "libc6,x86-64" : entry.flags == 0x0003 ? "libc6" : entry.flags == 0x0001 ? "ELF" : "other", entry.path);
    }
    EXPECT_EQ(parsed, expected);
    EXPECT_EQ(parsed.count({"libcudnn_ops.so.9", "libc6,x86-64", "/usr/local/cuda-13.0/lib/libcudnn_ops.so.9"}), 1U);
}

TEST(LdSoCache, reads_new_table_after_old_one_when_compat_format) {
    // glibc before 2.32 wrote the libc5-era table first: {"ld.so-1.7.0", nlibs} and 12-byte entries.
    std::string old_table("ld.so-1.7.0\0", 12);
    const std::uint32_t old_count = 1;
    old_table.append(reinterpret_cast<const char*>(&old_count), 4);
    old_table.append(12, '\0');
    old_table.append(4, '\0');  // to the 8-byte alignment of the new table (16 + 12 = 28 -> 32)
    const auto entries = parse_ld_so_cache(old_table + ld_so_cache({{"libcudart.so.13", "/usr/lib/libcudart.so.13"}}));
    ASSERT_TRUE(entries.has_value());
    ASSERT_EQ(entries->size(), 1U);
    EXPECT_EQ((*entries)[0].soname, "libcudart.so.13");
    EXPECT_EQ((*entries)[0].path, "/usr/lib/libcudart.so.13");
}

TEST(LdSoCache, rejects_foreign_or_truncated_bytes) {
    EXPECT_FALSE(parse_ld_so_cache("").has_value());
    EXPECT_FALSE(parse_ld_so_cache("not a cache at all, but long enough to hold a header of 48 bytes").has_value());
    const std::string cache = ld_so_cache({{"libcudart.so.13", "/usr/lib/libcudart.so.13"}});
    EXPECT_FALSE(parse_ld_so_cache(cache.substr(0, cache.size() - 5)).has_value()) << "a path without its terminating NUL";
    EXPECT_FALSE(parse_ld_so_cache(cache.substr(0, 60)).has_value()) << "an entry cut short";
}

// --- versions ---------------------------------------------------------------------------------------

TEST(LibraryVersion, comes_from_file_name_unless_it_is_only_a_soname) {
    EXPECT_EQ(version_from_file_name("libcublas.so.13.1.0.3", *find_library_family("cuBLAS")), "13.1.0.3");
    EXPECT_EQ(version_from_file_name("libcudnn.so.9.14.0", *find_library_family("cuDNN")), "9.14.0");
    EXPECT_EQ(version_from_file_name("libcublas.so.13", *find_library_family("cuBLAS")), "");
    EXPECT_EQ(version_from_file_name("libnvrtc.so.11.2", *find_library_family("NVRTC")), "") << "CUDA 11's NVRTC soname has two numbers";
    EXPECT_EQ(version_from_file_name("libnvrtc.so.11.8.89", *find_library_family("NVRTC")), "11.8.89");
}

TEST(LibraryVersion, comes_from_dist_info_whose_major_matches_the_soname) {
    const std::vector<std::string> site{"nvidia",  "nvidia_cublas-13.1.0.3.dist-info", "nvidia_cublas_cu12-12.4.5.8.dist-info",
                                        "nvidia_cudnn_cu12-9.1.0.70.dist-info", "nvidia_cublas_cu12.pth", "torch-2.5.1.dist-info"};
    const auto cublas12 = wheel_from_dist_info(site, "nvidia_cublas", 12);
    ASSERT_TRUE(cublas12.has_value());
    EXPECT_EQ(cublas12->version, "12.4.5.8");
    EXPECT_EQ(cublas12->package, "nvidia-cublas-cu12");
    EXPECT_EQ(wheel_from_dist_info(site, "nvidia_cublas", 13)->package, "nvidia-cublas");
    EXPECT_EQ(wheel_from_dist_info(site, "nvidia_cudnn", 9)->version, "9.1.0.70");
    EXPECT_FALSE(wheel_from_dist_info(site, "nvidia_cufft", 12).has_value());
    EXPECT_FALSE(wheel_from_dist_info(site, "", 12).has_value());
}

TEST(LibraryVersion, same_release_compares_the_components_both_have) {
    EXPECT_TRUE(same_release("9.19.0", "9.19.0.56"));
    EXPECT_TRUE(same_release("", "9.14.0"));
    EXPECT_FALSE(same_release("9.14.0", "9.19.0.56"));
    EXPECT_FALSE(same_release("12.4.5.8", "13.1.0.3"));
}

TEST(LibraryFamilies, sonames_follow_cuda_facts_section_5) {
    const LibraryFamily& cusparse = *find_library_family("cuSPARSE");
    EXPECT_EQ(cusparse.cuda_majors_of("libcusparse.so.12"), (std::vector<int>{12, 13}));
    EXPECT_EQ(find_library_family("cuFFT")->cuda_majors_of("libcufft.so.11"), (std::vector<int>{12}));
    EXPECT_EQ(find_library_family("nvJitLink")->distinct_sonames(), (std::vector<std::string_view>{"libnvJitLink.so.13", "libnvJitLink.so.12"}));
    EXPECT_EQ(find_library_family("nvJitLink")->soname_for(13), "libnvJitLink.so.13");
    EXPECT_EQ(find_library_family("nvJitLink")->soname_for(11), "");
    EXPECT_EQ(find_library_family("cuBLAS")->soname_for(14), "") << "not guessed beyond the table";
    int sublibraries = 0;
    for (const LibraryFamily& family : library_families()) sublibraries += family.cudnn_sublibrary ? 1 : 0;
    EXPECT_EQ(sublibraries, 7);
}

// --- resolution ---------------------------------------------------------------------------------

TEST(LibraryLocator, resolves_from_ld_library_path_entry_before_the_cache) {
    Machine machine;
    const std::string own = machine.library("opt/mylibs", "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.library(system_directory, "libcudart.so.13.0.48", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.set("LD_LIBRARY_PATH", "/nonexistent:" + own);

    const LibraryFacts facts = machine.locate();
    const LibraryLocation* cudart = location(facts, "cudart");
    ASSERT_NE(cudart, nullptr);
    ASSERT_EQ(cudart->resolutions.size(), 1U);
    EXPECT_EQ(cudart->resolutions[0].rule, "LD_LIBRARY_PATH entry " + own);
    EXPECT_EQ(cudart->resolutions[0].path, own + "/libcudart.so.13");
    EXPECT_EQ(cudart->resolutions[0].real_path, own + "/libcudart.so.13.0.96");
    ASSERT_EQ(cudart->copies.size(), 2U);
    EXPECT_EQ(cudart->copies[0].origin, LibraryOrigin::ld_library_path);
    EXPECT_EQ(cudart->copies[0].version, "13.0.96");
    EXPECT_EQ(cudart->copies[1].origin, LibraryOrigin::system);
    EXPECT_EQ(cudart->copies[1].version, "13.0.48");
    EXPECT_EQ(cudart->copies[1].path, machine.root() + "/usr/lib/x86_64-linux-gnu/libcudart.so.13");
}

TEST(LibraryLocator, resolves_from_default_directory_when_cache_entry_is_stale) {
    Machine machine;
    machine.cache(system_directory, {"libcublas.so.13"});  // removed since ldconfig ran
    machine.library("usr/lib", "libcublas.so.13.1.0.3", {"libcublas.so.13", "libcublas.so"});
    machine.tree().symlink("libcublas.so.13.9.9.9", "usr/lib/libcublasLt.so.13");  // dangling: passed over

    const LibraryFacts facts = machine.locate();
    const LibraryLocation* cublas = location(facts, "cuBLAS");
    ASSERT_NE(cublas, nullptr);
    ASSERT_EQ(cublas->resolutions.size(), 1U);
    EXPECT_EQ(cublas->resolutions[0].rule, "default directory " + machine.root() + "/usr/lib");
    ASSERT_EQ(cublas->copies.size(), 1U) << "three names, one file";
    EXPECT_EQ(cublas->copies[0].version, "13.1.0.3");
    EXPECT_EQ(location(facts, "cuBLASLt"), nullptr);
}

TEST(LibraryLocator, finds_wheel_copies_with_versions_from_dist_info) {
    Machine machine;
    const std::string wheel = machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu12-9.1.0.70.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");

    const LibraryFacts facts = machine.locate();
    const LibraryLocation* cudnn = location(facts, "cuDNN");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_TRUE(cudnn->resolutions.empty());
    ASSERT_EQ(cudnn->copies.size(), 1U);
    EXPECT_EQ(cudnn->copies[0].origin, LibraryOrigin::pip_wheel);
    EXPECT_EQ(cudnn->copies[0].version, "9.1.0.70");
    EXPECT_EQ(cudnn->copies[0].package, "nvidia-cudnn-cu12");
    EXPECT_EQ(cudnn->copies[0].path, wheel + "/libcudnn.so.9");
    ASSERT_NE(location(facts, "cuDNN heuristic"), nullptr);
    EXPECT_EQ(location(facts, "cuDNN heuristic")->copies[0].version, "9.1.0.70");
}

// --- libraries.resolution verdicts -------------------------------------------------------------------

TEST(LibrariesResolutionCheck, passes_and_counts_when_one_consistent_install) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.system_cudnn("9.14.0");
    machine.cache(system_directory, {"libcudart.so.13"});
    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result);
    EXPECT_EQ(result.message, "9 of 9 libraries found resolve for C/C++ programs (9 ld.so.cache)");
    const std::string root = machine.root();
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(),
                        Evidence{"libcudnn.so.9", "9.14.0 system " + root + "/usr/lib/x86_64-linux-gnu/libcudnn.so.9 -> " + root +
                                                      "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0 (ld.so.cache)"}),
              result.evidence.end());
}

TEST(LibrariesResolutionCheck, passes_and_names_several_copies_when_their_versions_agree) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    // CUDA 13 wheels share one directory, nvidia/cu13/lib, and carry no _cu13 suffix.
    machine.library("home/user/.local/lib/python3.12/site-packages/nvidia/cu13/lib", "libcudart.so.13");
    machine.tree().make_dir("home/user/.local/lib/python3.12/site-packages/nvidia_cuda_runtime-13.0.96.dist-info");
    machine.set("HOME", machine.root() + "/home/user");

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result);
    EXPECT_EQ(result.message, "1 of 1 libraries found resolve for C/C++ programs (1 ld.so.cache); "
                              "1 with several copies of one version (cudart system + pip_wheel)");
    const Evidence wheel{"libcudart.so.13", "also 13.0.96 pip_wheel (nvidia-cuda-runtime) " + machine.root() +
                                                "/home/user/.local/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13"};
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(), wheel), result.evidence.end());
}

// A virtual environment first on PATH, not activated (no VIRTUAL_ENV), as PyTorch's image on the GPU
// machine has it: bin/python3 links to the base interpreter, pyvenv.cfg marks the environment, and
// the wheels in its site-packages are found.
TEST(LibrariesResolutionCheck, finds_the_wheels_of_a_virtual_environment_first_on_path) {
    Machine machine;
    machine.library(system_directory, "libcublas.so.13.1.0.3", {"libcublas.so.13"});
    machine.cache(system_directory, {"libcublas.so.13"});
    (void)machine.tree().write("usr/bin/python3.12", "#!/bin/sh\n", 0755);
    machine.tree().make_dir("venv/bin");
    machine.tree().symlink(machine.root() + "/usr/bin/python3.12", "venv/bin/python3");
    (void)machine.tree().write("venv/pyvenv.cfg", "home = /usr/bin\n");
    machine.library("venv/lib/python3.12/site-packages/nvidia/cu13/lib", "libcublas.so.13");
    machine.set("PATH", machine.root() + "/venv/bin");

    const CheckResult result = machine.judge();
    const std::string wheel_copy = machine.root() + "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13";
    const bool listed = std::any_of(result.evidence.begin(), result.evidence.end(), [&](const Evidence& evidence) {
        return evidence.key == "libcublas.so.13" && evidence.value.find("pip_wheel") != std::string::npos &&
               evidence.value.find(wheel_copy) != std::string::npos;
    });
    EXPECT_TRUE(listed) << codes_of(result);
}

TEST(LibrariesResolutionCheck, says_so_when_nothing_is_installed) {
    const CheckResult result = Machine().judge();
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(result.message, "no CUDA library installed in the usual places");
}

TEST(LibrariesResolutionCheck, warns_cc602_when_wheel_and_system_cudnn_differ) {
    Machine machine;
    machine.system_cudnn("9.14.0");
    const std::string wheel = machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::warn);
    ASSERT_EQ(result.findings.size(), 1U) << codes_of(result) << "sub-libraries follow libcudnn.so.9, not one finding each";
    const Finding& finding = result.findings[0];
    EXPECT_EQ(finding.code, "CC602");
    EXPECT_TRUE(contains(finding.message, "libcudnn.so.9 (cuDNN): 2 copies with different versions")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "a C/C++ program loads 9.14.0 (ld.so.cache)")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "a Python process that preloads pip wheels (PyTorch) loads 9.19.0.56 from nvidia-cudnn-cu13"));
    EXPECT_TRUE(contains(finding.remediation, "export LD_LIBRARY_PATH=" + wheel + ":$LD_LIBRARY_PATH")) << finding.remediation;
}

TEST(LibrariesResolutionCheck, keeps_wheel_off_ld_library_path_when_it_is_for_another_cuda) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.system_cudnn("9.14.0");
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu12-9.1.0.70.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");

    const CheckResult result = machine.judge();
    const Finding* versions = finding_with(result, "CC602");
    ASSERT_NE(versions, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(versions->remediation, "The wheel nvidia-cudnn-cu12 is built for CUDA 12 and serves only its Python")) << versions->remediation;
    EXPECT_TRUE(contains(versions->remediation, "C/C++ programs here (CUDA 13) should keep 9.14.0")) << versions->remediation;
    EXPECT_FALSE(contains(versions->remediation, "export LD_LIBRARY_PATH")) << versions->remediation;
}

TEST(LibrariesResolutionCheck, fails_cc603_when_cudnn_main_from_wheel_and_sublibrary_from_system) {
    Machine machine;
    machine.cudnn(system_directory, "9.14.0");
    machine.cache(system_directory, {"libcudnn.so.9", "libcudnn_ops.so.9"});
    const std::string wheel = machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    std::filesystem::remove(wheel + "/libcudnn_ops.so.9");  // a wheel damaged by a partial uninstall
    machine.set("LD_LIBRARY_PATH", wheel);

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::fail);
    const Finding* mixed = finding_with(result, "CC603");
    ASSERT_NE(mixed, nullptr) << codes_of(result);
    EXPECT_EQ(mixed->status, Status::fail);
    EXPECT_TRUE(contains(mixed->message, "libcudnn.so.9 resolves to 9.19.0.56 pip_wheel " + wheel + "/libcudnn.so.9 (LD_LIBRARY_PATH entry")) << mixed->message;
    EXPECT_TRUE(contains(mixed->message, "libcudnn_ops.so.9 9.14.0 system")) << mixed->message;
    EXPECT_TRUE(contains(mixed->remediation, "Install all of cuDNN 9.19.0.56 in one place (" + wheel + ")")) << mixed->remediation;
    EXPECT_EQ(finding_with(result, "CC508"), nullptr);
}

TEST(LibrariesResolutionCheck, fails_cc508_when_cudnn_sublibrary_resolves_nowhere) {
    Machine machine;
    machine.library(system_directory, "libcudnn.so.9.14.0", {"libcudnn.so.9"});
    machine.cache(system_directory, {"libcudnn.so.9"});
    const CheckResult result = machine.judge();
    const Finding* missing = finding_with(result, "CC508");
    ASSERT_NE(missing, nullptr) << codes_of(result);
    EXPECT_EQ(missing->status, Status::fail);
    EXPECT_TRUE(contains(missing->message, "libcudnn_graph.so.9, libcudnn_ops.so.9")) << missing->message;
    EXPECT_TRUE(contains(missing->remediation, "same cuDNN 9.14.0")) << missing->remediation;
}

TEST(LibrariesResolutionCheck, warns_cc601_naming_directory_when_library_only_in_toolkit_off_path) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    const std::string toolkit = machine.library("usr/local/cuda-13.0/lib64", "libnvJitLink.so.13.0.88", {"libnvJitLink.so.13"});

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::warn);
    const Finding* off_path = finding_with(result, "CC601");
    ASSERT_NE(off_path, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(off_path->message, "libnvJitLink.so.13 (nvJitLink) is not on the loader's path")) << off_path->message;
    EXPECT_TRUE(contains(off_path->message, "13.0.88 toolkit " + toolkit + "/libnvJitLink.so.13")) << off_path->message;
    EXPECT_TRUE(contains(off_path->remediation, "`export LD_LIBRARY_PATH=" + toolkit + ":$LD_LIBRARY_PATH`")) << off_path->remediation;
    EXPECT_TRUE(contains(off_path->remediation, "echo " + toolkit + " | sudo tee /etc/ld.so.conf.d/")) << off_path->remediation;
    EXPECT_EQ(finding_with(result, "CC604"), nullptr) << "the directory to add is the fix, not a reinstall";
}

TEST(LibrariesResolutionCheck, warns_cc601_once_for_cudnn_when_only_its_wheel_has_it) {
    Machine machine;
    const std::string wheel = machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");
    const CheckResult result = machine.judge();
    ASSERT_EQ(result.findings.size(), 1U) << codes_of(result) << "the sub-libraries go with libcudnn.so.9";
    EXPECT_EQ(result.findings[0].code, "CC601");
    EXPECT_TRUE(contains(result.findings[0].message, "libcudnn.so.9 (cuDNN, with its sub-libraries) is not on the loader's path"));
    EXPECT_TRUE(contains(result.findings[0].remediation, "Python processes that preload the wheel nvidia-cudnn-cu13 find it"));
    EXPECT_TRUE(contains(result.findings[0].remediation, "export LD_LIBRARY_PATH=" + wheel + ":$LD_LIBRARY_PATH"));
}

TEST(LibrariesResolutionCheck, ignores_wheels_of_another_cuda_major_than_the_runtime) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.library("venv/lib/python3.12/site-packages/nvidia/cublas/lib", "libcublas.so.12");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");
    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result) << "a CUDA 12 wheel serves its Python only";
}

TEST(LibrariesResolutionCheck, warns_cc604_when_cublas_12_resolves_with_cudart_13) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.library(system_directory, "libcublas.so.12.4.5.8", {"libcublas.so.12"});
    machine.cache(system_directory, {"libcudart.so.13", "libcublas.so.12"});

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::warn);
    ASSERT_EQ(result.findings.size(), 1U) << codes_of(result);
    const Finding& finding = result.findings[0];
    EXPECT_EQ(finding.code, "CC604");
    EXPECT_TRUE(contains(finding.message, "cuBLAS resolves only as libcublas.so.12 (CUDA 12)")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "the runtime is CUDA 13 (libcudart.so.13)")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "fails to open libcublas.so.13")) << finding.message;
    EXPECT_TRUE(contains(finding.remediation, "Install cuBLAS for CUDA 13")) << finding.remediation;
    EXPECT_TRUE(contains(finding.remediation, "`pip install nvidia-cublas`")) << finding.remediation;
}

TEST(LibrariesResolutionCheck, fails_cc211_when_stub_libcuda_is_first_on_the_path) {
    Machine machine;
    const std::string stubs = machine.library("usr/local/cuda-13.0/lib64/stubs", "libcuda.so", {"libcuda.so.1"});
    machine.library(system_directory, "libcuda.so.580.95.05", {"libcuda.so.1"});
    machine.cache(system_directory, {"libcuda.so.1"});
    machine.set("LD_LIBRARY_PATH", stubs);

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::fail);
    const Finding* stub = finding_with(result, "CC211");
    ASSERT_NE(stub, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(stub->message, "libcuda.so.1 resolves to the toolkit's stub " + stubs + "/libcuda.so.1 (LD_LIBRARY_PATH entry"));
    EXPECT_TRUE(contains(stub->remediation, "Remove " + stubs + " from LD_LIBRARY_PATH")) << stub->remediation;
    EXPECT_EQ(finding_with(result, "CC602"), nullptr) << "a stub is not a second version of the driver";
}

// --- on this machine ----------------------------------------------------------------------------

TEST(LibrariesResolutionCheck, runs_on_this_machine_within_its_time_budget) {
    const test::BinaryRun run = test::run_cudacheck({"--only", "libraries.resolution", "--level", "quick", "--format", "json"});
    const nlohmann::json report = nlohmann::json::parse(run.output);
    const nlohmann::json* check = test::find_check(report, "libraries.resolution");
    ASSERT_NE(check, nullptr) << run.output;
    EXPECT_NE((*check)["status"], "error") << run.output;
    EXPECT_LT((*check)["duration_ms"].get<double>(), 100.0);
    bool cache_evidence = false;
    for (const nlohmann::json& evidence : (*check)["evidence"]) cache_evidence = cache_evidence || evidence["key"] == "ld_so_cache";
    EXPECT_TRUE(cache_evidence);
}

}  // namespace
}  // namespace cudacheck
