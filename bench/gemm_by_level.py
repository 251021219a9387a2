#!/usr/bin/env python3
"""The timed figures of one report at the default level against those of --level full reports: each
throughput figure (TFLOP/s, GB/s) of cublas.gemm and cuda.memory, its value at each level, the
full runs' median and their ratio to the default run, with the SM clock and temperature each check
recorded while it measured (its `timed_sections`, `sm_clock` and `temperature` evidence) so a lower
figure explains itself.

Usage: bench/gemm_by_level.py DEFAULT.json FULL.json...
"""
import json
import statistics
import sys

CHECKS = ("cublas.gemm", "cuda.memory")
RATES = ("TFLOP/s", "GB/s")
CONDITIONS = ("sm_clock", "temperature")


def figures(path):
    """{(check, metric): value} for the throughput figures, and {check: [condition evidence]}."""
    report = json.load(open(path))
    values, conditions = {}, {}
    for check in report["checks"]:
        if check["id"] not in CHECKS:
            continue
        for metric in check.get("metrics") or []:
            if metric.get("unit") in RATES and metric.get("measured", True):
                values[(check["id"], metric["name"])] = metric["value"]
        conditions[check["id"]] = [f"{item['key']}={item['value']}" for item in check.get("evidence") or []
                                   if item.get("key") in CONDITIONS]
    return values, conditions


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    default, default_conditions = figures(sys.argv[1])
    fulls = [figures(path) for path in sys.argv[2:]]
    print(f"default level: {sys.argv[1]}; --level full: {', '.join(sys.argv[2:])}\n")
    print("| check | figure | default | full (each) | full median / default |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for key, value in sorted(default.items()):
        at_full = [values[key] for values, _ in fulls if key in values]
        if not at_full:
            print(f"| {key[0]} | {key[1]} | {value:.1f} | none | |")
            continue
        ratio = statistics.median(at_full) / value
        if key[0] == "cublas.gemm":
            worst = max(worst, abs(ratio - 1.0))
        print(f"| {key[0]} | {key[1]} | {value:.1f} | {', '.join(f'{v:.1f}' for v in at_full)} | {ratio:.3f} |")
    print(f"\ncublas.gemm, largest difference between the levels: {worst * 100:.1f} % (goal: within 3 %)")
    print("\nconditions while measuring (evidence):")
    for check in CHECKS:
        print(f"- {check}, default: {'; '.join(default_conditions.get(check, [])) or 'none recorded'}")
        for index, (_, conditions) in enumerate(fulls):
            print(f"- {check}, full #{index}: {'; '.join(conditions.get(check, [])) or 'none recorded'}")


if __name__ == "__main__":
    main()
