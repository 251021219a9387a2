#!/usr/bin/env bash
# On the GPU machine (issue 19): will a build work, predicted by toolkit.build and confirmed by the
# real builds of toolkit.compile (nvcc end to end, and PyTorch's own load_inline), under the
# scenarios the issue names: nvcc off PATH with /usr/local/cuda hidden, CUDA_HOME naming a missing
# toolkit, CC naming a compiler nvcc rejects, no ninja on PATH, TORCH_CUDA_ARCH_LIST=8.0 on the
# H200; and the developer tools. Run after building build-gpu. What it moves (/usr/local/cuda, a
# symlink there) is put back before it ends; its scratch files are under /tmp and removed.
#
# Usage: OUT=dir bench/issue19_on_gpu.sh
set -u
new=$(realpath build-gpu/cudacheck)
out=${OUT:-gpu-out}/issue19
mkdir -p "$out"
venv=/opt/torch/.venv
base_path=$venv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
checks=toolkit.nvcc,toolkit.build,toolkit.compile,toolkit.tools

run() {  # name, then the command (cudacheck's -o arguments are added)
    local name=$1; shift
    local start=$(date +%s%N)
    "$@" -o "$out/$name.json" -o "$out/$name.txt" > /dev/null 2> "$out/$name.stderr"
    local rc=$?
    echo "$name: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/runs.txt"
}

{ ls -la /usr/local/ | grep -i cuda; which -a gcc g++ clang ninja nsys ncu; gcc --version | head -1; ninja --version; } > "$out/machine.txt" 2>&1

# 0. As the machine is: everything should build, run and agree.
PATH=$base_path run as-is env -u CUDA_HOME -u CUDA_PATH "$new" --level full --only $checks -v

# 1. nvcc off PATH and /usr/local/cuda hidden (the link moved away for the run, then put back).
hidden=""
if [ -L /usr/local/cuda ] || [ -d /usr/local/cuda ]; then mv /usr/local/cuda /usr/local/cuda.hidden-by-cudacheck && hidden=1; fi
PATH=$venv/bin:/usr/sbin:/usr/bin:/sbin:/bin run no-nvcc-no-usr-local-cuda env -u CUDA_HOME -u CUDA_PATH "$new" --level full --only $checks -v
[ -n "$hidden" ] && mv /usr/local/cuda.hidden-by-cudacheck /usr/local/cuda
ls -la /usr/local/cuda >> "$out/machine.txt" 2>&1

# 2. CUDA_HOME naming a toolkit that is not there.
PATH=$base_path CUDA_HOME=/opt/cuda-12.2 run cuda-home-missing "$new" --level full --only $checks -v

# 3. CC naming a compiler nvcc rejects: gcc that reports 16 and makes its macros say so.
mkdir -p /tmp/gcc16
for name in gcc g++; do
    printf '#!/bin/sh\nif [ "$1" = --version ]; then echo "%s (GCC) 16.1.0"; echo "Copyright (C) 2026 Free Software Foundation, Inc."; exit 0; fi\nexec /usr/bin/%s -U__GNUC__ -D__GNUC__=16 "$@"\n' "$name" "$name" > /tmp/gcc16/$name
    chmod 755 /tmp/gcc16/$name
done
PATH=$base_path CC=/tmp/gcc16/gcc run cc-rejected env -u CUDA_HOME "$new" --level full --only $checks -v

# 4. No ninja on PATH: the system's directories without it, the environment's bin left out (its
# python is run by its full path, as a job script often does).
mkdir -p /tmp/path-without-ninja
for f in /usr/bin/* /usr/local/bin/*; do [ "$(basename "$f")" = ninja ] || ln -sf "$f" /tmp/path-without-ninja/ 2>/dev/null; done
PATH=/usr/local/cuda/bin:/tmp/path-without-ninja run no-ninja env -u CUDA_HOME "$new" --level full --only $checks -v --python $venv

# 5. TORCH_CUDA_ARCH_LIST without the H200's architecture.
PATH=$base_path TORCH_CUDA_ARCH_LIST=8.0 run arch-list-8.0 env -u CUDA_HOME "$new" --level full --only $checks -v

# 6. The standard run with and without toolkit.build (interleaved, 9 rounds each): what it adds.
for round in 1 2 3 4 5 6 7 8 9; do
    for variant in with without; do
        skip=""; [ $variant = without ] && skip="--skip toolkit.build"
        start=$(date +%s%N)
        PATH=$base_path "$new" -q $skip > /dev/null 2>&1
        echo "$variant $(( ($(date +%s%N) - start) / 1000000 ))" >> "$out/standard-timing.txt"
    done
done
PATH=$base_path "$new" --only toolkit.build --format json > "$out/build-only.json" 2>/dev/null

# 7. `cudacheck env`: what it prints here per profile, and a broken shell (CUDA_HOME naming nothing,
# no toolkit on PATH) that `eval "$(cudacheck env --profile dev)"` leaves with toolkit.build passing.
for profile in dev prod ci; do
    PATH=$base_path "$new" env --profile $profile --shell bash > "$out/env-$profile.sh" 2> "$out/env-$profile.stderr"
    echo "env --profile $profile: exit $?" | tee -a "$out/runs.txt"
done
PATH=$venv/bin:/usr/sbin:/usr/bin:/sbin:/bin CUDA_HOME=/nonexistent NEW="$new" OUTDIR="$out" bash -c '
    "$NEW" --only toolkit.build -o "$OUTDIR/env-before.json" -o "$OUTDIR/env-before.txt" -v > /dev/null 2>&1
    echo "toolkit.build before eval: exit $?"
    eval "$("$NEW" env --profile dev)"
    "$NEW" --only toolkit.build,env.variables --profile dev -o "$OUTDIR/env-after.json" -o "$OUTDIR/env-after.txt" -v > /dev/null 2>&1
    echo "toolkit.build after eval: exit $?"' | tee -a "$out/runs.txt"

# 8. `--only toolkit.compile` without --level runs it.
PATH=$base_path run only-compile "$new" --only toolkit.compile

rm -rf /tmp/gcc16 /tmp/path-without-ninja
