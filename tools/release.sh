#!/usr/bin/env bash
# Builds the portable release binary (CMake preset `release`: build-release/cudacheck, for
# glibc 2.28 and newer, no libstdc++ needed, stripped) and checks it (tools/check-release-binary.sh).
# Installs missing packages and zig first. CUDA architectures: the default list
# (cmake/CudaArchitectures.cmake); pass -DCMAKE_CUDA_ARCHITECTURES=... after `--` to choose.
#
# Usage: tools/release.sh [-- extra cmake configure arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ "${1:-}" = "--" ] && shift
# --fresh: a cache the wheel's build left (tools/build-wheel.sh shares build-release, its objects are
# the same) would install into the wheel's folders; the objects stay, nothing is rebuilt.
cmake --preset release --fresh "$@"
cmake --build --preset release -j "$(nproc)"
tools/check-release-binary.sh build-release/cudacheck
