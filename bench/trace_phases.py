#!/usr/bin/env python3
"""The milestones of traced runs (CUDACHECK_TRACE=FILE), one row per trace and the medians: when
cuInit returned, when every GPU's primary context and cuBLAS handle existed, and when the last check
ended, in milliseconds from the start of the check process's timeline. Used for docs/performance.md
("several GPUs") to see which phase grows when more GPUs are visible.

Usage: bench/trace_phases.py TRACE.json...
"""
import json
import statistics
import sys

# Milestone: (column, the span names it waits for: each such span's end, the latest one counts).
MILESTONES = [
    ("cuInit", lambda name: name == "cuInit"),
    ("contexts", lambda name: name.startswith("primary context of device")),
    ("cuBLAS handles", lambda name: name.startswith("cublasCreate for device")),
    ("last check", lambda name: True),
]


def milestones(path):
    with open(path) as handle:
        trace = json.load(handle)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    spans = [event for event in events if event.get("ph") == "X"]
    row = {}
    for column, wanted in MILESTONES:
        ends = [(span["ts"] + span.get("dur", 0)) / 1000.0 for span in spans if wanted(span["name"])]
        row[column] = max(ends) if ends else None
    return row


def cell(value):
    return "-" if value is None else f"{value:.0f}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    columns = [column for column, _ in MILESTONES]
    print("| trace | " + " | ".join(f"{column} ms" for column in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    rows = []
    for path in sys.argv[1:]:
        row = milestones(path)
        rows.append(row)
        print(f"| {path} | " + " | ".join(cell(row[column]) for column in columns) + " |")
    medians = [statistics.median([row[column] for row in rows if row[column] is not None] or [0]) for column in columns]
    print("| median | " + " | ".join(cell(value) for value in medians) + " |")


if __name__ == "__main__":
    main()
