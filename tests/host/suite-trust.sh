#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-trust.sh - a job id is a fact only from the cgroup
# (issue 47 item 3):
#   - as nobody, `env SLURM_JOB_ID=4242` and a failing mlock under a
#     running `watch`: the record says the job is claimed by the process's
#     environment (process.slurm_job_source), the text says so, and
#     `explain --jobs` keeps it apart from job 4242
#   - the Slurm epilog, invoked directly on recorded lines (suite-fleet runs
#     it under slurmd): a claim by another uid never reaches the job's file,
#     one by the job's own uid does, and a comm chosen by prctl (ESC [2J,
#     U+202E) arrives escaped
#   - a journald entry's SLURM_JOB_ID field, which `logger --journald` lets
#     anyone write, loses to journald's own _SYSTEMD_UNIT/_SYSTEMD_CGROUP
# Ends with "host-trust: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=${MRTRACE:-$TOP/build/mrtrace}
EPILOG=$TOP/contrib/slurm/epilog.sh
OUT=$TOP/build/host-tests/trust
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
[ -x "$MRTRACE" ] || host_abort host-trust "missing $MRTRACE: run 'make'"
command -v jq >/dev/null || host_abort host-trust "needs jq"

# ---- nobody's forged SLURM_JOB_ID ----------------------------------------------
MLOCKER=$TOP/build/tests/helpers/mlocker
if [ -x "$MLOCKER" ] && [ "$(id -u)" = 0 ]; then
	W=$OUT/forged.jsonl
	"$MRTRACE" watch --no-config --json --syscalls=on > "$W" 2> "$W.err" &
	WPID=$!
	if wait_line "$W" '"event":"start"' 30; then
		# it lingers so that watch reads its environment from /proc
		$NOBODY env SLURM_JOB_ID=4242 MLOCKER_LINGER_MS=500 prlimit --memlock=65536:65536 \
			"$MLOCKER" 1048576 > "$OUT/forged.txt" 2>&1
		pid=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$OUT/forged.txt")
		wait_line "$W" "\"event\":\"mlock_failure\",[^}]*\"pid\":$pid," 10
		kill -INT "$WPID"; wait "$WPID"
		rec=$(jq -c --argjson p "${pid:-0}" 'select(.event=="mlock_failure" and .pid==$p)' "$W" | head -1)
		jq_true forged_job_is_a_claim "$rec" \
			'.process.uid==65534 and .process.slurm_job==4242 and .process.slurm_job_source=="environment"'
		jq_true forged_job_not_slurm_setting "$rec" '.process.setting!="slurm"'
		printf '%s\n' "$rec" > "$OUT/forged.rec"
		check forged_text_says_claimed grep -q "slurm job 4242 claimed by the process's environment" \
			<("$MRTRACE" explain "$OUT/forged.rec" 2>&1)
		# beside a failure of job 4242's own step, the claim is a job of its own
		jq -c '.pid=7 | .process.uid=1 | .process.slurm_job_source="cgroup" | .comm="own"
			| .process.cgroup="/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0"' \
			"$OUT/forged.rec" > "$OUT/two.jsonl"
		cat "$OUT/forged.rec" >> "$OUT/two.jsonl"
		"$MRTRACE" explain --jobs --json "$OUT/two.jsonl" > "$OUT/two.json" 2>/dev/null
		jq_true forged_jobs_apart "$(jq -sc . "$OUT/two.json")" \
			'(map(select(.job=="slurm job 4242")) | length==1 and (.[0].records | map(.pid) == [7]))
			 and (map(select(.job=="slurm job 4242 (claimed)")) | length==1)'
	else
		kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
		bad forged_watch_starts "$(tail -2 "$W.err")"
	fi
else
	skip forged "needs root and $MLOCKER"
fi

# ---- the epilog ------------------------------------------------------------------
# three records of "job 4242" that ran as uid 1 (the job's user, daemon):
# its step's (the cgroup's, with a comm set by prctl), nobody's claim, and
# a claim by uid 1 on a node without job cgroups
mk() { # PID UID SOURCE COMM
	jq -nc --argjson pid "$1" --argjson uid "$2" --arg src "$3" --arg comm "$4" '{event:"mlock_failure",
		pid:$pid, tid:$pid, comm:$comm, api:"mlock", errno_name:"ENOMEM", cause:"memlock_limit",
		summary:"mlock of 1 MiB refused", fixes:["raise the limit"],
		process:{uid:$uid, setting:"slurm", slurm_job:4242, slurm_job_source:$src}}'
}
{
	mk 7 1 cgroup "$(printf 'py\342\200\256nohtyp\033[2J\033]0;x\007')"
	mk 8 65534 environment forged
	mk 9 1 environment own
} > "$OUT/events.jsonl"
mkdir -p "$OUT/state" "$OUT/jobs"
env -i PATH="$PATH" SLURM_JOB_ID=4242 SLURM_JOB_UID=1 SLURM_JOB_GID=1 MRTRACE_EVENTS="$OUT/events.jsonl" \
	MRTRACE_JOB_DIR="$OUT/jobs" MRTRACE_JOB_OUTPUT=no MRTRACE_STATE_DIR="$OUT/state" \
	sh "$EPILOG" 2> "$OUT/epilog.err"
J=$OUT/jobs/4242.txt
check epilog_wrote test -s "$J"
check epilog_cgroup_job_kept grep -q 'pid 7 tid 7' "$J"
check epilog_claim_of_job_uid_kept grep -q 'pid 9 tid 9 (own)' "$J"
check epilog_forged_claim_dropped sh -c "! grep -q 'forged' '$J' && grep -q '== mrtrace: 2 failure' '$J'"
check epilog_no_control_bytes sh -c "! LC_ALL=C grep -q \"\$(printf '[\\001-\\010\\013-\\037\\177]')\" '$J'"
check epilog_no_bidi sh -c "! grep -q \"\$(printf '\\342\\200\\256')\" '$J'"
check epilog_comm_escaped grep -qF 'py\u202enohtyp\e[2J\e]0;x\x07)' "$J"
# the real forged record (above) alone: nothing for job 4242's user
if [ -s "$OUT/forged.rec" ]; then
	rm -rf "$OUT/jobs2"; mkdir -p "$OUT/jobs2"
	env -i PATH="$PATH" SLURM_JOB_ID=4242 SLURM_JOB_UID=1 MRTRACE_EVENTS="$OUT/forged.rec" \
		MRTRACE_JOB_DIR="$OUT/jobs2" MRTRACE_JOB_OUTPUT=no MRTRACE_STATE_DIR="$OUT/state" \
		sh "$EPILOG" 2>/dev/null
	check epilog_ignores_watched_forgery test ! -e "$OUT/jobs2/4242.txt"
fi

# ---- journald: its own fields over the sender's ------------------------------------
# `logger --journald` as nobody in a login session: SLURM_JOB_ID=4242 is
# the sender's word; _SYSTEMD_UNIT and _SYSTEMD_CGROUP are journald's
entry='{"MESSAGE":"node01:1234:1240 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory","_HOSTNAME":"node01","_PID":"1234","SLURM_JOB_ID":"4242","_SYSTEMD_UNIT":"session-3.scope","_SYSTEMD_CGROUP":"/user.slice/user-65534.slice/session-3.scope","__REALTIME_TIMESTAMP":"1764590000000000"}'
got=$(printf '%s\n' "$entry" | "$MRTRACE" explain --json - 2>/dev/null | head -1)
jq_true journald_unit_over_sender_field "$got" '.job=="unit session-3.scope"'
got=$(printf '%s\n' "$entry" | jq -c 'del(._SYSTEMD_UNIT, ._SYSTEMD_CGROUP)' | "$MRTRACE" explain --json - 2>/dev/null | head -1)
jq_true journald_field_alone_is_a_claim "$got" '.job=="slurm job 4242 (claimed)"'
got=$(printf '%s\n' "$entry" | jq -c '._SYSTEMD_CGROUP="/system.slice/slurmstepd.scope/job_77/step_0/user/task_0"' |
	"$MRTRACE" explain --json - 2>/dev/null | head -1)
jq_true journald_cgroup_job_wins "$got" '.job=="slurm job 77"'

echo "host-trust: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
