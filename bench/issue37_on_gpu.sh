#!/usr/bin/env bash
# On the GPU machine: the restructuring that carries facts as data (labelled figures, the libraries
# section, one binding per driver library, the build layer, one error idiom) changes no verdict,
# code or figure on a sound GPU, and does not slow the default run.
#  1. builds this revision (build-gpu) and OLD_SOURCE_DIR (build-old: the code before the change,
#     from `git archive`), without tests;
#  2. times them against each other, alternating, 0.5 s idle before every run
#     (bench/compare_builds.py): the default run and --level quick;
#  3. the default run and `--level full --duration 5` of both builds, compared by
#     bench/compare_verdicts.py (status, code, findings' codes, figure names; peaks, new figures
#     marked `measured: false`, are listed apart), and the default run against the last recording
#     passed as LAST_RECORDING (a JSON report, e.g. docs/examples/h200/issue35/default.json);
#  4. PART=recordings (a second call, the machine still warm, the build kept): the examples of
#     docs/examples/h200/ again with this revision (table, -v, JSON, --level full -v, the
#     libraries section as `--only libraries.resolution -v`).
# Everything made is under a scratch directory, removed at the end; no GPU setting is touched.
#
# Usage: OUT=dir [LAST_RECORDING=report.json] bench/issue37_on_gpu.sh OLD_SOURCE_DIR
#        OUT=dir PART=recordings bench/issue37_on_gpu.sh OLD_SOURCE_DIR
#   writes OUT/issue37.tgz or OUT/issue37-recordings.tgz (the device tool returns at most eight files).
set -uo pipefail
if [ "${PART:-compare}" = recordings ]; then
    results=$(mktemp -d /tmp/issue37-recordings-XXXXXX)
    out=$results/h200
    mkdir -p "$out"
    [ -x build-gpu/cudacheck ] || { cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDACHECK_BUILD_TESTS=OFF &&
        cmake --build build-gpu -j"$(nproc)" --target cudacheck; } > "$results/build.log" 2>&1 || { tail -40 "$results/build.log"; exit 1; }
    bin=$(realpath build-gpu/cudacheck)
    export PATH=/opt/torch/.venv/bin:$PATH
    # The same commands as tools/gpu-session.sh's recordings (docs/examples/README.md).
    { echo "\$ cudacheck"; "$bin" --no-color; echo "exit $?"; echo; echo "\$ cudacheck --level quick"; "$bin" --no-color --level quick; echo "exit $?"; } > "$out/cudacheck-table.txt" 2>&1
    { echo "\$ cudacheck -v"; "$bin" --no-color -v; } > "$out/cudacheck-verbose.txt" 2>&1
    "$bin" --format json > "$out/cudacheck.json" 2>&1
    { echo "\$ cudacheck --level full -v"; "$bin" --no-color --level full -v; echo "exit $?"; } > "$out/cudacheck-full.txt" 2>&1
    { echo '$ cudacheck --only libraries.resolution -v'; "$bin" --no-color --only libraries.resolution -v; } > "$out/libraries.txt" 2>&1
    "$bin" --format prometheus > "$out/cudacheck.prom" 2>&1
    "$bin" --format html > "$out/cudacheck.html" 2>&1
    tar -czf "${OUT:-.}/issue37-recordings.tgz" -C "$results" h200
    grep -h "passed\|failed" "$out/cudacheck-table.txt"; tail -3 "$out/cudacheck-full.txt"
    rm -rf "$results"
    exit 0
fi

. "$(dirname "$0")/two_builds.sh"
two_builds issue37 "$1"

# 2. Timing first, on a machine nothing else has used yet.
{
    echo "## default run"; python3 bench/compare_builds.py --runs "${RUNS:-15}" --gap 0.5 "$old" "$new"
    echo; echo "## --level quick"; python3 bench/compare_builds.py --runs "${RUNS:-15}" --gap 0.5 "$old" "$new" -- --level quick
} > "$out/timing.md" 2>&1
echo "timed in $SECONDS s" >> "$out/steps.txt"

# 3. Verdicts, codes and figures: the default run and a short full run of both builds.
{
    "$old" -o "$out/default-before.json" > /dev/null; echo "default, before: exit $?"
    "$new" -o "$out/default.json" -o "$out/default.txt"; echo "default, after: exit $?"
    "$old" --level full --duration 5 -o "$out/full-before.json" > /dev/null; echo "full, before: exit $?"
    "$new" --level full --duration 5 -o "$out/full.json" -o "$out/full.txt"; echo "full, after: exit $?"
} > "$out/exits.txt" 2>&1
{
    echo "## default run, the build before against this one"; python3 bench/compare_verdicts.py "$out/default-before.json" "$out/default.json"
    echo; echo "## --level full --duration 5, the build before against this one"; python3 bench/compare_verdicts.py "$out/full-before.json" "$out/full.json"
    if [ -n "${LAST_RECORDING:-}" ] && [ -f "$LAST_RECORDING" ]; then
        echo; echo "## default run, the last recording ($LAST_RECORDING) against this one"; python3 bench/compare_verdicts.py "$LAST_RECORDING" "$out/default.json"
    fi
} > "$out/verdicts.txt" 2>&1
# The same report as Prometheus text and HTML: every figure, the peaks included, reaches both
# without a renderer knowing its name.
"$new" render --format prometheus "$out/default.json" > "$out/default.prom" 2>&1
"$new" render --format html "$out/default.json" > "$out/default.html" 2>&1
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue37.tgz" -C "$results" issue37
cat "$out/steps.txt" "$out/timing.md" "$out/exits.txt" "$out/verdicts.txt"
