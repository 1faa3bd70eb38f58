#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mrtrace Slurm epilog (slurm.conf: Epilog=/usr/local/libexec/mrtrace/slurm-epilog,
# or call it from your own epilog).  After a job, collects what the mrtrace
# service saw for it (records whose process belongs to the job, by job id:
# the step's cgroup, or SLURM_JOB_ID in its environment) and
#   - writes them to $MRTRACE_JOB_DIR/<jobid>.txt (owned by the job's user), and
#   - appends them to the job's output file when it has one (as the user).
# Nothing is written for a job without findings.
#
# Environment:
#   MRTRACE_EVENTS   the service's JSON Lines (default /var/log/mrtrace/events.jsonl)
#   MRTRACE_JOB_DIR  per-job files (default /var/log/mrtrace/jobs; "" for none)
#   MRTRACE_JOB_OUTPUT  yes (default) / no: append to the job's output file
#   SCONTROL         scontrol binary (default scontrol)
PATH=/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin:$PATH
EVENTS=${MRTRACE_EVENTS:-/var/log/mrtrace/events.jsonl}
JOBDIR=${MRTRACE_JOB_DIR-/var/log/mrtrace/jobs}
SCONTROL=${SCONTROL:-scontrol}
job=${SLURM_JOB_ID:-}
log() { logger -t mrtrace-epilog -- "$*" 2>/dev/null; echo "mrtrace-epilog: $*" >&2; }

case "$job" in ''|*[!0-9]*) exit 0 ;; esac
[ -r "$EVENTS" ] || exit 0
command -v jq >/dev/null 2>&1 || { log "jq not installed: job $job findings not collected"; exit 0; }

tmp=$(mktemp) || exit 0
trap 'rm -f "$tmp"' EXIT
# grep narrows a large file; jq keeps only this job's failure records.
grep -F "\"slurm_job\":$job" "$EVENTS" 2>/dev/null |
	jq -r --argjson job "$job" '
	  select((.event == "reg_failure" or .event == "mlock_failure")
	         and .process.slurm_job == $job)
	  | "mrtrace: \(.event) on \(.process.setting // "?") pid \(.pid) tid \(.tid) (\(.comm)): \(.api) \(.errno_name), cause \(.cause)\n  \(.summary)\n  fix: \(.fixes[0] // "see mrtrace watch output")"' \
	> "$tmp" 2>/dev/null
[ -s "$tmp" ] || exit 0
n=$(grep -c '^mrtrace: ' "$tmp")
{
	echo "== mrtrace: $n failed registration(s) in job $job on $(hostname -s) =="
	cat "$tmp"
} > "$tmp.all" && mv "$tmp.all" "$tmp"

uid=${SLURM_JOB_UID:-}
if [ -n "$JOBDIR" ]; then
	mkdir -p "$JOBDIR" && cp "$tmp" "$JOBDIR/$job.txt" && chmod 0640 "$JOBDIR/$job.txt" &&
		{ [ -z "$uid" ] || chown "$uid" "$JOBDIR/$job.txt"; }
fi
if [ "${MRTRACE_JOB_OUTPUT:-yes}" = yes ] && [ -n "$uid" ]; then
	out=$("$SCONTROL" show job "$job" 2>/dev/null | sed -n 's/^ *StdOut=//p' | head -1)
	# written as the job's user: the epilog must not create or follow
	# anything the user could not
	if [ -n "$out" ] && [ -f "$out" ]; then
		setpriv --reuid="$uid" --regid="${SLURM_JOB_GID:-$uid}" --init-groups \
			sh -c 'cat >> "$1"' sh "$out" < "$tmp" ||
			log "job $job: cannot append to $out"
	fi
fi
log "job $job: $n finding(s) collected"
exit 0
