#!/usr/bin/env bash
# zig, the portable release binary's compiler and linker (cmake/toolchains/zig-glibc-2.28.cmake:
# clang with LLVM's libc++ against glibc 2.28's symbol versions), for tools/release.sh: PyPI's
# ziglang wheel, downloaded with .devtools/venv's pip and unpacked into .devtools/ziglang-VERSION
# (git ignores it; 381 MB), not installed. 0.15.2 brings clang 20, the newest nvcc 13.0 accepts.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$deps_root"
zig_version=0.15.2
zig_dir=".devtools/ziglang-$zig_version"
[ -x "$zig_dir/ziglang/zig" ] && exit 0
deps_say "fetching: zig $zig_version (PyPI's ziglang wheel, unpacked into .devtools/)"
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
if deps_pip_download "$download" "ziglang==$zig_version" &&
    "$deps_venv_python" -m zipfile -e "$download"/ziglang-*.whl "$zig_dir.partial"; then
    chmod +x "$zig_dir.partial/ziglang/zig"
    rm -rf "$zig_dir"
    mv "$zig_dir.partial" "$zig_dir"
else
    rm -rf "$zig_dir.partial"
    deps_say "error: could not fetch zig $zig_version from PyPI; the release binary cannot be built without it"
    exit 1
fi
