#!/usr/bin/env bash
# Builds cudacheck and runs it; arguments go to cudacheck (e.g. `tools/run.sh --format json`).
# Installs missing packages first. Exits with cudacheck's exit code.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh >&2
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target cudacheck >/dev/null
exec build/cudacheck "$@"
