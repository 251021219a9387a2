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
    local start=$(date +%s.%N)
    "$@" -o "$out/$name.json" -o "$out/$name.txt" > /dev/null 2> "$out/$name.stderr"
    local rc=$?
    echo "$name: exit $rc in $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$out/runs.txt"
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

# 4. A copy of the environment without the cuDNN wheel (a partial uninstall): torch's DT_RPATH
# finds nothing in nvidia/cudnn/lib and the loader falls back to the system cuDNN 9.14.
copy=/tmp/venv-without-cudnn
rm -rf "$copy"
site=$(ls -d $venv/lib/python3*/site-packages | head -1)
copy_site=$copy/lib/$(basename "$(dirname "$site")")/site-packages
mkdir -p "$copy/bin" "$copy_site/nvidia"
cp "$venv/pyvenv.cfg" "$copy/"
ln -s "$(readlink -f "$venv/bin/python3")" "$copy/bin/python3"
for entry in "$site"/*; do
    case $(basename "$entry") in nvidia|nvidia_cudnn_cu13-*) ;; *) ln -s "$entry" "$copy_site/";; esac
done
for entry in "$site"/nvidia/*; do [ "$(basename "$entry")" = cudnn ] || ln -s "$entry" "$copy_site/nvidia/"; done
run without-cudnn-wheel "$new" --level full --only frameworks --python "$copy"
rm -rf "$copy"

# 5. The cost: frameworks.builds in the default run against the build before it, and --level quick.
if [ -n "$previous" ]; then
    python3 bench/compare_builds.py --runs 11 "$previous" "$new" > "$out/compare-default.txt" 2>&1
    python3 bench/compare_builds.py --runs 11 "$previous" "$new" -- --level quick > "$out/compare-quick.txt" 2>&1
fi
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
