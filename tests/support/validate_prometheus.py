#!/usr/bin/env python3
"""Reads cudacheck's Prometheus text output with the Prometheus client library's own parser and
checks it against the JSON report of the same run.

Usage: validate_prometheus.py REPORT.prom REPORT.json
Every check result must have exactly one status sample at 1, the one it ended with; every
performance figure of the JSON must be a cudacheck_figure sample with the same value. Exit 77
(skipped) when prometheus_client is not installed, 1 on any mismatch.
"""
import json
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # tools/install-deps.sh installs it
    print("SKIPPED: python3 prometheus_client is not installed")
    sys.exit(77)


def main() -> int:
    prom_path, json_path = sys.argv[1:]
    with open(prom_path, encoding="utf-8") as handle:
        families = {family.name: family for family in text_string_to_metric_families(handle.read())}
    with open(json_path, encoding="utf-8") as handle:
        report = json.load(handle)
    problems = []
    for name in ("cudacheck_check_status", "cudacheck_figure", "cudacheck_exit_code", "cudacheck_gpus", "cudacheck_info"):
        if name not in families:
            problems.append(f"no {name} family")
    status = {}
    for sample in families["cudacheck_check_status"].samples:
        key = (sample.labels["check"], sample.labels["device"])
        if sample.value == 1:
            if key in status:
                problems.append(f"{key}: two statuses at 1")
            status[key] = sample.labels["status"]
    figures = {(s.labels["check"], s.labels["device"], s.labels["name"]): s.value for s in families["cudacheck_figure"].samples}
    for check in report["checks"]:
        key = (check["id"], "" if check["device"] is None else str(check["device"]))
        if status.get(key) != check["status"]:
            problems.append(f"{key}: status {status.get(key)} in the text, {check['status']} in the JSON")
        for metric in check["metrics"]:
            figure = figures.get(key + (metric["name"],))
            if metric["unit"] not in ("count", "ratio", "value") and figure != metric["value"]:
                problems.append(f"{key} {metric['name']}: {figure} in the text, {metric['value']} in the JSON")
    if families["cudacheck_exit_code"].samples[0].value != report["exit_code"]:
        problems.append("exit code differs")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
