#!/usr/bin/env python3
"""Whole-process wall time of cudacheck next to nvidia-smi, median of N runs each.

Usage: bench/startup.py [--runs N] [--back-to-back] [--default-only] CUDACHECK_BINARY
Each command runs once untimed first (page cache, driver state), then N timed runs; the table
gives the median and the spread in milliseconds. Used for docs/performance.md.

cudacheck returns as soon as its report is written; its check process (`cudacheck __worker`) may
still be ending, and the driver releasing that process's GPU contexts. A run started meanwhile
would wait for that release, which no single run of cudacheck does. So each run starts once the
previous run's check process is gone (the "lingered" column says how long that took after the
command returned), unless --back-to-back is given.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import time


def workers_of(binary):
    """Pids of running `BINARY __worker` processes."""
    binary = os.path.realpath(binary)
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if len(argv) >= 2 and argv[1] == b"__worker" and os.path.realpath(argv[0].decode(errors="replace")) == binary:
            pids.append(int(entry))
    return pids


def wait_for_workers(binary, limit_s=30.0):
    """Waits until no check process of BINARY runs; returns how long that took, in ms."""
    start = time.perf_counter()
    while workers_of(binary) and time.perf_counter() - start < limit_s:
        time.sleep(0.005)
    return (time.perf_counter() - start) * 1000.0


def time_command(command, runs, binary, back_to_back):
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm-up
    samples = []
    lingered = []
    for _ in range(runs):
        if not back_to_back:
            wait_for_workers(binary)
        start = time.perf_counter()
        completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000.0)
        if not back_to_back:
            lingered.append(wait_for_workers(binary))
    return completed.returncode, samples, lingered


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--back-to-back", action="store_true", help="start each run as soon as the last returned")
    parser.add_argument("--default-only", action="store_true", help="time `cudacheck` alone (no other command)")
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
    if args.default_only:
        commands = commands[1:2]
    elif shutil.which("nvidia-smi"):
        commands.append(("nvidia-smi", ["nvidia-smi"]))
        commands.append(("nvidia-smi -q", ["nvidia-smi", "-q"]))
    print("| command | exit | median ms | min ms | max ms | runs | check process lingered, median ms |")
    print("|---|---|---|---|---|---|---|")
    for label, command in commands:
        code, samples, lingered = time_command(command, args.runs, args.binary, args.back_to_back)
        after = f"{statistics.median(lingered):.1f}" if lingered else "not waited for"
        print(f"| `{label}` | {code} | {statistics.median(samples):.1f} | {min(samples):.1f} | {max(samples):.1f} | {len(samples)} | {after} |")


if __name__ == "__main__":
    main()
