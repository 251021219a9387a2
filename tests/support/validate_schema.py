#!/usr/bin/env python3
"""Validates cudacheck JSON reports against docs/report.schema.json.

Usage: validate_schema.py SCHEMA CUDACHECK_BINARY [REPORT.json ...]
Validates each given report file, and a fresh report from the binary (whatever its exit code:
on a machine without a driver it is 1, and the report must still be complete and valid).
"""
import json
import subprocess
import sys

try:
    import jsonschema
except ImportError:  # tools/test.sh installs it; elsewhere (the offline GPU machine) skip, never pass
    print("SKIPPED: python3 jsonschema is not installed")
    sys.exit(77)


def main() -> int:
    schema_path, binary, *reports = sys.argv[1:]
    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    documents = {}
    for path in reports:
        with open(path, encoding="utf-8") as handle:
            documents[path] = json.load(handle)
    fresh = subprocess.run([binary, "--format", "json"], capture_output=True, text=True, timeout=60)
    if fresh.returncode not in (0, 1):
        print(f"cudacheck exited {fresh.returncode}: {fresh.stderr}")
        return 1
    documents["fresh run of " + binary] = json.loads(fresh.stdout)
    failures = 0
    for name, document in documents.items():
        errors = sorted(validator.iter_errors(document), key=lambda error: list(error.path))
        for error in errors:
            print(f"{name}: {'/'.join(map(str, error.path))}: {error.message}")
        failures += len(errors)
        if document.get("exit_code") != fresh.returncode and name.startswith("fresh"):
            print(f"{name}: exit_code {document.get('exit_code')} but the process exited {fresh.returncode}")
            failures += 1
    print(f"validated {len(documents)} report(s), {failures} error(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
