#!/usr/bin/env bash
# Builds cudacheck and runs it; arguments go to cudacheck (e.g. `tools/run.sh --format json`).
# Exits with cudacheck's exit code.
#
# It checks for the CUDA toolkit first (tools/deps/build.sh stops, with nothing installed,
# when nvcc is missing), installs through apt-get only what building needs (CMake, Ninja, g++,
# CLI11, fmt, nlohmann/json), and builds the binary a user runs: CMake preset `minimal` (Release:
# optimised, no debug information, no tests, no GoogleTest) into build-minimal/. No Python module,
# no test or release tool, no service; nothing is written outside the repository but what apt-get
# installs. The build's progress and every set-up message go to stderr; stdout is cudacheck's.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD
tools/deps/build.sh
# Configured once (ninja re-runs CMake itself when a CMakeLists.txt changes), and again when the
# presets change.
if [ ! -f build-minimal/build.ninja ] || [ CMakePresets.json -nt build-minimal/CMakeCache.txt ]; then
    cmake --preset minimal >&2
fi
cmake --build --preset minimal --target cudacheck >&2
# From the caller's folder: relative paths among the arguments (inspect FILE, --output) are theirs.
cd "$caller"
exec "$root/build-minimal/cudacheck" "$@"
