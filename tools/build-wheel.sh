#!/usr/bin/env bash
# Builds the Python wheel (pyproject.toml: scikit-build-core over the CMake project with the
# release toolchain) into dist/, then tags it for the glibc its executable really needs, as
# auditwheel finds it (manylinux_2_28 or older; the executable is the only binary in it).
#
# pip, auditwheel and wheel are .devtools/venv's (tools/deps/lib.sh), never the user's
# Python; the build's own requirements (scikit-build-core, ziglang) come into pip's isolated build
# environment, as for any user who builds it.
#
# Usage: tools/build-wheel.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps/build.sh
source tools/deps/lib.sh
deps_venv_modules auditwheel:auditwheel wheel:wheel
python=$deps_venv_python
rm -rf dist/cudacheck-*.whl
"$python" -m pip wheel . --no-deps --wheel-dir dist
built=$(ls dist/cudacheck-*-py3-none-linux_x86_64.whl)
# "is consistent with the following platform tag: manylinux_2_27_x86_64" (the most compatible).
tag=$("$python" -m auditwheel show "$built" | tr -s ' \n' ' ' | grep -oE 'following platform tag: "?manylinux_[0-9]+_[0-9]+_x86_64' | grep -oE 'manylinux_[0-9_]+x86_64' | head -n 1)
[ -n "$tag" ] || { "$python" -m auditwheel show "$built"; echo "build-wheel: auditwheel found no manylinux tag for $built" >&2; exit 1; }
"$python" -m wheel tags --remove --platform-tag "$tag" "$built" > /dev/null
ls dist/cudacheck-*.whl
