#!/usr/bin/env python3
"""cublas.gemm's critical path in several selections of checks (issue 21, third pass): does the
work of the other checks slow cuBLAS's buffers, its first products and its timed runs? Runs each
variant in turn (rounds alternate, so a drift of the machine hits all alike), every run traced
(CUDACHECK_TRACE) after the same idle time, and prints per variant the medians of the whole
process's wall time and of cuBLAS's milestones, in ms from the start of the check process's
timeline: the primary context's end, the products' buffers (start-end), the first use of each
precision (the last end), the timed products' start and cublas.gemm's end.

Usage: bench/critical_path.py [--rounds 3] [--gap 0.5] [--trace-dir DIR] [--floor FLOOR_BINARY] CUDACHECK \
           'default=' 'cublas=--only cublas.gemm' 'before@/path/to/other/cudacheck=' ...
Each variant is NAME[@BINARY]=ARGS: cudacheck's arguments, split on spaces (none: the default run),
given to BINARY (default CUDACHECK). With --floor, the floor program (bench/context_creation.cpp)
runs before each variant's run, each started GAP s after the previous run ended (the floor gives
the GPU no work, so cudacheck's cuInit meets a GPU idle longer than the floor's does), and each
variant's ratio to the floor's median is printed too.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402


def spans_of(path):
    with open(path) as handle:
        trace = json.load(handle)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return [event for event in events if event.get("ph") == "X"]


def milestones(spans):
    """Named milestones (ms) of one trace; None where the trace has no such span."""
    def ends(wanted):
        found = [(span["ts"] + span.get("dur", 0)) / 1000.0 for span in spans if wanted(span["name"])]
        return max(found) if found else None

    def starts(wanted):
        found = [span["ts"] / 1000.0 for span in spans if wanted(span["name"])]
        return min(found) if found else None
    return {
        "context": ends(lambda name: name.startswith("primary context of device")),
        "buffers from": starts(lambda name: name.startswith("cuBLAS products' buffers")),
        "buffers to": ends(lambda name: name.startswith("cuBLAS products' buffers")),
        "first uses end": ends(lambda name: name.startswith("first use of ") and name != "first use of each precision"),
        "FP32 timed from": starts(lambda name: name == "FP32"),
        "cublas.gemm end": ends(lambda name: name.startswith("cublas.gemm[")),
        "last span end": ends(lambda name: True),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gap", type=float, default=0.5)
    parser.add_argument("--trace-dir")
    parser.add_argument("--floor")
    parser.add_argument("cudacheck")
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    variants = []
    for text in args.variants:
        label, arguments = text.split("=", 1)
        name, _, binary = label.partition("@")
        variants.append((name, binary or args.cudacheck, arguments.split()))
    trace_dir = args.trace_dir or tempfile.mkdtemp()
    os.makedirs(trace_dir, exist_ok=True)
    walls = {name: [] for name, _, _ in variants}
    marks = {name: [] for name, _, _ in variants}
    floors = []
    for _, binary, _ in variants:  # warm-up, not counted
        subprocess.run([binary], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for round_index in range(args.rounds):
        for name, binary, extra in variants:
            if args.floor:
                wait_for_workers(binary)
                time.sleep(args.gap)
                start = time.perf_counter()
                subprocess.run([args.floor, "sequential"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                floors.append((time.perf_counter() - start) * 1000.0)
            trace = os.path.join(trace_dir, f"trace-{name}-{round_index}.json")
            wait_for_workers(binary)
            time.sleep(args.gap)
            start = time.perf_counter()
            subprocess.run([binary, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, CUDACHECK_TRACE=trace))
            walls[name].append((time.perf_counter() - start) * 1000.0)
            marks[name].append(milestones(spans_of(trace)))
    columns = list(marks[variants[0][0]][0].keys())
    floor = statistics.median(floors) if floors else None
    if floor:
        print(f"Floor program: median {floor:.1f} ms ({min(floors):.0f}-{max(floors):.0f}), {len(floors)} runs, each started {args.gap:g} s after the previous run ended\n")
    print("| variant | binary, arguments | wall median ms (min-max) |" + (" ratio to the floor |" if floor else "") + " "
          + " | ".join(columns) + " | runs |")
    print("|---|---|---|" + ("---|" if floor else "") + "---|" * len(columns) + "---|")
    for name, binary, extra in variants:
        def median_of(column):
            values = [mark[column] for mark in marks[name] if mark[column] is not None]
            return f"{statistics.median(values):.0f}" if values else "-"
        wall = statistics.median(walls[name])
        print(f"| {name} | `{' '.join([binary, *extra])}` | {wall:.1f} ({min(walls[name]):.0f}-{max(walls[name]):.0f}) |"
              + (f" {wall / floor:.2f} |" if floor else "") + " " + " | ".join(median_of(column) for column in columns) + f" | {len(walls[name])} |")


if __name__ == "__main__":
    main()
