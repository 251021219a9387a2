#!/bin/bash
# cudacheck as a Slurm node health check (docs/cluster.md). The report's remedy says who must act
# (its action class, after DCGM's categories): the node is drained when the hardware needs a step
# (class reset: reset a GPU, drain peer-to-peer work, reset the bus, reboot; class isolate: service),
# with the step and the GPUs' findings as the reason ("cudacheck: reset: drain the node and reboot
# it: GPU 0 (GPU-...): ... CC240"), and when a check fails for a reason to investigate (class
# triage: "cudacheck: CC212 driver.libcuda: ..."). A failure whose fix is configuration (class
# config: a driver not loaded, a library missing, Fabric Manager stopped) is logged, not drained,
# unless DRAIN_ON_CONFIG=yes; an application's own fault (class app: Xid 13, 31, 43) never drains.
# When a later run needs no drain and the drain was this script's own, the node is resumed. A
# drain an administrator set (any other reason) is never lifted.
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
#     DRAIN_ON_CONFIG=no                   yes: also drain for a failure whose fix is configuration
#     DRAIN_ON_TOOL_ERROR=no               yes: also drain when cudacheck itself cannot run
#                                          (exit 2, 3, killed); by default that is logged only, so
#                                          that a broken tool does not drain a whole cluster
# Exit status: 0, except in the prolog after a drain (1).
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

HEALTHCHECK_LEVEL=quick
PROLOG_LEVEL=standard
RUN_TIMEOUT=120
REPORT_DIR=/var/lib/cudacheck
DRAIN_ON_CONFIG=no
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

# The report's remedy, as the text report's "Remedy:" line gives it when a finding asks for more
# than configuration: "Remedy: drain the node and reboot it [action class reset]", then a line per
# GPU ("  GPU 0 (GPU-...): ... — CC240, CC233"). No such line: nothing beyond configuration.
remedy_line=$(grep -m 1 '^Remedy: ' "$REPORT_DIR/last.txt" 2>/dev/null)
action_class=none
if [ -n "$remedy_line" ]; then
    action_class=${remedy_line##*\[action class }
    action_class=${action_class%\]}
fi
# The first failing check: "cudacheck: CC210 driver.libcuda: libcuda.so.1 cannot be loaded ...",
# from its line ("FAIL    driver.libcuda    libcuda.so.1 cannot be loaded: ...") and the code at
# the end of its fix line ("... [CC210]"); "(+N more in last.txt)" when more checks failed.
failing_reason() {
    local reason failing
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
    echo "$reason"
}
# "cudacheck: reset: drain the node and reboot it: GPU 0 (GPU-...): ... — CC240, CC233"
remedy_reason() {
    local first step=${remedy_line#Remedy: }
    first=$(grep -A 1 -m 1 '^Remedy: ' "$REPORT_DIR/last.txt" | sed -n '2s/^ *//p')
    echo "cudacheck: $action_class: ${step% \[action class *}${first:+: $first}"
}
drain_for() {
    local reason=${1:0:250}
    drain "$reason"
    log "drained: $reason"
    [ "$mode" = prolog ] && exit 1
    exit 0
}

case $code in
    0 | 1)
        case $action_class in
            reset | isolate) drain_for "$(remedy_reason)" ;;
        esac
        if [ "$code" = 1 ]; then
            # A failure: drained unless its fix is configuration alone (no Remedy line, or class config),
            # or the application's own fault; a run where every check was skipped still drains.
            only_config=no
            { [ -z "$remedy_line" ] || [ "$action_class" = config ] || [ "$action_class" = app ]; } &&
                grep -qE '^(FAIL|ERROR|TIMEOUT) ' "$REPORT_DIR/last.txt" && only_config=yes
            if [ "$only_config" = no ] || [ "$DRAIN_ON_CONFIG" = yes ]; then
                drain_for "$(failing_reason)"
            fi
            log "not drained: the fix is configuration (DRAIN_ON_CONFIG=yes drains): $(failing_reason | cut -c 1-250)"
        fi
        if drained_by_us; then
            scontrol update NodeName="$node" State=RESUME && log "cudacheck needs no drain now ($level): resumed"
        fi
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
