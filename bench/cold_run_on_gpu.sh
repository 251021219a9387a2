#!/usr/bin/env bash
# On the GPU machine: the first run after the page cache lost the frameworks' files (issue 40).
#  1. builds this revision (build-gpu) and OLD_SOURCE_DIR (build-old: the GPU code read through a
#     mapping, one file after the other, without reading ahead), without tests (bench/two_builds.sh);
#  2. bench/cold_run.py, default runs: before each cold run /opt/torch/.venv's libtorch_cuda.so, the
#     JAX plugin and jaxlib's libraries are evicted from the page cache (posix_fadvise
#     POSIX_FADV_DONTNEED, checked with mincore); cold and warm runs alternate, old and new, 5 rounds
#     each, 1 s idle before every run, with CUDACHECK_CACHE_DIR=off and with a cache directory of
#     each build's own (emptied before each cold run: the first run after an install);
#  3. the same with every shared library of the venv evicted (--all: the NVIDIA wheels too);
#  4. the same with --only frameworks.builds;
#  5. where the tests can be configured (GoogleTest), the scan alone per file and way of reading
#     (build-bench/tests/cold_gpu_code_bench), and the two builds' reports compared
#     (bench/compare_verdicts.py: the frameworks' verdicts must not change).
# No GPU setting is touched; the cache directories are under a scratch directory, removed at the end.
#
# Usage: OUT=dir bench/cold_run_on_gpu.sh OLD_SOURCE_DIR    writes OUT/issue40.tgz
set -uo pipefail
. "$(dirname "$0")/two_builds.sh"
two_builds issue40 "$1"
rounds=${ROUNDS:-5}

# 2.-4. The timing first, on a machine nothing else has used yet.
{
    echo "## default run, the frameworks' GPU code evicted"
    python3 bench/cold_run.py --rounds "$rounds" --gap 1 --python "$venv" --cache-root "$scratch/cache" \
        --json "$out/default.json" "$old" "$new" --
    echo; echo "## default run, every shared library of the venv evicted"
    python3 bench/cold_run.py --rounds "$rounds" --gap 1 --python "$venv" --all --cache-root "$scratch/cache" \
        --json "$out/default-all.json" "$old" "$new" --
    echo; echo "## --only frameworks.builds, the frameworks' GPU code evicted"
    python3 bench/cold_run.py --rounds "$rounds" --gap 1 --python "$venv" --cache-root "$scratch/cache" \
        --json "$out/frameworks.json" "$old" "$new"
} > "$out/timing.md" 2>&1
echo "timed in $SECONDS s" >> "$out/steps.txt"

# 5. The scan alone, and the verdicts of both builds.
{ cmake -S . -B build-bench -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
  cmake --build build-bench -j"$(nproc)" --target cold_gpu_code_bench; } > "$out/bench-build.log" 2>&1 &&
    build-bench/tests/cold_gpu_code_bench --rounds "$rounds" "$site/torch/lib/libtorch_cuda.so" \
        "$site"/jax_plugins/xla_cuda*/xla_cuda_plugin.so > "$out/scan.txt" 2>&1 ||
    echo "cold_gpu_code_bench not built: see bench-build.log" > "$out/scan.txt"
CUDACHECK_CACHE_DIR=off "$old" --only frameworks.builds -o "$out/frameworks-old.json" > /dev/null 2>&1
CUDACHECK_CACHE_DIR=off "$new" --only frameworks.builds -o "$out/frameworks-new.json" > /dev/null 2>&1
python3 bench/compare_verdicts.py "$out/frameworks-old.json" "$out/frameworks-new.json" > "$out/verdicts.txt" 2>&1
echo "compare_verdicts: exit $?" >> "$out/verdicts.txt"
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue40.tgz" -C "$results" issue40
cat "$out/steps.txt" "$out/timing.md" "$out/scan.txt" "$out/verdicts.txt"
