#!/usr/bin/env python3
"""Whether two cudacheck JSON reports reach the same verdicts: for every check result (id and
device), its status, its code, the codes of its findings and the names of its figures. The figures'
values (rates, times) are not compared: they differ from run to run. A figure only the second report
has and marks `"measured": false` (a peak or other computed bound, schema 1.10) is listed but not
counted as a difference: older reports had no such figures. Prints one line per difference and exits 1 when there is
one, 0 when every verdict is the same. Used to show that a restructuring changed no behaviour
(docs/performance.md, "Same behaviour").

Usage: bench/compare_verdicts.py BEFORE.json AFTER.json
"""
import json
import sys


def verdicts(path):
    with open(path) as file:
        report = json.load(file)
    found = {}
    for check in report["checks"]:
        key = (check["id"], check.get("device"))
        figures = {m["name"] for m in check.get("metrics") or [] if m.get("measured", True)}
        computed = {m["name"] for m in check.get("metrics") or [] if not m.get("measured", True)}
        found[key] = (check["status"], check.get("code"), tuple(sorted(f["code"] for f in check.get("findings") or [])),
                      tuple(sorted(figures)))
        computed_figures[key] = computed
    return found


computed_figures = {}


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    before, after = verdicts(sys.argv[1]), verdicts(sys.argv[2])
    differences = 0
    for key in sorted(set(before) | set(after), key=lambda k: (k[0], -1 if k[1] is None else k[1])):
        name = f"{key[0]}" + (f"[{key[1]}]" if key[1] is not None else "")
        if key not in after:
            print(f"{name}: only in {sys.argv[1]}")
        elif key not in before:
            print(f"{name}: only in {sys.argv[2]}")
        elif before[key][:3] != after[key][:3]:
            print(f"{name}: {before[key][:3]} -> {after[key][:3]}")
        elif before[key][3] != after[key][3]:
            gone, new = sorted(set(before[key][3]) - set(after[key][3])), sorted(set(after[key][3]) - set(before[key][3]))
            print(f"{name}: figures only before {gone}, only after {new}")
        else:
            if computed_figures.get(key):
                print(f"{name}: same; computed figures (measured: false) {sorted(computed_figures[key])}")
            continue
        differences += 1
    print(f"{len(before)} and {len(after)} results, {differences} verdict(s) differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
