#!/usr/bin/env python3
"""cudacheck's throughput figures next to PyTorch's, measured in one run on the same GPU.

Usage: bench/compare_pytorch.py CUDACHECK_BINARY [--level full|standard] [--rounds 3] [--json OUT.json] [--sync-each-run]

Runs `cudacheck --level LEVEL --only cublas.gemm,cuda.memory --format json` and then the same work
through PyTorch, like for like: GEMM in FP32, TF32, FP16 and BF16 at the size cudacheck used for
each (the number ending its metric's name, e.g. gemm_fp32_4096; inputs uniform in [-1, 1)) and a
device-to-device copy of the size cudacheck used at that level (4 GiB at full, 1 GiB at the default
level; bytes read + written), each with as many warm-ups and timed runs as cudacheck's report says
it made ("median of 5 runs after 2 warm-up(s)"), timed with CUDA events as cudacheck times them
(the runs queued back to back, an event between each two: see timed()). cudacheck and then PyTorch
measure --rounds times (default 3), alternating; the table gives each side's median, their ratio
and each round's ratio: the GPU's clocks and power drift between runs, on both sides.
docs/performance.md records it.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import time

import torch



SYNC_EACH_RUN = False  # --sync-each-run: the method this script used before (see timed())


def timed(work, warmups, runs, sync_each_run=None):
    """Median milliseconds of one run of `work`, cudacheck's way (gpu::time_on_stream): the runs
    queued back to back after the warm-ups with an event between each two, one synchronisation at
    the end, so each interval is the GPU's time for one run. Waiting for each run before launching
    the next (--sync-each-run, what this script did until issue 21) leaves the GPU idle while
    Python launches the next run: ~20 us more per run, 6% of a 0.34 ms TF32 product at 4096^3,
    the gap this comparison showed for TF32 alone. bench/tf32_calls.py times with it too."""
    for _ in range(warmups):
        work()
    if SYNC_EACH_RUN if sync_each_run is None else sync_each_run:
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            work()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        return statistics.median(times)
    events = [torch.cuda.Event(enable_timing=True) for _ in range(runs + 1)]
    events[0].record()
    for index in range(runs):
        work()
        events[index + 1].record()
    events[-1].synchronize()
    return statistics.median(events[index].elapsed_time(events[index + 1]) for index in range(runs))


def torch_gemm_tflops(dtype, allow_tf32, size, warmups, runs):
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    a = torch.rand(size, size, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)
    b = torch.rand(size, size, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)
    out = torch.empty(size, size, device="cuda", dtype=dtype)
    milliseconds = timed(lambda: torch.mm(a, b, out=out), warmups, runs)
    return 2 * size**3 / (milliseconds * 1e-3) / 1e12


def torch_copy_gbps(bytes_, warmups, runs):
    src = torch.randint(0, 2**31 - 1, (bytes_ // 4,), device="cuda", dtype=torch.int32)
    dst = torch.empty_like(src)
    milliseconds = timed(lambda: dst.copy_(src), warmups, runs)
    assert torch.equal(src, dst), "PyTorch copy differs"
    return 2 * bytes_ / (milliseconds * 1e-3) / 1e9


def counts(report, check_id):
    """(warm-ups, runs) of a check, from its "method" evidence ("median of 5 runs after 2 warm-up(s)")."""
    for check in report["checks"]:
        if check["id"] == check_id and check["device"] == 0:
            for evidence in check["evidence"]:
                found = re.search(r"median of (\d+) runs after (\d+) warm-up", evidence["value"]) if evidence["key"] == "method" else None
                if found:
                    return int(found.group(2)), int(found.group(1))
    return 3, 20


def cudacheck_round(binary, level):
    """One run of cudacheck: its report and device 0's metrics by name."""
    run = subprocess.run([binary, "--level", level, "--only", "cublas.gemm,cuda.memory", "--format", "json"],
                         capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout)
    metrics = {}
    for check in report["checks"]:
        if check["device"] == 0:
            for metric in check["metrics"]:
                metrics[metric["name"]] = metric["value"]
            if check["status"] != "pass":
                print(f"warning: {check['id']} {check['status']}: {check['message']}", file=sys.stderr)
    return run.returncode, report, metrics


def pytorch_round(report, metrics, copy_gib):
    """PyTorch's figures for the rows cudacheck measured, with its sizes, warm-ups and runs:
    (name, unit, cudacheck's, PyTorch's)."""
    rows = []
    gemm_warmups, gemm_runs = counts(report, "cublas.gemm")
    for precision, dtype, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True), ("fp16", torch.float16, False),
                                   ("bf16", torch.bfloat16, False)):
        # cudacheck names each rate after its size (gemm_fp32_4096): PyTorch multiplies the same size.
        sized = [name for name in metrics if re.fullmatch(f"gemm_{precision}_[0-9]+", name)]
        size = int(sized[0].rsplit("_", 1)[1]) if sized else 8192
        rows.append((f"GEMM {precision.upper()} {size}^3", "TFLOP/s", metrics.get(sized[0]) if sized else None,
                     torch_gemm_tflops(dtype, tf32, size, gemm_warmups, gemm_runs)))
    copy_warmups, copy_runs = counts(report, "cuda.memory")
    rows.append((f"device copy {copy_gib} GiB (read+write)", "GB/s", metrics.get("device_to_device_bandwidth"),
                 torch_copy_gbps(copy_gib << 30, copy_warmups, copy_runs)))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--level", default="full", choices=["full", "standard"])
    parser.add_argument("--rounds", type=int, default=3, help="cudacheck then PyTorch, this many times; the table has the medians")
    parser.add_argument("--json")
    parser.add_argument("--sync-each-run", action="store_true", help="PyTorch waits for each timed run (the old method, see timed())")
    args = parser.parse_args()
    global SYNC_EACH_RUN
    SYNC_EACH_RUN = args.sync_each_run
    copy_gib = 4 if args.level == "full" else 1
    rounds, codes, reports = [], [], []
    for _ in range(args.rounds):
        # Each side starts on a GPU idle for 2 s: the power state one side leaves does not carry over
        # to the other, and NVML's utilization samples of this process's last products (it is
        # cudacheck's grandparent) end before cudacheck times anything.
        time.sleep(2)
        code, report, metrics = cudacheck_round(args.binary, args.level)
        codes.append(code)
        reports.append(report)
        time.sleep(2)
        rounds.append(pytorch_round(report, metrics, copy_gib))
    print(f"GPU: {torch.cuda.get_device_name(0)}; PyTorch {torch.__version__} (CUDA {torch.version.cuda}); "
          f"cudacheck --level {args.level}, exit codes {codes}; medians of {args.rounds} round(s), each cudacheck then PyTorch")
    print("| measurement | unit | cudacheck | PyTorch | ratio | ratio of each round |")
    print("|---|---|---|---|---|---|")
    table = []
    for index, (name, unit, _, _) in enumerate(rounds[0]):
        ours = [row[index][2] for row in rounds if row[index][2]]
        theirs = [row[index][3] for row in rounds]
        each = ", ".join(f"{row[index][2] / row[index][3]:.3f}" for row in rounds if row[index][2])
        if ours:
            ratio = statistics.median(ours) / statistics.median(theirs)
            print(f"| {name} | {unit} | {statistics.median(ours):.1f} | {statistics.median(theirs):.1f} | {ratio:.3f} | {each} |")
        else:
            print(f"| {name} | {unit} | n/a | {statistics.median(theirs):.1f} | n/a | |")
        table.append({"name": name, "unit": unit, "cudacheck": ours, "pytorch": theirs})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"rows": table, "cudacheck_reports": reports}, handle, indent=1)


if __name__ == "__main__":
    main()
