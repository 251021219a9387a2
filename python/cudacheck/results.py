"""Typed views of cudacheck's JSON report (issue 36): frozen dataclasses, one per object of
docs/report.schema.json, built from the report's dictionary and keeping it (`raw`).

Every 1.x report parses: a new minor version only adds optional fields (the schema's description),
so a field added after 1.3.0 (the oldest recorded report) may be absent and reads as None, or as ()
for a list; a field this module does not know (a later minor's) is left out of the typed view and
stays in `raw`. A report of another major version is refused (it removes or renames fields).
"""
from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Literal, Mapping, Optional, Tuple, Type, TypeVar, Union, cast, get_args, get_origin, get_type_hints

__all__ = ["Build", "Check", "Device", "Evidence", "Finding", "Framework", "FrameworkGpu", "FrameworkLibrary", "GpuProcess",
           "Host", "HostCompiler", "Libraries", "Library", "LibraryCopy", "LibraryResolution", "Metric", "ModuleImport", "Options",
           "PythonEnvironment", "Redaction", "Remedy", "RemedyReason", "GpuRemedy", "Report", "Series", "SeriesColumn", "SharedGpu", "Status", "Summary", "SysPathEntry",
           "Tool", "Toolkit", "Versions"]

# A check's, finding's or framework's verdict. Kept as the string the report holds: comparing with
# "fail" works, and a status a later version adds does not break reading.
Status = Literal["pass", "warn", "fail", "error", "timeout", "skip"]


def _since(version: str) -> Dict[str, str]:
    """Field metadata: the schema minor that added the field; older reports lack it."""
    return {"since": version}


def _raw() -> Any:
    """The `raw` field every class ends with: the dictionary it was read from, unknown fields included."""
    return field(default_factory=dict, repr=False, compare=False)


class _Typed:
    """from_dict for every class below."""

    @classmethod
    def from_dict(cls: Type[_T], data: Mapping[str, Any]) -> _T:
        """Reads this object from its JSON dictionary; ValueError names the first field that does not fit."""
        return _parse(cls, data, cls.__name__)


_T = TypeVar("_T", bound=_Typed)


@dataclass(frozen=True)
class Tool(_Typed):
    name: str
    version: str
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Options(_Typed):
    level: str
    strict: bool
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Host(_Typed):
    hostname: str
    node_name: Optional[str] = field(metadata=_since("1.9.0"))  # NODE_NAME: the Kubernetes node
    os: Optional[str]
    kernel: Optional[str]
    architecture: Optional[str]
    libc: Optional[str]
    cpu_model: Optional[str]
    logical_cpus: int
    memory_bytes: int
    container: Optional[str]
    wsl: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Versions(_Typed):
    driver: Optional[str]
    driver_cuda: Optional[str]
    runtime: Optional[str]
    nvcc: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Device(_Typed):
    ordinal: int
    name: str
    uuid: Optional[str]
    pci_bus_id: Optional[str]
    compute_capability: str
    cc_major: int
    cc_minor: int
    architecture: str
    total_memory_bytes: int
    multiprocessors: int
    sm_clock_khz: int
    memory_clock_khz: int
    memory_bus_width_bits: int
    l2_cache_bytes: int
    ecc_enabled: bool
    compute_mode: str
    integrated: bool
    tcc_driver: bool
    theoretical_memory_bandwidth_gbps: Optional[float]
    fp32_peak_tflops: Optional[float]
    # Added while 1.0.0 was current (NVML's view of the GPUs); every recorded report has them.
    source: Optional[str] = field(metadata=_since("1.0.0"))
    nvml_index: Optional[int] = field(metadata=_since("1.0.0"))
    framebuffer_bytes: Optional[int] = field(metadata=_since("1.0.0"))
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Finding(_Typed):
    """One problem a check found: a stable code, its cause in one line and the fix."""
    status: Status
    code: str
    message: str
    remediation: str
    device: Optional[int] = field(metadata=_since("1.2.0"))
    subject: Optional[str] = field(metadata=_since("1.4.0"))
    # The step it asks for ("reset_gpu"...), who acts ("reset"...), and the GPU it concerns (1.11.0).
    remedy: Optional[str] = field(metadata=_since("1.11.0"))
    action_class: Optional[str] = field(metadata=_since("1.11.0"))
    gpu: Optional[str] = field(metadata=_since("1.11.0"))
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class RemedyReason(_Typed):
    """A finding that calls for a step of the report's remedy."""
    check: str
    code: str
    status: Status
    remedy: str
    message: str
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class GpuRemedy(_Typed):
    """What one GPU needs: the most disruptive step its findings call for, and those findings."""
    gpu: str
    pci_bus_id: Optional[str]
    nvml_index: Optional[int]
    device: Optional[int]
    step: str
    action_class: str
    do: str
    because: Tuple[RemedyReason, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Remedy(_Typed):
    """The report's one ordered fix (1.11.0): the node's step and action class (a scheduler drains
    for "reset" and "isolate"), each GPU's, and the configuration fixes."""
    step: str
    action_class: str
    do: str
    gpus: Tuple[GpuRemedy, ...]
    node: Tuple[RemedyReason, ...]
    configuration: Tuple[RemedyReason, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Evidence(_Typed):
    key: str
    value: str
    number: Optional[float] = field(metadata=_since("1.6.0"))
    unit: Optional[str] = field(metadata=_since("1.6.0"))
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Metric(_Typed):
    name: str  # the flat name (gemm_fp16_8192), made from family and labels
    value: float
    unit: str
    # The quantity (gemm), what varies within it in order ({"precision": "fp16", "size": "8192"};
    # "device" and "peer_device" are CUDA ordinals, "gpu" an NVML index) and what it measures.
    # None in a report before 1.10.0, and family and help for a figure no family is known for.
    family: Optional[str] = field(metadata=_since("1.10.0"))
    labels: Optional[Dict[str, str]] = field(metadata=_since("1.10.0"))
    help: Optional[str] = field(metadata=_since("1.10.0"))
    # False for a figure of the GPU rather than a measurement (a datasheet peak); None before 1.10.0.
    measured: Optional[bool] = field(metadata=_since("1.10.0"))
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class SeriesColumn(_Typed):
    name: str
    unit: str
    values: Tuple[Optional[float], ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Series(_Typed):
    name: str
    labels: Tuple[str, ...]
    columns: Tuple[SeriesColumn, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class GpuProcess(_Typed):
    pid: int
    name: Optional[str]
    sm_percent: Optional[float]
    memory_bytes: Optional[int]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class SharedGpu(_Typed):
    device: int
    method: str
    processes: Tuple[GpuProcess, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Check(_Typed):
    """One check's result (per device for per-device checks): its status, the code of its worst
    finding, every finding, and the evidence and figures behind them."""
    id: str
    device: Optional[int]
    status: Status
    code: Optional[str]
    message: str
    remediation: Optional[str]
    docs: Optional[str]
    findings: Tuple[Finding, ...]
    evidence: Tuple[Evidence, ...]
    metrics: Tuple[Metric, ...]
    series: Tuple[Series, ...] = field(metadata=_since("1.6.0"))
    shared_gpu: Tuple[SharedGpu, ...] = field(metadata=_since("1.7.0"))
    duration_ms: float
    skip_reason: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Summary(_Typed):
    overall: Status
    counts: Dict[str, int]  # {"pass": 16, "warn": 1, ...}: one entry per status
    duration_ms: float
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Redaction(_Typed):
    kinds: Tuple[str, ...]
    environment_variables: Tuple[str, ...]
    replacements: int
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Toolkit(_Typed):
    root: str
    version: Optional[str]
    build_toolkit: bool
    gcc_newest: Optional[int]
    clang_newest: Optional[int]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class HostCompiler(_Typed):
    name: str
    source: str
    path: Optional[str]
    version: Optional[str]
    accepted: Optional[bool]
    error: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Build(_Typed):
    """What a CUDA build here takes (toolkit.build): the toolkit, its nvcc, the host compiler."""
    toolkit: Optional[str]
    toolkit_rule: Optional[str]
    nvcc_version: Optional[str]
    nvcc_architectures: Tuple[str, ...]
    missing_files: Tuple[str, ...]
    host_compiler: Optional[str]
    host_compiler_rule: Optional[str]
    host_compiler_version: Optional[str]
    host_compiler_accepted: Optional[bool]
    ninja: Optional[str]
    toolkits: Tuple[Toolkit, ...]
    compilers: Tuple[HostCompiler, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class FrameworkLibrary(_Typed):
    name: str
    soname: str
    path: str
    version: Optional[str]
    origin: str
    package: Optional[str]
    rule: str
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class FrameworkGpu(_Typed):
    device: int
    runs: str
    how: str
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Framework(_Typed):
    subject: str
    framework: str
    distribution: str
    version: str
    accelerator: str
    cuda: Optional[str]
    gpu_code: Tuple[str, ...]
    libraries: Tuple[FrameworkLibrary, ...]
    unresolved: Tuple[str, ...]
    gpus: Tuple[FrameworkGpu, ...]
    files: Tuple[str, ...]
    status: Status
    imported_from: Optional[str] = field(metadata=_since("1.8.0"))
    codes: Tuple[str, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class SysPathEntry(_Typed):
    path: str
    origin: str
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class ModuleImport(_Typed):
    module: str
    kind: str
    file: Optional[str]
    origin: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class PythonEnvironment(_Typed):
    prefix: str
    kind: str
    interpreter: Optional[str]
    python_version: Optional[str]
    bare_python3: bool
    found_by: Tuple[str, ...]
    frameworks: Tuple[Framework, ...]
    sys_path: Tuple[SysPathEntry, ...] = field(metadata=_since("1.8.0"))
    imports: Tuple[ModuleImport, ...] = field(metadata=_since("1.8.0"))
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class LibraryResolution(_Typed):
    """The file the loader opens for one soname, for a C/C++ program without RPATH/RUNPATH."""
    soname: str
    path: str  # as the loader opens it
    real_path: str
    rule: str  # "LD_LIBRARY_PATH entry /x", "ld.so.cache", "default directory /usr/lib"
    version: Optional[str]
    origin: str  # "other" when the file is no copy found where copies were looked for
    package: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class LibraryCopy(_Typed):
    soname: str
    path: str
    real_path: str
    version: Optional[str]
    origin: str  # "system", "toolkit", "pip_wheel", "conda", "wsl", "stub", "ld_library_path", "other"
    package: Optional[str]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Library(_Typed):
    name: str  # "cuBLAS", "cuDNN", "cuDNN ops", "libcuda", ...
    sonames: Tuple[str, ...]
    resolved: Tuple[LibraryResolution, ...]
    copies: Tuple[LibraryCopy, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Libraries(_Typed):
    """Each CUDA library libraries.resolution found: every copy, and the loader's pick of each soname."""
    found: Tuple[Library, ...]
    ld_so_cache: str
    directories_searched: int
    loaded_by_cudacheck: Tuple[str, ...]
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True)
class Report(_Typed):
    """A whole report (`cudacheck --format json`). `raw` is the dictionary itself, as run() returns
    it and docs/report.schema.json describes it."""
    schema_version: str
    tool: Tool
    timestamp_utc: str
    argv: Tuple[str, ...]
    options: Options
    host: Host
    versions: Versions
    devices: Tuple[Device, ...]
    checks: Tuple[Check, ...]
    # None unless frameworks.builds ran (1.4.0) / toolkit.build ran (1.5.0).
    frameworks: Optional[Tuple[PythonEnvironment, ...]] = field(metadata=_since("1.4.0"))
    build: Optional[Build] = field(metadata=_since("1.5.0"))
    # None unless libraries.resolution ran (1.10.0); None in every older report.
    libraries: Optional[Libraries] = field(metadata=_since("1.10.0"))
    remedy: Optional[Remedy] = field(metadata=_since("1.11.0"))
    summary: Summary
    exit_code: int
    redacted: Optional[Redaction] = field(metadata=_since("1.2.0"))
    raw: Mapping[str, Any] = _raw()

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> Report:
        """Reads a report from its JSON text."""
        return cls.from_dict(json.loads(text))

    @property
    def findings(self) -> Tuple[Finding, ...]:
        """Every finding of every check, in the report's order."""
        return tuple(finding for check in self.checks for finding in check.findings)

    @property
    def failed(self) -> Tuple[Check, ...]:
        """The checks that failed, errored or timed out."""
        return tuple(check for check in self.checks if check.status in ("fail", "error", "timeout"))

    def check(self, check_id: str, device: Optional[int] = None) -> Optional[Check]:
        """The first check with this id (on this CUDA device, when given); None when there is none."""
        for check in self.checks:
            if check.id == check_id and (device is None or check.device == device):
                return check
        return None


def load(path: Union[str, "os.PathLike[str]"]) -> Report:
    """Reads a report file written by `cudacheck --format json` or `-o FILE.json` (any 1.x version)."""
    with open(path, encoding="utf-8") as handle:
        return Report.from_json(handle.read())


# --- reading: each field by its type hint -------------------------------------------------------

_hints: Dict[type, Dict[str, Any]] = {}


def _parse(cls: Type[_T], data: Any, where: str) -> _T:
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if cls is Report:
        version = data.get("schema_version")
        if not isinstance(version, str) or version.split(".")[0] != "1":
            raise ValueError(f"{where}: schema_version {version!r} is not 1.x: this cudacheck module reads 1.x reports "
                             "(a new major renames or removes fields); use the cudacheck package of the version that wrote it")
    hints = _hints.get(cls)
    if hints is None:
        hints = _hints[cls] = get_type_hints(cls)
    values: Dict[str, Any] = {}
    for item in dataclasses.fields(cast(Any, cls)):
        if item.name == "raw":
            continue
        path = f"{where}.{item.name}"
        if item.name in data:
            values[item.name] = _convert(hints[item.name], data[item.name], path)
        elif "since" in item.metadata:
            values[item.name] = () if get_origin(hints[item.name]) is tuple else None
        else:
            raise ValueError(f"{path} is missing: not a cudacheck 1.x report (docs/report.schema.json)")
    return cls(**values, raw=data)  # type: ignore[call-arg]


def _convert(hint: Any, value: Any, where: str) -> Any:
    origin = get_origin(hint)
    if origin is Union:  # Optional[X]
        if value is None:
            return None
        (inner,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return _convert(inner, value, where)
    if origin is tuple:  # Tuple[X, ...]
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a JSON array, got {type(value).__name__}")
        inner = get_args(hint)[0]
        return tuple(_convert(inner, element, f"{where}[{index}]") for index, element in enumerate(value))
    if origin is dict:  # Dict[str, int]: the summary's counts
        if not isinstance(value, Mapping):
            raise ValueError(f"{where}: expected a JSON object, got {type(value).__name__}")
        return {str(key): _convert(get_args(hint)[1], number, f"{where}.{key}") for key, number in value.items()}
    if origin is Literal:
        hint = str
    if isinstance(hint, type) and issubclass(hint, _Typed):
        return _parse(hint, value, where)
    # JSON's scalars: a bool is no number, and an integral number is a float where one is expected.
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if hint is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if hint in (str, bool) and isinstance(value, hint):
        return value
    if value is None:
        raise ValueError(f"{where}: null where the schema has {hint.__name__}")
    raise ValueError(f"{where}: expected {hint.__name__}, got {type(value).__name__} {value!r}")
