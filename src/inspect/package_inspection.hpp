// `cudacheck inspect` of Python distributions (the types are in inspection.hpp), before or after they are installed: a
// wheel read in place (util/zip_archive: its shared libraries are inflated on demand, never written to disk), or the
// distributions installed in a site-packages directory (their RECORD names their files). Per distribution, three
// questions joined into one verdict:
//   - would pip install it on the interpreter (its tags and Requires-Python, util/python_packaging)?
//   - do the NVIDIA wheels it pins need a newer CUDA than the driver's (its Requires-Dist)?
//   - does the GPU code of every shared library inside run on each target (cuda/gpu_code and the
//     rules of inspection.hpp's judge_target)?
#pragma once

#include "inspect/inspection.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// A wheel file, read in place.
[[nodiscard]] InspectedPackage inspect_wheel(const std::string& path, const PackageContext& context);
// Every distribution installed in `site_packages` with GPU code or NVIDIA pins, in name order.
[[nodiscard]] std::vector<InspectedPackage> inspect_site_packages(const std::string& site_packages,
                                                                  const PackageContext& context);
// Whether a directory holds a *.dist-info directory (a site-packages directory).
[[nodiscard]] bool has_dist_info(const std::string& directory);
// 2 when a package could not be read, else 1 when one would not install or cannot run, else 0.
[[nodiscard]] int package_exit_code(const std::vector<InspectedPackage>& packages);
// Whether `path` looks like a wheel (by its name: the zip is opened by inspect_wheel).
[[nodiscard]] bool is_wheel_path(const std::string& path);

// RECORD (the wheel spec's "The .dist-info directory"): CSV rows path,hash,size; the paths alone.
[[nodiscard]] std::vector<std::string> parse_record_paths(std::string_view record);

}  // namespace cudacheck
