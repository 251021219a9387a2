#!/usr/bin/env python3
"""Validates cudacheck JSON reports against docs/report.schema.json: the schema as a contract.

Usage: validate_schema.py SCHEMA CUDACHECK_BINARY [--examples DIR] [--golden-reports DIR] [REPORT.json ...]

Validates each given report file, a fresh report from the binary (whatever its exit code: on a
machine without a driver it is 1, and the report must still be complete and valid), and, so that
the schema stays a contract, every 1.x report recorded under --examples (each *.json with "schema_version" and "checks") and
every golden report of an earlier minor in --golden-reports (tests/golden/reports/README.md says
where each came from): a new schema that rejects a report an older cudacheck wrote fails here.
It also holds the schema to the binary (the last version its schema_version lists is the one the
binary writes, and each earlier one has a golden report) and checks that the schema still refuses
what it must: a field the report's own minor always wrote, another major, an unknown field.
"""
import copy
import json
import os
import re
import subprocess
import sys

try:
    import jsonschema
except ImportError:  # tools/test.sh installs it; elsewhere (the offline GPU machine) skip, never pass
    print("SKIPPED: python3 jsonschema is not installed")
    sys.exit(77)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def is_report(document):
    return isinstance(document, dict) and "schema_version" in document and "checks" in document


def recorded_reports(directory):
    """Every report under `directory` (traces, inspect, fleet and sharing facts are not reports)."""
    found = {}
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if name.endswith(".json"):
                path = os.path.join(root, name)
                document = load(path)
                if is_report(document):
                    found[path] = document
    return found


# What every cudacheck of a minor wrote, from that minor on (git log -p docs/report.schema.json,
# and the writers: src/report/report_json.cpp). Kept here, apart from the schema, so that a schema
# that loses one of these requirements fails too. 1.2.0 is absent: two branches each wrote a
# 1.2.0, one with redacted, one with each finding's device; 1.3.0 has both.
WRITTEN_SINCE = [
    (1, "device", "source"), (1, "device", "nvml_index"), (1, "device", "framebuffer_bytes"),
    (3, "report", "redacted"), (3, "finding", "device"),
    (4, "report", "frameworks"), (4, "finding", "subject"),
    (5, "report", "build"),
    (6, "check", "series"), (6, "evidence", "number"), (6, "evidence", "unit"),
    (7, "check", "shared_gpu"),
    (8, "environment", "sys_path"), (8, "environment", "imports"), (8, "framework", "imported_from"),
    (9, "host", "node_name"),
    (10, "metric", "family"), (10, "metric", "labels"), (10, "metric", "help"), (10, "metric", "measured"),
    (10, "report", "libraries"),
]


def objects_at(document, where):
    """The objects of one kind in a report (each a dict holding that kind's fields)."""
    checks = document.get("checks", [])
    environments = document.get("frameworks") or []
    return {"report": [document], "host": [document.get("host", {})], "device": document.get("devices", []), "check": checks,
            "finding": [finding for check in checks for finding in check["findings"]],
            "evidence": [item for check in checks for item in check["evidence"]],
            "metric": [item for check in checks for item in check["metrics"]],
            "environment": environments,
            "framework": [framework for environment in environments for framework in environment["frameworks"]]}[where]


def history_cases(reports):
    """For each field a minor added: a report of that minor or later without it (to refuse), and
    the same report without it everywhere, relabelled the minor before (to accept)."""
    refuse, accept = [], []
    for minor, where, field in WRITTEN_SINCE:
        source = next(((name, document) for name, document in reports.items()
                       if minor_of(document["schema_version"]) >= minor and any(field in item for item in objects_at(document, where))), None)
        if source is None:
            refuse.append((f"{where}.{field} (since 1.{minor}.0): no report here has one", None))
            continue
        name, document = source
        document = copy.deepcopy(document)
        holder = next(item for item in objects_at(document, where) if field in item)
        del holder[field]
        refuse.append((f"{name} without {where}.{field} (written since 1.{minor}.0)", document))
        document = copy.deepcopy(document)
        for item in objects_at(document, where):
            item.pop(field, None)
        document["schema_version"] = f"1.{minor - 1}.0"
        accept.append((f"{name} without {where}.{field}, relabelled 1.{minor - 1}.0", document))
    return refuse, accept


def refusals(golden):
    """Documents the schema must reject whatever their minor, each with why."""
    cases = []
    newest = max(golden.values(), key=lambda document: minor_of(document["schema_version"]))
    document = copy.deepcopy(newest)
    document["schema_version"] = "2.0.0"
    cases.append(("another major version", document))
    document = copy.deepcopy(newest)
    document["schema_version"] = "1.8"
    cases.append(("a schema_version that is not MAJOR.MINOR.PATCH", document))
    document = copy.deepcopy(newest)
    document["checks"][0]["unknown_field"] = 1
    cases.append(("a field no minor has", document))
    document = copy.deepcopy(golden["1.0.0"])
    document["build"] = "gcc"
    cases.append(("1.0.0 golden with a build that is not an object", document))
    return cases


def minor_of(version):
    match = re.fullmatch(r"1\.([0-9]+)\.[0-9]+(-.*)?", version)
    return int(match.group(1)) if match else -1


def main() -> int:
    arguments = sys.argv[1:]
    schema_path, binary = arguments[:2]
    examples_dir = golden_dir = None
    reports = []
    rest = iter(arguments[2:])
    for argument in rest:
        if argument == "--examples":
            examples_dir = next(rest)
        elif argument == "--golden-reports":
            golden_dir = next(rest)
        else:
            reports.append(argument)
    schema = load(schema_path)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    documents = {path: load(path) for path in reports}
    failures = 0

    fresh = subprocess.run([binary, "--format", "json"], capture_output=True, text=True, timeout=60)
    if fresh.returncode not in (0, 1):
        print(f"cudacheck exited {fresh.returncode}: {fresh.stderr}")
        return 1
    fresh_report = json.loads(fresh.stdout)
    documents["fresh run of " + binary] = fresh_report
    if fresh_report.get("exit_code") != fresh.returncode:
        print(f"fresh run: exit_code {fresh_report.get('exit_code')} but the process exited {fresh.returncode}")
        failures += 1

    # The schema names every version cudacheck has written; the last is the binary's.
    versions = schema["properties"]["schema_version"].get("examples", [])
    if not versions or versions[-1] != fresh_report.get("schema_version"):
        print(f"{schema_path}: schema_version's examples end with {versions[-1:] or 'nothing'}, but the binary writes "
              f"{fresh_report.get('schema_version')}: add it to the schema (and a golden report of the previous minor)")
        failures += 1

    counts = {}
    if examples_dir:
        recorded = recorded_reports(examples_dir)
        counts["recorded"] = len(recorded)
        if len(recorded) < 50:  # 62 when this test was written; fewer means the search broke
            print(f"{examples_dir}: only {len(recorded)} recorded reports found")
            failures += 1
        documents.update(recorded)
    golden = {}
    if golden_dir:
        for name in sorted(os.listdir(golden_dir)):
            if name.endswith(".json"):
                document = load(os.path.join(golden_dir, name))
                golden[name[:-len(".json")]] = document
                documents[os.path.join(golden_dir, name)] = document
                if not name.startswith(document["schema_version"]):
                    print(f"{golden_dir}/{name}: its schema_version is {document['schema_version']}")
                    failures += 1
        counts["golden"] = len(golden)
        # Each version the schema lists before the binary's has a golden report.
        for version in versions[:-1]:
            if version not in golden:
                print(f"{golden_dir}: no golden report of schema {version} ({version}.json)")
                failures += 1

    for name, document in documents.items():
        errors = sorted(validator.iter_errors(document), key=lambda error: list(error.path))
        for error in errors:
            print(f"{name}: {'/'.join(map(str, error.path))}: {error.message[:300]}")
        failures += len(errors)

    # The schema still refuses: a contract that accepts everything would pass the loop above.
    if golden_dir and "1.0.0" in golden:
        refuse, accept = history_cases({"fresh run": fresh_report, **golden})
        for why, document in refuse + refusals(golden):
            counts["refused"] = counts.get("refused", 0) + 1
            if document is None or validator.is_valid(document):
                print(f"the schema accepts {why}" if document else why)
                failures += 1
        # A minor's requirement holds from that minor on, not before.
        for why, document in accept:
            counts["relabelled"] = counts.get("relabelled", 0) + 1
            for error in validator.iter_errors(document):
                print(f"{why}: {'/'.join(map(str, error.path))}: {error.message[:300]}")
                failures += 1

    print(f"validated {len(documents)} report(s) ({', '.join(f'{n} {k}' for k, n in counts.items())}), {failures} error(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
