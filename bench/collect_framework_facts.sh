#!/usr/bin/env bash
# On the GPU machine: the real Python environment's framework files and what the frameworks
# themselves say, the ground truth for cudacheck's framework checks (issue 17). Copies small
# metadata files only (version.py, METADATA, _wheel.json, pyvenv.cfg), the dynamic sections of the
# large binaries as readelf prints them, and each framework's own report of its CUDA build; changes
# nothing in the environment.
#
# Usage: OUT=dir bench/collect_framework_facts.sh [VENV]   (default /opt/torch/.venv)
set -u
venv=${1:-/opt/torch/.venv}
site=$(ls -d "$venv"/lib/python3*/site-packages | head -1)
out=${OUT:-gpu-out}/venv
mkdir -p "$out/sp"
cp "$venv/pyvenv.cfg" "$out/"
ls -la "$venv/bin" > "$out/bin-listing.txt"
ls "$site" > "$out/site-packages-listing.txt"
for f in torch/version.py torchvision/version.py jaxlib/version.py jax/version.py jax_cuda13_plugin/version.py \
         jax_plugins/xla_cuda13/version.py cupy/.data/_wheel.json cupy/_version.py triton/__init__.py; do
    [ -f "$site/$f" ] && mkdir -p "$out/sp/$(dirname "$f")" && cp "$site/$f" "$out/sp/$f"
done
for d in "$site"/*.dist-info; do
    n=$(basename "$d")
    case $n in torch-*|torchvision-*|jax*|cupy*|triton-*|nvidia_*|numba_cuda*)
        mkdir -p "$out/sp/$n"; cp "$d/METADATA" "$out/sp/$n/"
        [ -f "$d/RECORD" ] && grep -E '\.so' "$d/RECORD" | head -80 > "$out/sp/$n/RECORD.so-lines";;
    esac
done
ls "$site/nvidia" "$site"/nvidia/*/lib > "$out/nvidia-listing.txt" 2>&1
ls -la "$site/torch/lib" > "$out/torch-lib-listing.txt"
for so in torch/lib/libtorch_cuda.so torch/lib/libtorch.so torch/lib/libtorch_cpu.so torch/lib/libc10_cuda.so \
          torch/lib/libtorch_global_deps.so torch/_C.cpython-312-x86_64-linux-gnu.so jax_plugins/xla_cuda13/xla_cuda_plugin.so \
          $(cd "$site" && ls cupy_backends/cuda/api/runtime*.so cupy/cuda/*.so 2>/dev/null | head -4); do
    [ -f "$site/$so" ] && { echo "== $so $(stat -c %s "$site/$so")"; readelf -d "$site/$so" | grep -E 'NEEDED|RPATH|RUNPATH|SONAME'; }
done > "$out/readelf-dynamic.txt" 2>&1
awk '/^def _load_global_deps/{on=1} on && /^(if|class) /{exit} on' "$site/torch/__init__.py" > "$out/torch-load-global-deps.py"
awk '/^def _preload_cuda_deps/{on=1; print; next} on && /^def /{exit} on' "$site/torch/__init__.py" > "$out/torch-preload-cuda-deps.py"
grep -n "PYTORCH_RELEASES_CODE_CC" -A30 "$site/torch/cuda/__init__.py" | head -60 > "$out/torch-cuda-cc-table.txt"
cd /tmp || exit 1
timeout 120 "$venv/bin/python" - > "$out/torch-self-report.json" 2> "$out/torch-self-report.err" <<'PY'
import json, torch
d = {"torch.__version__": torch.__version__, "torch.version.cuda": torch.version.cuda,
     "cudnn": torch.backends.cudnn.version(), "arch_list": torch.cuda.get_arch_list(),
     "nccl": torch.cuda.nccl.version(), "device": torch.cuda.get_device_name(0),
     "capability": torch.cuda.get_device_capability(0)}
x = torch.randn(256, 256, device="cuda"); d["matmul_sum_finite"] = bool(torch.isfinite((x @ x).sum()).item())
d["maps"] = sorted({l.split()[-1] for l in open("/proc/self/maps") if ".so" in l and any(k in l for k in ("cud", "nccl", "cublas", "nvrtc", "nvidia", "cufft", "curand", "cusparse", "nvJit"))})
print(json.dumps(d, indent=1))
PY
timeout 120 "$venv/bin/python" -c "import jax; jax.print_environment_info(); print(jax.devices())" > "$out/jax-env-info.txt" 2>&1
timeout 120 "$venv/bin/python" -c "import cupy; cupy.show_config()" > "$out/cupy-show-config.txt" 2>&1
cd "$out" && tar czf "../venv-facts.tgz" . && cd .. && rm -rf "$out"
