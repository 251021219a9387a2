#!/usr/bin/env bash
# On the GPU machine: what the kernel and the driver say went wrong with the GPU, read for real.
#  1. builds this revision (build-gpu) and OLD_SOURCE_DIR (build-old: the code before the driver's
#     account was read), without tests;
#  2. times the default run and --level quick of both against each other, alternating, 0.5 s idle
#     before every run (bench/compare_builds.py);
#  3. NVML's account against nvidia-smi's: `nvidia-smi -q -x` and `nvidia-smi nvlink -s` beside a
#     --level quick report, compared by tests/support/compare_health_with_nvidia_smi.py (recovery
#     action, remapped rows, fabric state, MIG, persistence, NVLink where present);
#  4. a real Xid 31: a --level quick report and the default run before, bench/wild_pointer.cu
#     (built with nvcc, run once: a kernel that writes 1 TiB past its allocation), the same runs
#     after; the reports before and after compared by bench/compare_verdicts.py (they must differ
#     only by driver.kernel_log's CC231 finding, the application's fault, naming the program's pid
#     and name) and the driver's lines as dmesg shows them; NVML's recovery action afterwards;
#  5. the reading of the kernel log timed: cudacheck's own figure (driver.kernel_log's evidence) on
#     the real /dev/kmsg, and on a 1 MiB log made of the machine's own NVRM lines
#     (CUDACHECK_KERNEL_LOG).
# Everything made is under a scratch directory, removed at the end; no GPU setting is touched, and
# the wild-pointer fault needs no reset (the recording shows NVML's recovery action None after it).
#
# Usage: OUT=dir bench/issue38_on_gpu.sh OLD_SOURCE_DIR    writes OUT/issue38.tgz
set -uo pipefail
. "$(dirname "$0")/two_builds.sh"
two_builds issue38 "$1"

# 2. Timing first, on a machine nothing else has used yet.
{
    echo "## default run"; python3 bench/compare_builds.py --runs "${RUNS:-15}" --gap 0.5 "$old" "$new"
    echo; echo "## --level quick"; python3 bench/compare_builds.py --runs "${RUNS:-15}" --gap 0.5 "$old" "$new" -- --level quick
} > "$out/timing.md" 2>&1
echo "timed in $SECONDS s" >> "$out/steps.txt"

# 3. NVML's account and nvidia-smi's.
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1
nvidia-smi -q -x > "$scratch/smi.xml" 2>&1
nvidia-smi nvlink -s > "$out/nvidia-smi-nvlink-s.txt" 2>&1
"$new" --level quick --only device.health -v -o "$out/health.json" -o "$out/health.txt" > /dev/null
python3 tests/support/compare_health_with_nvidia_smi.py "$scratch/smi.xml" "$out/health.json" "$out/nvidia-smi-nvlink-s.txt" > "$out/health-vs-nvidia-smi.txt" 2>&1
echo "compare_health_with_nvidia_smi: exit $?" >> "$out/health-vs-nvidia-smi.txt"

# 4. Before and after a real Xid 31.
dmesg | grep -E 'NVRM|nvidia' > "$out/dmesg-before.txt" 2>&1
{
    "$new" --level quick -v -o "$out/quick-before.json" -o "$out/quick-before.txt" > /dev/null; echo "quick, before: exit $?"
    "$new" -o "$out/default-before.json" -o "$out/default-before.txt" > /dev/null; echo "default, before: exit $?"
    nvcc -O2 -arch=sm_90 -o "$scratch/wild_pointer" bench/wild_pointer.cu && "$scratch/wild_pointer"; echo "wild_pointer: exit $?"
    sleep 1
    "$new" --level quick -v -o "$out/quick-after.json" -o "$out/quick-after.txt" > /dev/null; echo "quick, after: exit $?"
    "$new" -o "$out/default-after.json" -o "$out/default-after.txt" > /dev/null; echo "default, after: exit $?"
    nvidia-smi -q | grep -i -A1 "recovery" ; echo "nvidia-smi: exit $?"
} > "$out/xid31.txt" 2>&1
dmesg | grep -E 'NVRM|nvidia' > "$out/dmesg-after.txt" 2>&1
{
    echo "## --level quick, before the Xid against after"; python3 bench/compare_verdicts.py "$out/quick-before.json" "$out/quick-after.json"
    echo; echo "## default run, before the Xid against after"; python3 bench/compare_verdicts.py "$out/default-before.json" "$out/default-after.json"
} > "$out/verdicts.txt" 2>&1
# The same report as Prometheus text and HTML.
"$new" render --format prometheus "$out/quick-after.json" > "$out/quick-after.prom" 2>&1
"$new" render --format html "$out/quick-after.json" > "$out/quick-after.html" 2>&1

# 5. The kernel log's reading: on /dev/kmsg (in the reports above) and on 1 MiB of the driver's lines.
python3 - "$out/dmesg-after.txt" "$scratch/kmsg-1MiB.txt" <<'PY'
import sys
lines = [line for line in open(sys.argv[1]) if line.strip()] or ["[    1.000000] NVRM: loading NVIDIA UNIX Open Kernel Module\n"]
with open(sys.argv[2], "w") as out:
    size = 0
    while size < 1 << 20:
        for line in lines:
            out.write(line); size += len(line)
PY
for i in 1 2 3 4 5; do
    CUDACHECK_KERNEL_LOG="$scratch/kmsg-1MiB.txt" "$new" --level quick --only driver.kernel_log -v --no-color
done > "$out/kernel-log-1MiB.txt" 2>&1
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue38.tgz" -C "$results" issue38
cat "$out/steps.txt" "$out/timing.md" "$out/xid31.txt" "$out/verdicts.txt" "$out/health-vs-nvidia-smi.txt"
grep -h "read\|Xid" "$out/kernel-log-1MiB.txt" | head -10
