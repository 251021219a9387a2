#!/usr/bin/env python3
"""`cudacheck inspect FILE` next to `cuobjdump --list-elf --list-ptx FILE`: median wall time of N runs
each (after one untimed run), and how many code objects each lists. Used for docs/performance.md
(issue: inspecting libtorch_cuda.so must take no longer than cuobjdump on the same file).

Usage: bench/inspect_timing.py [--runs N] CUDACHECK_BINARY FILE
"""
import argparse
import json
import shutil
import statistics
import subprocess
import time


def timed(command, runs):
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # page cache
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000.0)
    return completed, samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("binary")
    parser.add_argument("file")
    args = parser.parse_args()
    cuobjdump = shutil.which("cuobjdump")
    ours, our_samples = timed([args.binary, "inspect", "--format", "json", args.file], args.runs)
    report = json.loads(ours.stdout)
    objects = sum(len(entry.get("code_objects", entry.get("objects", []))) for entry in report.get("files", []))
    print(f"file: {args.file}")
    print()
    print("| command | median ms | min ms | max ms | code objects listed |")
    print("|---|---|---|---|---|")
    print(f"| `cudacheck inspect --format json` | {statistics.median(our_samples):.1f} | {min(our_samples):.1f} | {max(our_samples):.1f} | {objects} |")
    if cuobjdump:
        theirs, their_samples = timed([cuobjdump, "--list-elf", "--list-ptx", args.file], args.runs)
        listed = sum(1 for line in theirs.stdout.decode(errors="replace").splitlines() if line.startswith(("ELF file", "PTX file")))
        print(f"| `cuobjdump --list-elf --list-ptx` | {statistics.median(their_samples):.1f} | {min(their_samples):.1f} | {max(their_samples):.1f} | {listed} |")
        print()
        print(f"ratio cudacheck / cuobjdump (medians): {statistics.median(our_samples) / statistics.median(their_samples):.3f}")
    else:
        print("cuobjdump not found: no comparison")


if __name__ == "__main__":
    main()
