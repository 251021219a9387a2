#!/usr/bin/env bash
# Installs what a role needs (each role installs only its own; the scripts that need a
# role's set run its script themselves, so this is for preparing a machine ahead of time):
#   build           tools/deps/build.sh           CMake, Ninja, g++, CLI11, fmt, nlohmann/json (tools/run.sh)
#   test            tools/deps/test.sh            + GoogleTest, zsh, fish, groff, .devtools/venv with the
#                                                 validators' modules, promtool, cuobjdump (tools/test.sh)
#   ci              tools/deps/ci.sh              Slurm and munge (no service enabled), headless Chromium,
#                                                 the host_config.h files, ccache (.ci/run)
#   zig             tools/deps/zig.sh             zig into .devtools/ (tools/release.sh, tools/build-wheel.sh)
#   fuzz            tools/deps/fuzz.sh            clang and libFuzzer (tools/fuzz.sh)
#   packages        tools/deps/packages.sh        rpm and man-db (tools/check-packages.sh)
#   older-userland  tools/deps/older-userland.sh  debootstrap and curl (tools/check-older-userland.sh)
#   all             every one of them (what CI's machine holds; the default)
# The CUDA toolkit itself must already be installed (nvcc on PATH, in $CUDACXX or in /usr/local/cuda).
#
# Usage: tools/install-deps.sh [ROLE...]     (no role: all)
set -euo pipefail
deps=$(dirname "$0")/deps
roles=("$@")
[ ${#roles[@]} -gt 0 ] || roles=(all)
for role in "${roles[@]}"; do
    case $role in
        all) for one in build test ci zig fuzz packages older-userland; do "$deps/$one.sh"; done ;;
        build | test | ci | zig | fuzz | packages | older-userland) "$deps/$role.sh" ;;
        -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "install-deps.sh: unknown role '$role' (build, test, ci, zig, fuzz, packages, older-userland, all)" >&2; exit 2 ;;
    esac
done
