#!/usr/bin/env bash
# On the GPU machine: issue 39's recordings (which build fits, and wheels judged before the install).
#  1. builds this revision (NEW_BUILD_DIR, default build-gpu) without tests;
#  2. `inspect --python /opt/torch/.venv`: every installed distribution with GPU code, one verdict each
#     (text and JSON), beside what the frameworks say of themselves (torch.cuda.get_arch_list(),
#     jax.devices(), cupy's runtime version);
#  3. wheels re-packed there from installed distributions (bench/repack_wheel.py: torch and the JAX
#     CUDA plugin, from their RECORD files) inspected, timed, peak RSS from /usr/bin/time: each wheel's
#     verdict against the installed distribution's (bench/compare_inspect_verdicts inline below);
#  4. the `--level full` proof: frameworks.run, in which each framework runs for real, with -v;
#  5. `cudacheck advise` for this machine (text and JSON) against what is installed and works:
#     pip's view of torch/jax/cupy (`pip list`), torch.version.cuda.
# Everything made is under a scratch directory, removed at the end; no GPU setting is touched.
#
# Usage: OUT=dir bench/issue39_on_gpu.sh        writes OUT/issue39.tgz
set -uo pipefail
results=$(mktemp -d /tmp/issue39-results-XXXXXX)
out=$results/issue39
scratch=$(mktemp -d /tmp/issue39-XXXXXX)
mkdir -p "$out"
venv=/opt/torch/.venv
site=$venv/lib/python3.12/site-packages
build=${NEW_BUILD_DIR:-build-gpu}
SECONDS=0
{ cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDACHECK_BUILD_TESTS=OFF &&
  cmake --build "$build" -j"$(nproc)" --target cudacheck; } > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
new=$(realpath "$build/cudacheck")
echo "built in $SECONDS s" > "$out/steps.txt"

# 2. The installed environment, and the frameworks' own account.
"$new" inspect --python "$venv" -v > "$out/inspect-venv.txt" 2>&1; echo "inspect --python: exit $?" >> "$out/steps.txt"
"$new" inspect --python "$venv" --format json > "$out/inspect-venv.json" 2>/dev/null
"$venv/bin/python" - > "$out/frameworks-self-report.txt" 2>&1 <<'PY'
import importlib
for name, show in [("torch", lambda m: (m.__version__, m.version.cuda, m.cuda.is_available() and m.cuda.get_arch_list())),
                   ("jax", lambda m: (m.__version__, [str(d) for d in m.devices()])),
                   ("cupy", lambda m: (m.__version__, m.cuda.runtime.runtimeGetVersion(), m.cuda.Device(0).compute_capability))]:
    try:
        print(name, *show(importlib.import_module(name)))
    except Exception as error:
        print(name, "error:", type(error).__name__, error)
PY
"$venv/bin/pip" list 2>/dev/null | grep -iE '^(torch|jax|jaxlib|jax-cuda|cupy|nvidia-|triton|tensorflow)' > "$out/pip-list.txt"

# 3. Wheels re-packed from what is installed, inspected in place.
for dist in torch jax_cuda13_plugin jax_cuda13_pjrt; do
    wheel=$(python3 bench/repack_wheel.py "$site" "$dist" "$scratch" 2>> "$out/repack.txt") || continue
    ls -l "$wheel" >> "$out/repack.txt"
    for i in 1 2 3; do
        /usr/bin/time -f "$dist wheel: %e s wall, %M KB peak RSS" "$new" inspect "$wheel" --format json -o "$out/inspect-$dist-wheel.json" > /dev/null 2>> "$out/inspect-wheels-time.txt"
    done
    "$new" inspect "$wheel" -v > "$out/inspect-$dist-wheel.txt" 2>&1
done
python3 - "$out" >> "$out/inspect-wheels-vs-installed.txt" 2>&1 <<'PY'
# Each re-packed wheel's verdict against the installed distribution's in inspect --python's report.
import json, os, sys
out = sys.argv[1]
def packages(path):
    try:
        return {p.get("name", "").lower().replace("-", "_"): p for p in json.load(open(path)).get("packages", [])}
    except Exception as error:
        print(path, "unreadable:", error); return {}
installed = packages(os.path.join(out, "inspect-venv.json"))
for dist in ["torch", "jax_cuda13_plugin", "jax_cuda13_pjrt"]:
    wheel = packages(os.path.join(out, f"inspect-{dist}-wheel.json"))
    for name, package in wheel.items():
        mine = installed.get(name)
        print(f"{name}: wheel {package.get('verdict')} / installed {mine.get('verdict') if mine else 'absent'}",
              "AGREE" if mine and mine.get("verdict") == package.get("verdict") else "DIFFER")
PY

# 4. The frameworks running for real.
"$new" --level full --only frameworks.run,frameworks.builds -v -o "$out/full-frameworks.json" -o "$out/full-frameworks.txt" > /dev/null 2>&1
echo "full frameworks: exit $?" >> "$out/steps.txt"

# 5. The advice for this machine.
"$new" advise > "$out/advise.txt" 2>&1; echo "advise: exit $?" >> "$out/steps.txt"
"$new" advise --format json > "$out/advise.json" 2>&1
"$new" advise --python "$venv" > "$out/advise-venv.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv > "$out/nvidia-smi.csv" 2>&1
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue39.tgz" -C "$results" issue39
cat "$out/steps.txt" "$out/inspect-wheels-time.txt" "$out/inspect-wheels-vs-installed.txt" "$out/advise-venv.txt" "$out/frameworks-self-report.txt"
