#!/usr/bin/env python3
"""Whether two cudacheck JSON reports reach the same verdicts: for every check result (id and
device), its status, its code and the codes of its findings. Figures (rates, times) are not
compared: they differ from run to run. Prints one line per difference and exits 1 when there is
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
        found[key] = (check["status"], check.get("code"), tuple(sorted(f["code"] for f in check.get("findings") or [])))
    return found


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
        elif before[key] != after[key]:
            print(f"{name}: {before[key]} -> {after[key]}")
        else:
            continue
        differences += 1
    print(f"{len(before)} and {len(after)} results, {differences} verdict(s) differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
