#!/usr/bin/env bash
# Builds the Python wheel (pyproject.toml: scikit-build-core over the CMake project with the
# release toolchain) into dist/, then tags it for the glibc its executable really needs, as
# auditwheel finds it (manylinux_2_28 or older; the executable is the only binary in it).
#
# Usage: tools/build-wheel.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
pip_install() { python3 -m pip install --quiet "$@" 2>/dev/null || python3 -m pip install --quiet --break-system-packages "$@"; }
python3 -c 'import auditwheel' 2>/dev/null || pip_install auditwheel
python3 -c 'import wheel' 2>/dev/null || pip_install wheel
rm -rf dist/cudacheck-*.whl
python3 -m pip wheel . --no-deps --wheel-dir dist
built=$(ls dist/cudacheck-*-py3-none-linux_x86_64.whl)
# "is consistent with the following platform tag: manylinux_2_27_x86_64" (the most compatible).
tag=$(python3 -m auditwheel show "$built" | tr -s ' \n' ' ' | grep -oE 'following platform tag: "?manylinux_[0-9]+_[0-9]+_x86_64' | grep -oE 'manylinux_[0-9_]+x86_64' | head -n 1)
[ -n "$tag" ] || { python3 -m auditwheel show "$built"; echo "build-wheel: auditwheel found no manylinux tag for $built" >&2; exit 1; }
python3 -m wheel tags --remove --platform-tag "$tag" "$built" > /dev/null
ls dist/cudacheck-*.whl
