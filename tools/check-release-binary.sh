#!/usr/bin/env bash
# Checks the portable release binary (CMake preset `release`): the glibc symbol versions
# it needs (at most GLIBC_2.28, so RHEL 8, Ubuntu 20.04 and newer load it), no GLIBCXX or CXXABI
# symbol (no libstdc++ needed at run time), its only shared libraries (libc, libm, libdl, libpthread,
# librt, the loader: zlib, which reads wheels, is linked in from libz.a, never libz.so.1), its size (at most 10 MB), and that it runs here: `--level quick` and, on a
# machine without a driver, the default run's report (exit 1, CC201 or CC210). Exits 1 on the first failure.
#
# Usage: tools/check-release-binary.sh [build-release/cudacheck]
set -euo pipefail
bin=${1:-build-release/cudacheck}
fail() { echo "check-release-binary: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "$bin is not an executable (tools/release.sh builds it)"

symbols=$(objdump -T "$bin")
highest=$(grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' <<< "$symbols" | sed 's/GLIBC_//' | sort -V | tail -n 1)
echo "highest GLIBC symbol version: ${highest:-none}"
[ "$(printf '%s\n2.28\n' "$highest" | sort -V | tail -n 1)" = 2.28 ] || fail "needs GLIBC_$highest, more than 2.28: $(grep "GLIBC_$highest" <<< "$symbols" | awk '{print $NF}' | tr '\n' ' ')"
if grep -qE 'GLIBCXX_|CXXABI_' <<< "$symbols"; then
    fail "needs libstdc++: $(grep -oE '(GLIBCXX|CXXABI)_[0-9.]+' <<< "$symbols" | sort -uV | tr '\n' ' ')"
fi
needed=$(objdump -p "$bin" | awk '/NEEDED/ {print $2}' | tr '\n' ' ')
echo "shared libraries: $needed"
for library in $needed; do
    case $library in
        libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | librt.so.1 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;;
        *) fail "needs $library at load time" ;;
    esac
done
size=$(stat -c %s "$bin")
echo "size: $size bytes"
[ "$size" -le $((10 * 1024 * 1024)) ] || fail "$size bytes, more than 10 MB"
file "$bin" 2>/dev/null | grep -q 'stripped' && ! file "$bin" | grep -q 'not stripped' || fail "not stripped"

"$bin" --version
"$bin" --level quick > /dev/null && quick=0 || quick=$?
echo "--level quick: exit $quick"
# Without a driver (this project's build machines), the default run names it: exit 1 with CC201 (no
# kernel module: the one finding, libcuda's CC210 kept as its evidence) or CC210.
if [ ! -e /dev/nvidiactl ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
    report=$("$bin" --format json) && code=0 || code=$?
    [ "$code" = 1 ] || fail "the default run without a driver exited $code, not 1"
    grep -q -E '"code": "CC(201|210)"' <<< "$report" || fail "the default run without a driver reported neither CC201 nor CC210"
    echo "no driver: exit 1 with CC201 or CC210, as expected"
fi
echo "check-release-binary: $bin passes"
