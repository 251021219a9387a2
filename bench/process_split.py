#!/usr/bin/env python3
"""Would one check process per GPU make a run on several GPUs faster? (issue 10, docs/performance.md)

Within one process the driver sets up the GPUs one at a time: `cuInit` and the primary contexts
cost about 100 ms more per GPU, even from one thread per GPU. This experiment asks whether separate
processes, each seeing one GPU through CUDA_VISIBLE_DEVICES, get that work done side by side.

Usage: bench/process_split.py [--rounds N] [--context-binary PATH] [--trace DIR] [--main-delay-ms MS]
                              CUDACHECK_BINARY

1. With --context-binary (bench/context_creation.cpp, built): `cuInit` plus every primary context,
   - "one":   one process seeing GPU 0,
   - "all":   one process seeing every GPU (contexts one thread per GPU),
   - "split": one process per GPU, all started at once; the wall time is until the last one ends.
   - "split-staggered": the same, each process started 150 ms after the one before.
2. Whole cudacheck runs at the default level, each started once the previous run's check
   processes are gone (as bench/startup.py does):
   - "one":   CUDA_VISIBLE_DEVICES=0,
   - "all":   every GPU, one run,
   - "split": one run per GPU with --only the per-device checks, plus one run seeing every GPU
     with the rest (host checks, cuda.p2p, nccl.allreduce), all started at once; wall time until
     the last returns. Each of those runs has its own supervisor, so this overstates what one
     supervisor with several check processes would take.
   - "split-no-multi": the same without cuda.p2p and nccl.allreduce in the run seeing every GPU.
   With --main-delay-ms, the run seeing every GPU starts that much after the per-GPU runs (does
   the order in which the processes set up the driver matter?). With --trace DIR, every cudacheck
   run writes DIR/CONFIGURATION-ROUND-PROCESS.json (CUDACHECK_TRACE; their `clock_origin` lines
   them up); bench/trace_lanes.py summarises them.
The configurations alternate round by round; the tables give the median and spread in ms.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402

# The checks that run once per GPU at the default level (`cudacheck list`, scope "device").
PER_DEVICE = "cuda.kernel,cuda.memory,cublas,cufft,cudnn,curand,nvrtc"
MULTI_DEVICE = "cuda.p2p,nccl"


def gpu_count():
    listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in listing.splitlines() if line.startswith("GPU "))


def with_visible(visible):
    environment = dict(os.environ)
    if visible is None:
        environment.pop("CUDA_VISIBLE_DEVICES", None)
    else:
        environment["CUDA_VISIBLE_DEVICES"] = visible
    return environment


def run_together(commands, delays_ms=None, traces=None):
    """Starts every (argv, CUDA_VISIBLE_DEVICES), the i-th delays_ms[i] after the start (default
    all at once), the i-th traced to traces[i] when given; returns (wall ms, outputs, exit codes)."""
    start = time.perf_counter()
    processes = []
    for index, (argv, visible) in enumerate(commands):
        if delays_ms:
            time.sleep(max(0.0, start + delays_ms[index] / 1000.0 - time.perf_counter()))
        environment = with_visible(visible)
        if traces:
            environment["CUDACHECK_TRACE"] = traces[index]
        processes.append(subprocess.Popen(argv, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = [process.communicate()[0] for process in processes]
    wall = (time.perf_counter() - start) * 1000.0
    return wall, outputs, [process.returncode for process in processes]


def summary(samples):
    return f"{statistics.median(samples):7.0f} | {min(samples):5.0f}–{max(samples):5.0f}"


def print_table(title, walls, codes):
    print(f"\n### {title}\n\n| configuration | median ms | spread ms | exit codes |\n|---|---|---|---|")
    for name, samples in walls.items():
        print(f"| {name} | {summary(samples)} | {sorted(set(codes[name]))} |")
    print("\nEach round, ms:")
    for name, samples in walls.items():
        print(f"- {name}: {' '.join(f'{sample:.0f}' for sample in samples)}")
    if "one" in walls:
        one = statistics.median(walls["one"])
        for name, samples in walls.items():
            if name != "one":
                print(f"\n{name} / one: {statistics.median(samples) / one:.3f}", end="")
        print()


def context_experiment(binary, gpus, rounds):
    configurations = {
        "one": [([binary, "parallel"], "0")],
        "all": [([binary, "parallel"], None)],
        "split": [([binary, "parallel"], str(gpu)) for gpu in range(gpus)],
        "split-staggered": [([binary, "parallel"], str(gpu)) for gpu in range(gpus)],
    }
    staggered = [150.0 * gpu for gpu in range(gpus)]
    walls = {name: [] for name in configurations}
    codes = {name: [] for name in configurations}
    print("## cuInit and primary contexts (bench/context_creation.cpp)\n\nEach process's own line:\n```")
    for round_number in range(rounds):
        for name, commands in configurations.items():
            time.sleep(0.5)
            wall, outputs, exits = run_together(commands, staggered if name == "split-staggered" else None)
            walls[name].append(wall)
            codes[name].extend(exits)
            for output in outputs:
                print(f"round {round_number + 1} {name:15s} {output.strip()}")
    print("```")
    print_table("process wall time, cuInit and contexts", walls, codes)


def cudacheck_experiment(binary, gpus, rounds, trace_dir, main_delay_ms):
    quiet = ["--format", "json"]
    configurations = {
        "one": [([binary, *quiet], "0")],
        "all": [([binary, *quiet], None)],
        "split": [([binary, *quiet, "--only", PER_DEVICE], str(gpu)) for gpu in range(gpus)]
        + [([binary, *quiet, "--skip", PER_DEVICE], None)],
        "split-no-multi": [([binary, *quiet, "--only", PER_DEVICE], str(gpu)) for gpu in range(gpus)]
        + [([binary, *quiet, "--skip", PER_DEVICE + "," + MULTI_DEVICE], None)],
    }
    def delays(name, commands):
        if not main_delay_ms or not name.startswith("split"):
            return None
        return [0.0] * (len(commands) - 1) + [main_delay_ms]

    for name, commands in configurations.items():  # warm-up: page cache, driver state
        run_together(commands, delays(name, commands))
        wait_for_workers(binary)
    walls = {name: [] for name in configurations}
    codes = {name: [] for name in configurations}
    statuses = {}
    for round_number in range(rounds):
        for name, commands in configurations.items():
            wait_for_workers(binary)
            traces = [os.path.join(trace_dir, f"{name}-{round_number + 1}-{index}.json") for index in range(len(commands))] if trace_dir else None
            wall, outputs, exits = run_together(commands, delays(name, commands), traces)
            walls[name].append(wall)
            codes[name].extend(exits)
            for output in outputs:
                try:
                    for check in json.loads(output)["checks"]:
                        statuses.setdefault(name, {}).setdefault(check["status"], 0)
                        statuses[name][check["status"]] += 1
                except (ValueError, KeyError):
                    statuses.setdefault(name, {}).setdefault("unreadable report", 0)
                    statuses[name]["unreadable report"] += 1
    print("\n## Whole cudacheck runs, default level" + (f" (the run seeing every GPU started {main_delay_ms:g} ms later)" if main_delay_ms else ""))
    print_table("wall time until every run of the configuration returned", walls, codes)
    print("\nCheck statuses over all rounds:")
    for name, counts in statuses.items():
        print(f"- {name}: {counts}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--context-binary")
    parser.add_argument("--trace", help="directory for every run's CUDACHECK_TRACE timeline")
    parser.add_argument("--main-delay-ms", type=float, default=0.0)
    parser.add_argument("binary")
    args = parser.parse_args()
    gpus = gpu_count()
    print(f"# One process per GPU against one process for all ({gpus} GPUs, {args.rounds} rounds)\n")
    if args.context_binary:
        context_experiment(args.context_binary, gpus, args.rounds)
    if args.trace:
        os.makedirs(args.trace, exist_ok=True)
    cudacheck_experiment(args.binary, gpus, args.rounds, args.trace, args.main_delay_ms)


if __name__ == "__main__":
    main()
