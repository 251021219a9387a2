#!/usr/bin/env python3
"""PyTorch's figures for what cuda.p2p and nccl.allreduce measure, at the same sizes, and a table of
cudacheck's figures beside them (issue 41). Where nvbandwidth and nccl-tests cannot be built (the
GPU machine reaches nothing outside), torch is the second reading on the same GPUs in the same call.

  multi_gpu_reference.py measure [-o REFERENCE.json]    (the torch venv's python, on the GPU machine)
  multi_gpu_reference.py table REFERENCE.json REPORT.json...

measure, for each size cudacheck uses (src/checks/cuda_p2p.cpp, src/checks/nccl_allreduce.cpp):
- copies: `dst.copy_(src)` from each GPU to each other GPU (ordered pairs), float32 buffers of
  256 MiB (5 runs: --level standard) and 1 GiB (20 runs: --level full), one warm-up copy, each run
  bracketed by CUDA events on the source GPU's current stream (PyTorch enqueues a copy between
  devices there: aten/src/ATen/native/cuda/Copy.cu, copy_device_to_device), the median run as
  GB/s (10^9 bytes per second), as cuda.p2p times cudaMemcpyPeerAsync;
- all-reduce: torch.distributed with the NCCL backend, one process per GPU
  (torch.multiprocessing.spawn, init_method file://), a float32 sum of 64 MiB per GPU (1 warm-up,
  5 runs) and 256 MiB (2 warm-ups, 10 runs: --level full); each run starts after a barrier and a
  synchronize and is bracketed by CUDA events on every rank's current stream (a synchronous
  all_reduce makes that stream wait for NCCL's), the slowest rank per run, the median run.
  Algorithm bandwidth = bytes per GPU / time, bus bandwidth = algbw * 2(n-1)/n, as nccl-tests
  define them for all-reduce (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md,
  "AllReduce"). Also the mean of the timed runs done back to back between two synchronizes
  (nccl-tests' own way: the average over its iterations). PyTorch's all_reduce is in place,
  cudacheck's out of place (nccl-tests reports both; they agree within noise on NVLink).
  NCCL_NVLS_ENABLE=0, as cudacheck sets it: NVLink multicast stays off.
Prints the JSON (and writes it with -o). Sizes and runs: --p2p BYTES:RUNS and --allreduce
BYTES:WARMUPS:RUNS (repeatable) replace the defaults.

table: one row per figure of cuda.p2p (family p2p_bandwidth, labels device and peer_device; older
reports: peer_bandwidth_I_to_J) and nccl.allreduce (nccl_allreduce_bus_bandwidth and
nccl_allreduce_algorithm_bandwidth; older: bus_bandwidth, algorithm_bandwidth) in each report,
beside PyTorch's figure at the size the check's evidence names ("cudaMemcpyPeerAsync of 256.0 MiB",
"ncclAllReduce of N floats"), and their ratio. Exit 0, or 2 on unreadable input.
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time

MIB = 1 << 20
P2P_SIZES = [(256 * MIB, 1, 5), (1024 * MIB, 1, 20)]  # bytes, warm-ups, runs: standard, full
ALLREDUCE_SIZES = [(64 * MIB, 1, 5), (256 * MIB, 2, 10)]  # per GPU: standard, full


def bus_bandwidth(algorithm_bandwidth, ranks):
    """nccl-tests' busbw for all-reduce: algbw * 2(n-1)/n (doc/PERFORMANCE.md)."""
    return algorithm_bandwidth * 2.0 * (ranks - 1) / ranks if ranks > 0 else 0.0


def gigabytes_per_second(size, milliseconds):
    return size / (milliseconds * 1e-3) / 1e9


# --- measure (needs torch and two or more GPUs) -----------------------------------------------

def measure_copies(torch, sizes):
    results = []
    count = torch.cuda.device_count()
    for size, warmups, runs in sizes:
        elements = size // 4
        sources = [torch.rand(elements, device=f"cuda:{index}") for index in range(count)]
        landing = [torch.empty(elements, device=f"cuda:{index}") for index in range(count)]
        for source_index in range(count):
            for destination_index in range(count):
                if source_index == destination_index:
                    continue
                source, destination = sources[source_index], landing[destination_index]
                with torch.cuda.device(source_index):
                    stream = torch.cuda.current_stream()
                    for _ in range(warmups):
                        destination.copy_(source)
                    times = []
                    for _ in range(runs):
                        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        start.record(stream)
                        destination.copy_(source)
                        end.record(stream)
                        end.synchronize()
                        times.append(start.elapsed_time(end))
                torch.cuda.synchronize(destination_index)
                # Verified as cuda.p2p verifies its copies: what arrived is what was sent.
                if not torch.equal(destination, source.to(destination.device)):
                    raise RuntimeError(f"copy {source_index} -> {destination_index} arrived different")
                median = statistics.median(times)
                results.append({"source": source_index, "destination": destination_index, "bytes": elements * 4,
                                "warmups": warmups, "runs": runs,
                                "peer_access": torch.cuda.can_device_access_peer(source_index, destination_index),
                                "median_ms": median, "min_ms": min(times), "max_ms": max(times),
                                "gb_per_s": gigabytes_per_second(elements * 4, median)})
        del sources, landing
        torch.cuda.empty_cache()
    return results


def allreduce_rank(rank, world, init_file, sizes, result_file):
    """One rank of the all-reduce; rank 0 writes every size's figures to result_file."""
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    start = time.perf_counter()
    dist.init_process_group("nccl", init_method=f"file://{init_file}", rank=rank, world_size=world,
                            device_id=torch.device(f"cuda:{rank}"))
    dist.barrier()
    torch.cuda.synchronize()
    init_ms = (time.perf_counter() - start) * 1000.0
    results = []
    for size, warmups, runs in sizes:
        count = size // 4
        tensor = torch.rand(count, device=f"cuda:{rank}")
        for _ in range(warmups):
            dist.all_reduce(tensor)
        times = []
        for _ in range(runs):
            dist.barrier()
            torch.cuda.synchronize()
            start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start_event.record()
            dist.all_reduce(tensor)
            end_event.record()
            end_event.synchronize()
            times.append(start_event.elapsed_time(end_event))
        # The slowest rank per run: a collective ends when its last rank does.
        slowest = torch.tensor(times, device=f"cuda:{rank}", dtype=torch.float64)
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        dist.barrier()
        torch.cuda.synchronize()
        wall_start = time.perf_counter()
        for _ in range(runs):
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        batch_ms = (time.perf_counter() - wall_start) * 1000.0 / runs
        # One check of the sum: a fresh all-reduce of known data (every rank's own tensor of ones
        # times its rank + 1) must give world * (world + 1) / 2 everywhere.
        check = torch.full((1 << 20,), float(rank + 1), device=f"cuda:{rank}")
        dist.all_reduce(check)
        correct = bool(torch.all(check == world * (world + 1) / 2).item())
        del tensor, check
        torch.cuda.empty_cache()
        per_run = slowest.cpu().tolist()
        median = statistics.median(per_run)
        algorithm = gigabytes_per_second(count * 4, median)
        results.append({"ranks": world, "bytes": count * 4, "warmups": warmups, "runs": runs, "correct": correct,
                        "median_ms": median, "min_ms": min(per_run), "max_ms": max(per_run),
                        "algorithm_gb_per_s": algorithm, "bus_gb_per_s": bus_bandwidth(algorithm, world),
                        "batch_mean_ms": batch_ms,
                        "batch_bus_gb_per_s": bus_bandwidth(gigabytes_per_second(count * 4, batch_ms), world)})
    if rank == 0:
        with open(result_file, "w") as out:
            json.dump({"init_ms": init_ms, "results": results}, out)
    dist.destroy_process_group()


def sizes_of(items, default):
    """[(bytes, warm-ups, runs)] from BYTES:RUNS (one warm-up) or BYTES:WARMUPS:RUNS items."""
    sizes = []
    for item in items:
        parts = [int(part) for part in item.split(":")]
        if len(parts) not in (2, 3) or min(parts) < 0 or parts[0] < 4 or parts[-1] < 1:
            sys.exit(f"{item!r}: expected BYTES:RUNS or BYTES:WARMUPS:RUNS")
        sizes.append((parts[0], 1, parts[1]) if len(parts) == 2 else tuple(parts))
    return sizes or default


def measure(args):
    p2p_sizes = sizes_of(args.p2p, P2P_SIZES)
    allreduce_sizes = sizes_of(args.allreduce, ALLREDUCE_SIZES)
    try:
        import torch
        import torch.multiprocessing
    except ImportError as error:
        sys.exit(f"measure needs PyTorch ({error}): run it with the torch venv's python (/opt/torch/.venv/bin/python)")

    os.environ["NCCL_NVLS_ENABLE"] = "0"  # no NVLink multicast objects (cudacheck sets the same)
    count = torch.cuda.device_count()
    if count < 2:
        sys.exit(f"{count} GPU(s) visible: the reference needs two or more")
    nccl = torch.cuda.nccl.version()  # a tuple in recent releases, an int (2.28.3: 22803) in old ones
    reference = {
        "tool": "torch", "torch": torch.__version__, "cuda": torch.version.cuda,
        "nccl": ".".join(str(part) for part in nccl) if isinstance(nccl, tuple) else str(nccl),
        "devices": [{"index": index, "name": torch.cuda.get_device_name(index)} for index in range(count)],
        "p2p": measure_copies(torch, p2p_sizes),
    }
    with tempfile.TemporaryDirectory() as scratch:
        result_file = os.path.join(scratch, "allreduce.json")
        start = time.perf_counter()
        torch.multiprocessing.spawn(allreduce_rank, args=(count, os.path.join(scratch, "rendezvous"), allreduce_sizes, result_file),
                                    nprocs=count, join=True)
        allreduce = json.load(open(result_file))
        reference["allreduce_spawn_ms"] = (time.perf_counter() - start) * 1000.0
    reference["allreduce_init_ms"] = allreduce["init_ms"]
    reference["allreduce"] = allreduce["results"]
    text = json.dumps(reference, indent=1)
    print(text)
    if args.output:
        with open(args.output, "w") as out:
            out.write(text + "\n")
    return 0


# --- table (no torch, no GPU) -----------------------------------------------------------------

def figures(check):
    """(kind, labels, GB/s) of a cuda.p2p or nccl.allreduce result, for either metric layout."""
    found = []
    for metric in check.get("metrics", []):
        family, labels, name = metric.get("family"), metric.get("labels") or {}, metric["name"]
        pair = re.fullmatch(r"peer_bandwidth_(\d+)_to_(\d+)", name)
        if family == "p2p_bandwidth" or pair:
            source = int(labels["device"]) if "device" in labels else int(pair.group(1))
            destination = int(labels["peer_device"]) if "peer_device" in labels else int(pair.group(2))
            found.append(("copy", (source, destination), metric["value"]))
        elif family == "nccl_allreduce_bus_bandwidth" or (family is None and name == "bus_bandwidth"):
            found.append(("bus", None, metric["value"]))
        elif family == "nccl_allreduce_algorithm_bandwidth" or (family is None and name == "algorithm_bandwidth"):
            found.append(("algorithm", None, metric["value"]))
    return found


def evidence_bytes(check):
    """The bytes per copy or per GPU that the check's "method" evidence names, or None."""
    method = next((item["value"] for item in check.get("evidence", []) if item["key"] == "method"), "")
    floats = re.search(r"ncclAllReduce of (\d+) floats", method)
    if floats:
        return int(floats.group(1)) * 4
    size = re.search(r"cudaMemcpyPeerAsync of ([0-9.]+) (KiB|MiB|GiB)", method)
    if size:
        return round(float(size.group(1)) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[size.group(2)])
    return None


def same_size(reference_bytes, size):
    """The evidence prints sizes to one decimal (256.0 MiB): equal within that rounding."""
    return size is not None and abs(reference_bytes - size) <= 0.001 * size


def table(args):
    try:
        reference = json.load(open(args.reference))
        reports = [(path, json.load(open(path))) for path in args.reports]
    except (OSError, ValueError) as error:
        print(f"cannot read the input: {error}", file=sys.stderr)
        return 2
    print(f"PyTorch {reference.get('torch')} (CUDA {reference.get('cuda')}, NCCL {reference.get('nccl')}) "
          "against cudacheck, the same sizes, the same GPUs\n")
    print("| report (level) | check | figure | size | cudacheck GB/s | PyTorch GB/s | cudacheck / PyTorch |")
    print("|---|---|---|---|---|---|---|")
    rows = 0
    for path, report in reports:
        level = report.get("options", {}).get("level", "?")
        for check in report.get("checks", []):
            if check["id"] not in ("cuda.p2p", "nccl.allreduce"):
                continue
            if check["status"] in ("skip", "error", "timeout"):
                print(f"| {os.path.basename(path)} ({level}) | {check['id']} | {check['status']}: "
                      f"{check.get('skip_reason') or check.get('message')} | | | | |")
                continue
            size = evidence_bytes(check)
            for kind, labels, value in figures(check):
                if kind == "copy":
                    candidates = [entry for entry in reference.get("p2p", [])
                                  if (entry["source"], entry["destination"]) == labels and same_size(entry["bytes"], size)]
                    name, theirs = f"copy {labels[0]} -> {labels[1]}", candidates[0]["gb_per_s"] if candidates else None
                else:
                    candidates = [entry for entry in reference.get("allreduce", []) if same_size(entry["bytes"], size)]
                    name = f"all-reduce {kind} bandwidth"
                    theirs = candidates[0]["bus_gb_per_s" if kind == "bus" else "algorithm_gb_per_s"] if candidates else None
                ratio = f"{value / theirs:.3f}" if theirs else "no PyTorch figure at this size"
                shown = "?" if not size else f"{size / (1 << 30):g} GiB" if size >= 1 << 30 else f"{size / MIB:g} MiB"
                theirs_text = f"{theirs:.1f}" if theirs else "-"
                print(f"| {os.path.basename(path)} ({level}) | {check['id']} | {name} | {shown} | {value:.1f} | "
                      f"{theirs_text} | {ratio} |")
                rows += 1
    if rows == 0:
        print("\nno cuda.p2p or nccl.allreduce figure in the reports")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measuring = commands.add_parser("measure", help="PyTorch's figures on this machine's GPUs (torch, 2+ GPUs)")
    measuring.add_argument("--p2p", action="append", default=[], help="BYTES:RUNS or BYTES:WARMUPS:RUNS of a copy size")
    measuring.add_argument("--allreduce", action="append", default=[], help="BYTES:WARMUPS:RUNS per GPU")
    measuring.add_argument("-o", "--output")
    tabling = commands.add_parser("table", help="cudacheck's figures beside PyTorch's")
    tabling.add_argument("reference")
    tabling.add_argument("reports", nargs="+")
    args = parser.parse_args()
    return measure(args) if args.command == "measure" else table(args)


if __name__ == "__main__":
    sys.exit(main())
