#!/usr/bin/env bash
# Builds cudacheck with the oldest CMake the project supports, 3.22 (Ubuntu 22.04's), through the
# preset `minimal` (the binary alone, no tests, no GoogleTest): PyPI's cmake 3.22.6 wheel, unpacked
# into .devtools/ (git ignores it), configures build-cmake-3.22 and builds the binary for the
# default CUDA architectures; the binary must then run `--version` and `--level quick`. CI runs it,
# so a newer CMake feature cannot slip in.
#
# The build type is the test build's (RelWithDebInfo, preset `default`) rather than the
# preset's Release, and the compiler goes through ccache where it is installed, with the settings
# tools/test.sh gives it: in CI, after the test build, every object then comes from the cache and
# CMake 3.22 still configures, generates and drives the whole build (its compile lines included),
# in about a minute instead of a second compilation of every source on two cores.
#
# Usage: tools/check-cmake-minimum.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps/lib.sh
version=3.22.6
dir=.devtools/cmake-$version
fail() { echo "check-cmake-minimum: $*" >&2; exit 1; }
tools/deps/build.sh
if [ ! -x "$dir/cmake/data/bin/cmake" ]; then
    echo "fetching: cmake $version (PyPI's cmake wheel, unpacked into .devtools/)"
    download=$(mktemp -d)
    deps_pip_download "$download" --only-binary=:all: --platform manylinux2014_x86_64 --python-version 3.11 "cmake==$version" ||
        fail "could not download cmake $version from PyPI"
    rm -rf "$dir.partial"
    "$deps_venv_python" -m zipfile -e "$download"/cmake-*.whl "$dir.partial"
    chmod +x "$dir.partial"/cmake/data/bin/*
    rm -rf "$download" "$dir"
    mv "$dir.partial" "$dir"
fi
cmake=$dir/cmake/data/bin/cmake
"$cmake" --version | head -n 1
configure=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if command -v ccache >/dev/null; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER="env;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=true;ccache")
    ccache --zero-stats >/dev/null
fi
"$cmake" --preset minimal -B build-cmake-3.22 "${configure[@]}"
"$cmake" --build build-cmake-3.22 --target cudacheck -j "$(nproc)"
if command -v ccache >/dev/null; then ccache --show-stats | grep -iE 'hits|misses' || true; fi
build-cmake-3.22/cudacheck --version || fail "the binary CMake 3.22 built does not run"
build-cmake-3.22/cudacheck --level quick > /dev/null && code=0 || code=$?
[ "$code" -le 1 ] || fail "the binary CMake 3.22 built exited $code at --level quick"
echo "check-cmake-minimum: CMake $version configures and builds cudacheck (preset minimal)"
