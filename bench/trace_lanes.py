#!/usr/bin/env python3
"""Lines up the traces of cudacheck runs made side by side (bench/process_split.py --trace DIR):
for each configuration and round, one row per process with when its NVML query, cuInit and primary
contexts ran and when its last check ended, in ms from the earliest process's trace start. Shows
whether the driver set the processes' GPUs up one after another or side by side.

Usage: bench/trace_lanes.py DIR
Trace files are named CONFIGURATION-ROUND-PROCESS.json; each has a `clock_origin` event.
"""
import collections
import json
import os
import re
import sys


def spans_of(path):
    with open(path) as handle:
        trace = json.load(handle)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    origin = next((event["args"]["monotonic_ms"] for event in events if event.get("ph") == "M" and event.get("name") == "clock_origin"), None)
    spans = [(event["name"], event["ts"] / 1000.0, (event["ts"] + event.get("dur", 0)) / 1000.0) for event in events if event.get("ph") == "X"]
    return origin, spans


def window(spans, wanted):
    """(first start, last end) of the spans whose name `wanted` accepts, or None."""
    chosen = [(begin, end) for name, begin, end in spans if wanted(name)]
    if not chosen:
        return None
    return min(begin for begin, _ in chosen), max(end for _, end in chosen)


def text(interval, shift):
    return "-" if interval is None else f"{interval[0] + shift:.0f}–{interval[1] + shift:.0f}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = collections.defaultdict(dict)
    for entry in os.listdir(sys.argv[1]):
        match = re.fullmatch(r"(.+)-(\d+)-(\d+)\.json", entry)
        if match:
            runs[(match.group(1), int(match.group(2)))][int(match.group(3))] = os.path.join(sys.argv[1], entry)
    print("| configuration | round | process | NVML ms | cuInit ms | contexts ms | last check ends |")
    print("|---|---|---|---|---|---|---|")
    for (configuration, round_number), processes in sorted(runs.items()):
        loaded = {index: spans_of(path) for index, path in processes.items()}
        origins = [origin for origin, _ in loaded.values() if origin is not None]
        if not origins:
            continue
        earliest = min(origins)
        for index, (origin, spans) in sorted(loaded.items()):
            if origin is None:
                continue
            shift = origin - earliest
            last = window(spans, lambda name: True)
            print(f"| {configuration} | {round_number} | {index} | {text(window(spans, lambda name: name.startswith('NVML')), shift)} | "
                  f"{text(window(spans, lambda name: name == 'cuInit'), shift)} | "
                  f"{text(window(spans, lambda name: name.startswith('primary context of device')), shift)} | "
                  f"{'-' if last is None else f'{last[1] + shift:.0f}'} |")


if __name__ == "__main__":
    main()
