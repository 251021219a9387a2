#!/usr/bin/env bash
# On the GPU machine: `cudacheck --level quick` and the default run against nvidia-smi (issue 40:
# quick is to take at most 0.35 x nvidia-smi's time; it took 45 ms, 33 ms two days earlier).
#  1. builds this revision (NEW_BUILD_DIR, default build-gpu) without tests; with OLD_SOURCE=DIR
#     (a checkout of the revision before) also that one (OLD_BUILD_DIR, default build-old), timed
#     beside it;
#  2. ROUNDS rounds (default 15, after one warm-up round not counted), each running nvidia-smi,
#     cudacheck --level quick and cudacheck (default level) [and the old build's two] in turn,
#     each after the same GAP seconds of idle (default 0.5: an idle GPU wakes inside the driver, and
#     a program started right after another would find it awake) and once the previous run's check
#     process is gone (bench/startup.py); whole-process wall times;
#  3. prints per program the median and min-max, and each cudacheck's median ratio to nvidia-smi
#     taken round by round (the rounds pair the programs, so a drift of the machine hits them alike);
#  4. where quick spends its time: each check's duration_ms in a --level quick JSON report, and a
#     CUDACHECK_TRACE of three quick runs with the longest spans of each (quick-trace-spans.txt).
# Nothing on the GPU is changed.
#
# Usage: OUT=dir [ROUNDS=15] [GAP=0.5] [OLD_SOURCE=dir] bench/quick_vs_smi_on_gpu.sh   writes OUT/quick-vs-smi.tgz
set -uo pipefail
results=$(mktemp -d /tmp/quick-vs-smi-results-XXXXXX)
out=$results/quick-vs-smi
mkdir -p "$out"
build=${NEW_BUILD_DIR:-build-gpu}
old_build=${OLD_BUILD_DIR:-build-old}
SECONDS=0
configure() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDACHECK_BUILD_TESTS=OFF; }
{ configure . "$build" && cmake --build "$build" -j"$(nproc)" --target cudacheck &&
  if [ -n "${OLD_SOURCE:-}" ]; then configure "$OLD_SOURCE" "$old_build" && cmake --build "$old_build" -j"$(nproc)" --target cudacheck; fi
} > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
new=$(realpath "$build/cudacheck")
old=
[ -n "${OLD_SOURCE:-}" ] && old=$(realpath "$old_build/cudacheck")
echo "built in $SECONDS s" > "$out/steps.txt"
command -v nvidia-smi > /dev/null || { echo "no nvidia-smi on PATH" | tee -a "$out/steps.txt"; exit 1; }
{ nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,temperature.gpu --format=csv; "$new" --version; } > "$out/machine.txt" 2>&1

# 2.-3. The rounds.
python3 - "$out" "${ROUNDS:-15}" "${GAP:-0.5}" "$new" "$old" > "$out/timings.md" 2> "$out/timings.err" <<'PY'
import json, os, statistics, subprocess, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from startup import wait_for_workers
out, rounds, gap, new, old = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
programs = [("nvidia-smi", ["nvidia-smi"]), ("cudacheck --level quick", [new, "--level", "quick"]),
            ("cudacheck (default level)", [new])]
if old:
    programs += [("old build --level quick", [old, "--level", "quick"]), ("old build (default level)", [old])]
binaries = [new] + ([old] if old else [])
samples = {label: [] for label, _ in programs}
codes = {label: set() for label, _ in programs}
for round_number in range(rounds + 1):  # round 0 is a warm-up
    for label, command in programs:
        for binary in binaries:
            wait_for_workers(binary)
        time.sleep(gap)
        start = time.perf_counter()
        completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = (time.perf_counter() - start) * 1000.0
        if round_number > 0:
            samples[label].append(elapsed)
            codes[label].add(completed.returncode)
smi = samples["nvidia-smi"]
print(f"{rounds} rounds, each program after {gap:g} s idle, in the order listed\n")
print("| program | exit codes | median ms | min-max ms | median of per-round ratio to nvidia-smi |")
print("|---|---|---|---|---|")
for label, _ in programs:
    values = samples[label]
    ratio = "" if label == "nvidia-smi" else f"{statistics.median(a / b for a, b in zip(values, smi)):.3f}"
    print(f"| `{label}` | {sorted(codes[label])} | {statistics.median(values):.1f} | {min(values):.1f}-{max(values):.1f} | {ratio} |")
quick = statistics.median(a / b for a, b in zip(samples["cudacheck --level quick"], smi))
print(f"\nquick / nvidia-smi = {quick:.3f} (goal: at most 0.35)")
with open(os.path.join(out, "samples.json"), "w") as handle:
    json.dump({"rounds": rounds, "gap_s": gap, "samples_ms": samples}, handle, indent=1)
PY
echo "timings: exit $?" >> "$out/steps.txt"
cat "$out/timings.md"

# 4. Where quick's time goes.
"$new" --level quick --format json -o "$out/quick.json" > /dev/null 2>&1
python3 - "$out/quick.json" > "$out/quick-checks.md" 2>&1 <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print("| check | status | duration ms |")
print("|---|---|---|")
for check in sorted(report["checks"], key=lambda c: -(c.get("duration_ms") or 0)):
    print(f"| {check['id']} | {check['status']} | {check.get('duration_ms') or 0:.1f} |")
PY
cat "$out/quick-checks.md"
for i in 1 2 3; do
    sleep "${GAP:-0.5}"
    CUDACHECK_TRACE="$out/quick-trace-$i.json" "$new" --level quick > /dev/null 2>&1
done
python3 - "$out"/quick-trace-*.json > "$out/quick-trace-spans.txt" 2>&1 <<'PY'
# The 15 longest spans of each traced quick run (ms): which probe or child program quick waits on.
import json, sys
for path in sys.argv[1:]:
    trace = json.load(open(path))
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    spans = sorted((e for e in events if e.get("ph") == "X"), key=lambda e: -e.get("dur", 0))[:15]
    print(path)
    for span in spans:
        print(f"  {span.get('dur', 0) / 1000:8.1f} ms  from {span['ts'] / 1000:7.1f}  {span['name']}")
PY
echo "done in $SECONDS s" >> "$out/steps.txt"
tar -czf "${OUT:-.}/quick-vs-smi.tgz" -C "$results" quick-vs-smi
rm -rf "$results"
