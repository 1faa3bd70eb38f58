#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mrtrace Slurm epilog (slurm.conf: Epilog=/usr/local/libexec/mrtrace/slurm-epilog,
# or call it from your own epilog).  After a job, collects what the mrtrace
# service saw for it (records whose process belongs to the job: the step's
# cgroup names the job, or - on nodes without job cgroups - the process's
# SLURM_JOB_ID names it and the process runs as the job's user,
# SLURM_JOB_UID; any user can set SLURM_JOB_ID, so a claim alone never puts
# a record, or the comm its process chose, into another user's file): failed
# registrations and mlock calls, and the other refusals proven behind
# ncclSystemError (failure records: a QP move, /dev/shm, the rdma cgroup,
# the device) - and
#   - writes them to $MRTRACE_JOB_DIR/<jobid>.txt (owned by the job's user), and
#   - appends them to the job's output file when it has one (as the user).
# Nothing is written for a job without findings.  It reads only what the
# service wrote during the job: from where the prolog found the file's end
# (across one copytruncate rotation, from events.jsonl.1), or without a
# prolog mark the last MRTRACE_TAIL bytes; never the whole file.
# Whatever it writes into the user's files is escaped: a process names
# itself (prctl), and no control character (C0, DEL, C1) nor bidirectional
# override of a record may reach a terminal that shows the job's output.
#
# Environment:
#   MRTRACE_EVENTS   the service's JSON Lines (default /var/log/mrtrace/events.jsonl)
#   MRTRACE_JOB_DIR  per-job files (default /var/log/mrtrace/jobs; "" for none)
#   MRTRACE_JOB_OUTPUT  yes (default) / no: append to the job's output file
#   MRTRACE_STATE_DIR   the prolog's marks (default /run/mrtrace/slurm)
#   MRTRACE_TAIL     bytes read without a mark (default 16M)
#   SCONTROL         scontrol binary (default scontrol)
PATH=/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin:$PATH
EVENTS=${MRTRACE_EVENTS:-/var/log/mrtrace/events.jsonl}
JOBDIR=${MRTRACE_JOB_DIR-/var/log/mrtrace/jobs}
STATE=${MRTRACE_STATE_DIR:-/run/mrtrace/slurm}
SCONTROL=${SCONTROL:-scontrol}
job=${SLURM_JOB_ID:-}
log() { logger -t mrtrace-epilog -- "$*" 2>/dev/null; echo "mrtrace-epilog: $*" >&2; }

case "$job" in ''|*[!0-9]*) exit 0 ;; esac
mark=$STATE/$job.offset
# the service's records written during the job
during_job() {
	local ino off
	if read -r ino off < "$mark" 2>/dev/null; then
		if [ "$(stat -c %i "$EVENTS" 2>/dev/null)" = "$ino" ] &&
			[ "$(stat -c %s "$EVENTS" 2>/dev/null)" -ge "$off" ]; then
			tail -c +"$((off + 1))" "$EVENTS"
			return
		fi
		# rotated since: copytruncate keeps the inode and empties it (the
		# start of the job is in the copy), a rename makes a new one
		[ -f "$EVENTS.1" ] && [ "$(stat -c %s "$EVENTS.1")" -ge "$off" ] &&
			tail -c +"$((off + 1))" "$EVENTS.1"
		cat "$EVENTS"
		return
	fi
	tail -c "${MRTRACE_TAIL:-16M}" "$EVENTS"
}
[ -r "$EVENTS" ] || { rm -f "$mark"; exit 0; }
command -v jq >/dev/null 2>&1 || { log "jq not installed: job $job findings not collected"; rm -f "$mark"; exit 0; }

tmp=$(mktemp) || exit 0
trap 'rm -f "$tmp" "$mark"' EXIT
# grep narrows a large file; jq keeps only this job's failure records
# (failure: its op is what failed, it may have no api): the cgroup's job, or
# a claim by the job's own uid (process.slurm_job_source, docs/json.md),
# each value escaped as mrtrace escapes text (\e, \xNN, \u202e; a
# backslash doubled).
during_job 2>/dev/null | grep -F "\"slurm_job\":$job" |
	jq -r --argjson job "$job" --arg uid "${SLURM_JOB_UID:-}" '
	  def hex(n): [range(n - 1; -1; -1) as $i | (. / pow(16; $i) | floor) % 16]
	    | map("0123456789abcdef"[.:. + 1]) | add;
	  def bidi: (. >= 8234 and . <= 8238) or (. >= 8294 and . <= 8297)
	    or . == 8206 or . == 8207 or . == 1564;
	  def e: if . == null then "?" else tostring end | explode
	    | map(if . == 92 then "\\\\" elif . == 27 then "\\e"
	          elif . < 32 or . == 127 or (. >= 128 and . < 160) then "\\x" + hex(2)
	          elif bidi then "\\u" + hex(4)
	          else [.] | implode end) | add // "";
	  select((.event == "reg_failure" or .event == "mlock_failure" or .event == "failure")
	         and .process.slurm_job == $job
	         and (.process.slurm_job_source == "cgroup"
	              or ($uid != "" and (.process.uid | tostring) == $uid)))
	  | "mrtrace: \(.event | e) on \(.process.setting | e) pid \(.pid | e) tid \(.tid | e) (\(.comm | e)): \(.api // .op | e) \(.errno_name | e), cause \(.cause | e)\n  \(.summary | e)\n  fix: \(.fixes[0] // "see mrtrace watch output" | e)"' \
	> "$tmp" 2>/dev/null
[ -s "$tmp" ] || exit 0
n=$(grep -c '^mrtrace: ' "$tmp")
{
	echo "== mrtrace: $n failure(s) in job $job on $(hostname -s | tr -d '[:cntrl:]') =="
	cat "$tmp"
} > "$tmp.all" && mv "$tmp.all" "$tmp"

uid=${SLURM_JOB_UID:-}
# The report is the job user's: readable by them (and their group) only,
# in a directory others may pass but not list.
if [ -n "$JOBDIR" ]; then
	{ [ -d "$JOBDIR" ] || mkdir -p -m 0711 "$JOBDIR"; } &&
		cp "$tmp" "$JOBDIR/$job.txt.tmp" && chmod 0640 "$JOBDIR/$job.txt.tmp" &&
		{ [ -z "$uid" ] || chown "$uid:${SLURM_JOB_GID:-$uid}" "$JOBDIR/$job.txt.tmp"; } &&
		mv "$JOBDIR/$job.txt.tmp" "$JOBDIR/$job.txt"
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
