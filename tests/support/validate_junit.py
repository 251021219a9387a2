#!/usr/bin/env python3
"""Reads cudacheck's JUnit XML with a real JUnit consumer (junitparser) and checks it against the
JSON report of the same run.

Usage: validate_junit.py REPORT.xml REPORT.json
Each check result must be one testcase named like the table names it (id, or id[device]): fail
(and warn under --strict) a Failure, error and timeout an Error, skip Skipped, the rest passed;
a problem's type is its code and its message starts with the code. Exit 77 (skipped) when
junitparser is not installed, 1 on any mismatch.
"""
import json
import sys

try:
    from junitparser import Error, Failure, JUnitXml, Skipped
except ImportError:  # tools/install-deps.sh installs it (python3-junitparser)
    print("SKIPPED: python3 junitparser is not installed")
    sys.exit(77)


def label(check):
    return check["id"] if check["device"] is None else f'{check["id"]}[{check["device"]}]'


def expected_kind(check, strict):
    status = check["status"]
    if status == "fail" or (strict and status == "warn"):
        return Failure
    if status in ("error", "timeout"):
        return Error
    if status == "skip":
        return Skipped
    return None


def main():
    xml_path, json_path = sys.argv[1:]
    with open(json_path, encoding="utf-8") as handle:
        report = json.load(handle)
    suites = JUnitXml.fromfile(xml_path)
    cases = [case for suite in suites for case in suite]
    problems = []
    if len(cases) != len(report["checks"]):
        problems.append(f"{len(cases)} testcases for {len(report['checks'])} checks")
    for case, check in zip(cases, report["checks"]):
        if case.name != label(check):
            problems.append(f"testcase {case.name!r} for check {label(check)!r}")
        kinds = [type(result) for result in case.result]
        wanted = expected_kind(check, report["options"]["strict"])
        if kinds != ([wanted] if wanted else []):
            problems.append(f"{case.name}: results {kinds} for status {check['status']}")
        for result in case.result:
            if wanted in (Failure, Error) and check["code"]:
                if result.type != check["code"] or not (result.message or "").startswith(check["code"] + ": "):
                    problems.append(f"{case.name}: type {result.type!r}, message {result.message!r}")
    failures = sum(1 for check in report["checks"] if expected_kind(check, report["options"]["strict"]) is Failure)
    for suite in suites:
        if suite.failures != failures:
            problems.append(f"suite counts {suite.failures} failures, the report {failures}")
    for problem in problems:
        print(problem)
    print(f"{len(cases)} testcase(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
