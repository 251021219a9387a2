#!/usr/bin/env python3
"""What NVML says about processes sharing a GPU, as this machine shows it (issue 21's facts).

Run on the GPU machine with the framework environment's python (torch is used only to make GPU
work in child processes; NVML is called through ctypes, as cudacheck calls it through dlopen):

    /opt/torch/.venv/bin/python3 bench/sharing_facts_on_gpu.py
    python3 bench/sharing_facts_on_gpu.py --poll SECONDS   # NVML's per-process samples every 100 ms, as JSON lines

It starts a child that runs bf16 GEMMs for a few seconds and a child that only holds a context, then
asks NVML, from this process (which holds no context) and from a third child that does, for:
compute and graphics processes (their pids against the children's own os.getpid() and their NSpid
lines, to see which PID namespace NVML answers in), per-process utilization samples
(nvmlDeviceGetProcessUtilization), and the device's utilization rates. Prints one JSON document.
"""
import ctypes
import json
import os
import subprocess
import sys
import time

GEMM_CHILD = r"""
import os, sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
print("ready", os.getpid(), flush=True)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
"""
IDLE_CHILD = r"""
import os, sys, time, torch
torch.zeros(1, device="cuda")
print("ready", os.getpid(), flush=True)
time.sleep(float(sys.argv[1]))
"""


class ProcessInfo(ctypes.Structure):  # nvmlProcessInfo_v2_t (nvml.h)
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong), ("gpuInstanceId", ctypes.c_uint),
                ("computeInstanceId", ctypes.c_uint)]


class ProcessUtilizationSample(ctypes.Structure):  # nvmlProcessUtilizationSample_t (nvml.h)
    _fields_ = [("pid", ctypes.c_uint), ("timeStamp", ctypes.c_ulonglong), ("smUtil", ctypes.c_uint), ("memUtil", ctypes.c_uint),
                ("encUtil", ctypes.c_uint), ("decUtil", ctypes.c_uint)]


class Utilization(ctypes.Structure):  # nvmlUtilization_t
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


def nspid(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return line.split()[1:]
    except OSError:
        return None
    return None


def nvml_view(nvml, device, since_us):
    view = {}
    for name in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3"):
        count = ctypes.c_uint(64)
        infos = (ProcessInfo * 64)()
        result = getattr(nvml, name)(device, ctypes.byref(count), infos)
        view[name] = {"result": result, "processes": [{"pid": infos[i].pid, "used_mib": infos[i].usedGpuMemory / 2**20,
                                                        "visible_here": os.path.exists(f"/proc/{infos[i].pid}"),
                                                        "comm": open(f"/proc/{infos[i].pid}/comm").read().strip()
                                                        if os.path.exists(f"/proc/{infos[i].pid}/comm") else None}
                                                       for i in range(count.value if result == 0 else 0)]}
    count = ctypes.c_uint(0)
    result = nvml.nvmlDeviceGetProcessUtilization(device, None, ctypes.byref(count), ctypes.c_ulonglong(since_us))
    samples = []
    if count.value:
        buffer = (ProcessUtilizationSample * count.value)()
        result = nvml.nvmlDeviceGetProcessUtilization(device, buffer, ctypes.byref(count), ctypes.c_ulonglong(since_us))
        if result == 0:
            samples = [{"pid": buffer[i].pid, "timeStamp": buffer[i].timeStamp, "smUtil": buffer[i].smUtil, "memUtil": buffer[i].memUtil}
                       for i in range(count.value)]
    view["process_utilization"] = {"result": result, "count": count.value, "samples": samples}
    utilization = Utilization()
    view["utilization_rates"] = {"result": nvml.nvmlDeviceGetUtilizationRates(device, ctypes.byref(utilization)),
                                 "gpu": utilization.gpu, "memory": utilization.memory}
    return view


def poll(seconds):
    """Every 100 ms for `seconds`: what nvmlDeviceGetProcessUtilization returns (since 0), stamped."""
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    assert nvml.nvmlInit_v2() == 0
    device = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(device)) == 0
    end = time.time() + seconds
    while time.time() < end:
        now_us = int(time.time() * 1e6)
        view = nvml_view(nvml, device, 0)
        print(json.dumps({"now_us": now_us, "utilization": view["process_utilization"],
                          "compute": [p["pid"] for p in view["nvmlDeviceGetComputeRunningProcesses_v3"]["processes"]]}), flush=True)
        time.sleep(0.1)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--poll":
        poll(float(sys.argv[2]))
        return
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    assert nvml.nvmlInit_v2() == 0
    device = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(device)) == 0
    facts = {"this_pid": os.getpid(), "this_nspid": nspid(os.getpid()), "pid_namespace": os.readlink("/proc/self/ns/pid")}
    facts["idle_gpu"] = nvml_view(nvml, device, 0)
    children = {}
    for name, code in (("gemm", GEMM_CHILD), ("idle_context", IDLE_CHILD)):
        child = subprocess.Popen([sys.executable, "-c", code, "12"], stdout=subprocess.PIPE, text=True)
        line = child.stdout.readline().split()
        children[name] = {"popen_pid": child.pid, "own_getpid": int(line[1]), "nspid": nspid(child.pid), "process": child}
    start_us = int(time.time() * 1e6)
    time.sleep(3)
    facts["children"] = {name: {k: v for k, v in info.items() if k != "process"} for name, info in children.items()}
    facts["busy_gpu"] = nvml_view(nvml, device, start_us)
    facts["busy_gpu_since_0"] = nvml_view(nvml, device, 0)["process_utilization"]
    for info in children.values():
        info["process"].wait()
    print(json.dumps(facts, indent=1))


if __name__ == "__main__":
    main()
