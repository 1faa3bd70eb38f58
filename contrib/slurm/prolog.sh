#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mrtrace Slurm prolog (slurm.conf: Prolog=/usr/local/libexec/mrtrace/slurm-prolog,
# or call it from your own prolog), and with --healthcheck the node health
# check (HealthCheckProgram=/usr/local/libexec/mrtrace/slurm-healthcheck).
#
# Before a job starts on this node it runs
#   mrtrace check --health --slurm -p <slurmd> --slurm-partition=<partition>
# under `timeout`, which judges what the job will get where RDMA is expected
# (RDMA hardware on the node, or require-rdma in mrtrace.conf for the job's
# partition or a node feature; elsewhere RDMA is n/a and the line says OK):
# the memlock limit (with PropagateResourceLimits, srun's limit capped by
# slurmd's hard limit, so slurmd's hard limit; without it slurmd's soft
# limit) against min-memlock, the RDMA devices (/dev/infiniband/uverbs*) and
# the ports.  On FAIL it drains the node with mrtrace's one-line reason,
# which always begins "mrtrace: " (what --healthcheck resumes on), and exits
# 1: Slurm then requeues the job held (docs/deploy.md says how to release
# it).  WARN and OK let the job run.  If mrtrace cannot run (not installed,
# bad configuration, timed out) the job runs and the problem is logged: a
# broken checker must not drain a cluster.
#
# The prolog also notes how long the service's events file was, so the
# epilog reads only what was written during the job.
#
# --healthcheck (no job): the same check; FAIL drains, OK or WARN resumes a
# node that mrtrace drained (its reason begins "mrtrace: "), nothing else.
#
# Environment (set in the calling prolog to change them):
#   MRTRACE              mrtrace binary (default: found in PATH, /usr/sbin, /usr/local/sbin)
#   MRTRACE_CHECK_ARGS   more check options (--min-memlock=1G --health-ignore=...)
#   MRTRACE_TIMEOUT      seconds the check may take (default 30)
#   MRTRACE_NODE_FEATURES  the node's features for require-rdma's feature:
#                        selectors (default: asked of scontrol, and only when
#                        the configuration has a feature: selector)
#   MRTRACE_EVENTS       the service's JSON Lines (default /var/log/mrtrace/events.jsonl)
#   MRTRACE_STATE_DIR    where the job's starting offset is kept (default /run/mrtrace/slurm)
#   SCONTROL             scontrol binary (default scontrol)
PATH=/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin:$PATH
MRTRACE=${MRTRACE:-$(command -v mrtrace)}
SCONTROL=${SCONTROL:-scontrol}
TIMEOUT=${MRTRACE_TIMEOUT:-30}
EVENTS=${MRTRACE_EVENTS:-/var/log/mrtrace/events.jsonl}
STATE=${MRTRACE_STATE_DIR:-/run/mrtrace/slurm}
CONF=/etc/mrtrace/mrtrace.conf
node=${SLURMD_NODENAME:-$(hostname -s)}
job=${SLURM_JOB_ID:-}
mode=prolog
[ "${1:-}" = --healthcheck ] && mode=healthcheck
tag=mrtrace-$mode
log() { logger -t "$tag" -- "$*" 2>/dev/null; echo "$tag: $*" >&2; }

# the events file's inode and length now: the epilog starts reading there
case "$mode:$job" in prolog:*[!0-9]*|prolog:) ;; prolog:*)
	if [ -f "$EVENTS" ] && mkdir -p -m 0700 "$STATE" 2>/dev/null; then
		stat -c '%i %s' "$EVENTS" > "$STATE/$job.offset" 2>/dev/null
	fi ;;
esac

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
set --
[ -n "$pid" ] && set -- --slurm -p "$pid"
[ -n "${SLURM_JOB_PARTITION:-}" ] && set -- "$@" --slurm-partition="$SLURM_JOB_PARTITION"
features=${MRTRACE_NODE_FEATURES-}
if [ -z "${MRTRACE_NODE_FEATURES+set}" ] &&
	{ grep -qs 'feature:' "$CONF" "$CONF.d"/*.conf ||
	  case "${MRTRACE_CHECK_ARGS:-}" in *feature:*) true ;; *) false ;; esac; }; then
	features=$(timeout 5 "$SCONTROL" show node -o "$node" 2>/dev/null |
		sed -n 's/.*ActiveFeatures=\([^ ]*\).*/\1/p')
	[ "$features" = "(null)" ] && features=
fi
[ -n "$features" ] && set -- "$@" --node-features="$features"
# shellcheck disable=SC2086
line=$(timeout -k 5 "$TIMEOUT" "$MRTRACE" check --health "$@" $MRTRACE_CHECK_ARGS 2>/dev/null)
rc=$?
case "$rc:$line" in
0:*|1:*)
	if [ "$mode" = healthcheck ]; then
		# resume only what mrtrace drained: another tool's reason is not ours
		reason=$(timeout 10 "$SCONTROL" show node -o "$node" 2>/dev/null |
			sed -n 's/.* Reason=\(.*\)$/\1/p')
		case "$reason" in "mrtrace: "*)
			log "resuming $node: $line (was: $reason)"
			"$SCONTROL" update NodeName="$node" State=RESUME || log "scontrol update failed" ;;
		esac
	fi
	exit 0 ;;
2:"mrtrace: FAIL"*)
	log "job ${job:-none}: draining $node: $line"
	"$SCONTROL" update NodeName="$node" State=DRAIN Reason="$line" ||
		log "scontrol update failed"
	[ "$mode" = prolog ] && exit 1
	exit 0 ;;
124:*|137:*)
	log "mrtrace check timed out after ${TIMEOUT} s; node not checked"
	exit 0 ;;
*)
	log "mrtrace check did not run (exit $rc): $line; node not checked"
	exit 0 ;;
esac
