#!/usr/bin/env bash
# What tools/check-packages.sh needs beside the release build: rpmbuild, for CPack's RPM generator
# (rpm), and man, which opens the installed page (man-db).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
missing=()
command -v rpmbuild >/dev/null || missing+=(rpm)
command -v man >/dev/null || missing+=(man-db)
deps_apt_install "checking the packages (tools/check-packages.sh)" "${missing[@]}"
