#!/usr/bin/env python3
"""The Python module the wheel ships (python/cudacheck), from the source tree, against the built
cudacheck (CUDACHECK_BINARY): run() returns the JSON report as a dict that validates against
schema(), with the options it was asked for; inspect() reports a file that holds no GPU code;
`python -m cudacheck --version` runs the executable; a missing executable raises CudacheckError.
Exits 77 (skipped) without jsonschema.

Usage: check_python_api.py CUDACHECK_BINARY SOURCE_DIR
"""
import json
import os
import subprocess
import sys

binary, source = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(source, "python"))
os.environ["CUDACHECK_BINARY"] = binary
try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed: skipped")
    sys.exit(77)
import cudacheck  # noqa: E402

# The source tree has no copy of the schema inside the package: the wheel installs one there.
schema_path = os.path.join(source, "docs", "report.schema.json")
with open(schema_path, encoding="utf-8") as handle:
    schema = json.load(handle)

report = cudacheck.run(level="quick", only=["host", "env"], arguments=["--strict"])
jsonschema.validate(report, schema)
assert report["options"]["level"] == "quick", report["options"]
assert report["options"]["strict"] is True, report["options"]
ids = {check["id"] for check in report["checks"]}
assert ids and all(check_id.startswith(("host.", "env.")) for check_id in ids), ids
print(f"run(): {len(ids)} checks, {report['summary']['overall']}, exit code {report['exit_code']}")

inspected = cudacheck.inspect([os.path.join(source, "README.md")], arch=["sm_90"])
assert isinstance(inspected, dict), inspected
print(f"inspect(): {sorted(inspected)[:4]}")

version = subprocess.run([sys.executable, "-m", "cudacheck", "--version"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.path.join(source, "python")), check=True)
assert version.stdout.startswith("cudacheck "), version.stdout
print(version.stdout.strip())

os.environ["CUDACHECK_BINARY"] = os.path.join(source, "no-such-cudacheck")
try:
    cudacheck.run(level="quick")
except cudacheck.CudacheckError as error:
    print(f"missing executable: {error}")
else:
    raise AssertionError("run() with a missing executable did not raise CudacheckError")
print("python API: passes")
