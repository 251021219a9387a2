#!/usr/bin/env python3
"""Whole-process time of the floor program and of cudacheck after the GPU sat idle for a given
time (issue 21: the default run took ~85 ms longer right after the floor program than right after
another cudacheck run). Rounds go over every gap in turn, so a drift of the machine hits all gaps
alike; before each run the script sleeps the gap (after the previous run's check process is gone,
bench/startup.py). Prints, per gap, the medians of both programs and their ratio.

Usage: bench/idle_gap.py [--rounds 5] [--gaps 0,0.25,0.5,1,2] FLOOR_BINARY CUDACHECK [-- ARGS...]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402


def run_after(gap_s, command, binary):
    wait_for_workers(binary)
    time.sleep(gap_s)
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000.0, completed.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gaps", default="0,0.25,0.5,1,2")
    parser.add_argument("floor")
    parser.add_argument("cudacheck")
    parser.add_argument("arguments", nargs="*")
    args = parser.parse_args()
    gaps = [float(gap) for gap in args.gaps.split(",")]
    floor = {gap: [] for gap in gaps}
    ours = {gap: [] for gap in gaps}
    run_after(0, [args.cudacheck, *args.arguments], args.cudacheck)  # warm-up, not counted
    for _ in range(args.rounds):
        for gap in gaps:
            floor[gap].append(run_after(gap, [args.floor, "sequential"], args.cudacheck)[0])
            ours[gap].append(run_after(gap, [args.cudacheck, *args.arguments], args.cudacheck)[0])
    print(f"| idle before each run (s) | floor median ms | cudacheck median ms | ratio | cudacheck min-max | runs |")
    print("|---|---|---|---|---|---|")
    for gap in gaps:
        a, b = statistics.median(floor[gap]), statistics.median(ours[gap])
        print(f"| {gap:g} | {a:.1f} | {b:.1f} | {b / a:.2f} | {min(ours[gap]):.0f}-{max(ours[gap]):.0f} | {len(ours[gap])} |")


if __name__ == "__main__":
    main()
