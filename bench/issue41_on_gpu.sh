#!/usr/bin/env bash
# On a machine of two or more GPUs joined by NVLink (nvidia-h200-x2): issue 41's recordings in one
# command, within ~6 of the device's 10 minutes (build ~2 min on 32 cores; 4 min with NEW_BUILD_DIR
# reused from an earlier call on the same machine, ~4 min of runs).
#  0. builds this revision (NEW_BUILD_DIR, default build-gpu) without tests, and
#     bench/context_creation.cpp (g++ -lcuda: the driver alone);
#  1. NVML's account against nvidia-smi's, before any load: `nvidia-smi -q -x`, `nvidia-smi nvlink -s`
#     and `nvlink -e` (error counters) beside a --level quick device.health report, compared by
#     tests/support/compare_health_with_nvidia_smi.py for every GPU (links, which are inactive,
#     each link's replay/recovery/CRC counters, fabric state and status, and the rest); again at
#     the end, after the copies and all-reduces below (a counter that grew shows there);
#  2. the second GPU's cost, on GPUs nothing has loaded yet: the default run with all GPUs against
#     `--devices 0` and against CUDA_VISIBLE_DEVICES=0 (bench/compare_builds.py: one binary, two
#     argument sets, ROUNDS interleaved rounds after a warm-up, GAP s idle before every run), then
#     the driver's own cost (bench/second_gpu_cost.py: context_creation sequential and parallel on
#     one GPU and on all, alternating, fresh processes, the same idle), and the ratio issue 41
#     names: (cudacheck all - one) / (driver's all - one), target at most 1.1x; beside it the
#     2-over-1 ratio docs/performance.md "Several GPUs" recorded (1.34-1.42x);
#  3. the default run and `--level full --duration 10`, -v, as JSON, text and Prometheus;
#  4. PyTorch's figures at cudacheck's sizes in the same call (bench/multi_gpu_reference.py with
#     the torch venv: copy_ between each ordered pair, torch.distributed NCCL all-reduce, one
#     process per GPU), and the table of cudacheck's figures beside them;
#  5. the node-health verdicts of every GPU (--level quick -v: driver.* and device.health), and
#     `cudacheck fleet` over the JSON of several default runs (all GPUs, --devices 0, --devices 1,
#     CUDA_VISIBLE_DEVICES=1), each also rendered as Prometheus text, with each GPU's figures
#     read back from the Prometheus files.
# Nothing on the GPUs is changed: no clocks, modes or resets; NCCL's NVLink multicast stays off
# (NCCL_NVLS_ENABLE=0, as cudacheck sets it). Each step has a time limit within BUDGET (default
# 540 s, under the device's 600 s a command), and the archive is written whatever a step did.
#
# Usage: OUT=dir [ROUNDS=15] [GAP=0.5] [BUDGET=540] [NEW_BUILD_DIR=build-gpu] [VENV=/opt/torch/.venv] bench/issue41_on_gpu.sh
#        writes OUT/issue41.tgz and prints a summary
set -uo pipefail
results=$(mktemp -d /tmp/issue41-results-XXXXXX)
out=$results/issue41
scratch=$(mktemp -d /tmp/issue41-XXXXXX)
mkdir -p "$out/fleet"
venv=${VENV:-/opt/torch/.venv}
build=${NEW_BUILD_DIR:-build-gpu}
rounds=${ROUNDS:-15}
gap=${GAP:-0.5}
budget=${BUDGET:-540}
export NCCL_NVLS_ENABLE=0
SECONDS=0

# A step's time limit: at most $1 s, leaving $2 s of the budget to the steps after it (at least 5 s).
limit() {
    local left=$((budget - SECONDS - $2))
    ((left > $1)) && left=$1
    ((left < 5)) && left=5
    echo "$left"
}
step() { echo "$(printf '%4d' "$SECONDS") s  $*" >> "$out/steps.txt"; }

# 0. Build.
{ cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDACHECK_BUILD_TESTS=OFF &&
  cmake --build "$build" -j"$(nproc)" --target cudacheck &&
  g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/context_creation.cpp -o "$build/context_creation" \
      -L/usr/local/cuda/lib64/stubs -lcuda -pthread; } > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
new=$(realpath "$build/cudacheck")
floor=$(realpath "$build/context_creation")
step "built ($(git log -1 --format='%h %s' 2>/dev/null || echo 'no git'))"
cp "$0" "$out/"  # the commands, as they ran
nvidia-smi -L > "$out/nvidia-smi-L.txt" 2>&1
gpus=$(grep -c '^GPU ' "$out/nvidia-smi-L.txt")
all=$(seq -s, 0 $((gpus - 1)))
step "$gpus GPU(s): CUDA_VISIBLE_DEVICES=$all for all of them"
{ "$new" --version; nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,persistence_mode --format=csv; } > "$out/machine.txt" 2>&1
nvidia-smi topo -m > "$out/nvidia-smi-topo.txt" 2>&1

# 1. NVML's account against nvidia-smi's (NAME: before or after the load).
compare_with_nvidia_smi() {
    local name=$1
    nvidia-smi -q > "$out/nvidia-smi-q-$name.txt" 2>&1
    nvidia-smi -q -x > "$out/nvidia-smi-q-$name.xml" 2>&1
    nvidia-smi nvlink -s > "$out/nvidia-smi-nvlink-s-$name.txt" 2>&1
    nvidia-smi nvlink -e > "$out/nvidia-smi-nvlink-e-$name.txt" 2>&1
    "$new" --level quick --only device.health -v -o "$out/health-$name.json" -o "$out/health-$name.txt" > /dev/null 2>&1
    python3 tests/support/compare_health_with_nvidia_smi.py "$out/nvidia-smi-q-$name.xml" "$out/health-$name.json" \
        "$out/nvidia-smi-nvlink-s-$name.txt" "$out/nvidia-smi-nvlink-e-$name.txt" > "$out/health-vs-nvidia-smi-$name.txt" 2>&1
    local status=$?
    echo "compare_health_with_nvidia_smi: exit $status" >> "$out/health-vs-nvidia-smi-$name.txt"
    step "device.health against nvidia-smi, $name the load: exit $status"
}
compare_with_nvidia_smi before

# 2. The second GPU's cost, cudacheck's and the driver's, timed first on GPUs nothing has loaded.
if ((gpus >= 2)); then
    timeout "$(limit 240 200)" python3 bench/compare_builds.py --runs "$rounds" --gap "$gap" --visible 0 --visible "$all" \
        --args-a='--devices 0' --json "$out/timing-cudacheck.json" "$new" "$new" > "$out/timing-cudacheck.md" 2>&1
    step "compare_builds, all GPUs against one: exit $?"
    timeout "$(limit 120 150)" python3 bench/second_gpu_cost.py --floor-binary "$floor" --runs "$rounds" --gap "$gap" \
        --one 0 --all "$all" -o "$out/timing-floor.jsonl" > "$out/timing-floor.md" 2>&1
    step "context_creation, the driver alone: exit $?"
    if [ -s "$out/timing-cudacheck.json" ] && [ -s "$out/timing-floor.jsonl" ]; then
        python3 bench/second_gpu_cost.py --floor-samples "$out/timing-floor.jsonl" --cudacheck "$out/timing-cudacheck.json" \
            > "$out/second-gpu-cost.md" 2>&1
    else
        echo "not computed: a timing step did not finish (steps.txt)" > "$out/second-gpu-cost.md"
    fi
else
    echo "not measured: $gpus GPU(s)" > "$out/second-gpu-cost.md"
fi

# 3. The default and full runs (cuda.p2p at both levels, nccl.allreduce at full).
"$new" -v -o "$out/default.json" -o "$out/default.txt" -o "$out/default.prom" > /dev/null 2>&1
step "default run: exit $?"
timeout "$(limit 120 100)" "$new" --level full --duration 10 -v -o "$out/full.json" -o "$out/full.txt" -o "$out/full.prom" > /dev/null 2>&1
step "--level full --duration 10: exit $?"

# 4. PyTorch's figures at the same sizes, and the table.
if ((gpus >= 2)); then
    # NCCL's own account of its set-up (the transport between the GPUs, the channels) goes to the log.
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT timeout "$(limit 150 60)" "$venv/bin/python" bench/multi_gpu_reference.py measure \
        -o "$out/pytorch-reference.json" > "$out/pytorch-reference.log" 2>&1
    step "PyTorch reference: exit $?"
    python3 bench/multi_gpu_reference.py table "$out/pytorch-reference.json" "$out/default.json" "$out/full.json" \
        > "$out/pytorch-vs-cudacheck.md" 2>&1
fi

# 5. Node-health verdicts on every GPU, and fleet over several runs' per-GPU outputs.
"$new" --level quick -v -o "$out/quick.json" -o "$out/quick.txt" -o "$out/quick.prom" > /dev/null 2>&1
step "--level quick -v: exit $?"
cp "$out/default.json" "$out/fleet/default-all.json" 2>/dev/null
for devices in $(seq 0 $((gpus - 1))); do
    "$new" --devices "$devices" -o "$out/fleet/default-devices-$devices.json" > /dev/null 2>&1
    step "default run --devices $devices: exit $?"
done
if ((gpus >= 2)); then
    CUDA_VISIBLE_DEVICES=1 "$new" -o "$out/fleet/default-visible-1.json" > /dev/null 2>&1
    step "default run, CUDA_VISIBLE_DEVICES=1: exit $?"
fi
for report in "$out"/fleet/*.json; do
    "$new" render --format prometheus "$report" > "${report%.json}.prom" 2>&1
done
"$new" fleet "$out/fleet" > "$out/fleet.txt" 2>&1
status=$?
step "fleet over $(find "$out/fleet" -name '*.json' | wc -l) default runs: exit $status"
"$new" fleet "$out/fleet" --format json > "$out/fleet.json" 2>&1
python3 - "$out" > "$out/per-gpu-verdicts.md" 2>&1 <<'PY'
# Each GPU's node-health verdicts (quick run) and its figures as the Prometheus files give them.
import glob, json, os, re, sys
out = sys.argv[1]
quick = json.load(open(os.path.join(out, "quick.json")))
print("## --level quick: driver.* and device.health\n")
for check in quick["checks"]:
    if check["id"].startswith(("driver.", "device.")):
        print(f"- {check['id']}: {check['status']}: {check.get('message') or check.get('skip_reason')}")
        for finding in check.get("findings", []):
            print(f"    - {finding.get('code')} (GPU {finding.get('gpu')}): {finding.get('message')}")
health = next((check for check in quick["checks"] if check["id"] == "device.health"), {"evidence": []})
for item in health["evidence"]:
    if re.fullmatch(r"gpu\d+(_nvlink|_nvlink_errors|_fabric|_recovery_action)?", item["key"]):
        print(f"    {item['key']}: {item['value']}")
print("\n## Each GPU's figures in the Prometheus files (gpu label = NVML index)\n")
families = ("cudacheck_gemm_tflops", "cudacheck_memory_bandwidth_bytes_per_second", "cudacheck_p2p_bandwidth_bytes_per_second",
            "cudacheck_nccl_allreduce_bus_bandwidth_bytes_per_second")
sample = re.compile(r"^(\w+)\{([^}]*)\} (\S+)$")
for path in sorted(glob.glob(os.path.join(out, "*.prom")) + glob.glob(os.path.join(out, "fleet", "*.prom"))):
    per_gpu = {}
    for line in open(path):
        match = sample.match(line.strip())
        if not match:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2)))
        if "gpu" in labels:
            per_gpu.setdefault(labels["gpu"], set()).add(match.group(1))
        wanted = match.group(1) in families and labels.get("precision", "bf16") == "bf16" and labels.get("direction", "device_to_device") == "device_to_device"
        if wanted:
            value = float(match.group(3))
            shown = f"{value:.1f} TFLOP/s" if "tflops" in match.group(1) else f"{value / 1e9:.1f} GB/s"
            where = f"GPU {labels.get('gpu', '-')}" + (f" -> {labels['peer_gpu']}" if "peer_gpu" in labels else "")
            print(f"- {os.path.relpath(path, out)}: {match.group(1)}{' ' + labels['size'] if 'size' in labels else ''} {where}: {shown}")
    print(f"- {os.path.relpath(path, out)}: series per gpu label: " +
          ", ".join(f"gpu {gpu}: {len(names)} families" for gpu, names in sorted(per_gpu.items())))
PY
# Read back with the Prometheus client's parser, by the first Python that has it (77: none has).
for prom in "$out/default.prom" "$out/full.prom" "$out/quick.prom"; do
    for python in python3 "$venv/bin/python"; do
        "$python" tests/support/validate_prometheus.py "$prom" "${prom%.prom}.json" > "${prom%.prom}-prom-check.txt" 2>&1
        status=$?
        ((status == 77)) || break
    done
    echo "validate_prometheus ($python): exit $status" >> "${prom%.prom}-prom-check.txt"
done

# 1 again: nvidia-smi and NVML after the copies and all-reduces.
compare_with_nvidia_smi after
diff "$out/nvidia-smi-nvlink-e-before.txt" "$out/nvidia-smi-nvlink-e-after.txt" > "$out/nvlink-counters-grew.txt" 2>&1
step "nvlink -e before against after: $(grep -c '^>' "$out/nvlink-counters-grew.txt") line(s) changed"
step "done"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue41.tgz" -C "$results" issue41

# The summary, the most important last (the device's reply keeps the output's end).
show() { [ -f "$1" ] && { echo; echo "=== ${1#"$out"/}"; cat "$1"; }; }
tail -qn1 "$out"/*-prom-check.txt 2>/dev/null
echo; echo "=== fleet.txt (first 25 lines)"; head -25 "$out/fleet.txt"
echo; head -40 "$out/per-gpu-verdicts.md"
echo; echo "=== verdicts"
grep -h -E '^(PASS|WARN|FAIL|ERROR|SKIP|TIMEOUT) +(cuda\.p2p|nccl\.allreduce|device\.health)|— (PASS|WARN|FAIL)' \
    "$out/default.txt" "$out/full.txt" 2>/dev/null | cut -c1-220
show "$out/health-vs-nvidia-smi-before.txt"
show "$out/health-vs-nvidia-smi-after.txt"
show "$out/pytorch-vs-cudacheck.md"
[ -s "$out/pytorch-reference.json" ] || tail -5 "$out/pytorch-reference.log" 2>/dev/null
show "$out/timing-cudacheck.md"
[ -f "$out/second-gpu-cost.md" ] && { echo; echo "=== second-gpu-cost.md"; sed -n '/^## The driver alone/,$p' "$out/second-gpu-cost.md"; }
show "$out/steps.txt"
