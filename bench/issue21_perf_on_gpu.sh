#!/usr/bin/env bash
# On the GPU machine (issue 21, the default run against the driver's floor): the floor program and
# the default run in alternating rounds with traces; the same after the GPU sat idle 0-2 s
# (bench/idle_gap.py); TF32 through each cuBLAS call beside torch.mm (bench/tf32_calls.py); the
# PyTorch comparison at the default level (and at --level full unless FULL=0), 3 rounds each;
# the default run built with and without NVTX ranges, with no tool and with a tool attached;
# whether Nsight Systems is installed (and an nsys profile of a default run if it is). Run after
# building build-gpu (the nvtx_recorder target too): it builds build-gpu's cudacheck once more
# with -DCUDACHECK_NVTX=OFF as build-gpu/cudacheck-nonvtx and restores the option.
#
# Usage: OUT=dir [RUNS=9] [FULL=1] bench/issue21_perf_on_gpu.sh
set -u
bin=$(realpath build-gpu/cudacheck)
out=${OUT:-gpu-out}/issue21-perf
mkdir -p "$out/traces"
python=/opt/torch/.venv/bin/python3

g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/context_creation.cpp -o build-gpu/context_creation -L/usr/local/cuda/lib64/stubs -lcuda -pthread
python3 bench/floor_ratio.py --runs "${RUNS:-9}" --traces 3 --trace-dir "$out/traces" build-gpu/context_creation "$bin" > "$out/floor-ratio.md" 2>&1
python3 bench/trace_phases.py "$out"/traces/trace-*.json > "$out/trace-phases.md" 2>&1
cat "$out/floor-ratio.md" "$out/trace-phases.md"
python3 bench/idle_gap.py --rounds 5 build-gpu/context_creation "$bin" > "$out/idle-gap.md" 2>&1
cat "$out/idle-gap.md"

"$python" bench/tf32_calls.py --rounds 3 > "$out/tf32-calls.md" 2>&1
"$python" bench/compare_pytorch.py "$bin" --level standard --rounds 3 > "$out/compare-pytorch-standard.md" 2>&1
[ "${FULL:-1}" = 1 ] && "$python" bench/compare_pytorch.py "$bin" --level full --rounds 3 > "$out/compare-pytorch-full.md" 2>&1
cat "$out/tf32-calls.md" "$out"/compare-pytorch-*.md

# NVTX: the binary built without the ranges (B) against the one with them (A), first with no tool
# (what the ranges cost when nobody looks), then both with the test recorder attached (what a tool
# costs: the CUDA libraries' own NVTX instrumentation answers it too).
cmake -DCUDACHECK_NVTX=OFF build-gpu > /dev/null && cmake --build build-gpu --target cudacheck > /dev/null &&
    cp build-gpu/cudacheck build-gpu/cudacheck-nonvtx
cmake -DCUDACHECK_NVTX=ON build-gpu > /dev/null && cmake --build build-gpu --target cudacheck > /dev/null
nonvtx=$(realpath build-gpu/cudacheck-nonvtx)
recorder=$(realpath "$(find build-gpu -name libnvtx_recorder.so | head -n 1)")
{
    echo "A: build-gpu/cudacheck (NVTX ranges built in), B: the same sources built with -DCUDACHECK_NVTX=OFF; no tool attached"
    python3 bench/compare_builds.py --runs 9 "$bin" "$nonvtx"
    echo; echo "A and B with NVTX_INJECTION64_PATH=$recorder (the tool does nothing with the ranges)"
    python3 bench/compare_builds.py --runs 9 --env-a "NVTX_INJECTION64_PATH=$recorder" --env-b "NVTX_INJECTION64_PATH=$recorder" "$bin" "$nonvtx"
} > "$out/nvtx-cost.md" 2>&1
rm -f "$out/nvtx-ranges.txt"
NVTX_INJECTION64_PATH=$recorder NVTX_RECORDER_FILE="$out/nvtx-ranges.txt" "$bin" > /dev/null 2>&1
NVTX_INJECTION64_PATH=$recorder NVTX_RECORDER_FILE="$out/nvtx-ranges-nonvtx-build.txt" "$nonvtx" > /dev/null 2>&1
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
