#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-explain.sh - `mrtrace explain` on recorded records: every
# trail fixture (one file each, and all of them as JSON Lines on stdin)
# re-explains to the cause in its file name; lines that are not failures are
# skipped and counted; a malformed line is named by its line number and the
# run exits 2; a file of start/stop lines exits 0; and a record written by
# `mrtrace watch --json` on this host a moment ago explains again the same
# way; port_change records replay, and --jobs leads the records of three
# nodes of one job with the first kernel-evidenced cause.  Ends with
# "explain: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=$TOP/build/mrtrace
MLOCKER=$TOP/build/tests/helpers/mlocker
TRAILS=$TOP/tests/fixtures/trails
OUT=$TOP/build/host-tests/explain
LOGS=$TOP/tests/fixtures/logs
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
for b in "$MRTRACE" "$MLOCKER"; do
	[ -x "$b" ] || host_abort explain "missing $b: run 'make host'"
done
command -v jq >/dev/null || host_abort explain "needs jq"
cause_of() { basename "$1" | cut -d. -f1; }

# ---- the command line ------------------------------------------------------
check help_teaches sh -c "'$MRTRACE' explain --help | grep -q 'mrtrace explain events.jsonl'"
check help_says_not_rederived sh -c "'$MRTRACE' explain --help | grep -q 'Not derived again'"
check main_help_lists_explain sh -c "'$MRTRACE' --help | grep -q '^  explain '"
check no_file_exit2 sh -c "'$MRTRACE' explain 2>/dev/null; [ \$? = 2 ]"
check missing_file_exit2 sh -c "'$MRTRACE' explain '$OUT/nope.jsonl' 2>&1 | grep -q 'cannot read' &&
	{ '$MRTRACE' explain '$OUT/nope.jsonl' 2>/dev/null; [ \$? = 2 ]; }"

# ---- every fixture, one file at a time -------------------------------------
n=0 wrong=""
for f in "$TRAILS"/*.json; do
	n=$((n + 1))
	got=$("$MRTRACE" explain --all --json "$f" 2>"$OUT/one.err")
	rc=$?
	c=$(printf '%s\n' "$got" | jq -r .cause)
	# exit 0: a failure found; a harmless probe (shown with --all) is none: 1
	want=$(printf '%s\n' "$got" | jq -r 'if .harmless then 1 else 0 end')
	[ "$rc" = "$want" ] && [ "$c" = "$(cause_of "$f")" ] || wrong="$wrong $(basename "$f"):$c:rc$rc"
done
[ -z "$wrong" ] && ok "fixtures_reexplained_$n" || bad fixtures_reexplained "$wrong"
# text: the cause line, the process's setting carried into the fixes
f=$TRAILS/memlock_limit.rootnocap.6.12.json
"$MRTRACE" explain "$f" > "$OUT/rootnocap.txt" 2> "$OUT/rootnocap.err"
check text_cause grep -q '^  cause: memlock_limit$' "$OUT/rootnocap.txt"
check text_setting_carried grep -q '^  runs as: shell$' "$OUT/rootnocap.txt"
check text_launchers_carried grep -q 'launched by: bash(397) <- bash(226) <- bash(1)' "$OUT/rootnocap.txt"
check text_fix_for_shell grep -q 'limits.d/99-memlock.conf' "$OUT/rootnocap.txt"
check text_tally grep -q '1 explained, 0 skipped, 0 malformed' "$OUT/rootnocap.err"

# ---- all fixtures as JSON Lines on stdin ------------------------------------
for f in "$TRAILS"/*.json; do jq -c . "$f"; done > "$OUT/all.jsonl"
"$MRTRACE" explain --all --json - < "$OUT/all.jsonl" > "$OUT/all.out" 2> "$OUT/all.err"
rc=$?
check stdin_exit0 test "$rc" = 0
want=$(for f in "$TRAILS"/*.json; do cause_of "$f"; done)
check stdin_every_cause_in_order test "$(jq -r .cause "$OUT/all.out")" = "$want"
# without --all, NCCL's probes are skipped and counted
nprobe=$(grep -c '"event":"nccl_probe"' "$OUT/all.jsonl")
"$MRTRACE" explain --json - < "$OUT/all.jsonl" > "$OUT/noall.out" 2> "$OUT/noall.err"
check probes_skipped test "$(wc -l < "$OUT/noall.out")" = "$(( $(wc -l < "$OUT/all.jsonl") - nprobe ))"
check probes_counted grep -q "skipped (nccl_probe $nprobe)" "$OUT/noall.err"
# the re-explained records explain again the same way
"$MRTRACE" explain --all --json "$OUT/all.out" > "$OUT/again.out" 2>/dev/null
check reexplain_idempotent test "$(jq -c '[.cause, .fixes, .summary]' "$OUT/again.out")" = \
	"$(jq -c '[.cause, .fixes, .summary]' "$OUT/all.out")"

# ---- text: the first failure of a process and cause in full, repeats in a line
f=$TRAILS/memlock_limit.nobody64k.6.12.json
{ jq -c . "$f"; jq -c . "$f"; } > "$OUT/twice.jsonl"
"$MRTRACE" explain "$OUT/twice.jsonl" > "$OUT/twice.txt" 2>/dev/null
check repeat_one_line test "$(grep -c '^registration failed' "$OUT/twice.txt"):$(grep -c '^again: pid 332 .*#2 of this cause' "$OUT/twice.txt")" = 1:1
"$MRTRACE" explain -v "$OUT/twice.jsonl" > "$OUT/twice-v.txt" 2>/dev/null
check verbose_all_in_full test "$(grep -c '^registration failed' "$OUT/twice-v.txt"):$(grep -c 'kernel trail' "$OUT/twice-v.txt")" = 2:2

# ---- a malformed line: its number, the rest explained, exit 2 ---------------
{
	jq -c . "$TRAILS/memlock_zero.nobody0.6.12.json"
	echo '{"event":"reg_failure","pid":12,'
	jq -c . "$TRAILS/pin_hugetlb.hugetlb.6.12.json"
	echo '{"event":"reg_failure","raw":{"kind":1}}'
	echo 'not json at all'
} > "$OUT/bad.jsonl"
"$MRTRACE" explain --json "$OUT/bad.jsonl" > "$OUT/bad.out" 2> "$OUT/bad.err"
rc=$?
check malformed_exit2 test "$rc" = 2
check malformed_line_named grep -q "bad.jsonl:2: not valid JSON" "$OUT/bad.err"
check malformed_member_named grep -q "bad.jsonl:4: reg_failure record: raw.pid" "$OUT/bad.err"
# a line of text among records is a log line (issue 46 item 4: decided per
# line), read and named as one, not malformed JSON
check text_line_read_as_log grep -q "first unrecognised: .*bad.jsonl:5: not json at all" "$OUT/bad.err"
check malformed_rest_explained test "$(jq -r .cause "$OUT/bad.out" | tr '\n' ' ')" = "memlock_zero pin_hugetlb "
check malformed_tally grep -q '2 explained, 0 skipped, 2 malformed' "$OUT/bad.err"

# ---- only start/stop lines: no failure found, exit 1, said (as grep) ------
printf '%s\n' '{"event":"start","kernel":"6.12.117","armed_sites":15,"registration_path_armed":true,"sites":[]}' \
	'{"event":"library_attached","path":"/usr/lib/libibverbs.so.1","entry_points":6}' \
	'{"event":"stop","duration_s":1.0,"reported":0}' > "$OUT/startstop.jsonl"
"$MRTRACE" explain "$OUT/startstop.jsonl" > "$OUT/startstop.out" 2> "$OUT/startstop.err"
rc=$?
check startstop_exit1_none_found test "$rc" = 1
check startstop_says_none_found grep -q '^mrtrace explain: no failure found$' "$OUT/startstop.err"
check startstop_no_output test ! -s "$OUT/startstop.out"
check startstop_counted grep -q '0 explained, 3 skipped (start 1, library_attached 1, stop 1), 0 malformed' "$OUT/startstop.err"

# ---- scriptable (issue 46 item 7): a log's failure exits 0, a clean log 1 ----
printf '%s\n' 'node01:5005:5035 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>' \
	'node01:5005:5035 [1] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory' \
	> "$OUT/failing.log"
"$MRTRACE" explain --json "$OUT/failing.log" > "$OUT/failing.out" 2> "$OUT/failing.err"
check log_failure_exit0 test $? = 0
jq_true inferred_envelope "$(head -1 "$OUT/failing.out")" \
	'.event=="inferred_failure" and .schema=="mrtrace-watch/1" and (.mrtrace_version|length>0) and has("time")'
jq_true inferred_errno_number_and_name "$(head -1 "$OUT/failing.out")" '.errno==12 and .errno_name=="ENOMEM"'
printf '%s\n' 'node01:5005:5035 [1] NCCL INFO Channel 00/02 : 0 1' 'training step 10 loss 0.3' > "$OUT/clean.log"
"$MRTRACE" explain "$OUT/clean.log" > "$OUT/clean.out" 2> "$OUT/clean.err"
check clean_log_exit1 test $? = 1
check clean_log_says_none grep -q '^mrtrace explain: no failure found' "$OUT/clean.err"
"$MRTRACE" explain "$OUT/nope.log" 2> "$OUT/nope.err"
check missing_file_exit2 test $? = 2
check missing_file_names_logs grep -q 'or the log a job left' "$OUT/nope.err"
check help_names_logs sh -c "'$MRTRACE' explain --help | head -2 | grep -q \"a job's log\""

# ---- evidence stays where it belongs (issue 46 item 4) ------------------------
# one job's kernel line (CREATE_MKEY) does not judge another job's ENOMEM
mkdir -p "$OUT/scope"
cp "$LOGS/dmesg-mkey.txt" "$OUT/scope/slurm-101.out"
printf '%s\n' 'node02:7007:7035 [1] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory' \
	> "$OUT/scope/slurm-102.out"
"$MRTRACE" explain --json "$OUT/scope/slurm-101.out" "$OUT/scope/slurm-102.out" > "$OUT/scope/jobs.json" 2>/dev/null
check kernel_line_stays_in_its_job test "$(jq -r 'select(.job=="slurm job 102") | .cause' "$OUT/scope/jobs.json")" = memlock_limit
check kernel_line_judges_its_own_job test "$(jq -r 'select(.job=="slurm job 101") | .cause' "$OUT/scope/jobs.json")" = mlx5_firmware
# node01's NET/IB line (RoCE) does not make node02's modify_qp EINVAL RoCE's
qpline='node02:6006:6036 [0] misc/ibvwrap.cc:294 NCCL WARN Call to ibv_modify_qp failed with 22 Invalid argument, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.0.1.2, remote GID ::ffff:10.0.0.1'
for h in node01 node02; do
	printf '%s\n' "$h:5005:5035 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>" "$qpline" > "$OUT/scope/roce-$h.log"
done
jq_true roce_of_another_host_not_weighed "$("$MRTRACE" explain --json "$OUT/scope/roce-node01.log" 2>/dev/null)" \
	'(.rests_on|any(test("the port is RoCE"))|not)'
jq_true roce_of_the_same_host_weighed "$("$MRTRACE" explain --json "$OUT/scope/roce-node02.log" 2>/dev/null)" \
	'.cause=="bad_gid_index" and (.rests_on|any(test("the port is RoCE")))'

# a line that names no host: judged from the log alone, and said; --host
# with this node's name judges it by this node's facts
printf '%s\n' 'Couldn'"'"'t register MR: ibv_reg_mr failed with error Cannot allocate memory' > "$OUT/scope/nohost.log"
alone=$("$MRTRACE" explain --json "$OUT/scope/nohost.log" 2>/dev/null | head -1)
jq_true nohost_judged_alone "$alone" '.judged_on==null and .host==null and (.rests_on|any(test("judged from the log alone")))'
check nohost_text_says_so sh -c "'$MRTRACE' explain '$OUT/scope/nohost.log' 2>/dev/null | grep -q 'the line names no host: judged from the log alone (--host NAME'"
here=$("$MRTRACE" explain --json --host "$(hostname)" "$OUT/scope/nohost.log" 2>/dev/null | head -1)
jq_true nohost_with_host_judged_here "$here" ".judged_on==\"$(hostname)\" and .host==\"$(hostname)\""
# a line before the failure says its buffer is GPU memory (mscclpp-657's
# "cuMemAlloc: 1"): the EFAULT of a plain ibv_reg_mr is the peer-memory
# client's, not the range's; without that line, the range's
printf '%s\n' 'ibv_reg_mr2 called. cuMemAlloc: 1, dmaBufSupported: 0' 'ibv_reg_mr failed: Bad address' > "$OUT/scope/gpuctx.log"
printf '%s\n' 'ibv_reg_mr failed: Bad address' > "$OUT/scope/noctx.log"
check buffer_context_line_weighed test "$("$MRTRACE" explain --json "$OUT/scope/gpuctx.log" 2>/dev/null | jq -r .cause)" = pin_device_memory
check no_buffer_word_plain_reg_mr_is_the_range test "$("$MRTRACE" explain --json "$OUT/scope/noctx.log" 2>/dev/null | jq -r .cause)" = pin_fault
check host_option_bad_value sh -c "'$MRTRACE' explain --host 'a b' '$OUT/scope/nohost.log' 2>/dev/null; [ \$? = 2 ]"

# ---- recorded here, now: watch --json, then explain --------------------------
if [ "$(id -u)" = 0 ]; then
	W=$OUT/live.jsonl
	"$MRTRACE" watch --json --syscalls=on -o "$W" -- prlimit --memlock=65536:65536 \
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$MLOCKER" 1048576 \
		> /dev/null 2> "$OUT/live.err"
	live=$(jq -c 'select(.event=="mlock_failure")' "$W" 2>/dev/null | head -1)
	if [ -n "$live" ]; then
		ok live_recorded
		"$MRTRACE" explain --json "$W" > "$OUT/live.out" 2> "$OUT/live.out.err"
		rc=$?
		check live_exit0 test "$rc" = 0
		check live_same_cause_and_fixes test "$(jq -c '[.cause, .summary, .fixes, .process]' "$OUT/live.out")" = \
			"$(printf '%s\n' "$live" | jq -c '[.cause, .summary, .fixes, .process]')"
		check live_start_stop_skipped grep -Eq 'skipped \(start 1, (memlock_limit_set 1, )?stop 1\)' "$OUT/live.out.err"
	else
		bad live_recorded "$(tail -2 "$OUT/live.err")"
	fi
else
	echo "note: not root; the watch-then-explain check is skipped"
fi

# ---- port changes: replayed, and the job they killed across nodes -----------
PORTS=$TOP/tests/fixtures/ports
wrong=""
for f in "$PORTS"/*.json; do
	r=$(basename "$f" | cut -d. -f1)
	got=$("$MRTRACE" explain --json "$f" 2>/dev/null | jq -r .reason)
	[ "$got" = "$r" ] || wrong="$wrong $(basename "$f"):$got"
done
check port_changes_replayed test -z "${wrong# }"
# Three nodes of one Slurm job, recorded in the VM (tests/vm/cases/ports.sh
# and failures.sh on 6.12) and stamped as other hosts: gpu17's rxe0 lost
# its carrier under the job's QPs; gpu18 and gpu19 failed after it (a QP
# that cannot reach RTR on a port that is DOWN, a GID index with no GID); a
# failure on gpu19 before the flap was only inferred and must not lead.
flap=$PORTS/carrier_lost.flap.6.12.json
stamp() { # FILE HOST TIME: the record as that host's, in Slurm job 4242
	jq -c --arg h "$2" --arg t "$3" '.host=$h | .time=$t |
		if .event=="port_change" then .affected |= map(. + {slurm_job: 4242})
		else .process.slurm_job=4242 end' "$1"
}
# the port went down at 12:03:04.000 and came back down_ms later
down_ms=$(jq -r .down_ms "$flap")
back=$(date -u -d "@$(( $(date -u -d 2026-12-01T12:03:04Z +%s) + down_ms / 1000 ))" +%Y-%m-%dT%H:%M:%S)
back=$back.$(printf '%03d' $((down_ms % 1000)))000Z
{
	stamp "$TRAILS/memlock_limit.mlock.host-6.18.json" gpu19 2026-12-01T12:03:01.000000Z | jq -c '.certainty="inferred"'
	stamp "$TRAILS/port_not_active.port.6.12.json" gpu18 2026-12-01T12:03:06.500000Z
	stamp "$flap" gpu17 "$back"
	stamp "$TRAILS/bad_gid_index.gid.6.12.json" gpu19 2026-12-01T12:03:07.000000Z
} > "$OUT/job.jsonl"
"$MRTRACE" explain --jobs "$OUT/job.jsonl" > "$OUT/job.txt" 2> "$OUT/job.err"
check jobs_exit0 test $? = 0
check jobs_first_cause_leads grep -Eq '^slurm job 4242: gpu17 rxe0 port 1 went DOWN \(carrier lost on dummy0\) for [0-9.]+ s; .* failed after it$' "$OUT/job.txt"
check jobs_lead_marked grep -Eq '^  \* 12:03:04.000 gpu17 +port_change' "$OUT/job.txt"
"$MRTRACE" explain --jobs --json "$OUT/job.jsonl" > "$OUT/job.json" 2>/dev/null
jq_true jobs_json_first_cause "$(head -1 "$OUT/job.json")" '.job=="slurm job 4242" and .first_cause.host=="gpu17" and .first_cause.event=="port_change" and .first_cause.reason=="carrier_lost" and .failed_after.nodes==2 and (.records|length)==4 and .records[0].host=="gpu19"'

# ---- the logs a dead job left (issue 32): judged, counted, --json ----------
"$MRTRACE" explain "$LOGS/nccl-2.21-memlock.log" > "$OUT/log.txt" 2> "$OUT/log.err"
check log_exit0 test $? = 0
check log_not_json_error sh -c "! grep -q 'not valid JSON' '$OUT/log.err'"
check log_cause grep -q '^  cause (inferred): memlock_limit' "$OUT/log.txt"
check log_rests_on grep -q 'the log says ENOMEM from ibv_reg_mr_iova2 (NCCL 2.21.5)' "$OUT/log.txt"
check log_rerun grep -q '^  prove it: mrprobe --nccl-channels 4 --nccl-peers 1 --nccl-buffsize 8388608$' "$OUT/log.txt"
check log_other_host grep -q 'the log comes from node01' "$OUT/log.txt"
check log_counts grep -Eq '^mrtrace explain: log lines: 24 read: [0-9]+ failures, [0-9]+ not failures, [0-9]+ unrecognised, 0 records$' "$OUT/log.err"
check log_first_unrecognised grep -q 'first unrecognised: .*nccl-2.21-memlock.log:' "$OUT/log.err"
"$MRTRACE" explain -v "$LOGS/nccl-2.21-memlock.log" > /dev/null 2> "$OUT/log-v.err"
check log_verbose_lists_unrecognised grep -q 'nccl-2.21-memlock.log:[0-9]*: unrecognised: ' "$OUT/log-v.err"
"$MRTRACE" explain --json --setting slurm "$LOGS/slurm-8ranks.out" > "$OUT/slurm.json" 2>/dev/null
check slurm_exit0 test $? = 0
jq_true slurm_json_record "$(head -1 "$OUT/slurm.json")" '.event=="inferred_failure" and .certainty=="inferred" and .cause=="memlock_limit" and .errno==12 and .errno_name=="ENOMEM" and .same_on.ranks==7 and .same_on.hosts==["node01"] and .rank==5 and (.rerun|startswith("srun -N1 -n1 -w node02 mrprobe")) and .severity=="error"'
"$MRTRACE" explain "$LOGS/nccl-2.8-createqp.log" > "$OUT/qp.txt" 2>/dev/null
check noerrno_said grep -q 'NCCL 2.8.4 prints no errno for ibv_create_qp; ENOMEM, EINVAL and EAGAIN are all possible here' "$OUT/qp.txt"
check qp_proof grep -q "^  prove it: ib_send_bw -d mlx5_0 --qp=4 --tx-depth=16 --rx-depth=8 & sleep 2; ib_send_bw -d mlx5_0 --qp=4 --tx-depth=16 --rx-depth=8 localhost$" "$OUT/qp.txt"
check qp_watch grep -q '^  leave on for the next run: sudo mrtrace watch' "$OUT/qp.txt"
# two jobs merged in one input: two groups, never one job's ranks in the other's
{ echo "srun: job 111 has been allocated resources"; cat "$LOGS/slurm-8ranks.out"
  echo "srun: job 222 has been allocated resources"; sed 's/node0/gpu0/g' "$LOGS/slurm-8ranks.out"; } > "$OUT/two-jobs.log"
"$MRTRACE" explain --json --setting slurm "$OUT/two-jobs.log" > "$OUT/two-jobs.json" 2>/dev/null
check two_jobs_two_groups test "$(jq -c '[.job, .host, .same_on.ranks, .same_on.hosts[0]]' "$OUT/two-jobs.json" | tr '\n' ' ')" = '["slurm job 111","node02",7,"node01"] ["slurm job 222","gpu02",7,"gpu01"] '
"$MRTRACE" explain "$LOGS/completion.log" > "$OUT/wc.txt" 2>/dev/null
check completion_no_refusal grep -q 'no kernel refusal explains this: fabric_retry' "$OUT/wc.txt"
"$MRTRACE" explain --json "$LOGS/dmesg-mkey.txt" > "$OUT/mkey.json" 2>/dev/null
jq_true mkey_firmware "$(head -1 "$OUT/mkey.json")" '.cause=="mlx5_firmware" and (.what|test("LIM_ERR"))'
"$MRTRACE" explain "$LOGS/pytorch-traceback.log" > "$OUT/tb.txt" 2>/dev/null
check traceback_wrapper_said grep -q 'only the framework.s wrapper' "$OUT/tb.txt"
gzip -c "$LOGS/nccl-2.21-memlock.log" > "$OUT/memlock.log.gz"
"$MRTRACE" explain --json "$OUT/memlock.log.gz" "$TRAILS/memlock_limit.mlock.host-6.18.json" > "$OUT/mixed.json" 2>"$OUT/mixed.err"
check mixed_gz_and_records test "$(jq -r .event "$OUT/mixed.json" | sort | tr '\n' ' ')" = "inferred_failure mlock_failure "
# EFAULT by what the line says of its buffer: "host memory" leads with the
# range even when the line also carries a CUDA library's path; a buffer
# from cudaMalloc leads with the missing peer-memory client
printf '%s\n' 'E1207 09:15:07.980787  7 rdma_context.cpp:81] ibv_reg_mr(address=0x7f3a10000000, length=16777216, access=0xf) failed: Bad address (host memory buffer; runtime /usr/local/cuda/lib64/libcudart.so.12)' > "$OUT/efault-host.log"
printf '%s\n' 'E1207 09:15:07.980787  7 rdma_context.cpp:81] ibv_reg_mr(address=0x7f3a10000000, length=16777216, access=0xf) failed: Bad address (buffer from cudaMalloc)' > "$OUT/efault-gpu.log"
check efault_host_memory_leads_pin_fault test "$("$MRTRACE" explain --json "$OUT/efault-host.log" 2>/dev/null | jq -r 'select(.event=="inferred_failure") | .cause')" = pin_fault
check efault_cuda_buffer_leads_device_memory test "$("$MRTRACE" explain --json "$OUT/efault-gpu.log" 2>/dev/null | jq -r 'select(.event=="inferred_failure") | .cause')" = pin_device_memory
# a plain `journalctl -o json` export (not its .gz), as a file and on stdin:
# each JSON value is a record or a journald entry on its own, not by the
# input's first byte
jq -Rc '{__REALTIME_TIMESTAMP:"1764583200000000", _HOSTNAME:"node01", _TRANSPORT:"stdout", MESSAGE:.}' \
	"$LOGS/nccl-2.21-memlock.log" > "$OUT/journal.json"
"$MRTRACE" explain --json "$OUT/journal.json" > "$OUT/journal.out" 2>"$OUT/journal.err"
rc=$?
check journal_json_file test "$rc:$(jq -r .event "$OUT/journal.out" | sort -u | tr '\n' ' ')" = "0:inferred_failure "
"$MRTRACE" explain --json - < "$OUT/journal.json" > "$OUT/journal-stdin.out" 2>/dev/null
rc=$?
check journal_json_stdin test "$rc:$(jq -r .event "$OUT/journal-stdin.out" | sort -u | tr '\n' ' ')" = "0:inferred_failure "
{ cat "$OUT/journal.json"; jq -c . "$TRAILS/memlock_limit.mlock.host-6.18.json"; } > "$OUT/journal-mixed.json"
"$MRTRACE" explain --json "$OUT/journal-mixed.json" > "$OUT/journal-mixed.out" 2>/dev/null
check journal_json_and_records test "$(jq -r .event "$OUT/journal-mixed.out" | sort | tr '\n' ' ')" = "inferred_failure mlock_failure "
# ...and a job's plain log lines after those entries (an export someone
# appended the job's output to): each line decided on its own, as a file and
# on stdin; before, every plain line was "not valid JSON" and lost
{ jq -c '.MESSAGE = "hello"' "$OUT/journal.json" | head -n 2; cat "$LOGS/nccl-2.21-memlock.log"; } > "$OUT/journal-then-log.txt"
"$MRTRACE" explain --json "$OUT/journal-then-log.txt" > "$OUT/journal-then-log.out" 2>"$OUT/journal-then-log.err"
rc=$?
check journal_then_log_lines_file test "$rc:$(jq -r .event "$OUT/journal-then-log.out" | sort -u | tr '\n' ' '):$(grep -o ' [0-9]* malformed' "$OUT/journal-then-log.err")" = "0:inferred_failure : 0 malformed"
"$MRTRACE" explain --json - < "$OUT/journal-then-log.txt" > "$OUT/journal-then-log-stdin.out" 2>/dev/null
rc=$?
check journal_then_log_lines_stdin test "$rc:$(jq -r .event "$OUT/journal-then-log-stdin.out" | sort -u | tr '\n' ' ')" = "0:inferred_failure "
"$MRTRACE" explain --setting slurm --facts "$LOGS/node02-check.json" "$LOGS/slurm-8ranks.out" > "$OUT/facts.txt" 2>/dev/null
check facts_weigh grep -q "on node02, slurmd's jobs get 64 KiB of memlock" "$OUT/facts.txt"
check facts_same_host sh -c "! grep -q 'judged from the log alone' '$OUT/facts.txt'"
check bad_setting_exit2 sh -c "'$MRTRACE' explain --setting nope '$LOGS/completion.log' 2>/dev/null; [ \$? = 2 ]"

echo "explain: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
