#!/usr/bin/env bash
# On the GPU machine (issue 18): cudacheck under the faults and limits it must name as what they
# are, with the real driver and the real H200: a CUDA library whose initialiser kills its loader
# first on LD_LIBRARY_PATH, `ulimit -v`, `ulimit -n`, the toolkit's stub NVML, and pinned memory
# under `ulimit -l 0` as a user without CAP_IPC_LOCK. Run after bench/compare_revisions.sh (which
# builds build-gpu with its tests, the crashing library among them). Everything it changes is
# under /tmp and removed at the end.
#
# Usage: OUT=dir bench/issue18_on_gpu.sh
set -u
new=$(realpath build-gpu/cudacheck)
out=${OUT:-gpu-out}/issue18
mkdir -p "$out"
export PATH=/opt/torch/.venv/bin:$PATH

run() {  # name, then the command (cudacheck's -o arguments are added)
    local name=$1; shift
    local start=$(date +%s%N)
    "$@" -o "$out/$name.json" -o "$out/$name.txt" > /dev/null 2> "$out/$name.stderr"
    local rc=$?
    echo "$name: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/runs.txt"
}

# 1. A cuBLAS whose initialiser raises SIGSEGV, first on LD_LIBRARY_PATH (tests/support/crashing_library.cpp).
crashing=$(realpath build-gpu/tests/crashing-cublas)
LD_LIBRARY_PATH=$crashing:${LD_LIBRARY_PATH:-} run crashing-cublas "$new"

# 2. An address-space limit CUDA cannot initialise under (the issue's `ulimit -v 4000000`).
(ulimit -v 4000000; run ulimit-v "$new")

# 3. Too few descriptors to start the check process, and a low but workable limit.
(ulimit -n 8; run ulimit-n-8 "$new" --only host.os,host.limits,env.variables)
(ulimit -n 64; run ulimit-n-64 "$new")

# 4. The toolkit's stub NVML as libnvidia-ml.so.1, first on LD_LIBRARY_PATH, as build containers
# link it.
mkdir -p /tmp/stub-nvml
ln -sf /usr/local/cuda/lib64/stubs/libnvidia-ml.so /tmp/stub-nvml/libnvidia-ml.so.1
LD_LIBRARY_PATH=/tmp/stub-nvml:${LD_LIBRARY_PATH:-} run stub-nvml "$new"
rm -rf /tmp/stub-nvml

# 5. Pinned memory under `ulimit -l 0` without CAP_IPC_LOCK (root bypasses the limit): is CUDA's
# page-locked memory charged to RLIMIT_MEMLOCK?
cp "$new" /tmp/cudacheck-nobody && chmod 755 /tmp/cudacheck-nobody
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
    sh -c 'ulimit -l 0; cd /tmp && exec /tmp/cudacheck-nobody --only host.limits,cuda.memory -v' > "$out/memlock-nobody.txt" 2>&1
echo "memlock-nobody: exit $?" | tee -a "$out/runs.txt"
rm -f /tmp/cudacheck-nobody
