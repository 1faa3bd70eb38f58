#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/host/suite-rotate.sh - `mrtrace watch -o FILE` under log rotation,
# with failures arriving all the time: mlock failures (this host has no
# RDMA; mlock is held to the same limit) from processes in a pid namespace
# of their own, one failure each, and a storm of identical ones from one
# process (folded in the kernel, counted in the records).
#
#   - -o appends: what the file held before is kept;
#   - logrotate's create mode: the file is renamed while records are being
#     written, then SIGHUP; the records before land in the renamed file,
#     those after it in a new one, and not one is lost;
#   - logrotate's copytruncate: at a quiet moment the file is copied and
#     truncated; the next records start at offset 0 (no hole of NUL bytes)
#     and none is lost; then copies and truncations while records are being
#     written: no NUL byte, no torn line (losing the lines written between
#     a copy and its truncation is copytruncate's own, documented window);
#   - every line of every file parses as JSON; every record carries the
#     wall-clock time (RFC 3339), the host name and the mrtrace version;
#     every failure its pid as the process's own pid namespace numbers it
#     (ns_pid: the pid the process itself printed);
#   - the failures' counts add up to exactly the failures made.
# Ends with "rotate: N passed, M failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MRTRACE=${MRTRACE:-$TOP/build/mrtrace}   # make asan runs it against build-asan/
MLOCKER=$TOP/build/tests/helpers/mlocker
STORM=$TOP/build/tests/helpers/storm
OUT=${HOST_OUT:-$TOP/build/host-tests}/rotate
rm -rf "$OUT"; mkdir -p "$OUT"
. "$TOP/tests/host/lib.sh"
finish() { echo "rotate: $PASS passed, $FAIL failed"; [ "$FAIL" = 0 ]; exit $?; }
[ "$(id -u)" = 0 ] || host_abort rotate "rotate tests need root"
for b in "$MRTRACE" "$MLOCKER" "$STORM"; do
	[ -x "$b" ] || host_abort rotate "missing $b: run 'make host'"
done
command -v jq >/dev/null || host_abort rotate "needs jq"

LOG=$OUT/watch.jsonl
CTL=$OUT/ctl # the generator (nobody) and this script meet here
mkdir -m 0777 "$CTL"
PER_PHASE=25 # processes failing once each, per phase
STORM_N=3000 # failures of the one storming process, per phase

# The generator: phases a..d, each when told; its processes print their own
# (namespace) pids.  Runs as nobody under a 64 KiB limit, in a new pid
# namespace, as `watch -- CMD` so that only its failures are traced.  Every
# wait of it is bounded (60 s), so a suite that died leaves no watch behind.
cat > "$OUT/gen.sh" <<EOF
set -u
told() { for i in \$(seq 1200); do [ -e "$CTL/\$1" ] && return 0; sleep 0.05; done; exit 3; }
for phase in a b c d; do
	told go.\$phase
	for i in \$(seq $PER_PHASE); do "$MLOCKER" 1048576; done > "$CTL/singles.\$phase" 2>&1
	"$STORM" mlock 1048576 $STORM_N > "$CTL/storm.\$phase" 2>&1
	touch "$CTL/done.\$phase"
done
# the command (and so watch) ends only when told: its last records must not
# fall into a copytruncate window of phase d
told end
EOF
go() { touch "$CTL/go.$1"; }
trap 'touch "$CTL"/go.a "$CTL"/go.b "$CTL"/go.c "$CTL"/go.d "$CTL"/end 2>/dev/null' EXIT
wait_done() { # PHASE
	local i
	for i in $(seq 600); do [ -e "$CTL/done.$1" ] && return 0; sleep 0.1; done
	echo "phase $1 did not finish"; return 1
}
# failures recorded in FILES (summary records stand for their count)
failures_in() { cat "$@" 2>/dev/null | jq -s '[.[] | select(.event=="mlock_failure") | (.count // 1)] | add // 0'; }
wait_failures() { # N FILE...: until the files hold N failures (summaries come a second late)
	local n=$1 i; shift
	for i in $(seq 150); do [ "$(failures_in "$@")" -ge "$n" ] && return 0; sleep 0.1; done
	echo "$(failures_in "$@") failures recorded, $n made"; return 1
}
PHASE=$((PER_PHASE + STORM_N))

echo '{"event":"from_before","note":"a line an earlier run left"}' > "$LOG"
"$MRTRACE" watch --json --syscalls=on -o "$LOG" -- unshare --pid --fork -- \
	prlimit --memlock=65536:65536 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	bash "$OUT/gen.sh" > "$OUT/watch.stdout" 2> "$OUT/watch.err" &
WPID=$!
for i in $(seq 300); do grep -q watching "$OUT/watch.err" && break; sleep 0.1; done
check watch_starts grep -q watching "$OUT/watch.err"
check appends_keeps_earlier_line sh -c "head -1 '$LOG' | grep -q from_before"
check nothing_on_stdout test ! -s "$OUT/watch.stdout"

# ---- phase a: plain writing ------------------------------------------------
go a; wait_done a
check phase_a_recorded wait_failures $PHASE "$LOG"

# ---- phase b: rename while records are written, then SIGHUP -----------------
go b
sleep 0.2
mv "$LOG" "$LOG.1"
sleep 0.1 # records keep going to the renamed file until the signal
kill -HUP "$WPID"
wait_done b
check phase_b_split_none_lost wait_failures $((2 * PHASE)) "$LOG.1" "$LOG"
check reopened_new_file test -s "$LOG"
check renamed_file_got_records sh -c "[ \$(grep -c . '$LOG.1') -gt \$((PER_PHASE + 1)) ]"

# ---- phase c: copytruncate at a quiet moment --------------------------------
cp "$LOG" "$LOG.2" && truncate -s 0 "$LOG"
go c; wait_done c
check phase_c_none_lost wait_failures $((3 * PHASE)) "$LOG.1" "$LOG.2" "$LOG"
check truncated_file_starts_at_zero sh -c "head -c 1 '$LOG' | grep -q '{'"

# ---- phase d: copytruncate while records are written -----------------------
go d
for i in 1 2 3 4 5; do
	sleep 0.15
	cp "$LOG" "$LOG.3.$i" && truncate -s 0 "$LOG"
done
wait_done d
touch "$CTL/end" # no truncation after this: the last summaries and the stop record stay
wait "$WPID" # the generator is done: watch writes its last summaries and stops
check watch_exit_status_of_command test $? = 0
FILES=("$LOG.1" "$LOG.2" "$LOG".3.* "$LOG")

# ---- every file: whole JSON lines, no NUL ------------------------------------
# The files watch writes (LOG) and the copies taken at quiet moments (LOG.1
# by rename, LOG.2) hold whole lines only.  A copy taken while records are
# written (LOG.3.*) may end in the head of the record being written when cp
# read the file: the kernel makes a write visible page by page, and cp is
# not watch.  That torn head, and only it, is copytruncate's window too (the
# truncation drops the record's whole line), so it is left out of the count.
ends_with_newline() { [ ! -s "$1" ] || [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]; }
whole_lines() { if ends_with_newline "$1"; then cat "$1"; else sed '$d' "$1"; fi; }
torn_tail_is_a_record_head() { ends_with_newline "$1" || tail -n 1 "$1" | grep -q '^{"'; }
whole_lines_parse() { whole_lines "$1" | jq -c . > /dev/null; }
for f in "${FILES[@]}"; do
	n=$(basename "$f")
	check "no_nul_$n" sh -c "[ \$(tr -d '\\000' < '$f' | wc -c) = \$(wc -c < '$f') ]"
	case $n in
	*.3.*)
		check "every_whole_line_parses_$n" whole_lines_parse "$f"
		check "torn_only_at_the_end_$n" torn_tail_is_a_record_head "$f"
		;;
	*)
		check "every_line_parses_$n" sh -c "jq -c . '$f' > /dev/null"
		check "ends_with_newline_$n" ends_with_newline "$f"
		;;
	esac
done
ALL=$OUT/all.jsonl
for f in "${FILES[@]}"; do whole_lines "$f"; done | grep -v from_before > "$ALL"
total=$(failures_in "$ALL")
check copytruncate_loses_at_most_its_window sh -c "[ $total -le $((4 * PHASE)) ] && [ $total -gt $((3 * PHASE)) ]"
echo "note: $total of $((4 * PHASE)) failures recorded across ${#FILES[@]} files ($(jq -s '[.[] | select(.count)] | length' "$ALL") storm summaries)"

# ---- what every record carries ------------------------------------------------
check every_record_has_time jq -e -s 'all(.[]; .time|test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$"))' "$ALL"
check every_record_has_host jq -e -s --arg h "$(hostname)" 'all(.[]; .host==$h)' "$ALL"
check every_record_has_version jq -e -s 'all(.[]; (.mrtrace_version|length)>0 and .schema=="mrtrace-watch/1")' "$ALL"
check time_follows_clock jq -e -s --arg d "$(date -u +%Y-%m-%d)" 'all(.[]; .time|startswith($d))' "$ALL"
check start_and_stop_once sh -c "[ \$(grep -c '\"event\":\"start\"' '$ALL') = 1 ] && [ \$(grep -c '\"event\":\"stop\"' '$ALL') = 1 ]"
# ns_pid: the pid each process printed inside its namespace, joined to its
# record by the host pid it printed too (proc_pid=, the host's /proc).  Phases
# a-c are complete; phase d may lose what copytruncate's window swallowed, so
# its processes are held only to "what was recorded is right, none twice".
printed_table() { # PHASE...: "host_pid ns_pid" per single process, sorted as comm wants
	local p
	for p in "$@"; do
		sed -n 's/^pid=\([0-9]*\) .* proc_pid=\([0-9]*\)$/\2 \1/p' "$CTL/singles.$p"
	done | sort
}
recorded_table() { # "host_pid ns_pid" per single mlocker record, sorted
	jq -r 'select(.event=="mlock_failure" and (has("count")|not) and .comm=="mlocker") | "\(.pid) \(.ns_pid)"' "$ALL" | sort
}
printed_table a b c d > "$OUT/printed.txt"
recorded_table > "$OUT/recorded.txt"
check printed_pids_complete sh -c "[ \$(wc -l < '$OUT/printed.txt') = $((4 * PER_PHASE)) ]"
# every recorded single is a line some process printed (same host pid, same ns pid)
check ns_pid_is_the_pid_inside sh -c "[ -s '$OUT/recorded.txt' ] && [ -z \"\$(comm -13 '$OUT/printed.txt' '$OUT/recorded.txt')\" ]"
check no_single_recorded_twice sh -c "[ -z \"\$(cut -d' ' -f1 '$OUT/recorded.txt' | uniq -d)\" ]"
# every process of phases a-c has its record
printed_table a b c > "$OUT/printed-abc.txt"
check singles_complete_outside_the_window sh -c "[ -z \"\$(comm -23 '$OUT/printed-abc.txt' '$OUT/recorded.txt')\" ]"
echo "note: phase d: $(printed_table d | comm -12 - "$OUT/recorded.txt" | wc -l) of $PER_PHASE single failures recorded"
check ns_pid_differs_from_pid jq -e -s '[.[] | select(.event=="mlock_failure")] | length > 0 and all(.[]; .ns_pid != .pid and .ns_tid == .ns_pid)' "$ALL"
# the storms: each process's records add up to its failures, joined by the
# namespace pid it printed; exact for phases a-c, at most its count for d
storm_ns_pid() { sed -n 's/^pid=\([0-9]*\) op=mlock .*/\1/p' "$CTL/storm.$1"; }
storms=$(jq -s -c '[.[] | select(.event=="mlock_failure" and .comm=="storm")] | group_by(.ns_pid) | map({key: (.[0].ns_pid|tostring), value: ([.[] | (.count // 1)] | add)}) | from_entries' "$ALL")
echo "note: storm failures recorded per process (ns pid): $storms"
check storms_summed jq -e -n --argjson s "$storms" --argjson n "$STORM_N" \
	--arg a "$(storm_ns_pid a)" --arg b "$(storm_ns_pid b)" --arg c "$(storm_ns_pid c)" --arg d "$(storm_ns_pid d)" \
	'$a != "" and $b != "" and $c != "" and $d != "" and $s[$a] == $n and $s[$b] == $n and $s[$c] == $n and (($s[$d] // 0) <= $n) and ($s|length) <= 4'
check storm_summary_members jq -e -s '[.[] | select(.count)] | length >= 3 and all(.[]; .first_ts_ns <= .last_ts_ns and .ts_ns == .last_ts_ns and .count >= 1)' "$ALL"
stop=$(grep '"event":"stop"' "$ALL")
check stop_no_drops jq -e '.drops==0 and .folded > 0' <<< "$stop"

# ---- SIGHUP on standard output; a file that cannot be reopened ----------------
# (the signal only once the handler is set: attaching takes seconds on a loaded machine)
until_watching() { for _ in $(seq 300); do grep -q watching "$1" && return; sleep 0.1; done; }
"$MRTRACE" watch --json --syscalls=on -d 3 > "$OUT/stdout.jsonl" 2> "$OUT/stdout.err" &
p=$!
until_watching "$OUT/stdout.err"; kill -HUP "$p"; wait "$p"
rc=$?
check sighup_on_stdout_harmless sh -c "[ $rc = 0 ] && grep -q '\"event\":\"stop\"' '$OUT/stdout.jsonl'"
mkdir -p "$OUT/gone"
"$MRTRACE" watch --json --syscalls=on -d 3 -o "$OUT/gone/w.jsonl" 2> "$OUT/gone.err" &
p=$!
until_watching "$OUT/gone.err"; mv "$OUT/gone" "$OUT/gone.moved"; kill -HUP "$p"; wait "$p"
check reopen_failure_said grep -q 'cannot reopen' "$OUT/gone.err"
check reopen_failure_keeps_old_file grep -q '"event":"stop"' "$OUT/gone.moved/w.jsonl"

# ---- the shipped logrotate configuration on a busy watch (issue 31) ---------
# As the unit runs it: standard output appended to the events file (a
# shell's >> opens it O_APPEND, as systemd's StandardOutput=append: does);
# the real logrotate runs contrib/logrotate/mrtrace, its path and its
# postrotate's target made this run's, while failures arrive: the file is
# renamed, a new one created, watch reopens it on SIGHUP; every failure is
# in one of the two files, and what came after the signal (the stop record)
# in the new one.
if command -v logrotate > /dev/null; then
	R=$OUT/shipped; mkdir -p "$R"; mkdir -m 0777 "$R/ctl"
	EV=$R/events.jsonl; N=60
	cat > "$R/gen.sh" <<EOF
exec > /dev/null 2>&1
for i in \$(seq 1200); do [ -e "$R/ctl/go" ] && break; sleep 0.05; done
for i in \$(seq $N); do "$MLOCKER" 1048576; sleep 0.02; done
touch "$R/ctl/done"
for i in \$(seq 1200); do [ -e "$R/ctl/end" ] && break; sleep 0.05; done
EOF
	echo '{"event":"from_before"}' > "$EV"; ino0=$(stat -c %i "$EV")
	"$MRTRACE" watch --json --syscalls=on -- prlimit --memlock=65536:65536 \
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- bash "$R/gen.sh" >> "$EV" 2> "$R/watch.err" &
	RW=$!
	until_watching "$R/watch.err"
	sed -e "s|/var/log/mrtrace/events.jsonl|$EV|" \
		-e "s|systemctl kill .*mrtrace.service|kill -HUP $RW|" "$TOP/contrib/logrotate/mrtrace" > "$R/logrotate.conf"
	check shipped_logrotate_signals_watch grep -q "kill -HUP $RW" "$R/logrotate.conf"
	touch "$R/ctl/go"; sleep 0.5
	logrotate -f -s "$R/state" "$R/logrotate.conf" > "$R/logrotate.out" 2>&1
	check shipped_logrotate_runs test $? = 0
	for i in $(seq 600); do [ -e "$R/ctl/done" ] && break; sleep 0.1; done
	touch "$R/ctl/end"; wait "$RW"
	check shipped_logrotate_renames sh -c "[ \$(stat -c %i '$EV.1') = $ino0 ] && [ \$(stat -c %i '$EV') != $ino0 ]"
	check shipped_logrotate_no_copytruncate sh -c "! grep -q '^[[:space:]]*copytruncate' '$TOP/contrib/logrotate/mrtrace'"
	check shipped_logrotate_after_signal_in_new_file grep -q '"event":"stop"' "$EV"
	check shipped_logrotate_before_in_renamed grep -q '"event":"start"' "$EV.1"
	got=$(failures_in "$EV.1" "$EV")
	check shipped_logrotate_none_lost test "$got" = "$N"
	echo "note: shipped logrotate: $got of $N failures recorded ($(failures_in "$EV.1") before the rotation, $(failures_in "$EV") after)"
	check shipped_logrotate_no_reopen_error sh -c "! grep -q 'cannot reopen' '$R/watch.err'"
else
	echo "skip shipped_logrotate: logrotate not installed"
fi
finish
