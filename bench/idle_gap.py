#!/usr/bin/env python3
"""Whole-process time of the floor program and of cudacheck after the GPU sat idle for a given
time (issue 21: the default run took ~85 ms longer right after the floor program than right after
another cudacheck run). Rounds go over every gap in turn, so a drift of the machine hits all gaps
alike; before each run the script sleeps the gap (after the previous run's check process is gone,
bench/startup.py). Prints, per gap, the medians of both programs and their ratio, and inside each
program when cuInit returned and when the primary context existed: the floor program's own
figures, cudacheck's from a trace (CUDACHECK_TRACE, written by every cudacheck run here; writing
it costs ~1 ms).

Usage: bench/idle_gap.py [--rounds 5] [--gaps 0,0.25,0.5,1,2] FLOOR_BINARY CUDACHECK [-- ARGS...]
"""
import argparse
import json
import os
import tempfile
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402


def run_after(gap_s, command, binary, environment=None):
    """Whole-process milliseconds and standard output of one run, started gap_s after the last."""
    wait_for_workers(binary)
    time.sleep(gap_s)
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
    return (time.perf_counter() - start) * 1000.0, completed.stdout


def trace_milestones(path):
    """(cuInit's end, the primary context's end) in ms from the start of cudacheck's timeline."""
    with open(path) as handle:
        trace = json.load(handle)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    ends = {}
    for event in events:
        if event.get("ph") == "X":
            name = "cuInit" if event["name"] == "cuInit" else "context" if event["name"].startswith("primary context of device") else None
            if name:
                ends[name] = max(ends.get(name, 0.0), (event["ts"] + event.get("dur", 0)) / 1000.0)
    return ends.get("cuInit", float("nan")), ends.get("context", float("nan"))


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
    floor_inside = {gap: [] for gap in gaps}
    ours_inside = {gap: [] for gap in gaps}
    trace = os.path.join(tempfile.mkdtemp(), "trace.json")
    traced = dict(os.environ, CUDACHECK_TRACE=trace)
    run_after(0, [args.cudacheck, *args.arguments], args.cudacheck)  # warm-up, not counted
    for _ in range(args.rounds):
        for gap in gaps:
            milliseconds, output = run_after(gap, [args.floor, "sequential"], args.cudacheck)
            floor[gap].append(milliseconds)
            inside = json.loads(output)
            floor_inside[gap].append((inside["cuinit_ms"], inside["cuinit_ms"] + inside["contexts_ms"]))
            ours[gap].append(run_after(gap, [args.cudacheck, *args.arguments], args.cudacheck, traced)[0])
            ours_inside[gap].append(trace_milestones(trace))
    print("| idle before each run (s) | floor median ms | cudacheck median ms | ratio | cudacheck min-max | floor: cuInit, context ends (ms) "
          "| cudacheck: cuInit, context end (ms) | runs |")
    print("|---|---|---|---|---|---|---|---|")
    for gap in gaps:
        a, b = statistics.median(floor[gap]), statistics.median(ours[gap])

        def ends(pairs):
            return f"{statistics.median(p[0] for p in pairs):.0f}, {statistics.median(p[1] for p in pairs):.0f}"
        print(f"| {gap:g} | {a:.1f} | {b:.1f} | {b / a:.2f} | {min(ours[gap]):.0f}-{max(ours[gap]):.0f} | {ends(floor_inside[gap])} "
              f"| {ends(ours_inside[gap])} | {len(ours[gap])} |")


if __name__ == "__main__":
    main()
