#!/usr/bin/env bash
# Reproduces on the GPU machine the failures that need a real driver (the catalogue's), and prints
# each command with cudacheck's verdict, for docs/examples/h200/diagnosis.md. Run after
# tools/gpu-session.sh built build-gpu/. Changes no GPU setting; every library it moves is put back.
# Usage: OUT=dir tools/gpu-diagnosis.sh   (writes $OUT/diagnosis.md)
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
bin=$(realpath build-gpu/cudacheck)
report=$(mktemp --suffix=.json)

# Runs cudacheck with the given environment and arguments; prints the command, the exit code and
# the lines of the checks that did not pass.
run() {
    local title=$1
    shift
    echo "### $title"
    echo
    echo '```'
    echo "\$ $*"
    env "$@" -o "$report" -q --no-color >/dev/null 2>&1
    local code=$?
    python3 - "$report" "$code" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for check in report["checks"]:
    if check["status"] != "pass":
        where = f"[{check['device']}]" if check["device"] is not None else ""
        print(f"{check['status'].upper():8}{check['id']}{where}: {check['message']}")
        if check.get("remediation"):
            print(f"        fix: {check['remediation']} [{check['code']}]")
print(f"exit {sys.argv[2]}")
PY
    echo '```'
    echo
}

{
echo "# Diagnoses reproduced on the H200 machine"
echo
echo "Recorded by \`tools/gpu-diagnosis.sh\` on $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)."
echo
run "CUDA_VISIBLE_DEVICES empty" CUDA_VISIBLE_DEVICES= "$bin" --only env,driver,cuda.devices
run "CUDA_VISIBLE_DEVICES naming a GPU that does not exist" CUDA_VISIBLE_DEVICES=5 "$bin" --only env,driver,cuda.devices
run "CUDA_VISIBLE_DEVICES with a UUID that matches nothing" CUDA_VISIBLE_DEVICES=GPU-00000000-dead-beef-0000-000000000000 "$bin" --only env,driver,cuda.devices
run "CUDA_VISIBLE_DEVICES invalid" CUDA_VISIBLE_DEVICES=zero "$bin" --only env,driver,cuda.devices

stubs=$(dirname "$(find /usr/local/cuda/ -path '*stubs/libcuda.so' | head -1)")
stubdir=$(mktemp -d)
cp "$stubs/libcuda.so" "$stubdir/libcuda.so.1"
run "the toolkit's stub libcuda first on LD_LIBRARY_PATH" LD_LIBRARY_PATH="$stubdir" "$bin" --only env,driver,cuda.devices,cuda.kernel
rm -rf "$stubdir"

# Another process holds most of the GPU's memory (PyTorch, as a user's training job would).
if python3 -c "import torch" 2>/dev/null; then
    python3 -c "
import torch, time
free, total = torch.cuda.mem_get_info()
held = torch.empty(int(free * 0.9), dtype=torch.uint8, device='cuda')
print('holding', held.numel() >> 30, 'GiB', flush=True)
time.sleep(60)
" &
    holder=$!
    sleep 8
    run "90% of GPU memory held by another process" "$bin" --only cuda.devices,cuda.memory,cublas.gemm
    kill $holder 2>/dev/null
    wait $holder 2>/dev/null
fi

run "CUDA_LAUNCH_BLOCKING=1 left on" CUDA_LAUNCH_BLOCKING=1 "$bin" --only env,cuda.devices
run "nvcc not on PATH though a toolkit is installed" PATH=/usr/bin:/bin "$bin" --only toolkit,cuda.pairing
# PyTorch's pip wheels carry their own CUDA libraries: one of their directories first on the path.
wheel_cublas=$(python3 -c "import nvidia, os; print(list(nvidia.__path__)[0])" 2>/dev/null | xargs -r -I{} find {} -name 'libcublas.so.*' | head -1)
if [ -n "$wheel_cublas" ]; then
    run "a pip wheel's cuBLAS first on LD_LIBRARY_PATH" LD_LIBRARY_PATH="$(dirname "$wheel_cublas")" "$bin" --only libraries,cublas.gemm
fi

run "a GPU kernel that never returns (test-only fault.gpu_spin, in the test build), 5 s limit" "$(realpath build-gpu/tests/cudacheck-with-faults)" --only cuda.devices,fault.gpu_spin,cuda.kernel,cuda.memory --timeout 5

# A cudacheck built for another architecture only (sm_80 SASS, no PTX): no kernel image on Hopper.
if cmake -S . -B build-sm80 -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real >/dev/null 2>&1 && cmake --build build-sm80 -j16 --target cudacheck >/dev/null 2>&1; then
    run "cudacheck built for sm_80 only, on an H200" build-sm80/cudacheck --only cuda.devices,cuda.kernel
fi

echo "### device.health next to nvidia-smi -q"
echo
echo '```'
"$bin" --only device.health -v --no-color --level quick
echo
# -d takes display groups; PCIe link facts are only in the full -q output.
nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE,TEMPERATURE,POWER,COMPUTE 2>&1 | grep -v "^$" | head -120
nvidia-smi -q | grep -A12 "GPU Link Info" | head -30
echo '```'
} > "$out/diagnosis.md" 2>&1
rm -f "$report"
cat "$out/diagnosis.md"
