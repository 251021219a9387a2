#!/usr/bin/env bash
# toolkit.compile's PyTorch extension build, variant against variant (issue 40): each variant of
# bench/extension_build.py built from scratch in a fresh directory, the variants alternating within
# each round, then the median of each (whole process, import torch, the load call, each ninja edge).
# Nothing else should compile beside it (on the 2-core build machine, hold
# /tmp/cudacheck-build.lock: `flock /tmp/cudacheck-build.lock bench/extension_build.sh ...`).
#
# Usage: [OUT=dir] [ROUNDS=3] [JOBS="default"] [BUDGET_S=540] bench/extension_build.sh [PYTHON] [VARIANT...]
#   PYTHON    the torch environment's interpreter (default /opt/torch/.venv/bin/python, the GPU machine's)
#   VARIANT   any of bench/extension_build.py's (default: today python_h context_cu raw_cu op_library)
#   JOBS      MAX_JOBS values to cross with the variants; "default" leaves MAX_JOBS unset (ninja's
#             own default, cores + 2), e.g. JOBS="default 1"
#   BUDGET_S  no round starts after this many seconds (a device call is limited to 600 s)
# Writes $OUT/extension_build.jsonl (one line per build) and prints the medians; OUT defaults to
# ${OUT:-bench-out}. Also records the machine (nproc, g++ and nvcc versions, torch's version).
set -u
here=$(cd "$(dirname "$0")" && pwd)
python=${1:-/opt/torch/.venv/bin/python}
shift || true
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(today python_h context_cu raw_cu op_library)
rounds=${ROUNDS:-3}
jobs=${JOBS:-default}
budget=${BUDGET_S:-540}
out=${OUT:-bench-out}
mkdir -p "$out"
log=$out/extension_build.jsonl
: > "$log"
{
    echo "nproc $(nproc)"
    g++ --version | head -1
    "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version | tail -1
    "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null
    echo "TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-<unset>}"
} > "$out/extension_build_machine.txt"
cat "$out/extension_build_machine.txt"

started=$SECONDS
for round in $(seq 1 "$rounds"); do
    if [ $((SECONDS - started)) -ge "$budget" ]; then
        echo "budget of ${budget} s spent: stopping before round $round"
        break
    fi
    for variant in "${variants[@]}"; do
        for max_jobs in $jobs; do
            directory=$(mktemp -d "${TMPDIR:-/tmp}/extension-build-XXXXXX")
            if [ "$max_jobs" = default ]; then
                line=$(env -u MAX_JOBS "$python" "$here/extension_build.py" "$variant" "$directory" 2>/dev/null |
                       grep '^EXTENSION_BUILD ')
            else
                line=$(MAX_JOBS=$max_jobs "$python" "$here/extension_build.py" "$variant" "$directory" 2>/dev/null |
                       grep '^EXTENSION_BUILD ')
            fi
            rm -rf "$directory"
            echo "${line#EXTENSION_BUILD }" >> "$log"
            echo "round $round $variant MAX_JOBS=$max_jobs: ${line#EXTENSION_BUILD }" | cut -c1-400
        done
    done
done

"$python" - "$log" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip().startswith("{")]
groups = {}
for row in rows:
    groups.setdefault((row["variant"], row.get("max_jobs") or "default"), []).append(row)
print(f"{'variant':<16} {'MAX_JOBS':<8} {'n':>2} {'total s':>8} {'import s':>8} {'load s':>8}  edges (median ms)  failures")
for (variant, jobs), items in groups.items():
    ok = [row for row in items if "error" not in row]
    failed = len(items) - len(ok)
    def median(key):
        values = [row[key] for row in ok if key in row]
        return f"{statistics.median(values):8.1f}" if values else "       -"
    edges = {}
    for row in ok:
        for edge, ms in row.get("edges_ms", {}).items():
            edges.setdefault(edge, []).append(ms)
    edge_text = ", ".join(f"{edge} {statistics.median(v):.0f}" for edge, v in sorted(edges.items()))
    errors = "; ".join(sorted({row["error"][:120] for row in items if "error" in row}))
    print(f"{variant:<16} {jobs:<8} {len(ok):>2} {median('total_s')} {median('import_s')} {median('load_s')}  "
          f"{edge_text}  {failed} {errors}")
PY
