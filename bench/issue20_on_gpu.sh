#!/usr/bin/env bash
# On the GPU machine (issue 20): a `--level full` run with its JSON, HTML and table written by the
# run itself, inside tmux so that the progress line is drawn on a real terminal, and the tmux pane
# captured every half second while it runs (the screenshots of the progress line); then the GPU
# tests of the burn-in checks, whose series (schema 1.6.0) they now check.
#
# tmux is not on that machine: Debian's tmux and its two libraries travel in .devtools/tmux (a
# folder git ignores, named in the call's carry), and only tmux itself runs with them on its path.
#
# Usage: OUT=dir [TESTS=0] bench/issue20_on_gpu.sh   (after building build-gpu)
set -u
bin=$(realpath build-gpu/cudacheck)
out=${OUT:-gpu-out}/issue20
mkdir -p "$out"
tmux_dir=$(realpath .devtools/tmux)
# An array rather than a function, so that `timeout` can run it.
tmux=(env LC_ALL=C.UTF-8 LD_LIBRARY_PATH="$tmux_dir/lib" "$tmux_dir/bin/tmux" -u -S /tmp/cudacheck-issue20.sock)

# What the run inside tmux sees of LD_LIBRARY_PATH: this machine's own, not tmux's libraries.
# stderr stays the pane's terminal (the progress line is drawn there); stdout goes to the file.
if [ -n "${LD_LIBRARY_PATH:-}" ]; then keep_path="export LD_LIBRARY_PATH='$LD_LIBRARY_PATH'"; else keep_path="unset LD_LIBRARY_PATH"; fi
run_full="$keep_path; cd '$PWD'; '$bin' --level full -o '$out/full.json' -o '$out/full.html' > '$out/full.txt'; echo \$? > '$out/full.exit'; sleep 2"

# A 150x12 terminal (TERM as tmux sets it): --progress auto draws the line, in colour.
"${tmux[@]}" new-session -d -s issue20 -x 150 -y 12 "$run_full"
start=$(date +%s%N)
: > "$out/progress-captures.txt"
: > "$out/progress-captures-colour.txt"
# Captured until the run has written its exit status (at most 3 minutes); each tmux call has a time
# limit, and one that fails or times out is logged with its status rather than ending the loop.
while [ ! -s "$out/full.exit" ] && [ $(( ($(date +%s%N) - start) / 1000000000 )) -lt 180 ]; do
    elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
    { echo "=== $elapsed ms"; timeout 3 "${tmux[@]}" capture-pane -p -t issue20 || echo "(capture-pane: exit $?)"; } >> "$out/progress-captures.txt" 2>&1
    { echo "=== $elapsed ms"; timeout 3 "${tmux[@]}" capture-pane -p -e -t issue20 || echo "(capture-pane: exit $?)"; } >> "$out/progress-captures-colour.txt" 2>&1
    sleep 0.5
done
echo "full run: exit $(cat "$out/full.exit" 2>/dev/null) after $(( ($(date +%s%N) - start) / 1000000 )) ms (tmux session included)" | tee "$out/runs.txt"
timeout 5 "${tmux[@]}" kill-server 2>/dev/null

# The same run's report rendered again from its JSON: the HTML must be the one the run wrote.
"$bin" render "$out/full.json" -o "$out/rendered.html" && cmp "$out/full.html" "$out/rendered.html" && echo "render of full.json: identical HTML" | tee -a "$out/runs.txt"
rm -f "$out/rendered.html"
ls -l "$out" | tee -a "$out/runs.txt"

# The burn-in GPU tests, which check the series (TESTS=0 leaves them out).
if [ "${TESTS:-1}" = 1 ]; then
    ctest --test-dir build-gpu -L gpu -R 'GpuBurnIn' --output-on-failure > "$out/ctest-burn-in.txt" 2>&1
    tail -n 15 "$out/ctest-burn-in.txt"
fi
