#!/usr/bin/env bash
# Checks the Python wheel (tools/build-wheel.sh) as a user gets it: installed into a fresh virtual
# environment with nothing else, `cudacheck` is on its PATH, `python -m cudacheck --version` runs,
# and `cudacheck.run(level="quick")` returns a report that validates against the schema the wheel
# ships (cudacheck.schema()). The wheel's tag must be a manylinux one. Exits 1 on the first failure.
# The fresh environment is made from the distribution's /usr/bin/python3, and the report is validated
# with .devtools/venv's jsonschema: the user's own Python is not used.
#
# Usage: tools/check-wheel.sh [dist/cudacheck-*.whl]
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=${1:-$(ls dist/cudacheck-*.whl | head -n 1)}
fail() { echo "check-wheel: $*" >&2; exit 1; }
case $(basename "$wheel") in *-py3-none-manylinux_2_*_x86_64.whl) ;; *) fail "$wheel is not tagged manylinux_2_*_x86_64" ;; esac
source tools/deps/lib.sh
deps_venv_modules jsonschema:jsonschema  # and python3-venv, which /usr/bin/python3 -m venv needs
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"
[ -x "$venv/bin/cudacheck" ] || fail "the wheel put no cudacheck executable into the environment's bin"
"$venv/bin/python" -m cudacheck --version
PATH="$venv/bin:$PATH" cudacheck --version > /dev/null
"$venv/bin/python" - "$venv/report.json" <<'PY'
import json, sys
import cudacheck
report = cudacheck.run(level="quick")
assert isinstance(report, dict) and report["options"]["level"] == "quick", report.get("options")
json.dump({"report": report, "schema": cudacheck.schema()}, open(sys.argv[1], "w"))
print(f"cudacheck.run(level='quick'): {report['summary']['overall']}, exit code {report['exit_code']}, {len(report['checks'])} checks")
PY
# The report against the bundled schema, by a real validator (jsonschema, in .devtools/venv).
"$deps_venv_python" - "$venv/report.json" <<'PY'
import json, sys
import jsonschema
both = json.load(open(sys.argv[1]))
jsonschema.validate(both["report"], both["schema"])
print("the report validates against the wheel's schema")
PY
echo "check-wheel: $wheel passes"
