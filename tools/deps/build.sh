#!/usr/bin/env bash
# What building and running cudacheck needs (tools/run.sh), and nothing else: the CUDA
# toolkit is checked first (it is not installed from here: NVIDIA's repository provides it), then
# CMake (3.22 or newer), Ninja, g++ (C++20), CLI11, fmt, nlohmann/json and zlib (its static
# library, linked into the binary: cmake/Dependencies.cmake) are installed through apt-get where
# missing. No Python module, no test tool, no service.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
deps_require_nvcc

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
if command -v g++ >/dev/null; then
    deps_have_header CLI/CLI.hpp || missing+=(libcli11-dev)
    deps_have_header fmt/format.h || missing+=(libfmt-dev)
    deps_have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
    # zlib1g-dev holds both zlib.h and libz.a (g++ prints the bare name when it finds no such file).
    if ! deps_have_header zlib.h || [ "$(g++ -print-file-name=libz.a)" = libz.a ]; then missing+=(zlib1g-dev); fi
else
    missing+=(libcli11-dev libfmt-dev nlohmann-json3-dev zlib1g-dev)
fi
deps_apt_install "building cudacheck" "${missing[@]}"

# CMakePresets.json is version 3: CMake 3.22 is the oldest that reads it (CI builds with 3.22,
# tools/check-cmake-minimum.sh). Ubuntu 20.04 and Debian 11 ship older ones.
cmake_version=$(cmake --version | sed -n '1s/[^0-9]*\([0-9][0-9.]*\).*/\1/p')
if [ "$(printf '%s\n3.22\n' "$cmake_version" | sort -V | head -n 1)" != 3.22 ]; then
    deps_say "error: CMake $cmake_version is older than 3.22, the oldest that builds cudacheck. Install a newer one"
    deps_say "       (Kitware's APT repository, https://apt.kitware.com, or the distribution's backports), then run this again."
    exit 1
fi
