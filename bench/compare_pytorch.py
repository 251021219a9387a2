#!/usr/bin/env python3
"""cudacheck's throughput figures next to PyTorch's, measured in one run on the same GPU.

Usage: bench/compare_pytorch.py CUDACHECK_BINARY [--json OUT.json]

Runs `cudacheck --level full --only cublas.gemm,cuda.memory --format json` and then the same work
through PyTorch with the same parameters: GEMM of 8192^3 in FP32, TF32, FP16 and BF16 (inputs
uniform in [-1, 1), 3 warm-ups, median of 20 runs timed with CUDA events) and a 4 GiB
device-to-device copy (bytes read + written, 1 warm-up, median of 20). Prints a Markdown table with
the ratio cudacheck / PyTorch; docs/performance.md records it.
"""
import argparse
import json
import statistics
import subprocess
import sys

import torch

SIZE = 8192
WARMUPS, RUNS = 3, 20


def timed(work, warmups, runs):
    for _ in range(warmups):
        work()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        work()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def torch_gemm_tflops(dtype, allow_tf32):
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    a = torch.rand(SIZE, SIZE, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)
    b = torch.rand(SIZE, SIZE, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(dtype)
    out = torch.empty(SIZE, SIZE, device="cuda", dtype=dtype)
    milliseconds = timed(lambda: torch.mm(a, b, out=out), WARMUPS, RUNS)
    return 2 * SIZE**3 / (milliseconds * 1e-3) / 1e12


def torch_copy_gbps(bytes_):
    src = torch.randint(0, 2**31 - 1, (bytes_ // 4,), device="cuda", dtype=torch.int32)
    dst = torch.empty_like(src)
    milliseconds = timed(lambda: dst.copy_(src), 1, RUNS)
    assert torch.equal(src, dst), "PyTorch copy differs"
    return 2 * bytes_ / (milliseconds * 1e-3) / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--json")
    args = parser.parse_args()
    run = subprocess.run([args.binary, "--level", "full", "--only", "cublas.gemm,cuda.memory", "--format", "json"],
                         capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout)
    metrics = {}
    for check in report["checks"]:
        if check["device"] == 0:
            for metric in check["metrics"]:
                metrics[metric["name"]] = metric["value"]
            if check["status"] != "pass":
                print(f"warning: {check['id']} {check['status']}: {check['message']}", file=sys.stderr)
    rows = [
        ("GEMM FP32 8192^3", "TFLOP/s", metrics.get("gemm_fp32_8192"), torch_gemm_tflops(torch.float32, False)),
        ("GEMM TF32 8192^3", "TFLOP/s", metrics.get("gemm_tf32_8192"), torch_gemm_tflops(torch.float32, True)),
        ("GEMM FP16 8192^3", "TFLOP/s", metrics.get("gemm_fp16_8192"), torch_gemm_tflops(torch.float16, False)),
        ("GEMM BF16 8192^3", "TFLOP/s", metrics.get("gemm_bf16_8192"), torch_gemm_tflops(torch.bfloat16, False)),
        ("device copy 4 GiB (read+write)", "GB/s", metrics.get("device_to_device_bandwidth"), torch_copy_gbps(4 << 30)),
    ]
    print(f"GPU: {torch.cuda.get_device_name(0)}; PyTorch {torch.__version__} (CUDA {torch.version.cuda}); cudacheck exit {run.returncode}")
    print("| measurement | unit | cudacheck | PyTorch | ratio |")
    print("|---|---|---|---|---|")
    for name, unit, ours, theirs in rows:
        ratio = f"{ours / theirs:.3f}" if ours else "n/a"
        print(f"| {name} | {unit} | {ours:.1f} | {theirs:.1f} | {ratio} |" if ours else f"| {name} | {unit} | n/a | {theirs:.1f} | n/a |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"rows": rows, "cudacheck_report": report}, handle, indent=1)


if __name__ == "__main__":
    main()
