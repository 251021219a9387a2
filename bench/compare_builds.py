#!/usr/bin/env python3
"""Two builds of cudacheck timed against each other in one session: runs alternate A, B, A, B, ...
(so a drift of the machine hits both alike), each started once the previous run's check process is
gone (bench/startup.py explains why), for each CUDA_VISIBLE_DEVICES value given. Prints the median
wall time of each build and B's ratio to A. Used for docs/performance.md ("several GPUs").

Usage: bench/compare_builds.py [--runs N] [--gap SECONDS] [--visible 0 --visible 0,1] [--env-a NAME=VALUE]
                               [--env-b NAME=VALUE] [--args-a='ARGS'] [--args-b='ARGS'] [--json FILE]
                               BINARY_A BINARY_B [-- ARGS...]
--gap sleeps that long before every run, so that each program starts after the same idle time (an
idle GPU wakes inside cuInit: docs/performance.md).
ARGS are cudacheck's arguments (default: none, the default level). --env-a/--env-b add variables to
A's or B's runs (repeatable): A and B may then be one binary, e.g. with CUDA_DEVICE_MAX_CONNECTIONS=8
for A to time cudacheck's own choice (2) against CUDA's default.
--args-a/--args-b add arguments to A's or B's runs only, after ARGS (one shell-quoted string each,
given with '=' since it starts with --): one binary with two argument sets, e.g. --args-a='--devices 0'
for the default run on one GPU against all (issue 41). --json FILE also writes every sample, in ms, for a later computation
(bench/second_gpu_cost.py): {"runs", "gap_s", "a": {"binary", "arguments", "environment"}, "b": ...,
"settings": [CUDA_VISIBLE_DEVICES or null], "samples": {"A": {setting: [ms...]}, "B": ...}} (the
key of an inherited setting is "(inherited)").
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--gap", type=float, default=0.0, help="seconds of idle time before every run")
    parser.add_argument("--visible", action="append", help="a CUDA_VISIBLE_DEVICES value (repeatable; default: as inherited)")
    parser.add_argument("--env-a", action="append", default=[], help="NAME=VALUE added to A's environment")
    parser.add_argument("--env-b", action="append", default=[], help="NAME=VALUE added to B's environment")
    parser.add_argument("--args-a", default="", help="arguments added to A's runs (a shell-quoted string)")
    parser.add_argument("--args-b", default="", help="arguments added to B's runs (a shell-quoted string)")
    parser.add_argument("--json", help="write every sample to this file")
    parser.add_argument("binary_a")
    parser.add_argument("binary_b")
    parser.add_argument("arguments", nargs="*")
    args = parser.parse_args()
    settings = args.visible or [os.environ.get("CUDA_VISIBLE_DEVICES")]
    samples = {(visible, name): [] for visible in settings for name in ("A", "B")}
    for round_number in range(args.runs + 1):  # the first round is a warm-up, not counted
        for visible in settings:
            for name, binary, extra, own in (("A", args.binary_a, args.env_a, shlex.split(args.args_a)),
                                             ("B", args.binary_b, args.env_b, shlex.split(args.args_b))):
                environment = dict(os.environ)
                environment.update(entry.split("=", 1) for entry in extra)
                if visible is not None:
                    environment["CUDA_VISIBLE_DEVICES"] = visible
                wait_for_workers(args.binary_a)  # either build's check process may still be ending
                wait_for_workers(args.binary_b)
                time.sleep(args.gap)
                start = time.perf_counter()
                subprocess.run([binary, *args.arguments, *own], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
                if round_number > 0:
                    samples[(visible, name)].append((time.perf_counter() - start) * 1000.0)
    if args.json:
        key = lambda visible: visible if visible is not None else "(inherited)"  # noqa: E731
        with open(args.json, "w") as out:
            json.dump({"runs": args.runs, "gap_s": args.gap, "settings": settings,
                       "a": {"binary": args.binary_a, "arguments": [*args.arguments, *shlex.split(args.args_a)], "environment": args.env_a},
                       "b": {"binary": args.binary_b, "arguments": [*args.arguments, *shlex.split(args.args_b)], "environment": args.env_b},
                       "samples": {name: {key(visible): samples[(visible, name)] for visible in settings} for name in ("A", "B")}},
                      out, indent=1)
    if args.args_a or args.args_b:
        print(f"A: {' '.join([*args.arguments, *shlex.split(args.args_a)]) or '(no arguments)'}; "
              f"B: {' '.join([*args.arguments, *shlex.split(args.args_b)]) or '(no arguments)'}\n")
    if args.gap:
        print(f"each run after {args.gap:g} s idle\n")
    print("| CUDA_VISIBLE_DEVICES | A median ms | B median ms | B - A ms | B / A | A min-max | B min-max | runs each |")
    print("|---|---|---|---|---|---|---|---|")
    for visible in settings:
        a, b = samples[(visible, "A")], samples[(visible, "B")]
        print(f"| {visible if visible is not None else '(inherited)'} | {statistics.median(a):.1f} | {statistics.median(b):.1f} | "
              f"{statistics.median(b) - statistics.median(a):+.1f} | {statistics.median(b) / statistics.median(a):.3f} | {min(a):.0f}-{max(a):.0f} | {min(b):.0f}-{max(b):.0f} | {len(a)} |")
    if len(settings) > 1:
        first, last = settings[0], settings[-1]
        print()
        for name in ("A", "B"):
            ratio = statistics.median(samples[(last, name)]) / statistics.median(samples[(first, name)])
            print(f"{name}: CUDA_VISIBLE_DEVICES={last} takes {ratio:.3f}x the time of CUDA_VISIBLE_DEVICES={first}")


if __name__ == "__main__":
    main()
