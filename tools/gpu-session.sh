#!/usr/bin/env bash
# What the project runs on the GPU machine (docs/performance.md, docs/examples/README.md): build for
# Hopper, run every test including the GPU ones, record the real outputs next to nvidia-smi's, time
# whole runs on one GPU and on all of them, compare with PyTorch, and reproduce the diagnoses
# (tools/gpu-diagnosis.sh). Everything lands in one archive, $OUT/gpu-session.tgz (the device tool
# brings back at most 8 files): h200/ holds the one-GPU recordings (CUDA_VISIBLE_DEVICES=0),
# all-gpus/ those with every GPU visible, timing/ the one-against-several-GPU experiments. Changes
# no GPU setting.
#
# All of it takes longer than one device call may (10 minutes): PARTS picks what runs, e.g.
# `PARTS="timing tests" OUT=$OUT tools/gpu-session.sh`, then `PARTS=recordings` in the next call
# (the build is kept while the machine stays warm). Default: all three, timing first (on a machine
# nothing else has used yet), then tests, then recordings.
set -uo pipefail
out=${OUT:-gpu-out}
parts=" ${PARTS:-timing tests recordings} "
part() { [[ $parts == *" $1 "* ]]; }
work=$(mktemp -d)
one=$work/h200
all=$work/all-gpus
mkdir -p "$out" "$one" "$all"
# NVLink multicast stays off in everything NCCL-based run here (the GPU machine's rule; cudacheck's
# nccl.allreduce sets it itself as well).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
finish() { tar czf "$out/gpu-session.tgz" -C "$work" . && rm -rf "$work"; }
trap finish EXIT
trap 'exit 143' TERM  # a timeout's SIGTERM still writes the archive
SECONDS=0
log=$work/build.log
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
echo "built in $SECONDS s"
bin=build-gpu/cudacheck
gpus=$(nvidia-smi -L | wc -l)

# Several GPUs against one, to show a run does not get slower with more GPUs: the primary contexts
# created one after another and side by side (bench/context_creation.cpp), whole runs started on
# an idle machine and back to back (bench/startup.py), and the milestones of traced runs
# (bench/trace_phases.py).
if part timing; then
    timing=$work/timing
    mkdir -p "$timing"
    g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/context_creation.cpp -o "$work/context_creation" -lcuda -pthread
    for visible in 0 all; do
        for round in 1 2 3 4 5 6; do
            for mode in sequential parallel; do
                if [ "$visible" = all ]; then "$work/context_creation" "$mode"; else CUDA_VISIBLE_DEVICES=0 "$work/context_creation" "$mode"; fi
                sleep 0.5
            done
        done
    done > "$timing/context-creation.jsonl" 2>&1
    for visible in 0 0,1; do
        { echo "CUDA_VISIBLE_DEVICES=$visible, each run on an idle machine:"; CUDA_VISIBLE_DEVICES=$visible python3 bench/startup.py --runs 11 --default-only "$bin";
          echo; echo "CUDA_VISIBLE_DEVICES=$visible, back to back:"; CUDA_VISIBLE_DEVICES=$visible python3 bench/startup.py --runs 11 --default-only --back-to-back "$bin"; } > "$timing/startup-$visible.md" 2>&1
        for run in 1 2 3 4 5 6 7; do
            sleep 1
            CUDA_VISIBLE_DEVICES=$visible CUDACHECK_TRACE="$timing/trace-$visible-$run.json" "$bin" -q -o "$timing/report-$visible-$run.json"
        done
        python3 bench/trace_phases.py "$timing"/trace-$visible-*.json > "$timing/phases-$visible.md" 2>&1
    done
    echo "timing done at $SECONDS s"
    python3 - "$timing/context-creation.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
for devices in sorted({row["devices"] for row in rows}):
    for mode in ("sequential", "parallel"):
        picked = [row for row in rows if row["devices"] == devices and row["mode"] == mode]
        if picked:
            print(f"{devices} GPU(s) {mode}: cuInit {statistics.median(r['cuinit_ms'] for r in picked):.0f} ms, contexts {statistics.median(r['contexts_ms'] for r in picked):.0f} ms (median of {len(picked)})")
PY
    cat "$timing"/startup-*.md "$timing"/phases-*.md | grep "^|"
fi

# Tests: every test with every GPU visible (the multi-GPU ones need them), then the GPU ones on one GPU.
if part tests; then
    (cd build-gpu && timeout 300 ctest --output-on-failure -j8; echo "ctest exit $?") > "$all/ctest.txt" 2>&1
    (cd build-gpu && CUDA_VISIBLE_DEVICES=0 timeout 240 ctest -L gpu -V; echo "ctest exit $?") > "$one/ctest-gpu.txt" 2>&1
    echo "tests done at $SECONDS s"
    grep -E "tests passed|ctest exit|\(Failed\)" "$all/ctest.txt" "$one/ctest-gpu.txt"
fi

# Outputs, for one GPU and for all.
record() {
    local dir=$1
    { echo "\$ cudacheck"; "$bin" --no-color; echo "exit $?"; echo; echo "\$ cudacheck --level quick"; "$bin" --no-color --level quick; echo "exit $?"; } > "$dir/cudacheck-table.txt" 2>&1
    { echo "\$ cudacheck -v"; "$bin" --no-color -v; } > "$dir/cudacheck-verbose.txt" 2>&1
    "$bin" --format json > "$dir/cudacheck.json" 2>&1
    { echo "\$ cudacheck --level full -v"; "$bin" --no-color --level full -v; echo "exit $?"; } > "$dir/cudacheck-full.txt" 2>&1
    CUDACHECK_TRACE="$dir/trace.json" "$bin" -q -o "$dir/traced-run.json"
    { python3 bench/startup.py --runs 7 "$bin"; echo; echo '$ ldd cudacheck'; ldd "$bin"; } > "$dir/startup-timing.md" 2>&1
}
if part recordings; then
    CUDA_VISIBLE_DEVICES=0 record "$one"
    nvidia-smi -q > "$one/nvidia-smi-q.txt" 2>&1
    CUDA_VISIBLE_DEVICES=0 python3 bench/compare_pytorch.py "$bin" > "$one/compare-pytorch.md" 2>&1
    if [ "$gpus" -gt 1 ]; then
        record "$all"
        nvidia-smi topo -m > "$all/nvidia-smi-topo.txt" 2>&1
        # NCCL must not pick NVLS (multicast): its own log says which algorithms it considers.
        { echo '$ NCCL_DEBUG=INFO cudacheck --only nccl.allreduce --level full -v'; NCCL_DEBUG=INFO "$bin" --no-color --only nccl.allreduce --level full -v 2>&1; } > "$all/nccl-debug.txt" 2>&1
    fi
    # inspect on PyTorch's libtorch_cuda.so next to cuobjdump, which must agree, and where every CUDA library
    # resolves with the system's copies and the PyTorch wheels' side by side.
    torch_cuda=$(python3 -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch_cuda.so'))" 2>/dev/null)
    if [ -f "$torch_cuda" ]; then
        { ls -l "$torch_cuda"; python3 bench/inspect_timing.py --runs 5 "$bin" "$torch_cuda"; echo; CUDA_VISIBLE_DEVICES=0 "$bin" inspect --no-color "$torch_cuda";
          echo; echo "\$ CUDACHECK_TEST_GPU_CODE_FILES=$torch_cuda ctest -R listing_equals_cuobjdump -V";
          (cd build-gpu && CUDACHECK_TEST_GPU_CODE_FILES="$torch_cuda" ctest -R listing_equals_cuobjdump -V 2>&1 | grep -E "code objects|Passed|Failed|Failure|Skipped"); } > "$one/inspect-libtorch-cuda.md" 2>&1
    fi
    { echo '$ cudacheck --only libraries.resolution -v'; CUDA_VISIBLE_DEVICES=0 "$bin" --no-color --only libraries.resolution -v;
      echo; echo '$ ldconfig -p | grep -E "libcudnn.so|libcublas.so"'; ldconfig -p | grep -E "libcudnn.so|libcublas.so";
      echo; echo '$ find /usr /opt /lib -name "libcudnn.so.*" -o -name "libcublas.so.*"'; find /usr /opt /lib -name "libcudnn.so.*" -o -name "libcublas.so.*" 2>/dev/null | sort;
      echo; echo '$ python3 bench/startup.py-style: median of 7 runs of the check alone'; for i in 1 2 3 4 5 6 7; do CUDA_VISIBLE_DEVICES=0 "$bin" --only libraries.resolution --format json | python3 -c "import json,sys; print(round(json.load(sys.stdin)['checks'][0]['duration_ms'], 1))"; done | sort -n | sed -n 4p | sed 's/^/median duration_ms: /'; } > "$one/libraries.txt" 2>&1
    echo "recordings done at $SECONDS s"
    CUDA_VISIBLE_DEVICES=0 OUT="$one" timeout 240 tools/gpu-diagnosis.sh > /dev/null 2>&1
    echo "diagnosis done at $SECONDS s"
    grep -h "passed\|failed" "$one/cudacheck-table.txt" "$all/cudacheck-table.txt" 2>/dev/null
    cat "$one/startup-timing.md" "$all/startup-timing.md" 2>/dev/null | grep "^|"
    cat "$one/compare-pytorch.md"
fi
