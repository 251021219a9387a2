#!/usr/bin/env bash
# On the GPU machine (issue 17): cudacheck's framework verdicts on the real /opt/torch/.venv and on
# scenarios built by hand, each proven by the frameworks themselves (frameworks.run at --level
# full), and the framework checks' cost side by side with the build before them. Everything it
# changes is under /tmp and removed at the end.
#
# Usage: OUT=dir bench/frameworks_on_gpu.sh NEW_BINARY [PREVIOUS_BINARY]
set -u
new=$1
previous=${2:-}
out=${OUT:-gpu-out}/frameworks
mkdir -p "$out"
venv=/opt/torch/.venv
export PATH=$venv/bin:$PATH
# A GPU code cache of its own, started empty: the first run reads libtorch_cuda.so cold.
export CUDACHECK_CACHE_DIR=/tmp/cudacheck-cache
rm -rf "$CUDACHECK_CACHE_DIR"

run() {  # name, then cudacheck's arguments
    local name=$1; shift
    local start=$(date +%s%N)
    "$@" -o "$out/$name.json" -o "$out/$name.txt" > /dev/null 2> "$out/$name.stderr"
    local rc=$?
    echo "$name: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/runs.txt"
}

# 1. As the machine is: cold cache, warm cache, quick, and the proof.
run default-cold "$new"
run default "$new"
run quick "$new" --level quick
run full "$new" --level full --only frameworks,libraries,driver,cuda.pairing

# 2. The system cuDNN directory first on LD_LIBRARY_PATH.
LD_LIBRARY_PATH=/lib/x86_64-linux-gnu run system-cudnn-first "$new" --level full --only frameworks

# 3. CUDA_VISIBLE_DEVICES hiding the GPU.
CUDA_VISIBLE_DEVICES= run no-visible-gpu "$new" --level full --only frameworks,env

# 4. The cuDNN wheel gone (a partial uninstall): nvidia/cudnn moved aside and put back at once.
# torch's DT_RPATH finds nothing in nvidia/cudnn/lib and the loader falls back to the system cuDNN.
site=$(ls -d $venv/lib/python3*/site-packages | head -1)
mv "$site/nvidia/cudnn" /tmp/cudnn-aside
trap 'mv /tmp/cudnn-aside "$site/nvidia/cudnn"' EXIT
run without-cudnn-wheel "$new" --level full --only frameworks
mv /tmp/cudnn-aside "$site/nvidia/cudnn"
trap - EXIT

# How glibc expands $ORIGIN for a library opened through a symlinked directory: torch/ linked
# into another site-packages whose nvidia/cudnn/lib holds a different libcudnn.so.9 (the system's).
probe=/tmp/origin-probe/site
rm -rf /tmp/origin-probe
mkdir -p "$probe/nvidia/cudnn/lib"
ln -s "$site/torch" "$probe/torch"
cp -L /lib/x86_64-linux-gnu/libcudnn.so.9 "$probe/nvidia/cudnn/lib/libcudnn.so.9"
LD_DEBUG=libs python3 -c "import ctypes; ctypes.CDLL('$probe/torch/lib/libtorch_cuda.so')" 2>&1 \
    | grep -E 'find library=libcudnn.so.9|trying file=.*libcudnn.so.9|search path=.*cudnn' | head -8 > "$out/origin-through-symlink.txt"
rm -rf /tmp/origin-probe
python3 -c "import inspect, torch; print(inspect.getsource(torch._preload_cuda_deps))" > "$out/torch-preload-cuda-deps.py" 2>&1

# 5. The cost: frameworks.builds in the default run against the build before it, and --level quick.
if [ -n "$previous" ]; then
    python3 bench/compare_builds.py --runs 11 "$previous" "$new" > "$out/compare-default.txt" 2>&1
    python3 bench/compare_builds.py --runs 11 "$previous" "$new" -- --level quick > "$out/compare-quick.txt" 2>&1
fi
# What the cache saves: every run reading the GPU code of libtorch_cuda.so and the JAX plugin.
python3 bench/compare_builds.py --runs 11 --env-b CUDACHECK_CACHE_DIR=off "$new" "$new" -- --level quick > "$out/compare-cache-off-quick.txt" 2>&1
python3 - "$new" > "$out/quick-timing.txt" <<'PY'
import statistics, subprocess, sys, time
times = []
for _ in range(15):
    start = time.perf_counter()
    subprocess.run([sys.argv[1], "--level", "quick", "--only", "frameworks", "--format", "json"], stdout=subprocess.DEVNULL)
    times.append((time.perf_counter() - start) * 1000)
print("cudacheck --level quick --only frameworks: median %.1f ms over %d runs (min %.1f, max %.1f)" % (statistics.median(times), len(times), min(times), max(times)))
times = []
for _ in range(15):
    start = time.perf_counter()
    subprocess.run([sys.argv[1], "--level", "quick", "--format", "json"], stdout=subprocess.DEVNULL)
    times.append((time.perf_counter() - start) * 1000)
print("cudacheck --level quick: median %.1f ms over %d runs (min %.1f, max %.1f)" % (statistics.median(times), len(times), min(times), max(times)))
PY
cat "$out/quick-timing.txt"
rm -rf "$CUDACHECK_CACHE_DIR"
