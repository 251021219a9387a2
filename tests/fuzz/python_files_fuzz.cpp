// libFuzzer target for the readers of the Python files cudacheck reads without running
// Python: TensorFlow's build_info.py, torch/version.py and other generated version files,
// METADATA and its Requires-Dist lines, dist-info directory names, pyvenv.cfg, version specifiers, and torch's
// cpp_extension.py arch tables with a TORCH_CUDA_ARCH_LIST. Any input ends (libFuzzer's -timeout catches a loop that
// does not), no exception escapes, and what each returns is bounded by the input: `[)` in a build_info list once pushed
// empty strings for ever, and `lib/python3.<20 digits>` threw from std::stoi.
#include "fuzz/fuzz_support.hpp"
#include "probes/build/torch_arch_list.hpp"
#include "probes/python/build_info.hpp"
#include "probes/python/python_environments.hpp"
#include "probes/python/python_packages.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudacheck;
    const std::string_view text = fuzz::as_text(data, size);

    // build_info.py: keys and values are pieces of the input; a list adds one "," per item.
    std::size_t kept = 0;
    for (const auto& [key, value] : parse_tensorflow_build_info(text)) kept += key.size() + value.size();
    fuzz::require(kept <= 2 * size, "build_info.py's entries are larger than twice the file");

    // Generated version files: each literal is at most its line.
    std::size_t literals = 0;
    for (const auto& [name, value] : parse_python_literals(text)) literals += name.size() + (value ? value->size() : 0);
    fuzz::require(literals <= size, "the literals are larger than the file");

    // METADATA and requirements are util/python_packaging's (python_packaging_fuzz.cpp); here what
    // the probes ask of them: pip check's comparison and the markers of a site-packages' interpreter.
    (void)satisfies(text.substr(0, size / 2), text.substr(size / 2));
    (void)marker_environment_of_site(text);
    (void)parse_dist_info_name(text);
    (void)cuda_of_local_version(text);
    (void)decimal_number(text);

    const PyvenvConfig config = parse_pyvenv_cfg(text);
    if (config.version) {
        const std::string minor = python_major_minor(*config.version);
        fuzz::require(minor.empty() || decimal_number(std::string_view(minor).substr(2), 999),
                      "a Python minor past 999", minor);
    }
    (void)python_major_minor(text);

    // The first half as a cpp_extension.py, the second as TORCH_CUDA_ARCH_LIST.
    const std::string_view source = text.substr(0, size / 2);
    if (const std::optional<TorchArchTables> tables = read_torch_arch_tables(source)) {
        const TorchArchList list = parse_torch_cuda_arch_list(text.substr(size / 2), *tables);
        std::size_t entries = 0;
        for (const std::string& entry : list.entries) entries += entry.size() + 1;
        fuzz::require(entries <= (std::size_t{64} << 10) + 1, "the arch list expanded past its bound");
        fuzz::require(!list.error || list.gencode_flags.empty(), "gencode flags beside an error");
    }
    return 0;
}
