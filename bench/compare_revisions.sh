#!/usr/bin/env bash
# On the GPU machine: cudacheck as it is now against an earlier revision of it, built side by side,
# for a change meant to keep behaviour (issue 16). Builds both for Hopper, runs every test of the
# new build (GPU tests included), records a default run of each, compares their verdicts with each
# other and with the last recording (docs/examples/h200/cudacheck.json, bench/compare_verdicts.py),
# and times the two against each other (bench/compare_builds.py, alternating runs). Changes no GPU
# setting.
#
# Usage: OUT=dir bench/compare_revisions.sh OLD_SOURCE_DIR
#   where OLD_SOURCE_DIR holds the earlier revision's CMakeLists.txt, cmake/, src/, include/ and
#   kernels/, e.g. made here with `git archive REV CMakeLists.txt CMakePresets.json cmake src include kernels | tar x -C DIR`.
set -uo pipefail
old_source=$(realpath "$1")
out=${OUT:-gpu-out}
mkdir -p "$out"
SECONDS=0
configure() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=RelWithDebInfo "${@:3}"; }
{ configure . build-gpu && cmake --build build-gpu -j"$(nproc)"; } > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
{ configure "$old_source" build-old -DCUDACHECK_BUILD_TESTS=OFF && cmake --build build-old -j"$(nproc)" --target cudacheck; } >> "$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
echo "built both in $SECONDS s"
new=$(realpath build-gpu/cudacheck)
old=$(realpath build-old/cudacheck)

# Timing first, on a machine nothing else has used yet.
python3 bench/compare_builds.py --runs 11 "$old" "$new" > "$out/timing.md" 2>&1
cat "$out/timing.md"

for name in old new; do
    binary=$old; [ $name = new ] && binary=$new
    CUDA_VISIBLE_DEVICES=0 "$binary" --no-color -o "$out/$name.json" > "$out/$name.txt" 2>&1
    echo "$name default run: exit $?"
done
{
    echo "old build against new build:"; python3 bench/compare_verdicts.py "$out/old.json" "$out/new.json"
    echo; echo "last recording against new build:"; python3 bench/compare_verdicts.py docs/examples/h200/cudacheck.json "$out/new.json"
} > "$out/verdicts.txt" 2>&1
cat "$out/verdicts.txt"

(cd build-gpu && ctest -j8 --output-on-failure) > "$out/ctest.txt" 2>&1
echo "ctest exit $?"; grep -E "tests passed|tests failed|Failed|\(Skipped\)" "$out/ctest.txt" | tail -15
echo "done in $SECONDS s"
