#!/usr/bin/env python3
"""device.health against `nvidia-smi -q -x`: every fact cudacheck reports from NVML for each GPU
must equal what nvidia-smi says (two readers of the same NVML counters and states): ECC, remapped
rows, PCIe link and replays, persistence, compute and MIG modes and MIG devices, the GPU recovery
action, the fabric state and status, power limit, temperature; and, given `nvidia-smi nvlink -s`'s
output, the NVLink links, how many are active and (when the counts agree) which are inactive; given
`nvidia-smi nvlink -e`'s too, each link's replay, recovery and CRC error counters.

Usage: compare_health_with_nvidia_smi.py NVIDIA_SMI_Q_X.xml REPORT.json [NVLINK_STATUS.txt [NVLINK_ERRORS.txt]]
Exit 0 when every GPU of the XML is in the report and every compared fact agrees, 1 otherwise
(each difference on its own line). Live readings (temperature, power draw) are compared with a
margin: the two were read a moment apart. A fact nvidia-smi shows as N/A, or does not show (an
older driver), is not compared. Used by the GPU test GpuBinary.device_health_equals_nvidia_smi and,
on fixtures, by the unit test CompareHealthScript.*.
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


def fabric_status(value):
    """nvidia-smi's fabric status in cudacheck's words: "Success", "N/A", or "not success" for the
    rest (nvidia-smi words errors its own way, "Insufficient Resources"; cudacheck names the
    nvmlReturn_t)."""
    if value in (None, "N/A", "Success"):
        return value
    return "not success"


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
        "recovery_action": text(gpu, "gpu_recovery_action"),
        "fabric_state": text(gpu, "fabric/state"),
        "fabric_status": fabric_status(text(gpu, "fabric/status")),
        "pcie_replays": text(gpu, "pci/replay_counter"),
    }
    current, pending = text(gpu, "mig_mode/current_mig"), text(gpu, "mig_mode/pending_mig")
    if current in on_off and pending in on_off:
        facts["mig_pending_change"] = current != pending
    if facts["mig"] == "on":
        facts["mig_devices"] = str(len(gpu.findall("mig_devices/mig_device")))
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
    modes_text = evidence.get(key + "_modes", "")
    modes = re.search(r"persistence (\w+), compute (\w+), MIG (\w+)", modes_text)
    if modes:
        facts["persistence"], facts["compute"], facts["mig"] = modes.group(1), modes.group(2), modes.group(3)
        facts["mig_pending_change"] = "(pending change at reset)" in modes_text
    mig_devices = re.search(r"(\d+) MIG device\(s\)", modes_text)
    facts["mig_devices"] = mig_devices.group(1) if mig_devices else None
    facts["recovery_action"] = evidence.get(key + "_recovery_action")
    fabric = re.match(r"state ([^,]+), status ([^,;]+)", evidence.get(key + "_fabric", ""))
    if fabric:
        facts["fabric_state"] = fabric.group(1)
        facts["fabric_status"] = fabric_status(fabric.group(2))
    replays = re.search(r"; replays (\d+)", evidence.get(key + "_pcie", ""))
    facts["pcie_replays"] = replays.group(1) if replays else None
    links = re.match(r"(\d+) links, (\d+) active", evidence.get(key + "_nvlink", ""))
    facts["nvlink"] = (links.group(1), links.group(2)) if links else ("0", "0")
    inactive = re.search(r"\(inactive: ([0-9, ]+)\)", evidence.get(key + "_nvlink", ""))
    facts["nvlink_inactive"] = tuple(int(link) for link in inactive.group(1).split(",")) if inactive else ()
    facts["nvlink_counters"] = "error counters N/A" not in evidence.get(key + "_nvlink", "error counters N/A")
    # gpuN_nvlink_errors lists only the links with a count: "link 2: replay 3, recovery 0, CRC flit 7, CRC data 1; ..."
    facts["nvlink_errors"] = {int(link): tuple(int(count) for count in counts) for link, *counts in re.findall(
        r"link (\d+): replay (\d+), recovery (\d+), CRC flit (\d+), CRC data (\d+)", evidence.get(key + "_nvlink_errors", ""))}
    ecc = evidence.get(key + "_ecc", "")
    facts["ecc"] = "on" if ecc.startswith("on") else "off" if ecc.startswith("off") else None
    counts = re.search(r"volatile (\d+) corrected / (\d+) uncorrected, aggregate (\d+) / (\d+)", ecc)
    if counts:
        facts["ecc_errors"] = counts.groups()
    pcie = re.search(r"gen (\S+) of (\S+), x([^\s;]+) of x([^\s;]+)", evidence.get(key + "_pcie", ""))
    if pcie:
        facts["pcie_max_gen"], facts["pcie_width"], facts["pcie_max_width"] = pcie.group(2), pcie.group(3), pcie.group(4)
    power = re.search(r"of (\d+) W enforced limit", evidence.get(key + "_power", ""))
    facts["power_limit_w"] = float(power.group(1)) if power else None
    facts["temperature_c"] = number(evidence.get(key + "_temperature"))
    rows = re.search(r"(\d+) corrected, (\d+) uncorrected, pending (\w+), failed (\w+)", evidence.get(key + "_remapped_rows", ""))
    if rows:
        facts["remapped_rows"] = rows.groups()
    return facts


def nvlink_status(path):
    """`nvidia-smi nvlink -s`'s links per GPU UUID: (links, active) as strings; nvidia-smi shows an
    inactive link as "<inactive>"."""
    links = {}
    uuid = None
    for line in open(path):
        gpu = re.match(r"GPU \d+: .*\(UUID: (\S+)\)", line)
        if gpu:
            uuid = gpu.group(1)
            links[uuid] = [0, 0]
        elif uuid and re.match(r"\s+Link \d+:", line):
            links[uuid][0] += 1
            links[uuid][1] += 0 if "inactive" in line else 1
    # A GPU nvidia-smi lists no link of ("all links are inActive", no NVLink) is not compared.
    return {uuid: (str(count), str(active)) for uuid, (count, active) in links.items() if count > 0}


def nvlink_inactive(path):
    """The inactive links per GPU UUID in `nvidia-smi nvlink -s`'s output, as a tuple of link numbers."""
    inactive = {}
    uuid = None
    for line in open(path):
        gpu = re.match(r"GPU \d+: .*\(UUID: (\S+)\)", line)
        if gpu:
            uuid = gpu.group(1)
            inactive[uuid] = ()
        link = re.match(r"\s+Link (\d+):.*inactive", line)
        if uuid and link:
            inactive[uuid] += (int(link.group(1)),)
    return inactive


def nvlink_errors(path):
    """`nvidia-smi nvlink -e`'s counters per GPU UUID: {link: {name: count}}, names "replay", "recovery",
    "crc" (its "CRC Errors"), "crc_flit", "crc_data" (where it splits them). Lines of other counters
    (newer drivers add "Effective Errors", "Symbol Errors", FEC lines) are not compared: NVML's
    nvmlDeviceGetNvLinkErrorCounter, which cudacheck reads, has the four DL counters only (nvml.h,
    nvmlNvLinkErrorCounter_t: DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA)."""
    names = {"replay": "replay", "recovery": "recovery", "crc": "crc", "crc flit": "crc_flit", "crc data": "crc_data"}
    counters = {}
    uuid = None
    for line in open(path):
        gpu = re.match(r"GPU \d+: .*\(UUID: (\S+)\)", line)
        if gpu:
            uuid = gpu.group(1)
            counters[uuid] = {}
        counter = re.match(r"\s+Link (\d+): ([A-Za-z ]+?) Errors: (\d+)\s*$", line)
        if uuid and counter and counter.group(2).lower() in names:
            counters[uuid].setdefault(int(counter.group(1)), {})[names[counter.group(2).lower()]] = int(counter.group(3))
    return counters


def compare_nvlink_errors(uuid, shown, found):
    """Differences between nvidia-smi's counters of one GPU (shown) and device.health's (found).
    cudacheck lists a link's counters only when one is not 0. nvidia-smi's "CRC Errors" is compared
    with the flit counter or with flit + data (NVIDIA does not document which it prints); split
    counters are compared one by one."""
    problems = []
    if shown and not found["nvlink_counters"]:
        problems.append(f"{uuid} nvlink_errors: nvidia-smi shows counters of {len(shown)} link(s), cudacheck 'error counters N/A'")
        return problems
    for link, counts in sorted(shown.items()):
        replay, recovery, flit, data = found["nvlink_errors"].get(link, (0, 0, 0, 0))
        ours = {"replay": (replay,), "recovery": (recovery,), "crc": (flit, flit + data), "crc_flit": (flit,), "crc_data": (data,)}
        for name, value in counts.items():
            if value not in ours[name]:
                problems.append(f"{uuid} nvlink link {link} {name}: nvidia-smi {value}, cudacheck "
                                f"{' or '.join(str(option) for option in sorted(set(ours[name])))}")
    for link in sorted(set(found["nvlink_errors"]) - set(shown)):
        if shown:  # nvidia-smi listed this GPU's links but not this one, which cudacheck says is erring
            problems.append(f"{uuid} nvlink link {link}: cudacheck counts errors {found['nvlink_errors'][link]}, nvidia-smi lists no such link")
    return problems


def main():
    root = ET.parse(sys.argv[1]).getroot()
    report = json.load(open(sys.argv[2]))
    nvlinks = nvlink_status(sys.argv[3]) if len(sys.argv) > 3 else {}
    inactive_links = nvlink_inactive(sys.argv[3]) if len(sys.argv) > 3 else {}
    link_errors = nvlink_errors(sys.argv[4]) if len(sys.argv) > 4 else {}
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
        if expected["uuid"] in nvlinks:
            expected["nvlink"] = nvlinks[expected["uuid"]]
        key = keys.get(expected["uuid"])
        if key is None:
            problems.append(f"{expected['uuid']}: in nvidia-smi, not in device.health")
            continue
        found = cudacheck_facts(evidence, key)
        for name, value in expected.items():
            # N/A is compared only where cudacheck says N/A too (a GPU without a fabric).
            if value is None or (value == "N/A" and name != "fabric_state"):
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
        # Which links are inactive, once how many agrees (a count that differs is one difference already).
        if expected["uuid"] in nvlinks and found.get("nvlink") == expected["nvlink"]:
            if found["nvlink_inactive"] != inactive_links.get(expected["uuid"], ()):
                problems.append(f"{expected['uuid']} nvlink_inactive: nvidia-smi {inactive_links.get(expected['uuid'], ())!r}, "
                                f"cudacheck {found['nvlink_inactive']!r}")
        if expected["uuid"] in link_errors:
            problems += compare_nvlink_errors(expected["uuid"], link_errors[expected["uuid"]], found)
    for problem in problems:
        print(problem)
    print(f"compared {len(gpus)} GPU(s), {len(problems)} difference(s)")
    return 1 if problems or not gpus else 0


if __name__ == "__main__":
    sys.exit(main())
