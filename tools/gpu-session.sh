#!/usr/bin/env bash
# What the project runs on the GPU machine (see docs/performance.md and docs/examples/README.md):
# build for Hopper, run every test including the GPU ones, record the real outputs next to
# nvidia-smi's, and time whole runs. Writes at most 8 files under $OUT (default ./gpu-out).
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
log=$(mktemp)
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$log" 2>&1 &&
  cmake --build build-gpu -j16 >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
(cd build-gpu && ctest --output-on-failure -j8; echo "ctest exit $?") > "$out/ctest.txt" 2>&1
(cd build-gpu && ctest -L gpu -V) > "$out/ctest-gpu.txt" 2>&1
bin=build-gpu/cudacheck
{ echo "\$ cudacheck"; "$bin" --no-color; echo "exit $?"; echo; echo "\$ cudacheck --level quick"; "$bin" --no-color --level quick; echo "exit $?"; } > "$out/cudacheck-table.txt" 2>&1
{ echo "\$ cudacheck -v"; "$bin" --no-color -v; } > "$out/cudacheck-verbose.txt" 2>&1
"$bin" --format json > "$out/cudacheck.json" 2>&1
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1
{ python3 bench/startup.py --runs 5 "$bin"; echo; echo '$ ldd cudacheck'; ldd "$bin"; } > "$out/startup.md" 2>&1
python3 bench/compare_pytorch.py "$bin" > "$out/compare-pytorch.md" 2>&1
grep -E "tests passed|ctest exit|Failed|Skipped" "$out/ctest.txt" | head -20; cat "$out/cudacheck-table.txt" "$out/startup.md" "$out/compare-pytorch.md"
