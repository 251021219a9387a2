#!/usr/bin/env python3
"""Whole-process wall time of cudacheck next to nvidia-smi, median of N runs each.

Usage: bench/startup.py [--runs N] CUDACHECK_BINARY
Each command runs once untimed first (page cache, driver state), then N timed runs; the table
gives the median and the spread in milliseconds. Used for docs/performance.md.
"""
import argparse
import shutil
import statistics
import subprocess
import time


def time_command(command, runs):
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm-up
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000.0)
    return completed.returncode, samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("binary")
    args = parser.parse_args()
    commands = [
        ("cudacheck --level quick", [args.binary, "--level", "quick"]),
        ("cudacheck (default level)", [args.binary]),
        ("cudacheck --format json", [args.binary, "--format", "json"]),
        # The same without the supervisor's worker process: the cost of crash isolation.
        ("cudacheck --level quick --no-isolation", [args.binary, "--level", "quick", "--no-isolation"]),
        ("cudacheck --no-isolation", [args.binary, "--no-isolation"]),
    ]
    if shutil.which("nvidia-smi"):
        commands.append(("nvidia-smi", ["nvidia-smi"]))
        commands.append(("nvidia-smi -q", ["nvidia-smi", "-q"]))
    print(f"| command | exit | median ms | min ms | max ms | runs |")
    print(f"|---|---|---|---|---|---|")
    for label, command in commands:
        code, samples = time_command(command, args.runs)
        print(f"| `{label}` | {code} | {statistics.median(samples):.1f} | {min(samples):.1f} | {max(samples):.1f} | {len(samples)} |")


if __name__ == "__main__":
    main()
