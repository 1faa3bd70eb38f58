#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mrtrace Slurm prolog (slurm.conf: Prolog=/usr/local/libexec/mrtrace/slurm-prolog,
# or call it from your own prolog).  Before a job starts on this node, runs
#   mrtrace check --health --slurm -p <slurmd>
# which judges what the job will get: the memlock limit (with
# PropagateResourceLimits, srun's limit capped by slurmd's hard limit, so
# slurmd's hard limit; without it slurmd's soft limit) against
# --min-memlock, the RDMA devices (/dev/infiniband/uverbs*) and the ports.
# On FAIL it drains the node with mrtrace's one-line reason and exits 1,
# so slurmd requeues the job instead of starting it here.  WARN and OK let
# the job run.  If mrtrace itself cannot run (not installed, bad
# configuration) the job runs and the problem is logged: a broken checker
# must not drain a cluster.
#
# Environment (set in the calling prolog to change them):
#   MRTRACE              mrtrace binary (default: found in PATH, /usr/sbin, /usr/local/sbin)
#   MRTRACE_CHECK_ARGS   more check options (--min-memlock=1G --health-ignore=...)
#   SCONTROL             scontrol binary (default scontrol)
PATH=/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin:$PATH
MRTRACE=${MRTRACE:-$(command -v mrtrace)}
SCONTROL=${SCONTROL:-scontrol}
node=${SLURMD_NODENAME:-$(hostname -s)}
log() { logger -t mrtrace-prolog -- "$*" 2>/dev/null; echo "mrtrace-prolog: $*" >&2; }

if [ -z "$MRTRACE" ] || [ ! -x "$MRTRACE" ]; then
	log "mrtrace not found; node not checked"
	exit 0
fi
# The prolog runs as slurmd's child: its parent is the slurmd whose limits
# jobs inherit (else the oldest slurmd on this node).
pid=$PPID
if [ "$(cat /proc/$pid/comm 2>/dev/null)" != slurmd ]; then
	pid=$(pgrep -xo slurmd 2>/dev/null)
fi
if [ -n "$pid" ]; then
	# shellcheck disable=SC2086
	line=$("$MRTRACE" check --health --slurm -p "$pid" $MRTRACE_CHECK_ARGS 2>/dev/null)
else
	# shellcheck disable=SC2086
	line=$("$MRTRACE" check --health $MRTRACE_CHECK_ARGS 2>/dev/null)
fi
rc=$?
case "$rc:$line" in
0:*|1:*)
	exit 0 ;;
2:"mrtrace: FAIL"*)
	log "job ${SLURM_JOB_ID:-?}: draining $node: $line"
	"$SCONTROL" update NodeName="$node" State=DRAIN Reason="$line" ||
		log "scontrol update failed"
	exit 1 ;;
*)
	log "mrtrace check did not run (exit $rc): $line; node not checked"
	exit 0 ;;
esac
