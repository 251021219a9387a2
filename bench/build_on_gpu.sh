#!/usr/bin/env bash
# On the GPU machine: builds several source trees at once, without tests (bench/two_builds.sh builds
# its two with it, so a later issueNN_on_gpu.sh finds each build up to date). A build's serial
# tail (the last objects, the link) leaves most of the 16 cores idle; builds side by side fill them.
#
# Usage: bench/build_on_gpu.sh SOURCE:BUILD_DIR...   e.g. .old/old38:build-b .:build-gpu
# Prints each build's time and status; exits 1 when any failed (its log's end printed).
set -uo pipefail
SECONDS=0
pids=()
for pair in "$@"; do
    source_dir=${pair%%:*}
    build_dir=${pair#*:}
    { cmake -S "$source_dir" -B "$build_dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
          -DCUDACHECK_BUILD_TESTS=OFF > "$build_dir.log" 2>&1 &&
      cmake --build "$build_dir" -j"$(nproc)" --target cudacheck >> "$build_dir.log" 2>&1
      echo "$pair: exit $? after $SECONDS s"; } &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for pair in "$@"; do
    build_dir=${pair#*:}
    [ -x "$build_dir/cudacheck" ] || { status=1; echo "== $build_dir.log"; tail -30 "$build_dir.log"; }
done
echo "built $# trees in $SECONDS s"
exit $status
