#!/usr/bin/env bash
# Builds cudacheck and runs the whole test suite (CTest). Extra arguments go to CTest, e.g.
# `tools/test.sh -L gpu` for the GPU tests alone. Installs missing packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset default
cmake --build --preset default -j "$(nproc)"
ctest --preset default -j "$(nproc)" "$@"
