#!/usr/bin/env python3
"""PyTorch's TF32 rate at 4096^3 through each of its BLAS back-ends (cuBLAS, cuBLASLt), with
cudacheck's default counts (2 warm-ups, median of 5) and bench/compare_pytorch.py's old ones (3,
20): why compare_pytorch's TF32 ratio stays above 1.03 (issue 21, docs/performance.md).

Usage: python3 bench/pytorch_tf32_backends.py   (on the GPU machine, in /opt/torch/.venv)
"""
import statistics
import torch

def rate(warmups, runs):
    a = torch.rand(4096, 4096, device="cuda").mul_(2).sub_(1)
    b = torch.rand(4096, 4096, device="cuda").mul_(2).sub_(1)
    out = torch.empty_like(a)
    for _ in range(warmups):
        torch.mm(a, b, out=out)
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.mm(a, b, out=out); e.record(); e.synchronize()
        times.append(s.elapsed_time(e))
    return 2 * 4096**3 / (statistics.median(times) * 1e-3) / 1e12

torch.backends.cuda.matmul.allow_tf32 = True
for backend in ("cublas", "cublaslt", "cublas"):
    torch.backends.cuda.preferred_blas_library(backend)
    print(backend, "2+5:", round(rate(2, 5), 1), "3+20:", round(rate(3, 20), 1), flush=True)
