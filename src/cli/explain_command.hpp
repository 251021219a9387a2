// `cudacheck explain CODE` and `cudacheck explain --markdown`: the finding catalogue.
#pragma once

#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace cudacheck {

struct ExplainCommandOptions {
    std::string code;
    bool markdown = false;
};

CLI::App* setup_explain(CLI::App& app, ExplainCommandOptions& options);
[[nodiscard]] int run_explain(const ExplainCommandOptions& options);

// The project's home, CPACK_PACKAGE_HOMEPAGE_URL of cmake/Packaging.cmake (a unit test holds the
// two equal); its docs/errors.md has an anchor per code.
inline constexpr std::string_view project_home_url = "https://github.com/cudacheck/cudacheck";
// Where `cmake --install` and the packages put docs/errors.md, under the prefix (src/CMakeLists.txt).
inline constexpr std::string_view installed_errors_md = "share/doc/cudacheck/errors.md";

// Where a reader of this binary finds a code documented (not the repository's
// docs/errors.md, which no package installs): for PREFIX/bin/cudacheck (`executable`, the
// binary's real path), PREFIX/share/doc/cudacheck/errors.md and the section, when that file is
// there (a package, `cmake --install`); else the code's anchor in the repository's errors.md
// online (a build tree, a Python wheel, a binary copied alone).
[[nodiscard]] std::string documentation_for(std::string_view code, const std::string& executable);

}  // namespace cudacheck
