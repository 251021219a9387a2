#!/usr/bin/env bash
# On the GPU machine (issue 21, the default run against the driver's floor): the floor program and
# the default run in alternating rounds with traces; the PyTorch comparison at the default level
# and at --level full (3 rounds each); PyTorch's TF32 through each BLAS back-end; the default run
# with and without a tool attached to NVTX; whether Nsight Systems is installed (and an nsys
# profile of a default run if it is). Run after building build-gpu (the nvtx_recorder target too).
#
# Usage: OUT=dir [RUNS=9] bench/issue21_perf_on_gpu.sh
set -u
bin=$(realpath build-gpu/cudacheck)
out=${OUT:-gpu-out}/issue21-perf
mkdir -p "$out/traces"
python=/opt/torch/.venv/bin/python3

g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/context_creation.cpp -o build-gpu/context_creation -L/usr/local/cuda/lib64/stubs -lcuda -pthread
python3 bench/floor_ratio.py --runs "${RUNS:-9}" --traces 3 --trace-dir "$out/traces" build-gpu/context_creation "$bin" > "$out/floor-ratio.md" 2>&1
python3 bench/trace_phases.py "$out"/traces/trace-*.json > "$out/trace-phases.md" 2>&1
cat "$out/floor-ratio.md" "$out/trace-phases.md"

"$python" bench/compare_pytorch.py "$bin" --level standard --rounds 3 > "$out/compare-pytorch-standard.md" 2>&1
"$python" bench/compare_pytorch.py "$bin" --level full --rounds 3 > "$out/compare-pytorch-full.md" 2>&1
"$python" bench/pytorch_tf32_backends.py > "$out/pytorch-tf32-backends.txt" 2>&1
cat "$out"/compare-pytorch-*.md "$out/pytorch-tf32-backends.txt"

# NVTX: no tool (A) against the test recorder attached (B), first doing nothing with the ranges,
# then writing each to a file.
recorder=$(realpath "$(find build-gpu -name libnvtx_recorder.so | head -n 1)")
{
    echo "B: NVTX_INJECTION64_PATH=$recorder (ranges made, the tool does nothing with them)"
    python3 bench/compare_builds.py --runs 9 --env-b "NVTX_INJECTION64_PATH=$recorder" "$bin" "$bin"
    echo; echo "B: the same, writing every range to a file (NVTX_RECORDER_FILE)"
    rm -f /tmp/nvtx-ranges.txt
    python3 bench/compare_builds.py --runs 9 --env-b "NVTX_INJECTION64_PATH=$recorder" --env-b NVTX_RECORDER_FILE=/tmp/nvtx-ranges.txt "$bin" "$bin"
    echo "lines written over 10 runs: $(wc -l < /tmp/nvtx-ranges.txt)"
} > "$out/nvtx-cost.md" 2>&1
rm -f "$out/nvtx-ranges.txt"
NVTX_INJECTION64_PATH=$recorder NVTX_RECORDER_FILE="$out/nvtx-ranges.txt" "$bin" > /dev/null 2>&1
cat "$out/nvtx-cost.md"

{
    echo "nsys on PATH: $(command -v nsys || echo none)"
    ls -d /usr/local/cuda*/bin/nsys /usr/local/cuda*/nsight-systems* /opt/nvidia/nsight-systems* 2>&1
} > "$out/nsys.txt"
nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/*/bin/nsys 2>/dev/null | head -n 1)
if [ -n "$nsys" ]; then
    "$nsys" profile --trace=cuda,nvtx -o "$out/default" "$bin" > "$out/nsys-profile.txt" 2>&1
    "$nsys" stats --report nvtx_sum "$out/default.nsys-rep" >> "$out/nsys-profile.txt" 2>&1
fi
cat "$out/nsys.txt"
