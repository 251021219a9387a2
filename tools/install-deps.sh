#!/usr/bin/env bash
# Installs, if missing, what building and testing cudacheck needs on Debian/Ubuntu: CMake, Ninja,
# a C++20 compiler, CLI11, fmt, nlohmann/json, GoogleTest, and Python's jsonschema and junitparser
# (for the schema and JUnit tests). The CUDA toolkit itself must already be installed (nvcc on PATH or in /usr/local/cuda).
set -euo pipefail

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
have_header() { echo "#include <$1>" | g++ -std=c++20 -x c++ -fsyntax-only - >/dev/null 2>&1; }
if command -v g++ >/dev/null; then
  have_header CLI/CLI.hpp || missing+=(libcli11-dev)
  have_header fmt/format.h || missing+=(libfmt-dev)
  have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
  have_header gtest/gtest.h || missing+=(libgtest-dev)
else
  missing+=(libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev)
fi
python3 -c 'import jsonschema' 2>/dev/null || missing+=(python3-jsonschema)
# The JUnit output is checked by a real JUnit reader (tests/support/validate_junit.py).
python3 -c 'import junitparser' 2>/dev/null || missing+=(python3-junitparser)

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  echo "error: the CUDA toolkit (nvcc) was not found. Install it from NVIDIA's repository (e.g. cuda-toolkit-13-0)," >&2
  echo "       or point CUDACXX at nvcc." >&2
  exit 1
fi
