#!/usr/bin/env bash
# On the GPU machine: the full level's pace, the timed figures by level, and the default run against
# the driver's floor, this revision against OLD_SOURCE_DIR (the code before the change).
#  1. builds both without tests (bench/two_builds.sh: NEW_BUILD_DIR and OLD_BUILD_DIR reuse a build
#     an earlier call on the same machine made);
#  2. `--level full --duration 5`, whole process, old and new alternating, ROUNDS rounds (default 2),
#     10 s idle before each (the burn-in heats the GPU: each run starts from the same rest), then one
#     more run of the new build with CUDACHECK_TRACE; each run's report kept;
#  3. the timed figures by level: the new build's default run right after a full run's rest, its
#     cublas.gemm and cuda.memory figures against the full runs' (bench/gemm_by_level.py), and
#     PyTorch's on the same work at the default level (bench/compare_pytorch.py, 3 rounds);
#  4. the default run against the driver's floor (bench/floor_ratio.py, 9 rounds, 3 traces);
#  5. the full runs' verdicts, old against new (bench/compare_verdicts.py).
# Nothing on the GPU is changed; the scratch directory is removed at the end.
#
# Usage: OUT=dir [ROUNDS=2] bench/issue40_on_gpu.sh OLD_SOURCE_DIR    writes OUT/issue40-full.tgz
set -uo pipefail
. "$(dirname "$0")/two_builds.sh"
two_builds issue40-full "$1"
{ nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,temperature.gpu --format=csv; "$new" --version; } > "$out/machine.txt" 2>&1

# 2. The full level, whole process.
python3 - "$out" "${ROUNDS:-2}" "$old" "$new" > "$out/full-timing.md" 2> "$out/full-timing.err" <<'PY'
import os, statistics, subprocess, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from startup import wait_for_workers
out, rounds, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
times = {"old": [], "new": []}
codes = {"old": set(), "new": set()}
def run(label, binary, report, environment=None):
    wait_for_workers(binary)
    time.sleep(10)
    start = time.perf_counter()
    completed = subprocess.run([binary, "--level", "full", "--duration", "5", "-o", report],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    return (time.perf_counter() - start), completed.returncode
for index in range(rounds):
    for label, binary in (("old", old), ("new", new)):
        seconds, code = run(label, binary, os.path.join(out, f"full-{label}-{index}.json"))
        times[label].append(seconds)
        codes[label].add(code)
traced, _ = run("new", new, os.path.join(out, "full-new-traced.json"),
                dict(os.environ, CUDACHECK_TRACE=os.path.join(out, "full-trace.json")))
print(f"`--level full --duration 5`, whole process, {rounds} rounds alternating, 10 s idle before each run\n")
print("| build | exit codes | median s | each run s |")
print("|---|---|---|---|")
for label in ("old", "new"):
    print(f"| {label} | {sorted(codes[label])} | {statistics.median(times[label]):.1f} | "
          + ", ".join(f"{t:.1f}" for t in times[label]) + " |")
print(f"\nnew / old = {statistics.median(times['new']) / statistics.median(times['old']):.2f}; "
      f"the traced run of the new build: {traced:.1f} s (goal: duration + 15 s = 20 s)")
PY
echo "full level timed: $SECONDS s" >> "$out/steps.txt"
python3 bench/trace_phases.py "$out/full-trace.json" > "$out/full-trace-phases.txt" 2>&1

# 3. The same figures at the default level and at full, and PyTorch's.
sleep 10
"$new" -o "$out/default-new.json" > /dev/null 2>&1
python3 bench/gemm_by_level.py "$out/default-new.json" "$out"/full-new-*.json > "$out/figures-by-level.md" 2>&1
python3 bench/compare_pytorch.py "$new" --level standard --rounds 3 --json "$out/pytorch.json" > "$out/pytorch.md" 2>&1
echo "figures compared: $SECONDS s" >> "$out/steps.txt"

# 4. The default run against the floor.
g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/context_creation.cpp -o "$scratch/context_creation" \
    -L/usr/local/cuda/lib64/stubs -lcuda -pthread
mkdir -p "$out/floor-traces"
python3 bench/floor_ratio.py --runs 9 --traces 3 --trace-dir "$out/floor-traces" "$scratch/context_creation" "$new" > "$out/floor-ratio.md" 2>&1
for trace in "$out"/floor-traces/*.json; do python3 bench/trace_phases.py "$trace"; done > "$out/floor-trace-phases.txt" 2>&1
echo "floor: $SECONDS s" >> "$out/steps.txt"

# 5. Verdicts.
python3 bench/compare_verdicts.py "$out/full-old-0.json" "$out/full-new-0.json" > "$out/verdicts.txt" 2>&1
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue40-full.tgz" -C "$results" issue40-full
cat "$out/steps.txt" "$out/full-timing.md" "$out/figures-by-level.md" "$out/pytorch.md" "$out/floor-ratio.md" "$out/verdicts.txt"
