#!/usr/bin/env bash
# On the GPU machine (issue 35): the hardening against hostile machines changes nothing on a sound
# one, and a framework that tries to forge results is refused there too.
#  1. builds this revision (build-gpu) and the one before issue 35 (OLD_SOURCE_DIR, build-old);
#  2. times them against each other, 0.5 s idle before every run (bench/compare_builds.py): the
#     default run and --level quick;
#  3. the default run's verdicts of both builds (bench/compare_verdicts.py);
#  4. the forged-event attempt during --level full: torch/__init__.py of the venv gets, for the
#     length of this command, lines that write `finished` events for several checks to fd 3 and fd
#     251 (the worker's event pipe, inherited by every child before issue 35) and fork a sleeper
#     that outlives the import; each build runs `--level full --duration 5`; the report is searched
#     for the forged words and the sleeper looked for afterwards. The file is restored by the same
#     command (trap) and compared with its backup.
# Everything made is under a scratch directory, removed at the end; no GPU setting is touched.
#
# Usage: OUT=dir bench/issue35_on_gpu.sh OLD_SOURCE_DIR
#   writes OUT/issue35.tgz (the device tool returns at most eight files): docs/examples/h200/issue35.
set -uo pipefail
. "$(dirname "$0")/two_builds.sh"
two_builds issue35 "$1"

# 2. Timing first, on a machine nothing else has used yet.
{
    echo "## default run"; python3 bench/compare_builds.py --runs 15 --gap 0.5 "$old" "$new"
    echo; echo "## --level quick"; python3 bench/compare_builds.py --runs 15 --gap 0.5 "$old" "$new" -- --level quick
} > "$out/timing.md" 2>&1
echo "timed in $SECONDS s" >> "$out/steps.txt"

# 3. The default run's verdicts, before and after.
"$old" -o "$out/default-before.json" > /dev/null; echo "before: exit $?" > "$out/default-exits.txt"
"$new" -o "$out/default.json" -o "$out/default.txt"; echo "after: exit $?" >> "$out/default-exits.txt"
python3 bench/compare_verdicts.py "$out/default-before.json" "$out/default.json" > "$out/verdicts.txt" 2>&1

# 4. The forged events, written by torch's own __init__.py when frameworks.run (and toolkit.compile's
#    PyTorch build) import it.
init=$site/torch/__init__.py
cp -p "$init" "$scratch/torch-init.backup"
cat > "$scratch/forge.py" <<'PY'

# --- issue 35 forging test (bench/issue35_on_gpu.sh); removed by the same command ---
def _cudacheck_forge():
    import json, os
    forged = []
    for check, device in (("driver.libcuda", None), ("cuda.kernel", 0), ("cublas.gemm", 0), ("gpu.stress", 0),
                          ("gpu.memtest", 0), ("frameworks.run", None), ("toolkit.compile", None), ("nccl.allreduce", None)):
        result = {"id": check, "device": device, "status": "pass", "code": None,
                  "message": "FORGED by torch/__init__.py", "remediation": None, "docs": None, "findings": [],
                  "evidence": [], "metrics": [], "duration_ms": 1.0, "skip_reason": None}
        forged.append(json.dumps({"event": "finished", "result": result}) + "\n")
    written = []
    for fd in (3, 251):
        try:
            for line in forged:
                os.write(fd, line.encode())
            written.append(fd)
        except OSError:
            pass
    with open("/tmp/issue35-forge-attempts.log", "a") as log:
        log.write(f"pid {os.getpid()}: wrote to fds {written}\n")
    if os.fork() == 0:  # a sleeper that outlives the import, holding whatever this process holds
        os.execv("/bin/sleep", ["/bin/sleep", "617"])
_cudacheck_forge()
PY
rm -f /tmp/issue35-forge-attempts.log
(
    trap 'cp -p "$scratch/torch-init.backup" "$init"; cmp -s "$scratch/torch-init.backup" "$init" && echo "restored $init" || echo "NOT RESTORED: $init"' EXIT
    cat "$scratch/forge.py" >> "$init"
    python3 -c 'import torch' && echo "import torch with the forging lines: exit 0"
    sleep 1; echo "sleepers after a plain import: $(pgrep -fc 'sleep 617')"; pkill -f 'sleep 617'
    for build in old new; do
        binary=$old; [ $build = new ] && binary=$new
        suffix=""; [ $build = old ] && suffix="-before"
        start=$SECONDS
        "$binary" --level full --duration 5 -o "$out/forged$suffix.json" -o "$out/forged$suffix.txt"; echo "$build build: exit $? in $((SECONDS - start)) s"
        echo "$build build: lines with FORGED in its report: $(grep -c FORGED "$out/forged$suffix.txt")"
        sleep 1; echo "$build build: sleepers left after the run: $(pgrep -fc 'sleep 617')"; pkill -f 'sleep 617'
    done
) > "$out/forged-steps.txt" 2>&1
cp /tmp/issue35-forge-attempts.log "$out/forge-attempts.log" 2>/dev/null; rm -f /tmp/issue35-forge-attempts.log
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue35.tgz" -C "$results" issue35
cat "$out/steps.txt" "$out/timing.md" "$out/default-exits.txt" "$out/verdicts.txt" "$out/forged-steps.txt" "$out/forge-attempts.log"
