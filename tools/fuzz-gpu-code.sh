#!/usr/bin/env bash
# Fuzzes the reader behind `cudacheck inspect` with libFuzzer (clang, ASan, UBSan) for SECONDS
# (default 60), starting from the nvcc fixtures the test build makes (build/tests/gpu-code-fixtures).
# Optional: CI runs the bounded property test (GpuCodeRobustness) instead. Crashes land in
# build/fuzz/artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
mkdir -p build/fuzz/corpus build/fuzz/artifacts
cp build/tests/gpu-code-fixtures/* build/fuzz/corpus/ 2>/dev/null || true
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Isrc -Iinclude tests/fuzz/gpu_code_fuzz.cpp src/cuda/gpu_code.cpp src/cuda/arch_coverage.cpp src/util/system.cpp \
  -lfmt -o build/fuzz/gpu_code_fuzz
build/fuzz/gpu_code_fuzz -max_total_time="$seconds" -max_len=1048576 -timeout=5 \
  -artifact_prefix=build/fuzz/artifacts/ build/fuzz/corpus
