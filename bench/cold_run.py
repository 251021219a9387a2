#!/usr/bin/env python3
"""A first run of cudacheck on a cold page cache against a warm one (issue 40; docs/performance.md,
"Cold first run (frameworks' GPU code)"). For each binary given (an old and a new build, or one),
rounds alternate: every binary cold, then every binary warm, in both cache modes:
  off    CUDACHECK_CACHE_DIR=off: every run reads the GPU code
  cache  a cache directory of its own per binary: a cold run starts with it empty (the first run
         after an install), a warm run finds it filled by the run before
A cold run first evicts the files from the page cache with posix_fadvise(POSIX_FADV_DONTNEED) (no
root needed: the clean pages of files this user can open) and checks with mincore that none is
left. The files evicted: the frameworks' GPU code (torch/lib/libtorch_cuda.so, every
jax_plugins/xla_cuda*/xla_cuda_plugin.so and jaxlib's libraries under the venvs given), or with
--all every shared library under the venvs (the NVIDIA wheels' too: the first run after an
install). Each run starts after the same idle time (--gap) once the previous run's check process
is gone. Prints the median wall time per binary, mode and temperature, the cold/warm ratio, and
what a cold run read of the evicted files: their pages in the page cache after it (mincore), in MB.

Usage: bench/cold_run.py [--rounds N] [--gap S] [--all] [--json FILE] --python VENV [--python VENV...]
                         BINARY [BINARY...] [-- ARGS...]
ARGS are cudacheck's (without `--`: --only frameworks.builds, with --python VENV for each venv; a bare
`--`: none, the default run, which judges the python3 first on PATH).
"""
import argparse
import glob
import json
import mmap
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import wait_for_workers  # noqa: E402


def gpu_code_files(venvs, every_library):
    files = []
    for venv in venvs:
        for site in glob.glob(os.path.join(venv, "lib", "python3*", "site-packages")):
            if every_library:
                patterns = ["**/*.so", "**/*.so.*"]
            else:
                patterns = ["torch/lib/libtorch_cuda.so", "jax_plugins/xla_cuda*/xla_cuda_plugin.so",
                            "jaxlib/*.so", "flash_attn_2_cuda*.so"]
            for pattern in patterns:
                files += [path for path in glob.glob(os.path.join(site, pattern), recursive=True)
                          if os.path.isfile(path) and not os.path.islink(path)]
    return sorted(set(files))


def resident_pages(path):
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size == 0:
            return 0
        # mincore through ctypes: the mapping touches no page.
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, file.fileno(), 0)
        pages = (size + 4095) // 4096
        vector = (ctypes.c_ubyte * pages)()
        libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector)
        libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(size))
        return sum(byte & 1 for byte in vector)


def evict(files):
    left = 0
    for path in files:
        descriptor = os.open(path, os.O_RDONLY)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(descriptor)
        left += resident_pages(path)
    return left


def run(binary, arguments, environment, files):
    wait_for_workers(binary)
    start = time.perf_counter()
    completed = subprocess.run([binary] + arguments, env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    elapsed = (time.perf_counter() - start) * 1000.0
    wait_for_workers(binary)
    read = sum(resident_pages(path) for path in files) * 4096
    return elapsed, read, completed.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds of idle time before every run")
    parser.add_argument("--python", action="append", required=True, help="a venv whose frameworks are judged")
    parser.add_argument("--all", action="store_true", help="evict every shared library under the venvs")
    parser.add_argument("--cache-root", default=None, help="where the per-binary cache directories go")
    parser.add_argument("--json", help="write every sample to this file")
    parser.add_argument("binaries", nargs="+")
    own = sys.argv[1:]
    arguments = None
    if "--" in own:
        arguments = own[own.index("--") + 1:]
        own = own[:own.index("--")]
    args = parser.parse_args(own)
    if arguments is None:
        arguments = ["--only", "frameworks.builds"]
        for venv in args.python:
            arguments += ["--python", venv]
    files = gpu_code_files(args.python, args.all)
    if not files:
        sys.exit("no framework GPU code found under " + ", ".join(args.python))
    total = sum(os.path.getsize(path) for path in files)
    print(f"evicting {len(files)} files, {total / 1e6:.0f} MB, before each cold run:")
    for path in files[:12]:
        print(f"  {path} ({os.path.getsize(path) / 1e6:.0f} MB)")
    if len(files) > 12:
        print(f"  ... and {len(files) - 12} more")
    cache_root = args.cache_root or os.path.join("/tmp", f"cold-run-cache-{os.getpid()}")
    samples = {}
    codes = set()
    for round_number in range(args.rounds):
        for mode in ("off", "cache"):
            for temperature in ("cold", "warm"):
                for index, binary in enumerate(args.binaries):
                    environment = dict(os.environ)
                    cache = os.path.join(cache_root, str(index))
                    environment["CUDACHECK_CACHE_DIR"] = "off" if mode == "off" else cache
                    if temperature == "cold":
                        if mode == "cache":
                            subprocess.run(["rm", "-rf", cache])
                        left = evict(files)
                        if left:
                            print(f"warning: {left} pages still resident after eviction", file=sys.stderr)
                    time.sleep(args.gap)
                    elapsed, read, code = run(binary, arguments, environment, files)
                    codes.add(code)
                    samples.setdefault((index, mode, temperature), []).append((elapsed, read))
    print(f"\n{args.rounds} rounds, {args.gap} s idle before each run; exit codes {sorted(codes)}; "
          f"arguments: {' '.join(arguments)}")
    print("| binary | cache | cold ms | warm ms | cold/warm | range ms | evicted files read by a cold run, MB |")
    print("|---|---|---|---|---|---|---|")
    for index, binary in enumerate(args.binaries):
        for mode in ("off", "cache"):
            cold = samples[(index, mode, "cold")]
            warm = samples[(index, mode, "warm")]
            cold_ms = statistics.median(s[0] for s in cold)
            warm_ms = statistics.median(s[0] for s in warm)
            spread = f"cold {min(s[0] for s in cold):.0f}-{max(s[0] for s in cold):.0f}, warm {min(s[0] for s in warm):.0f}-{max(s[0] for s in warm):.0f}"
            print(f"| {binary} | {mode} | {cold_ms:.0f} | {warm_ms:.0f} | {cold_ms / warm_ms:.2f} | {spread} | "
                  f"{statistics.median(s[1] for s in cold) / 1e6:.1f} |")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"binaries": args.binaries, "arguments": arguments, "files": files, "rounds": args.rounds,
                       "gap_s": args.gap,
                       "samples": {f"{args.binaries[i]}|{m}|{t}": v for (i, m, t), v in samples.items()}}, out,
                      indent=1)
    subprocess.run(["rm", "-rf", cache_root])


if __name__ == "__main__":
    main()
