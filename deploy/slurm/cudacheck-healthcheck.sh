#!/bin/bash
# cudacheck as a Slurm node health check (docs/cluster.md): when cudacheck finds that this node
# cannot run CUDA work, the node is drained with the failing check's code, id and message as the
# reason ("cudacheck: CC210 driver.libcuda: libcuda.so.1 cannot be loaded ..."); when a later run
# passes and the drain was this script's own, the node is resumed. A drain an administrator set
# (any other reason) is never lifted.
#
# As slurmd's HealthCheckProgram (slurm.conf; slurmd runs it as root at start-up and every
# HealthCheckInterval seconds, also while jobs run, so the quick level: no CUDA context, no GPU
# work; the driver, NVML, the GPUs' health, library resolution):
#     HealthCheckProgram=/usr/local/sbin/cudacheck-healthcheck
#     HealthCheckInterval=300
# As the Prolog (slurmd runs it before a job's first step on each of its nodes; SLURM_JOB_ID is
# set): the standard level, with its GPU work, on the job's GPUs only (SLURM_JOB_GPUS); on a
# failure the node is drained with this reason and the script exits 1, so that Slurm requeues the
# job (https://slurm.schedmd.com/prolog_epilog.html).
#     Prolog=/usr/local/sbin/cudacheck-healthcheck
#
# Slurm starts both with no PATH and almost no environment. Settings come from a file beside the
# script (its path + ".conf") or else /etc/default/cudacheck-healthcheck, shell assignments:
#     CUDACHECK=/usr/local/bin/cudacheck   the binary (default: the first on the PATH set below)
#     CUDACHECK_ARGS="--expect /etc/cudacheck/policy.json"   more arguments for each run
#     HEALTHCHECK_LEVEL=quick              level of the periodic check
#     PROLOG_LEVEL=standard                level in the prolog
#     RUN_TIMEOUT=120                      cudacheck's --run-timeout, seconds
#     REPORT_DIR=/var/lib/cudacheck        where the last report is kept (last.json, last.txt)
#     SLURM_CONF=/etc/slurm/slurm.conf     exported for scontrol, when not the default
#     DRAIN_ON_TOOL_ERROR=no               yes: also drain when cudacheck itself cannot run
#                                          (exit 2, 3, killed); by default that is logged only, so
#                                          that a broken tool does not drain a whole cluster
# Exit status: 0, except in the prolog after a failure (1).
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

HEALTHCHECK_LEVEL=quick
PROLOG_LEVEL=standard
RUN_TIMEOUT=120
REPORT_DIR=/var/lib/cudacheck
DRAIN_ON_TOOL_ERROR=no
CUDACHECK=
CUDACHECK_ARGS=
for settings in "$0.conf" /etc/default/cudacheck-healthcheck; do
    if [ -r "$settings" ]; then
        # shellcheck source=/dev/null
        . "$settings"
        break
    fi
done
[ -n "${SLURM_CONF:-}" ] && export SLURM_CONF
CUDACHECK=${CUDACHECK:-$(command -v cudacheck)}
node=${SLURMD_NODENAME:-$(hostname -s)}
log() { logger -t cudacheck-healthcheck -- "$node: $*" 2>/dev/null; echo "cudacheck-healthcheck: $node: $*" >&2; }

if [ -n "${SLURM_JOB_ID:-}" ]; then
    mode=prolog
    level=$PROLOG_LEVEL
    # The job's GPUs alone: Slurm's GPU indices are the device files' numbers, which follow the PCI
    # bus order that CUDA_DEVICE_ORDER=PCI_BUS_ID gives CUDA's ordinals.
    if [ -n "${SLURM_JOB_GPUS:-}" ]; then
        export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$SLURM_JOB_GPUS
    fi
else
    mode=healthcheck
    level=$HEALTHCHECK_LEVEL
fi
if [ -z "$CUDACHECK" ] || [ ! -x "$CUDACHECK" ]; then
    log "cudacheck not found (set CUDACHECK in $0.conf or /etc/default/cudacheck-healthcheck); nothing checked"
    exit 0
fi
mkdir -p "$REPORT_DIR" || { log "cannot create $REPORT_DIR; nothing checked"; exit 0; }

# One run at a time: a health check still running when the next interval comes is not doubled.
exec 9> "$REPORT_DIR/.lock"
if ! flock -n 9; then
    log "a previous run still holds $REPORT_DIR/.lock; skipped"
    exit 0
fi

# Both files are written atomically by cudacheck (one run, two formats).
# shellcheck disable=SC2086 # CUDACHECK_ARGS is split into its words on purpose
"$CUDACHECK" --level "$level" --run-timeout "$RUN_TIMEOUT" $CUDACHECK_ARGS -q -o "$REPORT_DIR/last.json" -o "$REPORT_DIR/last.txt" > /dev/null 2> "$REPORT_DIR/last.err"
code=$?

# "State=IDLE+DRAIN ... Reason=cudacheck: ... [root@2026-...]": whether this script drained it.
drained_by_us() {
    scontrol show node "$node" 2>/dev/null | grep -q 'State=[A-Z+]*DRAIN.*' &&
        scontrol show node "$node" 2>/dev/null | grep -q '^ *Reason=cudacheck: '
}
drain() {
    scontrol update NodeName="$node" State=DRAIN Reason="$1" || log "scontrol could not drain the node (reason: $1)"
}

case $code in
    0)
        if drained_by_us; then
            scontrol update NodeName="$node" State=RESUME && log "cudacheck passes again ($level): resumed"
        fi
        exit 0
        ;;
    1)
        # The first line whose status is FAIL, ERROR or TIMEOUT ("FAIL    driver.libcuda    libcuda.so.1
        # cannot be loaded: ...") and the code at the end of its fix line ("... [CC210]").
        reason=$(awk '
            found && match($0, /\[CC[0-9]+\]/) { code = substr($0, RSTART + 1, RLENGTH - 2); exit }
            !found && ($1 == "FAIL" || $1 == "ERROR" || $1 == "TIMEOUT") {
                found = 1; check = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); message = $0
            }
            END {
                if (!found) exit 1
                printf "cudacheck: %s%s%s: %s", code, code == "" ? "" : " ", check, message
            }' "$REPORT_DIR/last.txt")
        failing=$(grep -cE '^(FAIL|ERROR|TIMEOUT) ' "$REPORT_DIR/last.txt")
        # Nothing failed, yet exit 1: every check was skipped (nothing could be verified).
        [ -n "$reason" ] || reason="cudacheck: $(tail -n 2 "$REPORT_DIR/last.txt" | head -n 1)"
        [ "$failing" -gt 1 ] && reason="$reason (+$((failing - 1)) more in $REPORT_DIR/last.txt)"
        reason=${reason:0:250}
        drain "$reason"
        log "drained: $reason"
        [ "$mode" = prolog ] && exit 1
        exit 0
        ;;
    *)
        detail=$(head -c 200 "$REPORT_DIR/last.err" | tr '\n' ' ')
        log "cudacheck itself could not run (exit $code): $detail"
        if [ "$DRAIN_ON_TOOL_ERROR" = yes ]; then
            drain "cudacheck: exit $code: $detail"
            [ "$mode" = prolog ] && exit 1
        fi
        exit 0
        ;;
esac
