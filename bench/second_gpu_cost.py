#!/usr/bin/env python3
"""What the second GPU costs cudacheck's default run, against what it costs the driver itself
(issue 41: at most 1.1x; docs/performance.md, "Several GPUs").

cudacheck's side is bench/compare_builds.py's --json (or, for an older recording, its Markdown
table): one binary, A with `--devices 0` (--args-a), B with no argument, each under
CUDA_VISIBLE_DEVICES=ONE and =ALL (--visible 0 --visible 0,1). Its cells:
  C1 = B, one GPU visible;  C2 = B, all GPUs visible;  C1d = A (`--devices 0`), all GPUs visible.
The driver's side is bench/context_creation.cpp, a bare program that calls cuInit and retains each
visible GPU's primary context, nothing else: run here in fresh processes, rounds alternating
sequential and parallel (contexts one after another from one thread, or one thread per GPU) under
CUDA_VISIBLE_DEVICES=ONE and =ALL, the same idle gap before every run, the first round a warm-up
not counted. Each sample keeps the whole-process wall time and the program's own cuInit and
context times. Its cells: F1 (one GPU) and F2 (all), per mode.

Printed, from the medians:
- C2 / C1: the computation of docs/performance.md's table (compare_builds' B side,
  CUDA_VISIBLE_DEVICES=0,1 over =0; 1.34-1.42 in the last recording);
- (C2 - C1) / (F2 - F1), sequential, whole process: the second GPU's cost to cudacheck over its
  cost to the driver, like for like (both sides pay the second GPU's cuInit set-up and context,
  and its teardown at exit); also over the driver's cuInit + contexts as the program times them;
- (C2 - C1d) / (the driver's contexts(ALL) - contexts(ONE)): `--devices 0` still has cuInit set up
  every visible GPU, so its difference is the second context and the second GPU's checks; the
  driver's is then its second context alone;
- the same with the parallel floor, for reference (cudacheck creates its contexts one after
  another: src/probes/driver_probe.cpp, create_primary_contexts).

Usage:
  second_gpu_cost.py --floor-binary BIN [--runs 15] [--gap 0.5] [--one 0] [--all 0,1] [-o FLOOR.jsonl]
                     [--cudacheck TIMING.json|TIMING.md]
  second_gpu_cost.py --floor-samples FLOOR.jsonl --cudacheck TIMING.json|TIMING.md
FLOOR.jsonl: one sample a line, context_creation's JSON object plus "wall_ms" and "visible"; a line
may have words before its object (docs/examples/h200x2/timing-split/context-creation-*.txt: such
lines without "wall_ms" give the in-process figures only). Samples are grouped by their "devices"
count: the fewest is ONE, the most ALL.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

TARGET = 1.1  # issue 41: the second GPU costs at most 1.1x what the driver itself takes for it


def measure_floor(binary, runs, gap, one, every):
    """Rounds of context_creation: (sequential, parallel) x (ONE, ALL), fresh processes."""
    samples = []
    for round_number in range(runs + 1):  # the first round is a warm-up, not counted
        for mode in ("sequential", "parallel"):
            for visible in (one, every):
                environment = dict(os.environ, CUDA_VISIBLE_DEVICES=visible)
                time.sleep(gap)
                start = time.perf_counter()
                completed = subprocess.run([binary, mode], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                           env=environment, text=True)
                wall_ms = (time.perf_counter() - start) * 1000.0
                if completed.returncode != 0:
                    sys.exit(f"{binary} {mode} (CUDA_VISIBLE_DEVICES={visible}) failed: exit {completed.returncode}")
                if round_number > 0:
                    sample = json.loads(completed.stdout)
                    sample.update(wall_ms=round(wall_ms, 2), visible=visible)
                    samples.append(sample)
    return samples


def read_floor(path):
    samples = []
    for line in open(path):
        start = line.find("{")
        if start >= 0:
            samples.append(json.loads(line[start:]))
    if not samples:
        sys.exit(f"{path}: no context_creation sample")
    return samples


def read_cudacheck(path):
    """{(A|B, "one"|"all"): median ms} and a description of A and B."""
    text = open(path).read()
    if path.endswith(".json"):
        recorded = json.loads(text)
        settings = recorded["settings"]
        key = lambda visible: visible if visible is not None else "(inherited)"  # noqa: E731
        medians = {}
        for name in ("A", "B"):
            for which, visible in (("one", settings[0]), ("all", settings[-1])):
                values = recorded["samples"][name][key(visible)]
                medians[(name, which)] = (statistics.median(values), min(values), max(values), len(values))
        described = {name: " ".join(recorded[name.lower()]["arguments"]) or "(no arguments)" for name in ("A", "B")}
        return medians, described, (settings[0], settings[-1])
    # compare_builds' Markdown table: | CUDA_VISIBLE_DEVICES | A median ms | B median ms | ... | A min-max | B min-max | runs each |
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|") and not line.startswith("|---")]
    if len(rows) < 3:
        sys.exit(f"{path}: no compare_builds table with two CUDA_VISIBLE_DEVICES rows")
    header, first, last = rows[0], rows[1], rows[-1]
    column = {name: header.index(name) for name in header}
    medians = {}
    for which, row in (("one", first), ("all", last)):
        for name in ("A", "B"):
            low, high = (float(value) for value in row[column[f"{name} min-max"]].split("-"))
            medians[(name, which)] = (float(row[column[f"{name} median ms"]]), low, high, int(row[column["runs each"]]))
    arguments = re.search(r"^A: (.*); B: (.*)$", text, re.MULTILINE)
    described = {"A": arguments.group(1), "B": arguments.group(2)} if arguments else {"A": "?", "B": "?"}
    return medians, described, (first[0], last[0])


def median_of(samples, field):
    values = [sample[field] for sample in samples if field in sample]
    return statistics.median(values) if values else None


def ratio_line(name, numerator, denominator, target=False):
    if numerator is None or denominator is None or denominator <= 0:
        return f"- {name}: not computed (a figure is missing)"
    ratio = numerator / denominator
    verdict = f" (target at most {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'})" if target else ""
    return f"- {name}: {numerator:.1f} / {denominator:.1f} ms = **{ratio:.2f}x**{verdict}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--floor-binary", help="context_creation, built with g++ ... -lcuda")
    source.add_argument("--floor-samples", help="samples recorded earlier (FLOOR.jsonl)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--gap", type=float, default=0.5, help="seconds of idle time before every run")
    parser.add_argument("--one", default="0", help="CUDA_VISIBLE_DEVICES of the one-GPU runs")
    parser.add_argument("--all", dest="every", default="0,1", help="CUDA_VISIBLE_DEVICES of the all-GPU runs")
    parser.add_argument("-o", "--output", help="write the floor's samples here (JSON lines)")
    parser.add_argument("--cudacheck", help="bench/compare_builds.py's --json output (or its Markdown table)")
    args = parser.parse_args()

    if args.floor_binary:
        samples = measure_floor(args.floor_binary, args.runs, args.gap, args.one, args.every)
        if args.output:
            with open(args.output, "w") as out:
                out.writelines(json.dumps(sample) + "\n" for sample in samples)
    else:
        samples = read_floor(args.floor_samples)
    counts = sorted({sample["devices"] for sample in samples})
    floor = {}
    print("## The driver alone: cuInit and each GPU's primary context (bench/context_creation.cpp)\n")
    if args.floor_binary:
        print(f"{args.runs} rounds after a warm-up round, {args.gap:g} s idle before every run, fresh processes\n")
    print("| mode | GPUs | whole process ms (min-max) | cuInit ms | contexts ms | cuInit + contexts ms | runs |")
    print("|---|---|---|---|---|---|---|")
    for mode in ("sequential", "parallel"):
        for count in (counts[0], counts[-1]):
            group = [sample for sample in samples if sample["mode"] == mode and sample["devices"] == count]
            if not group:
                continue
            for sample in group:
                sample["setup_ms"] = sample["cuinit_ms"] + sample["contexts_ms"]
            walls = [sample["wall_ms"] for sample in group if "wall_ms" in sample]
            cell = {field: median_of(group, field) for field in ("wall_ms", "cuinit_ms", "contexts_ms", "setup_ms")}
            floor[(mode, "one" if count == counts[0] else "all")] = cell
            wall = f"{cell['wall_ms']:.1f} ({min(walls):.0f}-{max(walls):.0f})" if walls else "-"
            print(f"| {mode} | {count} | {wall} | {cell['cuinit_ms']:.1f} | {cell['contexts_ms']:.1f} | "
                  f"{cell['setup_ms']:.1f} | {len(group)} |")
    if not args.cudacheck:
        return 0
    if len(counts) < 2:
        print("\nthe floor ran on one GPU count only: no second GPU to cost")
        return 1

    cudacheck, described, (one, every) = read_cudacheck(args.cudacheck)
    print(f"\n## cudacheck's default run ({os.path.basename(args.cudacheck)}; A: {described['A']}, B: {described['B']})\n")
    devices_zero = "--devices 0" in described["A"]
    print("| cell | CUDA_VISIBLE_DEVICES | arguments | median ms (min-max) | runs |")
    print("|---|---|---|---|---|")
    # A is another build in older recordings: C1d only where A's arguments say `--devices 0`.
    for label, (name, which) in (("C1", ("B", "one")), ("C2", ("B", "all")), ("C1d" if devices_zero else "A", ("A", "all")),
                                 ("A", ("A", "one"))):
        median, low, high, runs = cudacheck[(name, which)]
        print(f"| {label} | {one if which == 'one' else every} | {described[name]} | {median:.1f} ({low:.0f}-{high:.0f}) | {runs} |")
    c1, c2, c1d = cudacheck[("B", "one")][0], cudacheck[("B", "all")][0], cudacheck[("A", "all")][0]

    print("\n## The second GPU\n")
    print(ratio_line("cudacheck, all GPUs / one (C2 / C1; docs/performance.md's computation, 1.34-1.42 there)", c2, c1))
    if devices_zero:
        print(ratio_line("cudacheck, all GPUs / `--devices 0` (C2 / C1d)", c2, c1d))
    for mode in ("sequential", "parallel"):
        one_gpu, all_gpus = floor.get((mode, "one")), floor.get((mode, "all"))
        if not one_gpu or not all_gpus:
            continue
        like_for_like = mode == "sequential"  # cudacheck creates its contexts one after another

        def difference(field):
            low, high = one_gpu[field], all_gpus[field]
            return None if low is None or high is None else high - low

        print(ratio_line(f"(C2 - C1) / the driver's whole-process difference, {mode}", c2 - c1, difference("wall_ms"),
                         target=like_for_like))
        print(ratio_line(f"(C2 - C1) / the driver's cuInit + contexts difference, {mode}", c2 - c1, difference("setup_ms")))
        if devices_zero:
            print(ratio_line(f"(C2 - C1d) / the driver's contexts difference, {mode} (`--devices 0` sets up every GPU in cuInit)",
                             c2 - c1d, difference("contexts_ms"), target=like_for_like))
    return 0


if __name__ == "__main__":
    sys.exit(main())
