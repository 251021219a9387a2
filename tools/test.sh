#!/usr/bin/env bash
# Builds cudacheck with its tests (CMake preset `default`, into build/) and runs the whole test
# suite (CTest). Extra arguments go to CTest, e.g. `tools/test.sh -L gpu` for the GPU tests alone.
#
# tools/deps/test.sh installs first what building needs (tools/deps/build.sh) and what the
# tests need (GoogleTest, zsh, fish, groff through apt-get; the validators' Python modules into the
# project's own .devtools/venv, never the user's Python; promtool, cuobjdump and a setuptools wheel
# unpacked or downloaded into folders git ignores). What only CI's tests use (Slurm, Chromium, the
# host_config.h files) is tools/deps/ci.sh's; without it those tests say SKIPPED.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps/test.sh
# The validators run with .devtools/venv's interpreter (tests/CMakeLists.txt); the tests of Python as
# a client (the import corpus, the frameworks' probe scripts) keep the interpreter CMake finds.
configure=(-DCUDACHECK_TEST_PYTHON="$PWD/.devtools/venv/bin/python3")
# ccache where it is installed (CI: tools/deps/ci.sh): tools/check-cmake-minimum.sh then compiles the
# same sources with the same flags from its cache. base_dir makes the absolute paths into the source
# and build folders relative, and hash_dir=false leaves the build folder out of the hash of objects
# with debug information ("Compiling in different directories" in ccache's manual,
# https://ccache.dev/manual/4.7.html#_compiling_in_different_directories).
if command -v ccache >/dev/null; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER="env;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=true;ccache")
fi
cmake --preset default "${configure[@]}"
cmake --build --preset default -j "$(nproc)"
# cuobjdump unpacked from NVIDIA's wheel where the toolkit has none (tools/deps/test.sh): the inspect
# tests look for it on PATH.
[ -x .devtools/bin/cuobjdump ] && export PATH="$PWD/.devtools/bin:$PATH"
ctest --preset default -j "$(nproc)" "$@"
