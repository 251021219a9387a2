#!/usr/bin/env python3
"""Reads cudacheck's Prometheus text output with the Prometheus client library's own parser and
checks it against the JSON report of the same run; then lints it with promtool where there is one.

Usage: validate_prometheus.py REPORT.prom REPORT.json

- The exposition is well formed: HELP and TYPE once per family, before its samples, and all
  samples of a family together (the parser alone accepts a family split in two).
- Every check result has exactly one cudacheck_check_status sample at 1, the status it ended with,
  with the GPU labels of its device.
- Every performance figure of the JSON (unit not count, ratio or value) is a sample of the family
  this script's own table names (written apart from the renderer's, as a second reading of the
  same conventions), with its value converted to the family's unit (GB/s to bytes per second, % to
  a 0-1 ratio, ms to seconds, MHz to hertz) and the labels gpu, UUID, pci_bus_id, hostname,
  Hostname and level as the JSON's devices, host and options give them: gpu is NVML's index
  (dcgm-exporter's numbering), the CUDA ordinal where NVML matched no device.
- The host, as dcgm-exporter names it (internal/pkg/hostname/hostname.go): the report's
  host.node_name (NODE_NAME where it ran, schema 1.9.0) when it has one, else its host.hostname;
  under both `hostname` and `Hostname`.
- A redacted report ("redacted" set) has no UUID, hostname or Hostname label anywhere; any other
  report has both host labels on every sample. Every sample has the report's level.
- cudacheck_last_run_timestamp_seconds is timestamp_utc plus summary.duration_ms, in Unix seconds.
- `promtool check metrics` (PROMTOOL, else promtool on PATH, else the copy tools/install-deps.sh
  unpacks under tests/fixtures/downloaded/promtool) prints nothing. Without promtool that part is
  left out, and said so.
Exit 77 (skipped) when prometheus_client is not installed, 1 on any mismatch.
"""
import json
import calendar
import math
import os
import re
import shutil
import subprocess
import sys
import time

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # tools/install-deps.sh installs it
    print("SKIPPED: python3 prometheus_client is not installed")
    sys.exit(77)

# unit as the checks write it: (family suffix, factor)
UNITS = {
    "GB/s": ("bytes_per_second", 1e9), "MB/s": ("bytes_per_second", 1e6), "TB/s": ("bytes_per_second", 1e12),
    "B/s": ("bytes_per_second", 1), "TFLOP/s": ("tflops", 1), "GFLOP/s": ("tflops", 1e-3), "PFLOP/s": ("tflops", 1e3),
    "Gsamples/s": ("samples_per_second", 1e9), "Msamples/s": ("samples_per_second", 1e6), "samples/s": ("samples_per_second", 1),
    "s": ("seconds", 1), "ms": ("seconds", 1e-3), "us": ("seconds", 1e-6), "ns": ("seconds", 1e-9), "%": ("ratio", 1e-2),
    "MHz": ("hertz", 1e6), "GHz": ("hertz", 1e9), "kHz": ("hertz", 1e3), "Hz": ("hertz", 1), "C": ("celsius", 1),
    "W": ("watts", 1), "mW": ("watts", 1e-3), "B": ("bytes", 1), "bytes": ("bytes", 1),
    "KiB": ("bytes", 1024), "MiB": ("bytes", 1024**2), "GiB": ("bytes", 1024**3),
}

# (check, name pattern, family without its unit suffix, labels from the groups; "@cuda"/"@nvml": the
# device, by CUDA ordinal or NVML index; "@peer": the peer device, by CUDA ordinal)
FAMILIES = [
    ("cublas.gemm", r"gemm_([a-z0-9]+)_fraction_of_peak", "cudacheck_gemm_of_peak", ["precision"]),
    ("cublas.gemm", r"gemm_([a-z0-9]+)_(\d+)", "cudacheck_gemm", ["precision", "size"]),
    ("cuda.memory", r"(device_to_device|host_to_device|device_to_host)_bandwidth", "cudacheck_memory_bandwidth", ["direction"]),
    ("cuda.memory", r"(device_to_device|host_to_device|device_to_host)_fraction_of_theoretical",
     "cudacheck_memory_bandwidth_of_theoretical", ["direction"]),
    ("cuda.devices", r"device(\d+)\.theoretical_memory_bandwidth", "cudacheck_gpu_theoretical_memory_bandwidth", ["@cuda"]),
    ("cuda.devices", r"device(\d+)\.fp32_peak", "cudacheck_gpu_fp32_peak", ["@cuda"]),
    ("device.health", r"gpu(\d+)\.temperature", "cudacheck_gpu_temperature", ["@nvml"]),
    ("device.health", r"gpu(\d+)\.power", "cudacheck_gpu_power", ["@nvml"]),
    ("cuda.p2p", r"peer_bandwidth_(\d+)_to_(\d+)", "cudacheck_p2p_bandwidth", ["@cuda", "@peer"]),
    ("cuda.p2p", r"min_peer_bandwidth", "cudacheck_p2p_min_bandwidth", []),
    ("nccl.allreduce", r"bus_bandwidth", "cudacheck_nccl_allreduce_bus_bandwidth", []),
    ("nccl.allreduce", r"algorithm_bandwidth", "cudacheck_nccl_allreduce_algorithm_bandwidth", []),
    ("nccl.allreduce", r"comm_init_time", "cudacheck_nccl_comm_init", []),
    ("cudnn.conv", r"convolution_throughput", "cudacheck_cudnn_conv", []),
    ("cudnn.conv", r"convolution_time", "cudacheck_cudnn_conv", []),
    ("cufft.fft", r"([a-z0-9]+)_forward_gflops_n(\d+)", "cudacheck_cufft_forward", ["transform", "n"]),
    ("cufft.fft", r"([a-z0-9]+)_forward_time_n(\d+)", "cudacheck_cufft_forward", ["transform", "n"]),
    ("curand.generate", r"(uniform|normal)_rate", "cudacheck_curand", ["distribution"]),
    ("nvrtc.compile", r"compile_time", "cudacheck_nvrtc_compile", []),
    ("nvrtc.compile", r"module_load_time", "cudacheck_nvrtc_module_load", []),
    ("toolkit.compile", r"compile_time", "cudacheck_toolkit_compile", []),
    ("toolkit.compile", r"extension_time", "cudacheck_toolkit_compile_extension", []),
    ("toolkit.compile", r"(cubin|ptx|fatbinary|executable)_bytes", "cudacheck_toolkit_compile_output", ["artifact"]),
    ("toolkit.build", r"gather_time", "cudacheck_toolkit_build_gather", []),
    ("gpu.stress", r"stress_tflops_(max|median|min)", "cudacheck_stress", ["stat"]),
    ("gpu.stress", r"stress_sm_clock_(max|min)", "cudacheck_stress_sm_clock", ["stat"]),
    ("gpu.stress", r"stress_power_(max|min)", "cudacheck_stress_power", ["stat"]),
    ("gpu.stress", r"stress_temperature_(max|min)", "cudacheck_stress_temperature", ["stat"]),
    ("gpu.stress", r"stress_rate_drop", "cudacheck_stress_rate_drop", []),
    ("gpu.memtest", r"memtest_bandwidth", "cudacheck_memtest_bandwidth", []),
    ("gpu.memtest", r"memtest_bytes", "cudacheck_memtest_tested", []),
]
PERFORMANCE = lambda metric: metric["unit"] not in ("count", "ratio", "value")  # noqa: E731 (report_query.cpp's is_performance_figure)


def sanitize(text):
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]", "_", text.lower())).strip("_")


def with_suffix(stem, suffix):
    return stem if not suffix or stem.endswith("_" + suffix) else f"{stem}_{suffix}"


def expected_figure(check_id, metric):
    """(family, labels from the name, device numbering, device, peer, value)"""
    suffix, factor = UNITS.get(metric["unit"], (None, 1))
    if suffix is None:
        unit = metric["unit"]
        suffix = sanitize(unit[:-2] + "_per_second" if unit.endswith("/s") and len(unit) > 2 else unit)
    value = metric["value"] * factor
    # Since schema 1.10.0 a figure names its family and labels: "device" and "peer_device" are CUDA
    # ordinals, "gpu" an NVML index (docs/report.schema.json).
    if metric.get("family"):
        labels, numbering, device, peer = {}, None, None, None
        for name, text in (metric.get("labels") or {}).items():
            if name in ("device", "gpu"):
                numbering, device = ("cuda" if name == "device" else "nvml"), int(text)
            elif name == "peer_device":
                peer = int(text)
            else:
                labels[sanitize(name)] = text
        return with_suffix("cudacheck_" + sanitize(metric["family"]), suffix), labels, numbering, device, peer, value
    # Before 1.10.0: the family from the name, as the checks wrote them.
    for check, pattern, stem, names in FAMILIES:
        match = re.fullmatch(pattern, metric["name"])
        if check != check_id or not match:
            continue
        labels, numbering, device, peer = {}, None, None, None
        for name, group in zip(names, match.groups()):
            if name in ("@cuda", "@nvml"):
                numbering, device = name[1:], int(group)
            elif name == "@peer":
                peer = int(group)
            else:
                labels[name] = group
        return with_suffix(stem, suffix), labels, numbering, device, peer, value
    # Not in the table: cudacheck_<check>_<name>_<unit>, a "deviceN." / "gpuN." prefix as labels.
    name, numbering, device = metric["name"], None, None
    prefixed = re.fullmatch(r"(device|gpu)(\d+)\.(.*)", name)
    if prefixed:
        numbering, device, name = ("cuda" if prefixed[1] == "device" else "nvml"), int(prefixed[2]), prefixed[3]
    stem = sanitize(name)
    if suffix == "seconds" and stem.endswith("_time") and len(stem) > 5:
        stem = stem[:-5]
    return with_suffix(f"cudacheck_{sanitize(check_id)}" + (f"_{stem}" if stem else ""), suffix), {}, numbering, device, None, value


def check_layout(text):
    """HELP and TYPE once per family, before its samples; a family's samples together."""
    problems, finished, current = [], set(), None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            name = line.split(" ", 3)[2]
            if line.startswith("# HELP "):
                if name in finished or name == current:
                    problems.append(f"line {number}: a second HELP for {name}")
                if current:
                    finished.add(current)
                current = name
            elif name != current:
                problems.append(f"line {number}: TYPE of {name} not after its HELP")
            elif not line.endswith(" gauge"):
                problems.append(f"line {number}: {name} is not a gauge")
        elif line and not line.startswith("#"):
            name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line)[0]
            if name != current:
                problems.append(f"line {number}: a sample of {name} outside its family ({current})")
    return problems


def promtool():
    candidates = [os.environ.get("PROMTOOL"), shutil.which("promtool"),
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "downloaded", "promtool", "usr", "bin", "promtool")]
    return next((path for path in candidates if path and os.access(path, os.X_OK)), None)


def main() -> int:
    prom_path, json_path = sys.argv[1:]
    with open(prom_path, encoding="utf-8") as handle:
        text = handle.read()
    with open(json_path, encoding="utf-8") as handle:
        report = json.load(handle)
    problems = check_layout(text)
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for name in ("cudacheck_check_status", "cudacheck_exit_code", "cudacheck_gpus", "cudacheck_info", "cudacheck_run_duration_seconds",
                 "cudacheck_last_run_timestamp_seconds"):
        if name not in families:
            problems.append(f"no {name} family")
    if problems:
        print("\n".join(problems))
        return 1
    samples = [sample for family in families.values() for sample in family.samples]

    redacted = report.get("redacted") is not None
    hostname = None if redacted else report["host"].get("node_name") or report["host"]["hostname"] or None
    level = report["options"]["level"] or None
    devices = report["devices"]

    def gpu_labels(device, numbering="cuda", prefix=""):
        if device is None:
            return {}
        key = "ordinal" if numbering == "cuda" else "nvml_index"
        info = next((d for d in devices if d.get(key) == device), None)
        gpu = info["nvml_index"] if info is not None and info.get("nvml_index") is not None else device
        labels = {f"{prefix}gpu": str(gpu)}
        if info is not None and info.get("uuid") and not redacted:
            labels[f"{prefix}UUID"] = info["uuid"]
        if info is not None and info.get("pci_bus_id"):
            labels[f"{prefix}pci_bus_id"] = info["pci_bus_id"]
        return labels

    def identity(check_id, device, numbering="cuda"):
        labels = {"check": check_id, **gpu_labels(device, numbering)}
        if hostname:
            labels["hostname"] = labels["Hostname"] = hostname
        if level:
            labels["level"] = level
        return labels

    for sample in samples:
        if redacted and ({"UUID", "peer_UUID", "hostname", "Hostname"} & set(sample.labels)):
            problems.append(f"{sample.name}{sample.labels}: a UUID or host label in a redacted report")
        if hostname and (sample.labels.get("hostname") != hostname or sample.labels.get("Hostname") != hostname):
            problems.append(f"{sample.name}{sample.labels}: hostname or Hostname is not {hostname!r}")
        if sample.labels.get("level") != level:
            problems.append(f"{sample.name}{sample.labels}: level is not {level!r}")
        if "device" in sample.labels or "unit" in sample.labels or "name" in sample.labels:
            problems.append(f"{sample.name}{sample.labels}: an old device, unit or name label")

    status_at_one = {}
    for sample in families["cudacheck_check_status"].samples:
        if sample.value == 1:
            key = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "status"))
            status_at_one.setdefault(key, []).append(sample.labels["status"])
    for check in report["checks"]:
        key = tuple(sorted(identity(check["id"], check["device"]).items()))
        statuses = status_at_one.get(key, [])
        if statuses != [check["status"]]:
            problems.append(f"{check['id']} device {check['device']}: statuses at 1 {statuses}, {check['status']} in the JSON (labels {dict(key)})")
        if check["device"] is None:
            found = [s.labels for s in families["cudacheck_check_status"].samples if s.labels["check"] == check["id"]]
            if any("gpu" in labels for labels in found):
                problems.append(f"{check['id']}: a host check with a gpu label")
        for metric in check["metrics"]:
            if not PERFORMANCE(metric):
                continue
            family, named, numbering, device, peer, value = expected_figure(check["id"], metric)
            labels = identity(check["id"], device if numbering else check["device"], numbering or "cuda")
            labels.update(gpu_labels(peer, "cuda", "peer_"))
            labels.update(named)
            found = [s for s in (families[family].samples if family in families else []) if s.labels == labels]
            if len(found) != 1:
                near = [s.labels for s in families[family].samples] if family in families else "no such family"
                problems.append(f"{check['id']} {metric['name']} ({metric['unit']}): no {family}{labels}; found {near}")
            elif not math.isclose(found[0].value, value, rel_tol=1e-9, abs_tol=1e-300):
                problems.append(f"{check['id']} {metric['name']}: {found[0].value} in {family}, {value} expected from the JSON's {metric['value']} {metric['unit']}")

    if families["cudacheck_exit_code"].samples[0].value != report["exit_code"]:
        problems.append("exit code differs")
    if families["cudacheck_gpus"].samples[0].value != len(devices):
        problems.append("GPU count differs")
    finished = calendar.timegm(time.strptime(report["timestamp_utc"], "%Y-%m-%dT%H:%M:%SZ")) + report["summary"]["duration_ms"] / 1000
    last_run = families["cudacheck_last_run_timestamp_seconds"].samples
    if len(last_run) != 1 or not math.isclose(last_run[0].value, finished, rel_tol=0, abs_tol=1e-3):
        problems.append(f"cudacheck_last_run_timestamp_seconds {[s.value for s in last_run]}, {finished} from timestamp_utc and duration_ms")

    tool = promtool()
    if tool is None:
        print("note: promtool not found (tools/install-deps.sh unpacks it); its lint was left out")
    else:
        lint = subprocess.run([tool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
        if lint.returncode != 0 or lint.stdout.strip() or lint.stderr.strip():
            problems.append(f"promtool check metrics (exit {lint.returncode}): {lint.stdout}{lint.stderr}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
