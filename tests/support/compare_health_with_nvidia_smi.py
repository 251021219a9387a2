#!/usr/bin/env python3
"""device.health against `nvidia-smi -q -x`: every fact cudacheck reports from NVML for each GPU
must equal what nvidia-smi says (two readers of the same NVML counters and states).

Usage: compare_health_with_nvidia_smi.py NVIDIA_SMI_Q_X.xml REPORT.json
Exit 0 when every GPU of the XML is in the report and every compared fact agrees, 1 otherwise
(each difference on its own line). Live readings (temperature, power draw) are compared with a
margin: the two were read a moment apart. Used by the GPU test GpuBinary.device_health_equals_nvidia_smi.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET


def text(gpu, path):
    node = gpu.find(path)
    return None if node is None or node.text is None else node.text.strip()


def number(value):
    match = re.match(r"^(-?[0-9.]+)", value or "")
    return float(match.group(1)) if match else None


def smi_facts(gpu):
    """What nvidia-smi says, in the words cudacheck's evidence uses."""
    on_off = {"Enabled": "on", "Disabled": "off"}
    facts = {
        "uuid": text(gpu, "uuid"),
        "persistence": on_off.get(text(gpu, "persistence_mode")),
        "compute": (text(gpu, "compute_mode") or "").lower().replace(" ", "_"),
        "mig": on_off.get(text(gpu, "mig_mode/current_mig")),
        "ecc": on_off.get(text(gpu, "ecc_mode/current_ecc")),
        "pcie_max_gen": text(gpu, "pci/pci_gpu_link_info/pcie_gen/max_link_gen"),
        "pcie_width": (text(gpu, "pci/pci_gpu_link_info/link_widths/current_link_width") or "").rstrip("x"),
        "pcie_max_width": (text(gpu, "pci/pci_gpu_link_info/link_widths/max_link_width") or "").rstrip("x"),
        "power_limit_w": number(text(gpu, "gpu_power_readings/current_power_limit")),
        "temperature_c": number(text(gpu, "temperature/gpu_temp")),
    }
    if facts["ecc"] == "on":
        facts["ecc_errors"] = tuple(text(gpu, f"ecc_errors/{kind}/dram_{which}") for kind in ("volatile", "aggregate")
                                    for which in ("correctable", "uncorrectable"))
    if gpu.find("remapped_rows/remapped_row_pending") is not None:
        facts["remapped_rows"] = (text(gpu, "remapped_rows/remapped_row_corr"), text(gpu, "remapped_rows/remapped_row_unc"),
                                  (text(gpu, "remapped_rows/remapped_row_pending") or "").lower(),
                                  (text(gpu, "remapped_rows/remapped_row_failure") or "").lower())
    return facts


def cudacheck_facts(evidence, key):
    """The same facts read back from device.health's evidence for one GPU (gpuN, gpuN_*)."""
    facts = {}
    header = evidence.get(key, "")
    facts["uuid"] = header.rsplit("| ", 1)[-1].strip()
    modes = re.search(r"persistence (\w+), compute (\w+), MIG (\w+)", evidence.get(key + "_modes", ""))
    if modes:
        facts["persistence"], facts["compute"], facts["mig"] = modes.group(1), modes.group(2), modes.group(3)
    ecc = evidence.get(key + "_ecc", "")
    facts["ecc"] = "on" if ecc.startswith("on") else "off" if ecc.startswith("off") else None
    counts = re.search(r"volatile (\d+) corrected / (\d+) uncorrected, aggregate (\d+) / (\d+)", ecc)
    if counts:
        facts["ecc_errors"] = counts.groups()
    pcie = re.search(r"gen (\S+) of (\S+), x(\S+) of x(\S+)", evidence.get(key + "_pcie", ""))
    if pcie:
        facts["pcie_max_gen"], facts["pcie_width"], facts["pcie_max_width"] = pcie.group(2), pcie.group(3), pcie.group(4)
    power = re.search(r"of (\d+) W enforced limit", evidence.get(key + "_power", ""))
    facts["power_limit_w"] = float(power.group(1)) if power else None
    facts["temperature_c"] = number(evidence.get(key + "_temperature"))
    rows = re.search(r"(\d+) corrected, (\d+) uncorrected, pending (\w+), failed (\w+)", evidence.get(key + "_remapped_rows", ""))
    if rows:
        facts["remapped_rows"] = rows.groups()
    return facts


def main():
    root = ET.parse(sys.argv[1]).getroot()
    report = json.load(open(sys.argv[2]))
    health = next((check for check in report["checks"] if check["id"] == "device.health"), None)
    if health is None or health["status"] in ("skip", "error", "timeout"):
        print(f"device.health did not run: {health}")
        return 1
    evidence = {item["key"]: item["value"] for item in health["evidence"]}
    # The report's GPUs by UUID (gpuN evidence keys are NVML indices, as nvidia-smi's).
    keys = {cudacheck_facts(evidence, key)["uuid"]: key for key in evidence if re.fullmatch(r"gpu\d+", key)}
    problems = []
    gpus = root.findall("gpu")
    for gpu in gpus:
        expected = smi_facts(gpu)
        key = keys.get(expected["uuid"])
        if key is None:
            problems.append(f"{expected['uuid']}: in nvidia-smi, not in device.health")
            continue
        found = cudacheck_facts(evidence, key)
        for name, value in expected.items():
            if value is None or value == "N/A":
                continue
            seen = found.get(name)
            if name == "temperature_c":
                agrees = seen is not None and abs(seen - value) <= 5  # read a moment apart
            elif name == "power_limit_w":
                agrees = seen is not None and abs(seen - value) < 1  # printed in whole watts
            else:
                agrees = seen == value
            if not agrees:
                problems.append(f"{expected['uuid']} {name}: nvidia-smi {value!r}, cudacheck {seen!r}")
    for problem in problems:
        print(problem)
    print(f"compared {len(gpus)} GPU(s), {len(problems)} difference(s)")
    return 1 if problems or not gpus else 0


if __name__ == "__main__":
    sys.exit(main())
