// `cudacheck inspect` underneath: architecture rules, the ELF/fatbinary reader on crafted bytes and
// on real nvcc output (compared with cuobjdump), judging, and the reader's robustness on damaged
// input (a bounded property test over mutated seeds).
#include "cuda/arch_coverage.hpp"
#include "cuda/cuda_facts.hpp"
#include "inspect/inspection.hpp"
#include "util/system.hpp"
#include "cuda/gpu_code.hpp"
#include "support/test_support.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <iostream>
#include <random>
#include <regex>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using ByteVector = std::vector<std::uint8_t>;

// --- crafted files ---------------------------------------------------------------------------

void put(ByteVector& bytes, std::size_t offset, std::uint64_t value, int width) {
    if (bytes.size() < offset + static_cast<std::size_t>(width)) bytes.resize(offset + static_cast<std::size_t>(width));
    for (int i = 0; i < width; ++i) bytes[offset + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
}

struct Entry {
    std::uint16_t kind = 2;  // 1 PTX, 2 ELF
    std::uint32_t arch = 80;
    std::uint64_t flags = 0x11;
    std::size_t payload_size = 24;
    PtxIsa isa{};
    std::uint64_t uncompressed_size = 0;
};

// A fatbinary as nvcc lays it out (fatbinary_section.h): 16-byte header, 64-byte entry headers.
ByteVector make_fatbin(const std::vector<Entry>& entries) {
    ByteVector bytes;
    std::size_t offset = 16;
    for (const Entry& entry : entries) {
        put(bytes, offset, entry.kind, 2);
        put(bytes, offset + 2, 0x101, 2);
        put(bytes, offset + 4, 64, 4);
        put(bytes, offset + 8, entry.payload_size, 8);
        put(bytes, offset + 24, static_cast<std::uint64_t>(entry.isa.minor), 2);
        put(bytes, offset + 26, static_cast<std::uint64_t>(entry.isa.major), 2);
        put(bytes, offset + 28, entry.arch, 4);
        put(bytes, offset + 40, entry.flags, 8);
        put(bytes, offset + 56, entry.uncompressed_size, 8);
        offset += 64 + entry.payload_size;
        bytes.resize(offset, 0xcc);
    }
    put(bytes, 0, 0xBA55ED50, 4);
    put(bytes, 4, 1, 2);
    put(bytes, 6, 16, 2);
    put(bytes, 8, offset - 16, 8);
    return bytes;
}

// An ELF64 file whose sections hold the given bytes (plus the null section and .shstrtab).
ByteVector make_elf(std::uint16_t type, const std::vector<std::pair<std::string, ByteVector>>& sections) {
    ByteVector bytes(64, 0);
    const char ident[] = "\x7f" "ELF\x02\x01\x01";
    std::memcpy(bytes.data(), ident, 7);
    put(bytes, 16, type, 2);
    put(bytes, 18, 62, 2);  // x86-64
    std::string names(1, '\0');
    std::vector<std::array<std::uint64_t, 3>> headers;  // name, offset, size
    for (const auto& [name, data] : sections) {
        bytes.resize((bytes.size() + 7) / 8 * 8, 0);
        headers.push_back({names.size(), bytes.size(), data.size()});
        names += name + '\0';
        bytes.insert(bytes.end(), data.begin(), data.end());
    }
    headers.push_back({names.size(), bytes.size(), 0});
    names += ".shstrtab";
    names += '\0';
    headers.back()[2] = names.size();
    bytes.insert(bytes.end(), names.begin(), names.end());
    bytes.resize((bytes.size() + 7) / 8 * 8, 0);
    const std::size_t table = bytes.size();
    bytes.resize(table + 64 * (headers.size() + 1), 0);
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const std::size_t header = table + 64 * (i + 1);
        put(bytes, header, headers[i][0], 4);
        put(bytes, header + 4, 1, 4);  // PROGBITS
        put(bytes, header + 24, headers[i][1], 8);
        put(bytes, header + 32, headers[i][2], 8);
    }
    put(bytes, 0x28, table, 8);
    put(bytes, 0x3a, 64, 2);
    put(bytes, 0x3c, headers.size() + 1, 2);
    put(bytes, 0x3e, headers.size(), 2);
    return bytes;
}

GpuCodeScan scan(const ByteVector& bytes) { return scan_gpu_code(bytes); }

std::vector<std::string> arch_names(const GpuCodeScan& result) {
    std::vector<std::string> names;
    for (const CodeObject& object : result.objects) names.push_back(object.kind == CodeKind::sass ? object.arch.sass_name() : object.arch.virtual_name());
    return names;
}

// --- architecture rules ----------------------------------------------------------------------

TEST(GpuArch, parses_the_forms_users_type) {
    EXPECT_EQ(parse_gpu_arch("sm_90"), (GpuArch{90, ArchVariant::generic}));
    EXPECT_EQ(parse_gpu_arch("90"), (GpuArch{90, ArchVariant::generic}));
    EXPECT_EQ(parse_gpu_arch("8.6"), (GpuArch{86, ArchVariant::generic}));
    EXPECT_EQ(parse_gpu_arch("compute_100f"), (GpuArch{100, ArchVariant::family}));
    EXPECT_EQ(parse_gpu_arch("12.0a"), (GpuArch{120, ArchVariant::arch_specific}));
    for (const char* bad : {"", "sm_", "9.10", "abc", "sm_90x", "-90", "9.", "7"}) EXPECT_FALSE(parse_gpu_arch(bad).has_value()) << bad;
}

TEST(GpuArch, names_sass_and_virtual_targets_with_their_variant) {
    EXPECT_EQ((GpuArch{90, ArchVariant::arch_specific}).sass_name(), "sm_90a");
    EXPECT_EQ((GpuArch{103, ArchVariant::family}).virtual_name(), "compute_103f");
    EXPECT_EQ((GpuArch{120, ArchVariant::generic}).major(), 12);
}

TEST(ArchCoverage, sass_runs_on_the_same_major_with_a_newer_minor) {
    EXPECT_TRUE(sass_runs_on({80, ArchVariant::generic}, 8, 6));
    EXPECT_FALSE(sass_runs_on({86, ArchVariant::generic}, 8, 0));
    EXPECT_FALSE(sass_runs_on({80, ArchVariant::generic}, 9, 0));
}

TEST(ArchCoverage, arch_specific_targets_run_only_on_their_exact_capability) {
    EXPECT_TRUE(sass_runs_on({100, ArchVariant::arch_specific}, 10, 0));
    EXPECT_FALSE(sass_runs_on({100, ArchVariant::arch_specific}, 10, 3));
    EXPECT_FALSE(ptx_compiles_for({90, ArchVariant::arch_specific}, 10, 0));
    EXPECT_TRUE(ptx_compiles_for({90, ArchVariant::arch_specific}, 9, 0));
}

TEST(ArchCoverage, family_targets_run_within_their_major_only) {
    EXPECT_TRUE(sass_runs_on({100, ArchVariant::family}, 10, 3));
    EXPECT_TRUE(ptx_compiles_for({100, ArchVariant::family}, 10, 3));
    EXPECT_FALSE(ptx_compiles_for({100, ArchVariant::family}, 12, 0));
    EXPECT_TRUE(ptx_compiles_for({100, ArchVariant::generic}, 12, 0));
}

TEST(ArchCoverage, prefers_sass_then_the_newest_ptx) {
    const EmbeddedTargets targets{{{75, ArchVariant::generic}, {90, ArchVariant::arch_specific}}, {{80, ArchVariant::generic}, {86, ArchVariant::generic}}};
    EXPECT_EQ(kernel_image_for(targets, 9, 0).describe(), "runs natively (sm_90a SASS)");
    EXPECT_EQ(kernel_image_for(targets, 8, 9).describe(), "runs through PTX JIT (compute_86; the first launch compiles)");
    EXPECT_EQ(kernel_image_for(targets, 7, 0).kind, ImageKind::none);
}

TEST(ArchCoverage, reads_variants_in_cmake_architectures) {
    const EmbeddedTargets targets = parse_cmake_architectures("75-real;90a-real;100f;120-virtual;native");
    EXPECT_EQ(targets.sass, (std::vector<GpuArch>{{75, ArchVariant::generic}, {90, ArchVariant::arch_specific}, {100, ArchVariant::family}}));
    EXPECT_EQ(targets.ptx, (std::vector<GpuArch>{{100, ArchVariant::family}, {120, ArchVariant::generic}}));
}

TEST(CudaFacts, knows_which_cuda_first_jit_compiles_a_ptx_isa) {
    EXPECT_EQ(minimum_cuda_for_ptx_isa(9, 0), (CudaVersion{13, 0}));
    EXPECT_EQ(minimum_cuda_for_ptx_isa(8, 6), (CudaVersion{12, 7}));
    EXPECT_EQ(minimum_cuda_for_ptx_isa(7, 8), (CudaVersion{11, 8}));
    EXPECT_FALSE(minimum_cuda_for_ptx_isa(9, 9).has_value());
}

// --- the reader on crafted bytes -------------------------------------------------------------

TEST(GpuCodeScan, lists_fatbin_entries_with_variant_compression_and_isa) {
    const auto result = scan(make_fatbin({{2, 90, 0x100011}, {1, 100, 0x208011, 40, {9, 0}, 86}, {2, 86, 0x2011, 32, {}, 3000}}));
    ASSERT_EQ(result.error, ScanError::none) << result.error_message;
    EXPECT_EQ(result.kind, FileKind::fatbin);
    EXPECT_EQ(arch_names(result), (std::vector<std::string>{"sm_90a", "compute_100f", "sm_86"}));
    EXPECT_EQ(result.objects[1].compression, Compression::zstd);
    EXPECT_EQ(result.objects[1].ptx_isa, (PtxIsa{9, 0}));
    EXPECT_EQ(result.objects[1].uncompressed_size, 86u);
    EXPECT_EQ(result.objects[2].compression, Compression::lz4);
    EXPECT_EQ(result.objects[0].compression, Compression::none);
    EXPECT_EQ(result.objects[0].offset, 16u + 64u);
}

TEST(GpuCodeScan, reads_every_fatbin_of_a_section_across_padding) {
    ByteVector section = make_fatbin({{2, 75}});
    section.resize(section.size() + 8, 0);  // alignment padding between fatbinaries
    const ByteVector second = make_fatbin({{1, 80, 0x11, 16, {8, 5}}});
    section.insert(section.end(), second.begin(), second.end());
    const auto result = scan(make_elf(3, {{".text", ByteVector(10, 0x90)}, {".nv_fatbin", section}}));
    ASSERT_EQ(result.error, ScanError::none) << result.error_message;
    EXPECT_EQ(result.kind, FileKind::shared_library);
    EXPECT_EQ(result.fatbins, 2u);
    EXPECT_EQ(arch_names(result), (std::vector<std::string>{"sm_75", "compute_80"}));
    EXPECT_EQ(result.objects[1].fatbin, std::optional<std::size_t>(1));
    EXPECT_EQ(result.objects[1].section, ".nv_fatbin");
}

TEST(GpuCodeScan, ignores_relocatable_fatbins_beside_a_linked_one) {
    const auto linked = scan(make_elf(2, {{".nv_fatbin", make_fatbin({{2, 80}})}, {"__nv_relfatbin", make_fatbin({{2, 75}})}}));
    EXPECT_EQ(arch_names(linked), (std::vector<std::string>{"sm_80"}));
    const auto object = scan(make_elf(1, {{"__nv_relfatbin", make_fatbin({{2, 75}})}}));
    EXPECT_EQ(object.kind, FileKind::object);
    EXPECT_EQ(arch_names(object), (std::vector<std::string>{"sm_75"}));
}

TEST(GpuCodeScan, finds_no_code_in_a_host_only_elf_file) {
    const auto result = scan(make_elf(3, {{".text", ByteVector(64, 0x90)}}));
    EXPECT_EQ(result.error, ScanError::none);
    EXPECT_TRUE(result.objects.empty());
}

TEST(GpuCodeScan, reads_a_ptx_text_file) {
    const std::string ptx = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.7\n.target sm_100a\n.address_size 64\n";
    const auto result = scan(ByteVector(ptx.begin(), ptx.end()));
    ASSERT_EQ(result.error, ScanError::none) << result.error_message;
    EXPECT_EQ(result.kind, FileKind::ptx);
    EXPECT_EQ(arch_names(result), (std::vector<std::string>{"compute_100a"}));
    EXPECT_EQ(result.objects[0].ptx_isa, (PtxIsa{8, 7}));
}

TEST(GpuCodeScan, rejects_empty_and_unrecognised_input) {
    EXPECT_EQ(scan({}).error, ScanError::unrecognised);
    const std::string script = "#!/bin/sh\necho hello\n";
    const auto text = scan(ByteVector(script.begin(), script.end()));
    EXPECT_EQ(text.error, ScanError::unrecognised);
    EXPECT_NE(text.error_message.find("not an ELF file"), std::string::npos) << text.error_message;
}

TEST(GpuCodeScan, reports_truncated_and_inconsistent_headers_as_malformed) {
    const ByteVector elf = make_elf(3, {{".nv_fatbin", make_fatbin({{2, 80}, {1, 80, 0x11, 16, {9, 0}}})}});
    EXPECT_EQ(scan(ByteVector(elf.begin(), elf.begin() + 40)).error, ScanError::malformed);
    EXPECT_EQ(scan(ByteVector(elf.begin(), elf.end() - 70)).error, ScanError::malformed) << "section header table cut off";
    ByteVector bogus_table = elf;
    put(bogus_table, 0x28, 0xffffffffffffff00ULL, 8);
    EXPECT_EQ(scan(bogus_table).error, ScanError::malformed);
    ByteVector fatbin = make_fatbin({{2, 80}, {2, 86}});
    put(fatbin, 8, 1ULL << 62, 8);  // the fatbinary claims more bytes than there are
    EXPECT_EQ(scan(fatbin).error, ScanError::malformed);
    ByteVector entry = make_fatbin({{2, 80}, {2, 86}});
    put(entry, 16 + 8, 1ULL << 40, 8);  // an entry's payload runs past its fatbinary
    const auto partial = scan(entry);
    EXPECT_EQ(partial.error, ScanError::malformed);
    EXPECT_NE(partial.error_message.find("offset 0x10"), std::string::npos) << partial.error_message;
}

// --- judging ---------------------------------------------------------------------------------

GpuCodeScan crafted(const std::vector<Entry>& entries) { return scan(make_fatbin(entries)); }

TEST(InspectJudge, runs_natively_when_sass_matches) {
    const auto verdict = judge_target(crafted({{2, 80}, {1, 80, 0x11, 16, {9, 0}}}), InspectTarget{8, 6, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::pass);
    EXPECT_EQ(verdict.message, "runs natively (sm_80 SASS)");
}

TEST(InspectJudge, names_the_ptx_isa_and_the_driver_it_needs_for_jit) {
    const auto verdict = judge_target(crafted({{2, 80}, {1, 80, 0x11, 16, {9, 0}}}), InspectTarget{9, 0, 0, "NVIDIA H200"}, CudaVersion{13, 0});
    EXPECT_EQ(verdict.status, Status::pass);
    EXPECT_EQ(verdict.image.kind, ImageKind::ptx_jit);
    EXPECT_EQ(verdict.ptx_needs_cuda, (CudaVersion{13, 0}));
    EXPECT_NE(verdict.message.find("PTX ISA 9.0 needs driver CUDA >= 13.0"), std::string::npos) << verdict.message;
}

TEST(InspectJudge, fails_with_cc511_when_the_driver_is_too_old_for_the_ptx) {
    const auto verdict = judge_target(crafted({{1, 80, 0x11, 16, {9, 0}}}), InspectTarget{9, 0, 0, "NVIDIA H200"}, CudaVersion{12, 8});
    EXPECT_EQ(verdict.status, Status::fail);
    ASSERT_TRUE(verdict.finding.has_value());
    EXPECT_EQ(verdict.finding->code, "CC511");
    EXPECT_NE(verdict.finding->remediation.find("580.65.06"), std::string::npos) << verdict.finding->remediation;
}

TEST(InspectJudge, fails_with_cc503_and_names_the_gencode_and_torch_fix) {
    const auto verdict = judge_target(crafted({{2, 75}, {2, 90, 0x100011}}), InspectTarget{8, 6, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::fail);
    ASSERT_TRUE(verdict.finding.has_value());
    EXPECT_EQ(verdict.finding->code, "CC503");
    EXPECT_NE(verdict.finding->message.find("SASS sm_75, sm_90a"), std::string::npos) << verdict.finding->message;
    EXPECT_NE(verdict.finding->remediation.find("-gencode arch=compute_86,code=sm_86"), std::string::npos);
    EXPECT_NE(verdict.finding->remediation.find("TORCH_CUDA_ARCH_LIST=\"8.6\""), std::string::npos);
    EXPECT_EQ(verdict.finding->remediation.find("toolkit"), std::string::npos) << "every current toolkit builds for 8.6";
}

TEST(InspectJudge, names_the_last_toolkit_for_an_architecture_current_ones_dropped) {
    const auto verdict = judge_target(crafted({{2, 75}}), InspectTarget{7, 0, std::nullopt, {}}, std::nullopt);
    ASSERT_TRUE(verdict.finding.has_value());
    EXPECT_NE(verdict.finding->remediation.find("with a CUDA 12.x toolkit, the last that builds for it"), std::string::npos) << verdict.finding->remediation;
}

TEST(InspectJudge, counts_fatbins_without_an_image_but_judges_the_file_as_a_whole) {
    ByteVector section = make_fatbin({{2, 80}});
    const ByteVector hopper_only = make_fatbin({{2, 90, 0x100011}});
    section.insert(section.end(), hopper_only.begin(), hopper_only.end());
    const auto verdict = judge_target(scan(make_elf(3, {{".nv_fatbin", section}})), InspectTarget{8, 0, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::pass);
    EXPECT_EQ(verdict.fatbins_without_image, 1u);
}

TEST(InspectJudge, skips_files_without_loadable_code) {
    const auto verdict = judge_target(scan(make_elf(3, {{".text", ByteVector(8, 0)}})), InspectTarget{9, 0, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::skip);
    EXPECT_EQ(inspect_exit_code({InspectedFile{"x", {}, std::nullopt, {verdict}}}), 0);
}

// --- real nvcc output, compared with cuobjdump -----------------------------------------------

const std::string fixture_dir = CUDACHECK_GPU_CODE_FIXTURES;

// cuobjdump on PATH, in the toolkit, or from the nvidia-cuda-cuobjdump wheel (tools/install-deps.sh).
std::string find_cuobjdump() {
    const char* path = std::getenv("PATH");
    if (std::string found = sys::find_in_path("cuobjdump", path ? path : ""); !found.empty()) return found;
    if (sys::is_executable_file("/usr/local/cuda/bin/cuobjdump")) return "/usr/local/cuda/bin/cuobjdump";
    const std::string python = sys::find_in_path("python3", path ? path : "");
    if (python.empty()) return {};
    for (const char* package : {"nvidia.cu13", "nvidia.cuda_cuobjdump"}) {
        const std::vector<std::string> argv{python, "-c",
                                            fmt::format("import {0}, os; print(os.path.join(list({0}.__path__)[0], 'bin', 'cuobjdump'))", package)};
        const auto result = sys::run_command(argv, std::chrono::seconds(20));
        const std::string candidate(sys::trim(result.output));
        if (result.exit_status == 0 && sys::is_executable_file(candidate)) return candidate;
    }
    return {};
}

// cuobjdump's lines "ELF file 1: x.1.sm_90a.cubin" / "PTX file 1: x.1.sm_100f.ptx" as "SASS sm_90a" / "PTX sm_100f".
std::vector<std::string> cuobjdump_listing(const std::string& cuobjdump, const std::string& file) {
    const auto result = sys::run_command({cuobjdump, "--list-elf", "--list-ptx", file}, std::chrono::seconds(60));
    std::vector<std::string> listing;
    const std::regex line(R"((ELF|PTX) file\s+\d+: .*\.(sm_\d+[af]?)\.(cubin|ptx))");
    for (const std::string& text : sys::split(result.output, '\n')) {
        std::smatch match;
        if (std::regex_search(text, match, line)) listing.push_back(std::string(match[1] == "ELF" ? "SASS " : "PTX ") + match[2].str());
    }
    return listing;
}

// cudacheck's listing in cuobjdump's words: PTX named sm_XY too, and family cubins without the f,
// which a bare cubin does not record (cuobjdump 13 prints an sm_100f cubin as sm_100); cudacheck
// keeps the f, from the fatbinary entry's flags.
std::vector<std::string> as_cuobjdump_names(const GpuCodeScan& result) {
    std::vector<std::string> listing;
    for (const CodeObject& object : result.objects) {
        if (object.kind == CodeKind::lto_ir) continue;
        GpuArch arch = object.arch;
        if (object.kind == CodeKind::sass && arch.variant == ArchVariant::family) arch.variant = ArchVariant::generic;
        listing.push_back(std::string(object.kind == CodeKind::sass ? "SASS " : "PTX ") + arch.sass_name());
    }
    return listing;
}

TEST(GpuCodeFixtures, lists_what_nvcc_embedded) {
    const auto multi = inspect_file(fixture_dir + "/multi.o");
    ASSERT_EQ(multi.error, ScanError::none) << multi.error_message;
    EXPECT_EQ(arch_names(multi), (std::vector<std::string>{"sm_75", "sm_90a", "sm_100f", "compute_100f", "compute_120"}));
    EXPECT_EQ(multi.objects.back().compression, Compression::zstd) << "nvcc 13 compresses PTX with zstd by default";
    const auto uncompressed = inspect_file(fixture_dir + "/uncompressed.fatbin");
    ASSERT_EQ(uncompressed.objects.size(), 2u);
    for (const CodeObject& object : uncompressed.objects) EXPECT_EQ(object.compression, Compression::none);
    const auto lz4 = inspect_file(fixture_dir + "/lz4.fatbin");
    ASSERT_EQ(lz4.objects.size(), 2u);
    for (const CodeObject& object : lz4.objects) {
        EXPECT_EQ(object.compression, Compression::lz4);
        EXPECT_GT(object.uncompressed_size, object.size);
    }
    EXPECT_EQ(arch_names(inspect_file(fixture_dir + "/sm_90a.cubin")), (std::vector<std::string>{"sm_90a"}));
    const auto ptx = inspect_file(fixture_dir + "/compute_89.ptx");
    EXPECT_EQ(arch_names(ptx), (std::vector<std::string>{"compute_89"}));
    EXPECT_EQ(inspect_file(fixture_dir + "/rdc-linked").kind, FileKind::executable);
}

// The PTX ISA cudacheck takes from the entry header is the `.version` of the PTX text itself.
TEST(GpuCodeFixtures, ptx_isa_from_the_header_matches_the_text) {
    const auto fatbin = inspect_file(fixture_dir + "/uncompressed.fatbin");
    const auto bytes = test::read_text(fixture_dir + "/uncompressed.fatbin");
    for (const CodeObject& object : fatbin.objects) {
        if (object.kind != CodeKind::ptx) continue;
        ASSERT_TRUE(object.ptx_isa.has_value());
        const std::string text = bytes.substr(object.offset, object.size);
        EXPECT_NE(text.find(fmt::format(".version {}.{}\n", object.ptx_isa->major, object.ptx_isa->minor)), std::string::npos);
    }
}

TEST(GpuCodeFixtures, listing_equals_cuobjdump) {
    const std::string cuobjdump = find_cuobjdump();
    if (cuobjdump.empty()) GTEST_SKIP() << "cuobjdump not found (tools/install-deps.sh installs nvidia-cuda-cuobjdump)";
    for (const char* name : {"multi.o", "uncompressed.fatbin", "lz4.fatbin", "rdc.o", "rdc-linked", "sm_90a.cubin"}) {
        const std::string file = fixture_dir + "/" + name;
        const auto listing = cuobjdump_listing(cuobjdump, file);
        EXPECT_FALSE(listing.empty()) << name;
        EXPECT_EQ(as_cuobjdump_names(inspect_file(file)), listing) << name;
    }
}

TEST(GpuCodeFixtures, listing_equals_cuobjdump_on_cublas) {
    const std::string cuobjdump = find_cuobjdump();
    if (cuobjdump.empty()) GTEST_SKIP() << "cuobjdump not found (tools/install-deps.sh installs nvidia-cuda-cuobjdump)";
    // The smaller of the toolkit's large libraries: thousands of entries in hundreds of fatbinaries.
    std::string library;
    for (const std::string& entry : sys::list_directory("/usr/local/cuda/lib64"))
        if (std::regex_match(entry, std::regex(R"(libcublas\.so\.\d+)"))) library = "/usr/local/cuda/lib64/" + entry;
    if (library.empty()) GTEST_SKIP() << "no libcublas.so.N in /usr/local/cuda/lib64";
    const auto listing = cuobjdump_listing(cuobjdump, library);
    const auto result = inspect_file(library);
    ASSERT_EQ(result.error, ScanError::none) << result.error_message;
    EXPECT_GT(listing.size(), 10u);
    EXPECT_EQ(as_cuobjdump_names(result), listing);
}

// cudacheck's own binary, and the files CUDACHECK_TEST_GPU_CODE_FILES names (colon-separated; on the
// GPU machine tools/gpu-session.sh names PyTorch's libtorch_cuda.so): the same listing as cuobjdump.
TEST(GpuCodeFixtures, listing_equals_cuobjdump_on_cudacheck_and_named_files) {
    const std::string cuobjdump = find_cuobjdump();
    if (cuobjdump.empty()) GTEST_SKIP() << "cuobjdump not found (tools/install-deps.sh installs nvidia-cuda-cuobjdump)";
    std::vector<std::string> files{CUDACHECK_BINARY};
    if (const char* named = std::getenv("CUDACHECK_TEST_GPU_CODE_FILES"))
        for (const std::string& file : sys::split(named, ':'))
            if (!file.empty()) files.push_back(file);
    for (const std::string& file : files) {
        const auto listing = cuobjdump_listing(cuobjdump, file);
        const auto result = inspect_file(file);
        ASSERT_EQ(result.error, ScanError::none) << file << ": " << result.error_message;
        EXPECT_FALSE(listing.empty()) << file;
        EXPECT_EQ(as_cuobjdump_names(result), listing) << file;
        std::cout << file << ": " << listing.size() << " code objects, the same list as cuobjdump's\n";
    }
}

// --- robustness: mutated seeds must give a listing or an error, never a crash or a hang -------

std::vector<ByteVector> seeds() {
    std::vector<ByteVector> result{make_fatbin({{2, 90, 0x100011}, {1, 100, 0x208011, 40, {9, 0}, 86}}),
                                   make_elf(3, {{".nv_fatbin", make_fatbin({{2, 80}, {1, 80, 0x11, 16, {8, 5}}})}}),
                                   make_elf(1, {{"__nv_relfatbin", make_fatbin({{2, 75}})}})};
    for (const char* name : {"multi.o", "sm_90a.cubin", "lz4.fatbin", "compute_89.ptx"})
        if (const auto text = sys::read_file(fixture_dir + "/" + name, 1 << 22)) result.emplace_back(text->begin(), text->end());
    return result;
}

void expect_sane(const ByteVector& bytes) {
    const GpuCodeScan result = scan_gpu_code(bytes);
    if (result.error != ScanError::none) {
        EXPECT_FALSE(result.error_message.empty());
    }
    for (const CodeObject& object : result.objects) {
        EXPECT_LE(object.offset, bytes.size());
        EXPECT_LE(object.size, bytes.size() - std::min<std::uint64_t>(object.offset, bytes.size()));
    }
}

TEST(GpuCodeRobustness, every_truncation_of_the_seeds_is_handled) {
    for (const ByteVector& seed : seeds())
        for (std::size_t length = 0; length < std::min<std::size_t>(seed.size(), 4096); ++length) expect_sane(ByteVector(seed.begin(), seed.begin() + length));
}

TEST(GpuCodeRobustness, random_corruption_of_the_seeds_is_handled) {
    std::mt19937_64 random(20261130);
    const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    const std::vector<ByteVector> inputs = seeds();
    std::size_t runs = 0;
    while (std::chrono::steady_clock::now() < stop) {
        ByteVector bytes = inputs[random() % inputs.size()];
        const int mutations = 1 + static_cast<int>(random() % 4);
        for (int i = 0; i < mutations && !bytes.empty(); ++i) {
            const std::size_t at = random() % bytes.size();
            switch (random() % 4) {
                case 0: bytes[at] ^= static_cast<std::uint8_t>(1u << (random() % 8)); break;  // bit flip
                case 1: bytes.resize(at); break;                                              // truncation
                case 2:                                                                       // a bogus size or offset
                    if (at + 8 <= bytes.size()) put(bytes, at, random() >> (random() % 64), 8);
                    break;
                default:  // a header field set to an extreme
                    if (at + 4 <= bytes.size()) put(bytes, at, (random() & 1) ? 0xffffffffu : 0u, 4);
            }
        }
        expect_sane(bytes);
        ++runs;
    }
    EXPECT_GT(runs, 100u);
}

}  // namespace
}  // namespace cudacheck
