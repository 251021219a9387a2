#!/usr/bin/env bash
# What tools/check-older-userland.sh needs: debootstrap, which makes the Ubuntu 20.04 root, curl,
# which fetches Ubuntu's archive key, and jsonschema in .devtools/venv, which validates the reports
# made in it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
missing=()
[ -x /usr/sbin/debootstrap ] || missing+=(debootstrap)
command -v curl >/dev/null || missing+=(curl)
deps_apt_install "running the release binary in Ubuntu 20.04 (tools/check-older-userland.sh)" "${missing[@]}"
deps_venv_modules jsonschema:jsonschema
