#!/usr/bin/env bash
# Builds cudacheck with the oldest CMake the project supports, 3.22 (Ubuntu 22.04's), through the
# preset `minimal` (the binary alone, no tests, no GoogleTest): PyPI's cmake 3.22.6 wheel, unpacked
# into .devtools/ (git ignores it), configures build-cmake-3.22 and builds the binary for the
# default CUDA architectures; the binary must then run `--version` and `--level quick`. CI runs it,
# so a newer CMake feature cannot slip in.
#
# Usage: tools/check-cmake-minimum.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=3.22.6
dir=.devtools/cmake-$version
fail() { echo "check-cmake-minimum: $*" >&2; exit 1; }
if [ ! -x "$dir/cmake/data/bin/cmake" ]; then
    echo "fetching: cmake $version (PyPI's cmake wheel, unpacked into .devtools/)"
    download=$(mktemp -d)
    python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 --python-version 3.11 \
        --dest "$download" "cmake==$version" || fail "could not download cmake $version from PyPI"
    rm -rf "$dir.partial"
    python3 -m zipfile -e "$download"/cmake-*.whl "$dir.partial"
    chmod +x "$dir.partial"/cmake/data/bin/*
    rm -rf "$download" "$dir"
    mv "$dir.partial" "$dir"
fi
cmake=$dir/cmake/data/bin/cmake
"$cmake" --version | head -n 1
"$cmake" --preset minimal -B build-cmake-3.22
"$cmake" --build build-cmake-3.22 --target cudacheck -j "$(nproc)"
build-cmake-3.22/cudacheck --version || fail "the binary CMake 3.22 built does not run"
build-cmake-3.22/cudacheck --level quick > /dev/null && code=0 || code=$?
[ "$code" -le 1 ] || fail "the binary CMake 3.22 built exited $code at --level quick"
echo "check-cmake-minimum: CMake $version configures and builds cudacheck (preset minimal)"
