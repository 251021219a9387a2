#!/usr/bin/env python3
"""The default run against the driver's own floor, timed in one session (issue 21).

The floor is a bare program that only calls cuInit and retains each GPU's primary context
(bench/context_creation.cpp): no report that initialises CUDA can take less. Rounds alternate the
floor and cudacheck (so a drift of the machine hits both alike), each run started once the previous
run's check process is gone (bench/startup.py explains why); the first round is a warm-up and is
not counted. Prints the whole-process medians, min-max, and cudacheck's median over the floor's.
With --traces N, N more cudacheck runs, each after a floor run, write CUDACHECK_TRACE files into
--trace-dir; their whole-process times are printed apart (writing the trace is not free).

Usage: bench/floor_ratio.py [--runs 9] [--traces 3 --trace-dir DIR] FLOOR_BINARY CUDACHECK [-- ARGS...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402


def timed(command, binary, environment=None):
    """Whole-process milliseconds, exit code and standard output of one run."""
    wait_for_workers(binary)
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
    return (time.perf_counter() - start) * 1000.0, completed.returncode, completed.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--traces", type=int, default=0)
    parser.add_argument("--trace-dir", default=".")
    parser.add_argument("floor")
    parser.add_argument("cudacheck")
    parser.add_argument("arguments", nargs="*")
    args = parser.parse_args()
    floor, ours, codes, inside = [], [], set(), []
    for round_number in range(args.runs + 1):
        floor_ms, floor_code, floor_output = timed([args.floor, "sequential"], args.cudacheck)
        ours_ms, code, _ = timed([args.cudacheck, *args.arguments], args.cudacheck)
        if floor_code != 0:
            sys.exit(f"the floor program failed (exit {floor_code})")
        if round_number > 0:
            floor.append(floor_ms)
            ours.append(ours_ms)
            codes.add(code)
            inside.append(json.loads(floor_output))
    traced = []
    for index in range(args.traces):
        # Each traced run follows a floor run too, as the counted ones do.
        timed([args.floor, "sequential"], args.cudacheck)
        environment = dict(os.environ, CUDACHECK_TRACE=os.path.join(args.trace_dir, f"trace-{index}.json"))
        traced.append(timed([args.cudacheck, *args.arguments], args.cudacheck, environment)[0])
    print(f"cudacheck {' '.join(args.arguments) or '(default level)'}: exit codes {sorted(codes)}")
    print("| command | median ms | min-max ms | runs |")
    print("|---|---|---|---|")
    print(f"| floor: cuInit + primary contexts ({os.path.basename(args.floor)}) | {statistics.median(floor):.1f} | "
          f"{min(floor):.0f}-{max(floor):.0f} | {len(floor)} |")
    print(f"| cudacheck | {statistics.median(ours):.1f} | {min(ours):.0f}-{max(ours):.0f} | {len(ours)} |")
    print(f"\ncudacheck / floor = {statistics.median(ours) / statistics.median(floor):.2f}")
    print(f"inside the floor program (medians): cuInit {statistics.median(r['cuinit_ms'] for r in inside):.1f} ms, "
          f"primary contexts {statistics.median(r['contexts_ms'] for r in inside):.1f} ms")
    print("each round (floor, cudacheck): " + ", ".join(f"({a:.0f}, {b:.0f})" for a, b in zip(floor, ours)))
    if traced:
        print("traced runs (whole process, ms): " + ", ".join(f"{ms:.0f}" for ms in traced))


if __name__ == "__main__":
    main()
