#!/usr/bin/env python3
"""`cudacheck render`, `diff` and `fleet` read every 1.x report.

Usage: check_report_readers.py CUDACHECK_BINARY GOLDEN_REPORTS_DIR EXAMPLES_DIR

Through the built binary, for each golden report of an earlier minor (tests/golden/reports) and
each report recorded under EXAMPLES_DIR: `render` in every format exits 0 (JSON is the file
itself, byte for byte); `diff R R` exits 0 (nothing differs); `diff` of each golden with the next
minor's, and of each report with the newest golden, exits 0 or 1, never 2 (bad input); `fleet` over
all of them exits 0 or 1 and reads every one (no node UNREADABLE).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FORMATS = ["table", "json", "markdown", "junit", "prometheus", "html"]


def is_report(path):
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(document, dict) and "schema_version" in document and "checks" in document


def minor_key(name):
    match = re.match(r"1\.([0-9]+)\.([0-9]+)", name)
    return (int(match.group(1)), int(match.group(2)), name) if match else (-1, -1, name)


def main() -> int:
    binary, golden_dir, examples_dir = sys.argv[1:4]
    golden = [os.path.join(golden_dir, name) for name in sorted(os.listdir(golden_dir), key=minor_key) if name.endswith(".json")]
    recorded = sorted(os.path.join(root, name) for root, _, files in os.walk(examples_dir) for name in files
                      if name.endswith(".json") and is_report(os.path.join(root, name)))
    failures = []
    runs = 0

    def run(arguments, allowed):
        nonlocal runs
        runs += 1
        result = subprocess.run([binary, *arguments], capture_output=True, timeout=120)
        if result.returncode not in allowed:
            failures.append(f"cudacheck {' '.join(arguments)}: exit {result.returncode} (expected {' or '.join(map(str, allowed))}): "
                            f"{result.stderr.decode(errors='replace').strip()[:300]}")
        return result

    if len(golden) < 9 or len(recorded) < 50:  # 10 and 62 when this test was written
        failures.append(f"found {len(golden)} golden and {len(recorded)} recorded reports: the search broke")
    for path in golden + recorded:
        for format_name in FORMATS:
            result = run(["render", path, "--format", format_name, "--color", "never"], (0,))
            if format_name == "json" and result.returncode == 0:
                with open(path, "rb") as handle:
                    if result.stdout != handle.read():
                        failures.append(f"cudacheck render {path} --format json: not the file itself")
        run(["diff", path, path], (0,))
        run(["diff", path, golden[-1]], (0, 1))
    # An upgrade, minor by minor: each golden against the next one.
    for older, newer in zip(golden, golden[1:]):
        run(["diff", older, newer], (0, 1))
        run(["diff", "--format", "json", newer, older], (0, 1))

    with tempfile.TemporaryDirectory() as directory:
        for index, path in enumerate(golden + recorded):
            shutil.copyfile(path, os.path.join(directory, f"{index:03d}-{os.path.basename(path)}"))
        result = run(["fleet", directory, "--format", "json"], (0, 1))
        try:
            fleet = json.loads(result.stdout)
        except ValueError as error:
            failures.append(f"cudacheck fleet --format json: not JSON: {error}")
        else:
            nodes = fleet.get("nodes", [])
            if len(nodes) != len(golden) + len(recorded):
                failures.append(f"cudacheck fleet: {len(nodes)} nodes for {len(golden) + len(recorded)} reports")
            for node in nodes:
                if node.get("error") is not None or node.get("status") is None:
                    failures.append(f"cudacheck fleet: {node.get('source')} unreadable: {node.get('error')}")
        run(["fleet", directory], (0, 1))

    for failure in failures:
        print(failure)
    print(f"{len(golden)} golden and {len(recorded)} recorded reports, {runs} cudacheck runs, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
