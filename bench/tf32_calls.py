#!/usr/bin/env python3
"""TF32 at 4096^3 through each way of asking cuBLAS for it, in one process, with the cuBLAS PyTorch
loaded (issue 21: cudacheck's TF32 figure stays ~6% above torch.mm's in bench/compare_pytorch.py,
with the same cuBLAS). Is the gap the call, or something around it?

  gemm_ex_fast_tf32   cublasGemmEx(CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32): cudacheck's call
  sgemm_tf32_math     cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH) + cublasSgemm: PyTorch's
                      cuBLAS back-end (aten/src/ATen/cuda/CUDABlas.cpp sets that math mode on its
                      handle when torch.backends.cuda.matmul.allow_tf32 is True)
  gemm_ex_32f_tf32_math  cublasGemmEx(CUBLAS_COMPUTE_32F) under the TF32 math mode
  torch_mm            torch.mm with allow_tf32 (PyTorch's default back-end)

Inputs uniform in [-1, 1), as cudacheck's; each variant times cudacheck's default counts (2 warm-ups,
median of 5) and its full level's (3, 20) with CUDA events on the same stream, the runs queued back
to back as cudacheck queues them, and again waiting for each run before the next (the method of
bench/compare_pytorch.py before issue 21); --rounds rounds go over the variants in turn. Prints
one line per variant: TFLOP/s of each round.

Found on the H200 (docs/examples/h200/issue21/second-pass/call-2/tf32-calls.md): queued, the four
calls give 354-368 TFLOP/s in rounds 2 and 3 (round 1: 397-402 for the cuBLAS calls, 368 for
torch.mm); waiting for each run, 304-375. The gap of compare_pytorch's TF32 row was its timing,
which left the GPU idle while Python launched each run, not the call.

Usage: /opt/torch/.venv/bin/python3 bench/tf32_calls.py [--rounds 3]
"""
import argparse
import ctypes
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_pytorch import timed as median_milliseconds  # noqa: E402

SIZE = 4096
CUDA_R_32F = 0
CUBLAS_COMPUTE_32F = 68
CUBLAS_COMPUTE_32F_FAST_TF32 = 77
CUBLAS_DEFAULT_MATH = 0
CUBLAS_TF32_TENSOR_OP_MATH = 3
CUBLAS_OP_N = 0
CUBLAS_GEMM_DEFAULT = -1


def loaded_cublas():
    """The libcublas.so PyTorch loaded (after a matmul), opened again: the same library."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libcublas.so" in path:
                return ctypes.CDLL(path), path
    raise SystemExit("PyTorch did not load libcublas")


def timed(work, warmups, runs, sync_each_run=False):
    """TFLOP/s of the median run, timed by bench/compare_pytorch.py's timed(): queued back to back
    with an event between each two, as cudacheck times; or, with sync_each_run, waiting for each
    run before launching the next (what compare_pytorch.py did before issue 21)."""
    return 2 * SIZE**3 / (median_milliseconds(work, warmups, runs, sync_each_run) * 1e-3) / 1e12


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    a = torch.rand(SIZE, SIZE, device="cuda").mul_(2).sub_(1)
    b = torch.rand(SIZE, SIZE, device="cuda").mul_(2).sub_(1)
    out = torch.empty_like(a)
    torch.mm(a, b, out=out)
    torch.cuda.synchronize()
    cublas, path = loaded_cublas()
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    assert cublas.cublasSetStream_v2(handle, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)) == 0
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    pointers = [ctypes.c_void_p(t.data_ptr()) for t in (a, b, out)]

    def gemm_ex(compute, math):
        def work():
            assert cublas.cublasSetMathMode(handle, math) == 0
            status = cublas.cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, SIZE, SIZE, SIZE, ctypes.byref(alpha), pointers[1], CUDA_R_32F, SIZE,
                                         pointers[0], CUDA_R_32F, SIZE, ctypes.byref(beta), pointers[2], CUDA_R_32F, SIZE, compute,
                                         CUBLAS_GEMM_DEFAULT)
            assert status == 0, status
        return work

    def sgemm_tf32_math():
        assert cublas.cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH) == 0
        status = cublas.cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, SIZE, SIZE, SIZE, ctypes.byref(alpha), pointers[1], SIZE, pointers[0],
                                       SIZE, ctypes.byref(beta), pointers[2], SIZE)
        assert status == 0, status

    variants = {
        "gemm_ex_fast_tf32": gemm_ex(CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH),
        "sgemm_tf32_math": sgemm_tf32_math,
        "gemm_ex_32f_tf32_math": gemm_ex(CUBLAS_COMPUTE_32F, CUBLAS_TF32_TENSOR_OP_MATH),
        "torch_mm": lambda: torch.mm(a, b, out=out),
    }
    columns = ("2+5 queued", "3+20 queued", "2+5 each run waited for", "3+20 each run waited for")
    rates = {name: {column: [] for column in columns} for name in variants}
    for _ in range(args.rounds):
        for name, work in variants.items():
            for column in columns:
                warmups, runs = (2, 5) if column.startswith("2+5") else (3, 20)
                rates[name][column].append(timed(work, warmups, runs, sync_each_run="waited" in column))
    print(f"cuBLAS: {path}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print("| call | " + " | ".join(f"{column}: TFLOP/s of each round" for column in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, by_column in rates.items():
        print(f"| {name} | " + " | ".join(", ".join(f"{rate:.0f}" for rate in by_column[column]) for column in columns) + " |")


if __name__ == "__main__":
    main()
