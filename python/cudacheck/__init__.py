"""cudacheck from Python: can this machine run CUDA work, and if not, what exactly is wrong?

`pip install cudacheck` puts the cudacheck executable on PATH (the wheel's scripts) and this module
beside it: `python -m cudacheck ARGS` runs the executable, and two functions give its JSON reports
as dictionaries, for notebooks and for tools that call torch.utils.collect_env today:

    import cudacheck
    report = cudacheck.run(level="quick")             # docs/report.schema.json describes it
    report["summary"]["overall"], report["exit_code"]
    cudacheck.inspect(["model.so"])                    # which GPUs the code in these files runs on

The executable is the portable release build (CMake preset `release`): it needs glibc 2.28 or newer
and nothing else at load time; CUDA itself (driver, libraries) is what it examines, never what it
needs to start. The wheel holds no CUDA library.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Iterable, Optional, Sequence

__all__ = ["CudacheckError", "binary", "inspect", "run", "schema"]


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
    raise CudacheckError("the cudacheck executable was not found: reinstall the wheel (pip install --force-reinstall cudacheck) "
                         "or set CUDACHECK_BINARY")


def _report(arguments: Sequence[str], timeout: Optional[float]) -> dict:
    command = [binary(), *arguments]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except OSError as error:
        raise CudacheckError(f"could not run {command[0]}: {error}") from error
    try:
        return json.loads(completed.stdout)
    except json.JSONDecodeError:
        said = (completed.stderr or completed.stdout).strip().splitlines()
        raise CudacheckError(f"{' '.join(command)} exited {completed.returncode} without a JSON report"
                             + (f": {said[-1]}" if said else "")) from None


def run(level: str = "standard", only: Optional[Iterable[str]] = None, skip: Optional[Iterable[str]] = None,
        devices: Optional[Iterable[int]] = None, arguments: Sequence[str] = (), timeout: Optional[float] = None) -> dict:
    """Runs the checks and returns the JSON report as a dictionary (its "exit_code" says what the
    command would have exited with: 0 pass, 1 a failure, ...; docs/cli.md). `level`: "quick",
    "standard" (the default run) or "full"; `only`/`skip`: check ids or prefixes; `devices`: CUDA
    ordinals; `arguments`: any other command-line options (e.g. ["--expect", "policy.json"])."""
    command = ["--format", "json", "--level", level, "--progress", "never"]
    if only:
        command += ["--only", ",".join(only)]
    if skip:
        command += ["--skip", ",".join(skip)]
    if devices is not None:
        command += ["--devices", ",".join(str(device) for device in devices)]
    return _report([*command, *arguments], timeout)


def inspect(paths: Iterable[str], arch: Optional[Iterable[str]] = None, timeout: Optional[float] = None) -> dict:
    """Lists the GPU code in executables, libraries and GPU binaries and which GPUs it runs on
    (`cudacheck inspect --format json`); `arch` judges for these architectures ("sm_90", "9.0")
    instead of the GPUs found here."""
    command = ["inspect", "--format", "json"]
    if arch:
        command += ["--arch", ",".join(arch)]
    return _report([*command, *[os.fspath(path) for path in paths]], timeout)


def schema() -> dict:
    """The JSON schema of run()'s reports (docs/report.schema.json, shipped in the wheel)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)
