#!/usr/bin/env python3
"""The Python module the wheel ships (python/cudacheck), from the source tree, against the built
cudacheck (CUDACHECK_BINARY): run() returns the JSON report as a dict that validates against
schema(), with the options it was asked for; inspect() reports a file that holds no GPU code;
`python -m cudacheck --version` runs the executable; a missing executable raises CudacheckError.

`only`/`skip` (and `arch`, `devices`, `arguments`, inspect's `paths`) take a string, a
comma list or any iterable (list, tuple, generator, set) and select what the command line selects
(a string used to be iterated by character); other types raise TypeError before anything runs.
report() and load() give typed results (cudacheck.results): every field equals the dict's, for
the live report and every 1.x report recorded under docs/examples (1.3.0 onwards); the dataclasses
cover every field of docs/report.schema.json; a later minor's unknown field and an earlier minor's
missing one do not break reading; a malformed report or another major raises ValueError.

Everything runs without jsonschema but the schema validation; without it the script exits 77
(skipped) at the end, after every other assertion passed.

Usage: check_python_api.py CUDACHECK_BINARY SOURCE_DIR
"""
import copy
import dataclasses
import glob
import json
import os
import subprocess
import sys
import tempfile
import typing

binary, source = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(source, "python"))
os.environ["CUDACHECK_BINARY"] = binary
try:
    import jsonschema
except ImportError:
    jsonschema = None
import cudacheck  # noqa: E402
from cudacheck import results  # noqa: E402

# The source tree has no copy of the schema inside the package: the wheel installs one there.
schema_path = os.path.join(source, "docs", "report.schema.json")
with open(schema_path, encoding="utf-8") as handle:
    schema = json.load(handle)


def validate(report):
    if jsonschema is not None:
        jsonschema.validate(report, schema)


report = cudacheck.run(level="quick", only=["host", "env"], arguments=["--strict"])
assert isinstance(report, dict), type(report)
validate(report)
assert report["options"]["level"] == "quick", report["options"]
assert report["options"]["strict"] is True, report["options"]
ids = {check["id"] for check in report["checks"]}
assert ids and all(check_id.startswith(("host.", "env.")) for check_id in ids), ids
print(f"run(): {len(ids)} checks, {report['summary']['overall']}, exit code {report['exit_code']}")

# --- only/skip: a string, a comma list, any iterable ---------------------------------------------


def cli_ids(*arguments):
    """The check ids the command line itself selects."""
    out = subprocess.run([binary, "--format", "json", "--level", "quick", "--progress", "never", *arguments],
                         capture_output=True, text=True, check=False).stdout
    return {check["id"] for check in json.loads(out)["checks"]}


def option_of(report, name):
    argv = report["argv"]
    return argv[argv.index(name) + 1] if name in argv else None


# The case: only="driver" ran --only d,r,i,v,e,r.
driver = cudacheck.run(level="quick", only="driver")
assert option_of(driver, "--only") == "driver", driver["argv"]
assert {check["id"] for check in driver["checks"]} == cli_ids("--only", "driver"), driver["checks"]
assert all(check["id"].startswith("driver.") for check in driver["checks"]) and driver["checks"], driver["checks"]
print(f"only='driver': --only driver, {len(driver['checks'])} checks")

expected = cli_ids("--only", "host,env")
assert expected and expected != cli_ids("--only", "host"), expected
forms = {
    "comma string": "host,env",
    "comma string with spaces": " host , env ",
    "list": ["host", "env"],
    "tuple": ("host", "env"),
    "generator": (prefix for prefix in ["host", "env"]),
    "set": {"host", "env"},
    "list of comma strings": ["host,env"],
}
for form, value in forms.items():
    selected = cudacheck.run(level="quick", only=value)
    assert sorted(option_of(selected, "--only").split(",")) == ["env", "host"], (form, selected["argv"])
    got = {check["id"] for check in selected["checks"]}
    assert got == expected, (form, got, expected)
    print(f"only={form}: {sorted(got)}")
single = cudacheck.run(level="quick", only="host.os")
assert [check["id"] for check in single["checks"]] == ["host.os"], single["checks"]

for form, value in {"string": "env", "list": ["env"], "generator": (p for p in ["env"]), "set": {"env"}}.items():
    skipped = cudacheck.run(level="quick", only="host,env", skip=value)
    got = {check["id"] for check in skipped["checks"]}
    assert got == cli_ids("--only", "host,env", "--skip", "env") and not any(i.startswith("env.") for i in got), (form, got)
    assert option_of(skipped, "--skip") == "env", skipped["argv"]
print(f"skip: string, list, generator, set -> {sorted(got)}")

for value, text in {0: "0", "0,1": "0,1", "all": "all", (0, 1): "0,1", range(2): "0,1"}.items():
    assert option_of(cudacheck.run(level="quick", only="host.os", devices=value), "--devices") == text, value
strict = cudacheck.run(level="quick", only="host.os", arguments="--strict --profile ci")
assert strict["options"]["strict"] is True and option_of(strict, "--profile") == "ci", strict["argv"]
print("devices: 0, '0,1', 'all', (0, 1), range(2); arguments as one string")

# Wrong types raise TypeError naming the parameter, before anything runs: the executable is missing
# here, so running it would have raised CudacheckError instead.
os.environ["CUDACHECK_BINARY"] = os.path.join(source, "no-such-cudacheck")
wrong = [
    ("only", dict(only=5)), ("only", dict(only=["host", 3])), ("only", dict(only=b"host")),
    ("only", dict(only={"host": True})), ("skip", dict(skip=2.5)), ("skip", dict(skip=[None])),
    ("devices", dict(devices=1.5)), ("devices", dict(devices=["0"])), ("devices", dict(devices=True)),
    ("arguments", dict(arguments=7)), ("arguments", dict(arguments=["--strict", 1])), ("level", dict(level=1)),
]
for parameter, keywords in wrong:
    for function in (cudacheck.run, cudacheck.report):
        try:
            function(**keywords)
        except TypeError as error:
            assert str(error).startswith(parameter + ":"), (keywords, error)
        else:
            raise AssertionError(f"{function.__name__}({keywords}) raised no TypeError")
for keywords in (dict(paths=5), dict(paths=[os.path.join(source, "README.md"), 5]), dict(paths=["x"], arch=9)):
    try:
        cudacheck.inspect(**keywords)
    except TypeError as error:
        print(f"TypeError: {error}")
    else:
        raise AssertionError(f"inspect({keywords}) raised no TypeError")
os.environ["CUDACHECK_BINARY"] = binary
print(f"{len(wrong) * 2 + 3} wrong types: TypeError naming the parameter")

try:
    cudacheck.run(level="quick", only="no_such_check")
except cudacheck.CudacheckError as error:
    assert "unknown check 'no_such_check'" in str(error), error
    print(f"unknown id: {error}")
else:
    raise AssertionError("run(only='no_such_check') did not raise CudacheckError")

# inspect(): one path as a str (was iterated by character), architectures as one string or a list.
readme = os.path.join(source, "README.md")
for arch in ("sm_90", "sm_90,sm_100", ["sm_90", "sm_100"], ("sm_90" for _ in range(1))):
    inspected = cudacheck.inspect(readme, arch=arch)
    assert isinstance(inspected, dict), inspected
    assert option_of(inspected, "--arch") in ("sm_90", "sm_90,sm_100") and readme in inspected["argv"], inspected["argv"]
print(f"inspect(): {sorted(inspected)[:4]}")

# --- typed results -----------------------------------------------------------------------------


def mirror(typed, raw, where):
    """Every field of a typed object equals its dictionary's (absent: None or ()); returns how many
    values were compared."""
    assert typed.raw is raw, where
    compared = 0
    for item in dataclasses.fields(typed):
        if item.name == "raw":
            continue
        value, path = getattr(typed, item.name), f"{where}.{item.name}"
        if item.name not in raw:
            assert "since" in item.metadata and value in (None, ()), (path, value)
            continue
        compared += equal(value, raw[item.name], path)
    return compared


def equal(value, expected, where):
    if dataclasses.is_dataclass(value):
        return mirror(value, expected, where)
    if isinstance(value, tuple):
        assert isinstance(expected, list) and len(value) == len(expected), (where, value, expected)
        return sum(equal(element, raw, f"{where}[{index}]") for index, (element, raw) in enumerate(zip(value, expected)))
    assert value == expected and type(value) in (type(expected), float), (where, value, expected)
    assert not (isinstance(value, bool) ^ isinstance(expected, bool)), (where, value, expected)
    return 1


typed = cudacheck.report(level="quick", arguments=["--strict"])
assert isinstance(typed, cudacheck.Report) and isinstance(typed.raw, dict), type(typed)
validate(typed.raw)
compared = mirror(typed, typed.raw, "report")
assert typed.options.strict is True and typed.options.level == "quick", typed.options
assert typed.summary.counts == typed.raw["summary"]["counts"] and typed.exit_code == typed.raw["exit_code"], typed.summary
assert typed.findings == tuple(cudacheck.Finding.from_dict(finding) for check in typed.raw["checks"] for finding in check["findings"])
assert [check.id for check in typed.failed] == [check["id"] for check in typed.raw["checks"]
                                                  if check["status"] in ("fail", "error", "timeout")]
first = typed.raw["checks"][0]
assert typed.check(first["id"]) == typed.checks[0] and typed.check("no.such") is None
try:
    typed.exit_code = 0
except dataclasses.FrozenInstanceError:
    pass
else:
    raise AssertionError("a Report can be assigned to")
print(f"report(): {len(typed.checks)} checks, {len(typed.findings)} findings, {len(typed.failed)} failed, "
      f"{compared} values equal the dict's")

# The dataclasses cover the schema: each object's properties are its class's fields.


def covers(cls, node, where, seen):
    while "$ref" in node or "oneOf" in node:
        if "$ref" in node:
            node = schema["$defs"][node["$ref"].split("/")[-1]]
        else:
            node = next(option for option in node["oneOf"] if option.get("type") != "null")
    if node.get("type") == "array":
        return covers(cls, node["items"], where, seen)
    fields = {item.name for item in dataclasses.fields(cls)} - {"raw"}
    properties = set(node["properties"])
    assert fields == properties, f"{where} ({cls.__name__}): the schema has {sorted(properties - fields)} the class lacks, " \
                                 f"the class has {sorted(fields - properties)} the schema lacks: update python/cudacheck/results.py"
    seen.add(cls)
    hints = typing.get_type_hints(cls)
    for name in fields:
        inner = hints[name]
        while typing.get_origin(inner) in (typing.Union, tuple):
            inner = next(arg for arg in typing.get_args(inner) if arg is not type(None))
        if dataclasses.is_dataclass(inner):
            covers(inner, node["properties"][name], f"{where}.{name}", seen)
    return seen


classes = covers(cudacheck.Report, schema, "report", set())
assert classes == {getattr(results, name) for name in results.__all__ if dataclasses.is_dataclass(getattr(results, name))}, classes
print(f"the {len(classes)} dataclasses cover every field of {os.path.relpath(schema_path, source)}")

# Every recorded 1.x report reads, the oldest (1.3.0, without frameworks, build, series...) too.
versions = {}
for path in sorted(glob.glob(os.path.join(source, "docs", "examples", "**", "*.json"), recursive=True)):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    if not (isinstance(document, dict) and "schema_version" in document and "checks" in document):
        continue  # traces, inspect reports, other records
    loaded = cudacheck.load(path)
    mirror(loaded, loaded.raw, os.path.relpath(path, source))
    versions.setdefault(loaded.schema_version, []).append(path)
assert "1.3.0" in versions and len(versions) >= 4, sorted(versions)
print("recorded reports: " + ", ".join(f"{len(paths)} of {version}" for version, paths in sorted(versions.items())))

# The no-driver report as cudacheck 1.2.0 wrote it (tests/golden/reports; before one
# root cause got one finding, so libcuda and NVML fail beside the kernel module).
old = cudacheck.load(os.path.join(source, "tests", "golden", "reports", "1.2.0.json"))
assert old.schema_version == "1.2.0" and old.frameworks is None and old.build is None, old.schema_version
assert old.exit_code == 1 and old.summary.overall == "fail" and old.summary.counts["skip"] == 10, old.summary
assert [finding.code for finding in old.findings] == ["CC201", "CC210", "CC220"], old.findings
assert all(check.series == () and check.shared_gpu == () for check in old.checks)
assert all(finding.subject is None for finding in old.findings) and old.check("driver.libcuda").status == "fail"
print(f"1.2.0 (no-driver): {[(f.code, f.status) for f in old.findings]}")
now = cudacheck.load(os.path.join(source, "docs", "examples", "no-driver", "cudacheck.json"))
assert [finding.code for finding in now.findings] == ["CC201"] and now.checks[0].id == "driver.kernel_module", now.findings
assert now.check("driver.libcuda").status == "skip" and any(e.key == "not_judged" for e in now.check("driver.libcuda").evidence)
# Figures: a report before 1.10.0 has no family, labels or help; one of 1.10.0 has them, and its
# flat name is the family's name made from the labels.
before = cudacheck.load(os.path.join(source, "tests", "golden", "reports", "1.9.0.json"))
assert any(c.metrics for c in before.checks) and all(m.family is None and m.labels is None and m.help is None
                                                     for c in before.checks for m in c.metrics)
labelled = copy.deepcopy(before.raw)
labelled["schema_version"] = "1.10.0"
labelled["checks"][0]["metrics"] = [{"name": "gemm_bf16_8192", "value": 796.2, "unit": "TFLOP/s", "family": "gemm",
                                     "labels": {"precision": "bf16", "size": "8192"}, "help": "cuBLAS GEMM throughput."}]
figure = cudacheck.Report.from_dict(labelled).checks[0].metrics[0]
assert figure.family == "gemm" and list(figure.labels.items()) == [("precision", "bf16"), ("size", "8192")], figure
print(f"1.10.0 figure: {figure.name} = {figure.family} {figure.labels}")
# Library copies as data (1.10.0): beside libraries.resolution, which runs at every level; none before.
assert old.libraries is None, "a report before 1.10.0 has no libraries section"
assert now.libraries is None or now.check("libraries.resolution") is not None, "a section without the check that fills it"
assert typed.libraries is not None and typed.check("libraries.resolution") is not None, typed.raw.get("libraries")
assert all(copy.real_path and copy.origin for library in typed.libraries.found for copy in library.copies), typed.libraries
print(f"1.10.0 libraries: {len(typed.libraries.found)} found, {len(typed.libraries.loaded_by_cudacheck)} loaded by cudacheck")
rich = [cudacheck.load(path) for path in versions.get("1.8.0", []) + versions.get("1.7.0", [])]
assert any(r.devices for r in rich) and any(c.series for r in rich for c in r.checks), "no recorded report with GPUs and series"

# A later minor's unknown fields, at every level, are left out of the typed view and kept in raw.
future = copy.deepcopy(typed.raw)
future["schema_version"] = "1.99.0"
future["fleet_hint"] = {"anything": [1, 2]}
future["summary"]["new_total"] = 7
future["host"]["kubernetes_node"] = "node-1"
for check in future["checks"]:
    check["blocked_by"] = None
    for finding in check["findings"]:
        finding["see_also"] = ["CC999"]
    for evidence in check["evidence"]:
        evidence["source"] = "x"
read = cudacheck.Report.from_dict(future)
assert read.raw["fleet_hint"] == {"anything": [1, 2]} and read.checks[0].raw["blocked_by"] is None
assert dataclasses.replace(read, schema_version=typed.schema_version) == typed, "unknown fields changed the typed view"
mirror(read, future, "future")
with tempfile.TemporaryDirectory() as folder:
    saved = os.path.join(folder, "future.json")
    with open(saved, "w", encoding="utf-8") as handle:
        json.dump(future, handle)
    assert cudacheck.load(saved) == read
print("unknown fields of a later minor: kept in raw, typed view unchanged")

# Fields a minor added may be absent; the rest may not, and types must fit.
earlier = copy.deepcopy(typed.raw)
for name in ("frameworks", "build", "redacted"):
    earlier.pop(name, None)
for check in earlier["checks"]:
    check.pop("series"), check.pop("shared_gpu")
    for finding in check["findings"]:
        finding.pop("subject"), finding.pop("device")
parsed = cudacheck.Report.from_dict(earlier)
assert parsed.frameworks is None and parsed.build is None and parsed.redacted is None
assert all(c.series == () and c.shared_gpu == () for c in parsed.checks) and len(parsed.checks) == len(typed.checks)
broken = [
    ("Report.checks is missing", lambda r: r.pop("checks")),
    ("Report.checks[0].id is missing", lambda r: r["checks"][0].pop("id")),
    ("Report.exit_code: expected int, got str '1'", lambda r: r.update(exit_code="1")),
    ("Report.options.strict: expected bool", lambda r: r["options"].update(strict=1)),
    ("Report.summary.duration_ms: null", lambda r: r["summary"].update(duration_ms=None)),
    ("Report.checks: expected a JSON array", lambda r: r.update(checks={})),
    ("Report.host: expected a JSON object", lambda r: r.update(host=[])),
    ("schema_version '2.0.0' is not 1.x", lambda r: r.update(schema_version="2.0.0")),
]
for message, breaks in broken:
    bad = copy.deepcopy(typed.raw)
    breaks(bad)
    try:
        cudacheck.Report.from_dict(bad)
    except ValueError as error:
        assert message in str(error), (message, error)
    else:
        raise AssertionError(f"a report where {message} was read")
print(f"absent later-minor fields read as None/(); {len(broken)} malformed reports raise ValueError")

package = os.path.dirname(cudacheck.__file__)
assert os.path.isfile(os.path.join(package, "py.typed")), "python/cudacheck has no py.typed marker"
assert "not on PyPI" in cudacheck.__doc__ and "tools/build-wheel.sh" in cudacheck.__doc__, "the docstring does not say how to install"

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
if jsonschema is None:
    print("python API: passes, but jsonschema is not installed: the reports were not validated: skipped")
    sys.exit(77)
print("python API: passes")
