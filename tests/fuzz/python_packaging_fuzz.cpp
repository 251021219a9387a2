// libFuzzer target for util/python_packaging's parsers of text from wheels and their METADATA: the
// METADATA headers and each Requires-Dist (PEP 508: names, extras, specifiers, markers, evaluated),
// PEP 440 versions and specifiers, and wheel file names with their tag verdicts. Any input ends
// (markers nest at most 64 deep), no exception escapes, an error is one line, and what is parsed
// is bounded by the input.
#include "fuzz/fuzz_support.hpp"
#include "util/python_packaging.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

void require_one_line(const cudacheck::Error& error) {
    cudacheck::fuzz::require(!error.message.empty(), "an error without a message");
    cudacheck::fuzz::require(error.message.find('\n') == std::string::npos, "an error of more than one line",
                             error.message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudacheck;
    namespace pk = cudacheck::packaging;
    const std::string_view text = fuzz::as_text(data, size);
    const pk::MarkerEnvironment environment = pk::marker_environment(pk::Interpreter{}, "3.12.3");

    const Expected<pk::Metadata> metadata = pk::parse_metadata(text);
    if (metadata) {
        std::size_t kept = 0;
        for (const auto& [key, value] : metadata->headers) kept += key.size() + value.size();
        fuzz::require(kept <= size, "the headers are larger than the file");
        const std::vector<std::string> extras(metadata->provides_extra.begin(), metadata->provides_extra.end());
        for (const pk::Requirement& requirement : metadata->requires_dist) {
            (void)pk::requirement_applies(requirement, environment, extras);
            if (const Expected<pk::Version> version = pk::parse_version(metadata->version))
                (void)pk::specifier_allows(requirement.specifier, *version);
        }
        (void)pk::cuda_major_of_requirements(metadata->requires_dist, environment, extras);
        if (const Expected<bool> allowed = pk::python_allows(metadata->requires_python, "3.12.3"); !allowed)
            require_one_line(allowed.error());
    } else {
        require_one_line(metadata.error());
    }

    // The whole input, and each line, as each kind of text.
    std::size_t start = 0;
    int lines = 0;
    while (start <= size && lines++ < 256) {
        const std::size_t end = std::min(text.find('\n', start), size);
        const std::string_view line = text.substr(start, end - start);
        if (const Expected<pk::Requirement> requirement = pk::parse_requirement(line)) {
            (void)pk::requirement_applies(*requirement, environment);
        } else {
            require_one_line(requirement.error());
        }
        if (const Expected<pk::MarkerVerdict> verdict = pk::evaluate_marker(line, environment, "cuda"); !verdict)
            require_one_line(verdict.error());
        if (const Expected<pk::Version> version = pk::parse_version(line)) {
            fuzz::require(pk::parse_version(version->text()).has_value(), "a version's own text does not parse",
                          version->text());
            fuzz::require(*pk::parse_version(version->text()) == *version, "a version differs from its own text",
                          version->text());
        }
        if (const Expected<pk::SpecifierSet> set = pk::parse_specifier_set(line)) {
            const Expected<pk::Version> version = pk::parse_version("13.0.2+cu130");
            (void)pk::specifier_allows(*set, *version, false);
        } else {
            require_one_line(set.error());
        }
        if (const Expected<pk::WheelName> wheel = pk::parse_wheel_filename(line)) {
            const pk::WheelFit fit = pk::wheel_fits(*wheel, pk::Interpreter{});
            fuzz::require(fit.fits || !fit.why_not.empty(), "a wheel that does not fit, without a reason");
            fuzz::require(fit.why_not.find('\n') == std::string::npos, "a reason of more than one line", fit.why_not);
        } else {
            require_one_line(wheel.error());
        }
        (void)pk::cuda_major_of_name(line);
        start = end + 1;
    }
    return 0;
}
