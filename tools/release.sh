#!/usr/bin/env bash
# Builds the portable release binary (CMake preset `release`: build-release/cudacheck, for
# glibc 2.28 and newer, no libstdc++ needed, stripped) with its man page and shell completions,
# and checks the binary (tools/check-release-binary.sh). CUDA architectures: the default list
# (cmake/CudaArchitectures.cmake); pass -DCMAKE_CUDA_ARCHITECTURES=... after `--` to choose.
#
# It installs what building needs (tools/deps/build.sh, python3 for the man page) and
# zig (tools/deps/zig.sh, into .devtools/), and builds every target of build-release, so that the
# README's `cmake --install build-release` and `cpack` work from the tree it leaves
# (tests/support/check_readme_install.sh runs exactly those lines).
#
# Usage: tools/release.sh [-- extra cmake configure arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps/build.sh
# The man page is written by tools/make-manpage.py: without a python3 CMake leaves it out of the
# build and of what `cmake --install` installs.
if ! command -v python3 >/dev/null; then
    source tools/deps/lib.sh
    deps_apt_install "the man page (tools/make-manpage.py)" python3
fi
tools/deps/zig.sh
[ "${1:-}" = "--" ] && shift
# --fresh: a cache the wheel's build left (tools/build-wheel.sh shares build-release, its objects are
# the same) would install into the wheel's folders; the objects stay, nothing is rebuilt.
cmake --preset release --fresh "$@"
cmake --build --preset release -j "$(nproc)"
tools/check-release-binary.sh build-release/cudacheck
