#!/usr/bin/env bash
# On the GPU machine (issue 21, shared-GPU awareness): the default run alone on the GPU, then while
# a PyTorch bf16 GEMM loop runs on it in another process (as a training job on a shared node or a
# workstation would), with the performance floors of docs/policies/cluster-node.json, and a short
# gpu.stress beside the same loop; fleet over the two default runs; the GPU test that uses a
# second cudacheck as the neighbour. Run after building build-gpu (tests included).
#
# Usage: OUT=dir [TESTS=0] bench/issue21_sharing_on_gpu.sh
set -u
bin=$(realpath build-gpu/cudacheck)
out=${OUT:-gpu-out}/issue21
mkdir -p "$out"
python=/opt/torch/.venv/bin/python3

# Only the performance floors of the cluster-node policy (the rest asks for 8 GPUs).
python3 -c "import json; p = json.load(open('docs/policies/cluster-node.json')); print(json.dumps({'schema_version': '1.0.0', 'performance': p['performance']}))" \
    > /tmp/floors.json

run() {  # name, then cudacheck's arguments
    local name=$1; shift
    local start=$(date +%s%N)
    "$bin" "$@" -o "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.stderr"
    echo "$name: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/runs.txt"
}

run idle --expect /tmp/floors.json

# The neighbour: bf16 8192^3 GEMMs for 60 s, its pid printed once it runs.
"$python" -c '
import os, sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
print("neighbour", os.getpid(), flush=True)
end = time.time() + 60
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
' > "$out/neighbour.txt" 2>&1 &
neighbour=$!
for _ in $(seq 60); do grep -q neighbour "$out/neighbour.txt" && break; sleep 0.5; done
sleep 2
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > "$out/nvidia-smi-apps.txt" 2>&1

run shared --expect /tmp/floors.json
run stress-shared --level full --only gpu.stress --duration 8
kill "$neighbour" 2>/dev/null; wait "$neighbour" 2>/dev/null

"$bin" fleet "$out/idle.json" "$out/shared.json" > "$out/fleet.txt" 2>&1; echo "fleet: exit $?" | tee -a "$out/runs.txt"

# TESTS=0 leaves the GPU test out (a build of cudacheck alone).
if [ "${TESTS:-1}" = 1 ]; then
    ctest --test-dir build-gpu -L gpu -R 'GpuSharedDevice' --output-on-failure > "$out/ctest-sharing.txt" 2>&1
    tail -n 5 "$out/ctest-sharing.txt"
fi
