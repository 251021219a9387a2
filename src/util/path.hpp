// Splitting a path into its directory and file name, as POSIX dirname(1) and basename(1) do, for
// the paths cudacheck reports (library copies, loader entries, interpreters).
#pragma once

#include <string>
#include <string_view>

namespace cudacheck::sys {

// "/usr/lib/libcuda.so.1" -> "/usr/lib"; "/libcuda.so.1" -> "/"; "libcuda.so.1" (no slash) -> ".".
[[nodiscard]] std::string directory_of(std::string_view path);
// "/usr/lib/libcuda.so.1" -> "libcuda.so.1"; a path without a slash is its own file name.
[[nodiscard]] std::string_view file_name_of(std::string_view path);

// `path` made absolute against `base` without resolving symlinks, as Python's os.path.abspath does
// ("." and ".." removed lexically, repeated slashes folded; POSIX keeps exactly two leading
// slashes): "env/bin/python" in /home/u -> "/home/u/env/bin/python", the link itself.
[[nodiscard]] std::string absolute_path(std::string_view path, std::string_view base);

}  // namespace cudacheck::sys
