"""cudacheck from Python: can this machine run CUDA work, and if not, what exactly is wrong?

Installing it: the package is not on PyPI yet (`pip install cudacheck` does not install this
project). From a checkout of the repository, `tools/build-wheel.sh` builds
dist/cudacheck-<version>-py3-none-manylinux_2_27_x86_64.whl; `pip install` that file into your
environment (`python -m pip install dist/cudacheck-*.whl`). Without a wheel, put the checkout's
python/ directory on PYTHONPATH and point CUDACHECK_BINARY at a cudacheck executable (build/cudacheck,
or build-release/cudacheck from tools/release.sh).

The wheel puts the cudacheck executable on PATH (the environment's scripts) and this module beside
it: `python -m cudacheck ARGS` runs the executable, and these functions give its JSON reports, for
notebooks and for tools that call torch.utils.collect_env today:

    import cudacheck
    report = cudacheck.report(level="quick", only="driver")  # a typed Report (cudacheck.results)
    report.summary.overall, report.exit_code
    for finding in report.findings:
        print(finding.code, finding.message, finding.remediation)
    report.raw                                   # the JSON report as a dict (docs/report.schema.json)
    cudacheck.run(only=["host", "env"])          # a report as a dict, as run() has always returned it
    cudacheck.load("node.json")                  # a report file (-o node.json), any 1.x version
    cudacheck.inspect(["model.so"])              # which GPUs the code in these files runs on (a dict)

`only` and `skip` take a check id or prefix ("driver"), a comma list of them ("host,env", as
--only takes) or any iterable of them (["host", "env"]).

The executable is the portable release build (CMake preset `release`): it needs glibc 2.28 or newer
and nothing else at load time; CUDA itself (driver, libraries) is what it examines, never what it
needs to start. The wheel holds no CUDA library.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from typing import Any, Dict, Iterable, List, Optional, Union

from .results import Check, Finding, Report, load

__all__ = ["Check", "CudacheckError", "Finding", "Report", "binary", "inspect", "load", "report", "run", "schema"]

# What `only`, `skip` and `arch` take: one id, a comma list ("host,env", as the command line takes
# it), or any iterable of ids.
Ids = Union[str, Iterable[str]]


class CudacheckError(RuntimeError):
    """cudacheck could not produce a report (it was not found, or said why on stderr)."""


def binary() -> str:
    """The cudacheck executable this package installed (the wheel's scripts directory), else the
    first on PATH. CUDACHECK_BINARY overrides both."""
    override = os.environ.get("CUDACHECK_BINARY")
    if override:
        return override
    candidates = [os.path.join(sysconfig.get_path("scripts"), "cudacheck"),
                  os.path.join(os.path.dirname(sys.executable), "cudacheck")]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("cudacheck")
    if found:
        return found
    raise CudacheckError("the cudacheck executable was not found: install the wheel tools/build-wheel.sh builds "
                         "(python -m pip install --force-reinstall dist/cudacheck-*.whl), or set CUDACHECK_BINARY "
                         "to a cudacheck executable")


def _report(arguments: List[str], timeout: Optional[float]) -> Dict[str, Any]:
    command = [binary(), *arguments]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except OSError as error:
        raise CudacheckError(f"could not run {command[0]}: {error}") from error
    try:
        parsed: Dict[str, Any] = json.loads(completed.stdout)
        return parsed
    except json.JSONDecodeError:
        said = (completed.stderr or completed.stdout).strip().splitlines()
        raise CudacheckError(f"{' '.join(command)} exited {completed.returncode} without a JSON report"
                             + (f": {said[-1]}" if said else "")) from None


def _ids(parameter: str, value: Optional[Ids]) -> List[str]:
    """`value` as the list a comma-delimited option takes. Issue 36: a str used to be iterated
    character by character (only="driver" ran --only d,r,i,v,e,r)."""
    if value is None:
        return []
    if isinstance(value, str):
        items: Iterable[Any] = [value]
    elif isinstance(value, (bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{parameter}: expected a check id, a comma list of them (\"host,env\") or an iterable of them "
                        f"([\"host\", \"env\"]), not {type(value).__name__}")
    else:
        items = value
    ids: List[str] = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{parameter}: every item must be a str, not {type(item).__name__} ({item!r})")
        ids += [part.strip() for part in item.split(",") if part.strip()]
    return ids


def _devices(value: Union[int, str, Iterable[int], None]) -> Optional[str]:
    """--devices's text: an ordinal, "0,1" or "all" as the command line takes it, or ordinals."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (bytes, bytearray, dict, bool)) or not hasattr(value, "__iter__"):
        raise TypeError(f"devices: expected a CUDA ordinal (0), a comma list (\"0,1\") or an iterable of ordinals ([0, 1]), "
                        f"not {type(value).__name__}")
    ordinals: List[str] = []
    for item in value:
        if not isinstance(item, int) or isinstance(item, bool):
            raise TypeError(f"devices: every item must be an int ordinal, not {type(item).__name__} ({item!r})")
        ordinals.append(str(item))
    return ",".join(ordinals)


def _arguments(value: Union[str, Iterable[str]]) -> List[str]:
    """Further command-line options: a list of them, or one string split as a POSIX shell would."""
    if isinstance(value, str):
        return shlex.split(value)
    if isinstance(value, (bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"arguments: expected a list of command-line options ([\"--strict\"]) or one string of them, "
                        f"not {type(value).__name__}")
    arguments = list(value)
    for item in arguments:
        if not isinstance(item, str):
            raise TypeError(f"arguments: every item must be a str, not {type(item).__name__} ({item!r})")
    return arguments


def run(level: str = "standard", only: Optional[Ids] = None, skip: Optional[Ids] = None,
        devices: Union[int, str, Iterable[int], None] = None, arguments: Union[str, Iterable[str]] = (),
        timeout: Optional[float] = None) -> Dict[str, Any]:
    """Runs the checks and returns the JSON report as a dictionary (its "exit_code" says what the
    command would have exited with: 0 pass, 1 a failure, ...; docs/cli.md); report() returns the
    same as a typed Report. `level`: "quick", "standard" (the default run) or "full"; `only`/`skip`:
    a check id or prefix ("driver"), a comma list ("host,env") or an iterable of them; `devices`:
    CUDA ordinals (0, "0,1", [0, 1]); `arguments`: any other command-line options (["--expect",
    "policy.json"], or one string split as a shell would). A wrong type raises TypeError; what the
    command refuses (an unknown check id, a level it does not know) raises CudacheckError with its
    message."""
    if not isinstance(level, str):
        raise TypeError(f"level: expected \"quick\", \"standard\" or \"full\", not {type(level).__name__}")
    command = ["--format", "json", "--level", level, "--progress", "never"]
    only_ids, skip_ids, ordinals = _ids("only", only), _ids("skip", skip), _devices(devices)
    if only_ids:
        command += ["--only", ",".join(only_ids)]
    if skip_ids:
        command += ["--skip", ",".join(skip_ids)]
    if ordinals is not None:
        command += ["--devices", ordinals]
    return _report([*command, *_arguments(arguments)], timeout)


def report(level: str = "standard", only: Optional[Ids] = None, skip: Optional[Ids] = None,
           devices: Union[int, str, Iterable[int], None] = None, arguments: Union[str, Iterable[str]] = (),
           timeout: Optional[float] = None) -> Report:
    """run(), typed: the report as a Report (cudacheck.results: its checks, findings, devices,
    versions, summary as frozen dataclasses), the dictionary itself in its `raw`."""
    return Report.from_dict(run(level=level, only=only, skip=skip, devices=devices, arguments=arguments, timeout=timeout))


def inspect(paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]], arch: Optional[Ids] = None,
            timeout: Optional[float] = None) -> Dict[str, Any]:
    """Lists the GPU code in executables, libraries and GPU binaries and which GPUs it runs on
    (`cudacheck inspect --format json`), as a dictionary; `paths`: one path or several; `arch`
    judges for these architectures ("sm_90", "sm_90,sm_100", ["sm_90", "9.0"]) instead of the GPUs
    found here."""
    if isinstance(paths, (str, os.PathLike)):
        files = [os.fspath(paths)]
    elif isinstance(paths, (bytes, bytearray, dict)) or not hasattr(paths, "__iter__"):
        raise TypeError(f"paths: expected a path or an iterable of paths, not {type(paths).__name__}")
    else:
        files = []
        for path in paths:
            if not isinstance(path, (str, os.PathLike)):
                raise TypeError(f"paths: every item must be a str or os.PathLike, not {type(path).__name__} ({path!r})")
            files.append(os.fspath(path))
    command = ["inspect", "--format", "json"]
    architectures = _ids("arch", arch)
    if architectures:
        command += ["--arch", ",".join(architectures)]
    return _report([*command, *files], timeout)


def schema() -> Dict[str, Any]:
    """The JSON schema of run()'s reports (docs/report.schema.json, shipped in the wheel)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.schema.json"), encoding="utf-8") as handle:
        loaded: Dict[str, Any] = json.load(handle)
        return loaded
