#!/usr/bin/env bash
# deploy/slurm/cudacheck-healthcheck.sh under a real Slurm (Debian's slurmctld and slurmd, with
# munge; CI's set-up, tools/deps/ci.sh, installs them with no service started or left enabled): a
# one-node cluster on this machine, started by this script in a scratch directory, runs the script
# as its HealthCheckProgram every 2 seconds.
#  1. This machine has no NVIDIA driver: cudacheck --level quick fails with CC201, whose fix is
#     configuration (load the driver): the node is not drained, and the log says why.
#  2. DRAIN_ON_CONFIG=yes: Slurm shows the node drained with the reason "cudacheck: CC201
#     driver.kernel_module: ...".
#  3. Settings that pass (CUDACHECK_ARGS="--only host.os,host.limits"): the node is resumed.
#  4. An administrator's own drain is not lifted by a passing run.
#  5. A hardware remedy: the fake NVML (FAKE_NVML_REMAPPED: a row remap pending on GPU 0) makes
#     device.health ask for a GPU reset, action class reset: drained with that step and the GPU.
#  5b. An application's own fault (Xid 31 in a kernel-log fixture, CUDACHECK_KERNEL_LOG): class
#     app, the node stays up.
#  6. As the prolog (SLURM_JOB_ID set), the same hardware failure drains the node and exits 1; the
#     configuration failure of 1 exits 0 and leaves the node up.
# Exit 77 (skipped) where Slurm or munge is not installed, or not as root (the daemons run as
# root here).
#
# Usage: check_slurm_healthcheck.sh CUDACHECK_BINARY SOURCE_DIR FAKE_DRIVER_DIR
set -u
binary=$(realpath "$1")
source_dir=$(realpath "$2")
fake_driver_dir=$(realpath "$3")
for program in slurmctld slurmd munged scontrol; do
    command -v "$program" >/dev/null || [ -x "/usr/sbin/$program" ] || { echo "SKIPPED: $program is not installed (tools/deps/ci.sh installs it)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: the Slurm daemons run as root here"; exit 77; }
PATH=$PATH:/usr/sbin

dir=$(mktemp -d /tmp/cudacheck-slurm.XXXXXX)
chmod 755 "$dir"
cleanup() {
    for pid_file in "$dir"/run/slurmd.pid "$dir"/run/slurmctld.pid "$dir"/run/munged.pid; do
        [ -s "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null
    done
    sleep 0.5
    rm -rf "$dir"
}
trap cleanup EXIT
fail() {
    echo "FAILED: $*"
    echo "--- scontrol show node"; scontrol show node "$node" 2>&1
    echo "--- slurmd.log"; tail -n 20 "$dir/log/slurmd.log" 2>&1
    echo "--- slurmctld.log"; tail -n 20 "$dir/log/slurmctld.log" 2>&1
    exit 1
}
mkdir -p "$dir"/{run,state,spool,log,reports}
node=$(hostname -s)
# Ports of our own, away from a real Slurm's 6817/6818.
port=$((20000 + RANDOM % 20000))
cp "$source_dir/deploy/slurm/cudacheck-healthcheck.sh" "$dir/cudacheck-healthcheck"
settings="$dir/cudacheck-healthcheck.conf"
export SLURM_CONF="$dir/slurm.conf"
# write_settings CUDACHECK_ARGS [MORE_LINES]
write_settings() {
    cat > "$settings" <<EOF
CUDACHECK=$binary
REPORT_DIR=$dir/reports
SLURM_CONF=$SLURM_CONF
CUDACHECK_ARGS="$1"
${2:-}
EOF
}
write_settings ""
cat > "$SLURM_CONF" <<EOF
ClusterName=cudacheck-test
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
ReturnToService=2
HealthCheckProgram=$dir/cudacheck-healthcheck
HealthCheckInterval=2
NodeName=$node CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES State=UP
EOF
head -c 1024 /dev/urandom > "$dir/run/munge.key"
chmod 600 "$dir/run/munge.key"
munged --force --socket="$dir/run/munge.socket" --key-file="$dir/run/munge.key" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/run/munge.seed" || fail "munged did not start"
slurmctld || fail "slurmctld did not start"
slurmd || fail "slurmd did not start"

# Waits up to 60 s for `scontrol show node` to match a pattern (extended grep).
wait_for_node() {
    for _ in $(seq 1 120); do
        scontrol show node "$node" 2>/dev/null | grep -qE "$1" && return 0
        sleep 0.5
    done
    fail "after 60 s the node does not show /$1/"
}
echo "Slurm $(scontrol --version | awk '{print $2}'), node $node, ports $port-$((port + 1))"

# 1. No driver here: a configuration fix, so not drained; the script's log (stderr, which slurmd
# keeps in its log) says so.
for _ in $(seq 1 60); do
    [ -s "$dir/reports/last.txt" ] && break
    sleep 0.5
done
[ -s "$dir/reports/last.txt" ] || fail "no report was kept in $dir/reports"
grep -q '\[CC201\]' "$dir/reports/last.txt" || fail "the report has no CC201 finding"
sleep 5
scontrol show node "$node" | grep -qE 'State=[A-Z+]*DRAIN' && fail "a configuration finding (CC201) drained the node"
echo "1. a configuration finding leaves the node up: $(scontrol show node "$node" | grep -o 'State=[^ ]*')"

# 2. DRAIN_ON_CONFIG=yes: drained, with the code, the check and its message.
write_settings "" "DRAIN_ON_CONFIG=yes"
wait_for_node 'State=[A-Z+]*DRAIN'
reason=$(scontrol show node "$node" | sed -n 's/^ *Reason=//p')
echo "2. DRAIN_ON_CONFIG=yes drains: $reason"
case $reason in
    "cudacheck: CC201 driver.kernel_module: the NVIDIA kernel module is not loaded"*) ;;
    *) fail "the drain reason is not cudacheck's CC201 finding: $reason" ;;
esac
[ -s "$dir/reports/last.json" ] && [ -s "$dir/reports/last.txt" ] || fail "no report was kept in $dir/reports"
# "(+N more in .../last.txt)" exactly when more than one check failed (a missing
# driver is one finding, its dependents skipped; the report kept beside the reason says how many).
failing=$(python3 -c 'import json, sys; print(sum(c["status"] in ("fail", "error", "timeout") for c in json.load(open(sys.argv[1]))["checks"]))' \
    "$dir/reports/last.json") || fail "cannot read $dir/reports/last.json"
case $reason in
    *"(+$((failing - 1)) more in $dir/reports/last.txt)"*) [ "$failing" -gt 1 ] || fail "the reason speaks of more failures, the report has $failing: $reason" ;;
    *"more in "*) fail "the reason's count of further failures is not the report's ($failing failing): $reason" ;;
    *) [ "$failing" -le 1 ] || fail "the reason does not say that $((failing - 1)) more checks failed: $reason" ;;
esac

# 3. Settings under which cudacheck passes: the script's own drain is lifted.
write_settings "--only host.os,host.limits"
wait_for_node '^ *State=IDLE '
echo "3. resumed: $(scontrol show node "$node" | grep -o 'State=[^ ]*')"

# 4. An administrator's drain stays, through passing runs.
scontrol update NodeName="$node" State=DRAIN Reason="disk replacement"
sleep 6
scontrol show node "$node" | grep -qE 'State=[A-Z+]*DRAIN' || fail "a passing run lifted an administrator's drain"
scontrol show node "$node" | grep -q 'Reason=disk replacement' || fail "the administrator's reason was replaced"
echo "4. an administrator's drain stays: $(scontrol show node "$node" | sed -n 's/^ *Reason=//p')"
scontrol update NodeName="$node" State=RESUME

# 5. A GPU that needs a reset (the fake NVML: a row remap pending): drained for the hardware, with
# the step, the GPU and the code, although no configuration drain is asked for.
hardware="export LD_LIBRARY_PATH=$fake_driver_dir FAKE_NVML_REMAPPED=0,2,1,0"
write_settings "--only device.health" "$hardware"
wait_for_node 'Reason=cudacheck: reset: '
reason=$(scontrol show node "$node" | sed -n 's/^ *Reason=//p')
echo "5. a GPU reset drains: $reason"
case $reason in
    *"GPU 0 (GPU-00000000-0000-0000-0000-000000000000): drain GPU 0's work and reset it"*CC421*) ;;
    *) fail "the drain reason does not name GPU 0's reset and CC421: $reason" ;;
esac
grep -q '^Remedy: .*\[action class reset\]$' "$dir/reports/last.txt" || fail "the report has no Remedy line of class reset"

# 5b. An application's own fault (Xid 31 of a process that wrote through a wild pointer, as the
# H200's kernel log recorded it): CC231, action class app, nothing for the node: not drained.
scontrol update NodeName="$node" State=RESUME
printf '[  100.000000] NVRM: Xid (PCI:0000:00:06): 31, pid=4889, name=oob, channel 0x0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x83a4_5de00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE\n' > "$dir/kmsg.txt"
write_settings "--only driver.kernel_log" "export CUDACHECK_KERNEL_LOG=$dir/kmsg.txt"
rm -f "$dir/reports/last.txt"
for _ in $(seq 1 60); do
    grep -q '\[CC231\]' "$dir/reports/last.txt" 2>/dev/null && break
    sleep 0.5
done
grep -q '\[CC231\]' "$dir/reports/last.txt" || fail "the report has no CC231 finding for the application's Xid 31"
grep -q '^Remedy: .*\[action class app\]$' "$dir/reports/last.txt" || fail "the report's remedy is not of class app"
sleep 5
scontrol show node "$node" | grep -qE 'State=[A-Z+]*DRAIN' && fail "an application's fault (CC231) drained the node"
echo "5b. an application's fault leaves the node up: $(scontrol show node "$node" | grep -o 'State=[^ ]*')"

# 6. The prolog: the hardware failure drains the node and exits 1 (Slurm then requeues the job);
# the configuration failure of 1 exits 0 and leaves the node up.
# The health checks would act too: stop slurmd's, and run the script as slurmd runs a prolog.
kill "$(cat "$dir/run/slurmd.pid")"
sleep 0.5
scontrol update NodeName="$node" State=RESUME 2>/dev/null
write_settings ""
env -i SLURMD_NODENAME="$node" SLURM_JOB_ID=41 SLURM_JOB_GPUS=0 "$dir/cudacheck-healthcheck"
code=$?
[ "$code" = 0 ] || fail "as the prolog, a configuration failure exited $code, not 0"
scontrol show node "$node" | grep -qE 'State=[A-Z+]*DRAIN' && fail "as the prolog, a configuration failure drained the node"
write_settings "--only device.health" "$hardware"
env -i SLURMD_NODENAME="$node" SLURM_JOB_ID=42 SLURM_JOB_GPUS=0 "$dir/cudacheck-healthcheck"
code=$?
[ "$code" = 1 ] || fail "as the prolog, a hardware failure exited $code, not 1"
wait_for_node 'Reason=cudacheck: reset: '
echo "6. the prolog exits 0 for configuration, 1 and drains for hardware: $(scontrol show node "$node" | grep -o 'State=[^ ]*')"
echo "PASSED"
