#!/usr/bin/env bash
# Makes the packages of the release binary with CPack (cmake/Packaging.cmake) in build-release and
# checks them as an administrator would use them: the .tar.gz and .rpm hold the binary, the man
# page, the three completions, the schema and the policy examples; the .deb installs with dpkg -i,
# `man cudacheck` opens, bash finds the completion, `cudacheck --version` runs, and it removes
# cleanly. Run after tools/release.sh. Installing needs root (or sudo). Installs rpm and man-db
# first where missing (tools/deps/packages.sh).
#
# Usage: tools/check-packages.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
fail() { echo "check-packages: $*" >&2; exit 1; }
tools/deps/packages.sh
# Everything the packages hold (tools/release.sh builds it all; another BUILD_DIR may hold less):
# the man page and the completions are targets of their own (src/CMakeLists.txt).
cmake --build "$build" --target all > /dev/null || fail "cannot build the man page and completions in $build"
rm -f "$build"/cudacheck[-_]0*.{deb,rpm,tar.gz}
generators="TGZ;DEB;RPM"
(cd "$build" && cpack -G "$generators" > /dev/null 2>&1) || fail "cpack -G '$generators' failed in $build"
wanted="usr/bin/cudacheck usr/share/man/man1/cudacheck.1 usr/share/bash-completion/completions/cudacheck usr/share/zsh/site-functions/_cudacheck
        usr/share/fish/vendor_completions.d/cudacheck.fish usr/share/cudacheck/report.schema.json usr/share/cudacheck/policies/cluster-node.json
        usr/share/cudacheck/slurm/cudacheck-healthcheck.sh"
tarball=$(ls "$build"/cudacheck-*-Linux.tar.gz)
listing=$(tar tzf "$tarball")  # grep -q would end tar early (SIGPIPE) under pipefail: list once
for file in $wanted; do grep -q "/$file$" <<< "$listing" || fail "$tarball has no $file"; done
echo "$(basename "$tarball"): every file"
rpm_file=$(ls "$build"/cudacheck-*.rpm)
listing=$(rpm -qpl "$rpm_file" 2>/dev/null)
for file in $wanted; do grep -qx "/$file" <<< "$listing" || fail "$rpm_file has no /$file"; done
echo "$(basename "$rpm_file"): every file; requires $(rpm -qpR "$rpm_file" 2>/dev/null | grep glibc)"
deb=$(ls "$build"/cudacheck_*.deb)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo dpkg -i "$deb" > /dev/null
trap '$sudo dpkg -r cudacheck > /dev/null 2>&1 || true' EXIT
[ "$(command -v cudacheck)" = /usr/bin/cudacheck ] || fail "dpkg -i put no cudacheck in /usr/bin"
/usr/bin/cudacheck --version
page=$(MANWIDTH=80 man cudacheck 2>/dev/null)
grep -q "^NAME" <<< "$page" || fail "man cudacheck does not open the page"
completion=$(bash -c 'source /usr/share/bash-completion/completions/cudacheck && complete -p cudacheck')
grep -q _cudacheck <<< "$completion" || fail "bash does not load the completion"
echo "$(basename "$deb"): installs, man cudacheck opens, bash completes"
$sudo dpkg -r cudacheck > /dev/null
[ ! -e /usr/bin/cudacheck ] || fail "dpkg -r left /usr/bin/cudacheck"
trap - EXIT
echo "check-packages: pass"
